"""Schemathesis hooks of scripts/check-openapi.sh: what makes every route safe to
fuzz on this machine, and what the test knows that a static document cannot.

The daemon runs with `--fs-root` on a scratch folder (also its `HOME`), `--no-install`
and installs from an unreachable mirror, so files and working directories stay in the
scratch folder and nothing is downloaded. On top of that, every request is made
harmless just before it is sent (`before_call`, which every phase goes through):

- a process (`POST /v1/processes`, `/v1/processes/run`) runs `true`, whatever command
  was drawn (its arguments, environment, terminal and working directory stay drawn);
- an install or a session names the builtin `mock` agent instead of a real one (an
  install of a real agent would download it); the ACP registry the daemon reads lists
  one agent with nothing to install on this platform, so adding one installs nothing;
- a message never starts with a mock command that runs a shell or sleeps;
- an ACP connection runs the `mock` agent, and the stream of an ACP connection
  (`GET /v1/acp/{server_id}`, `GET /acp/{agent}`) is asked of one that is not open: an
  open one streams until it closes, which no fuzzed request does (the streams are
  tested in runtime/tests/http_api/acp.rs).

What depends on the daemon's agents cannot be in the served document (it is the same
for every set of adapters): `agent` is one of those `GET /v1/agents` lists, `agentMode`
one of its modes, `mcp` and `skills` only for an agent with those capabilities. The
test narrows `CreateSessionRequest` and `SessionModes` to the `mock` agent's values, read
from the daemon.
A request outside them stays in the negative cases, which must be refused.

A tar archive body (`POST /v1/fs/upload-batch`) is a real archive of the drawn bytes;
a session archive (`POST /v1/sessions/{id}/import`, gzip) is that archive compressed.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
import urllib.request
from typing import Any

import schemathesis

URL = os.environ["OPENAPI_CHECK_URL"]
TOKEN = os.environ["OPENAPI_CHECK_TOKEN"]
# The absolute path of `true`: a drawn `env` may set `PATH` to anything.
TRUE = os.environ["OPENAPI_CHECK_TRUE"]
HARMLESS_AGENT = "mock"
# Mock commands that run a shell command or wait (docs/mock-agent.md).
MOCK_COMMANDS_TO_AVOID = ("shell", "slow")


def get(path: str) -> Any:
    request = urllib.request.Request(URL + path, headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


AGENTS = {agent["id"]: agent for agent in get("/v1/agents")["agents"]}
MOCK_MODES = [mode["id"] for mode in get(f"/v1/agents/{HARMLESS_AGENT}/modes")["modes"]]


@schemathesis.hook
def before_load_schema(context: Any, raw_schema: dict[str, Any]) -> None:
    """Narrows a session's agent-dependent fields to the `mock` agent's values."""
    request = raw_schema["components"]["schemas"]["CreateSessionRequest"]["properties"]
    request["agent"] = {"type": "string", "enum": [HARMLESS_AGENT]}
    request["agentMode"] = {"type": ["string", "null"], "enum": [*MOCK_MODES, None]}
    # The sessions whose modes change are the mock's too.
    modes = raw_schema["components"]["schemas"]["SessionModes"]["properties"]
    modes["agentMode"] = {"type": ["string", "null"], "enum": [*MOCK_MODES, None]}
    capabilities = AGENTS[HARMLESS_AGENT]["capabilities"]
    if not capabilities.get("mcpServers"):
        request["mcp"] = {**request["mcp"], "maxProperties": 0}
    if not capabilities.get("skills"):
        request["skills"] = {"type": "null"}


def first_word(text: Any) -> str:
    return text.split(maxsplit=1)[0].lower() if isinstance(text, str) and text.strip() else ""


def defuse_message(body: dict[str, Any]) -> None:
    """Puts `echo` before a message whose first word would run a shell or wait."""
    if first_word(body.get("message")) in MOCK_COMMANDS_TO_AVOID:
        body["message"] = "echo " + body["message"]
    for part in body.get("parts") or []:
        if isinstance(part, dict) and first_word(part.get("text")) in MOCK_COMMANDS_TO_AVOID:
            part["text"] = "echo " + part["text"]


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    """Makes the request harmless (see the module's description)."""
    path = case.operation.path
    body = case.body if isinstance(case.body, dict) else None
    parameters = case.path_parameters or {}
    if path in ("/v1/processes", "/v1/processes/run") and body is not None:
        if isinstance(body.get("command"), str) and body["command"]:
            body["command"] = TRUE
    elif path == "/v1/agents/{agent}/install":
        if isinstance(parameters.get("agent"), str) and parameters["agent"] in AGENTS:
            parameters["agent"] = HARMLESS_AGENT
    elif path == "/v1/sessions/{session_id}" and case.method.upper() == "POST" and body is not None:
        if isinstance(body.get("agent"), str) and body["agent"] in AGENTS:
            body["agent"] = HARMLESS_AGENT
    elif path.startswith("/v1/sessions/{session_id}/messages") and body is not None:
        defuse_message(body)
    elif path == "/v1/acp/{server_id}":
        query = case.query if isinstance(case.query, dict) else None
        if query is not None and query.get("agent") in AGENTS:
            query["agent"] = HARMLESS_AGENT
        if case.method.upper() == "GET":
            parameters["server_id"] = "not-open"
    elif path == "/acp/{agent}":
        if parameters.get("agent") in AGENTS:
            parameters["agent"] = HARMLESS_AGENT
        if case.method.upper() == "GET" and isinstance(case.headers, dict):
            case.headers["Acp-Connection-Id"] = "not-open"


@schemathesis.serializer("application/x-tar")
def tar_archive(context: Any, value: Any) -> bytes:
    """The drawn bytes as one file of a tar archive; anything else as it is, not an archive."""
    return tar_of(value)


@schemathesis.serializer("application/gzip")
def session_archive(context: Any, value: Any) -> bytes:
    """A gzip-compressed tar of the drawn bytes (not a session archive: the import refuses it)."""
    return gzip.compress(tar_of(value))


def tar_of(value: Any) -> bytes:
    """The drawn bytes as one file of a tar archive; anything else as it is, not an archive."""
    data = getattr(value, "data", value)
    if not isinstance(data, bytes):
        return json.dumps(value, default=str).encode()
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as archive:
        member = tarfile.TarInfo("uploaded.bin")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    return out.getvalue()
