#!/usr/bin/env python3
"""A minimal agent of the Agent Client Protocol for the registry tests: it answers
`initialize`, `session/new` and `session/load`, and answers each prompt with one
message chunk saying what it was started with (its arguments and the variable
`ECHO_GREETING`) and the prompt's text, then `end_turn`. It offers two models and
two modes (`session/set_model` and `session/set_mode` pick one, and the answers
then name it) and answers
`session/new` after `ECHO_NEW_DELAY` seconds when that is set. With
`ECHO_CONFIG_OPTIONS` set it offers them as session configuration options
instead (`configOptions`, set with `session/set_config_option`), with a thought
level for its large model, which answers then name too. The tests install it
as a registry agent would be (a release archive, a PyPI wheel) and run it through
the generic ACP adapter."""

import json
import os
import sys
import time

MODELS = {"currentModelId": "echo-small", "availableModels": [
    {"modelId": "echo-small", "name": "Echo Small"},
    {"modelId": "echo-large", "name": "Echo Large", "description": "echoes louder"},
]}
MODES = {"currentModeId": "quiet", "availableModes": [
    {"id": "quiet", "name": "Quiet", "description": "echoes"},
    {"id": "loud", "name": "Loud", "description": "echoes in capitals"},
]}

EFFORTS = {"echo-large": ["low", "high"]}


def select(ident, category, current, choices):
    """A configuration option of `category` offering `choices` (id, name)."""
    options = [{"value": value, "name": name} for value, name in choices]
    return {"id": ident, "name": ident.title(), "category": category,
            "type": "select", "currentValue": current, "options": options}


def config_options(model, mode, effort):
    """The session's configuration options; `effort` is the large model's."""
    model = model or MODELS["currentModelId"]
    options = [
        select("approval", "mode", mode or MODES["currentModeId"],
               [(m["id"], m["name"]) for m in MODES["availableModes"]]),
        select("model", "model", model,
               [(m["modelId"], m["name"]) for m in MODELS["availableModels"]]),
    ]
    if model in EFFORTS:
        levels = EFFORTS[model]
        options.append(select("effort", "thought_level", effort or levels[0],
                              [(level, level.title()) for level in levels]))
    return options


def offer(model, mode, effort):
    """What `session/new` and `session/load` answers offer."""
    if os.environ.get("ECHO_CONFIG_OPTIONS"):
        return {"configOptions": config_options(model, mode, effort)}
    return {"models": MODELS, "modes": MODES}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    started = "args=%s greeting=%s" % (sys.argv[1:], os.environ.get("ECHO_GREETING"))
    model = mode = effort = None
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, ident = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if method == "initialize":
            result = {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}}
        elif method == "session/new":
            time.sleep(float(os.environ.get("ECHO_NEW_DELAY") or 0))
            result = {"sessionId": "echo-%d" % os.getpid(), **offer(model, mode, effort)}
        elif method == "session/load":
            result = offer(model, mode, effort)
        elif method == "session/set_model":
            model = params.get("modelId")
            result = {}
        elif method == "session/set_mode":
            mode = params.get("modeId")
            result = {}
        elif method == "session/set_config_option" and os.environ.get("ECHO_CONFIG_OPTIONS"):
            options = {o["id"]: o for o in config_options(model, mode, effort)}
            option, value = options.get(params.get("configId")), params.get("value")
            if option is None or value not in [o["value"] for o in option["options"]]:
                send({"jsonrpc": "2.0", "id": ident, "error": {
                    "code": -32602, "message": "no %s %s" % (params.get("configId"), value)}})
                continue
            if option["id"] == "model":
                model, effort = value, None
            elif option["id"] == "approval":
                mode = value
            else:
                effort = value
            result = {"configOptions": config_options(model, mode, effort)}
        elif method == "session/prompt":
            text = " ".join(p.get("text", "") for p in params.get("prompt", []))
            said = "%s echo: %s" % (started, text)
            if model:
                said += " (model %s)" % model
            if mode:
                said += " (mode %s)" % mode
            if effort:
                said += " (effort %s)" % effort
            chunk = {"type": "text", "text": said}
            update = {"sessionUpdate": "agent_message_chunk", "content": chunk}
            send({"jsonrpc": "2.0", "method": "session/update",
                  "params": {"sessionId": params.get("sessionId"), "update": update}})
            result = {"stopReason": "end_turn"}
        elif ident is None:
            continue
        else:
            send({"jsonrpc": "2.0", "id": ident,
                  "error": {"code": -32601, "message": "method not found"}})
            continue
        send({"jsonrpc": "2.0", "id": ident, "result": result})


if __name__ == "__main__":
    main()
