#!/usr/bin/env python3
"""A minimal agent of the Agent Client Protocol for the registry tests: it answers
`initialize`, `session/new` and `session/load`, and answers each prompt with one
message chunk saying what it was started with (its arguments and the variable
`ECHO_GREETING`) and the prompt's text, then `end_turn`. It offers two models and
two modes (`session/set_model` and `session/set_mode` pick one, and the answers
then name it) and answers
`session/new` after `ECHO_NEW_DELAY` seconds when that is set. The tests install it
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


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    started = "args=%s greeting=%s" % (sys.argv[1:], os.environ.get("ECHO_GREETING"))
    model = mode = None
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
            result = {"sessionId": "echo-%d" % os.getpid(), "models": MODELS, "modes": MODES}
        elif method == "session/load":
            result = {"models": MODELS, "modes": MODES}
        elif method == "session/set_model":
            model = params.get("modelId")
            result = {}
        elif method == "session/set_mode":
            mode = params.get("modeId")
            result = {}
        elif method == "session/prompt":
            text = " ".join(p.get("text", "") for p in params.get("prompt", []))
            said = "%s echo: %s" % (started, text)
            if model:
                said += " (model %s)" % model
            if mode:
                said += " (mode %s)" % mode
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
