"""Errors: one class per problem type of docs/openapi.json, with the problem's fields."""

from __future__ import annotations

import asyncio
import typing

import httpx
import pytest

from agentplex import (
    ERROR_CLASSES,
    Agentplex,
    AgentplexError,
    AsyncAgentplex,
    LocalAgentplex,
    SessionElsewhereError,
    errors,
    models,
)
from agentplex.errors import error_from_response


def test_every_problem_type_has_its_class() -> None:
    for code in typing.get_args(models.ErrorType):
        cls = ERROR_CLASSES[code]
        assert issubclass(cls, AgentplexError) and cls.code == code
        assert getattr(errors, cls.__name__) is cls


def test_a_problem_document_maps_field_for_field() -> None:
    body = (
        b'{"type":"urn:sandbox-agent:error:session_not_found","title":"Not Found","status":404,'
        b'"detail":"session \\"x\\" not found","sessionId":"x","newField":1}'
    )
    error = error_from_response(404, "Not Found", body)
    assert isinstance(error, errors.SessionNotFoundError)
    assert (error.status, error.title, error.session_id) == (404, "Not Found", "x")
    assert error.detail == 'session "x" not found'
    assert error.extras == {"newField": 1}
    assert str(error) == 'Not Found: session "x" not found'


def test_an_answer_without_a_problem_is_unexpected_response() -> None:
    error = error_from_response(502, "Bad Gateway", b"<html>proxy</html>")
    assert isinstance(error, errors.UnexpectedResponseError)
    assert error.status == 502 and error.detail is not None and "<html>" in error.detail


def test_daemon_problems(client: LocalAgentplex) -> None:
    with pytest.raises(errors.SessionNotFoundError) as missing:
        client.session("nosuch").send("hi")
    assert missing.value.session_id == "nosuch" and missing.value.status == 404
    with pytest.raises(errors.UnsupportedAgentError) as unsupported:
        client.create_session("bad-agent", agent="nosuch")
    assert unsupported.value.status == 400
    with pytest.raises(errors.InvalidRequestError):
        client.create_session("bad id!", agent="mock")
    with pytest.raises(errors.PathNotFoundError):
        client.stat_fs("/nonexistent/agentplex-test")


def test_no_daemon_is_a_network_error() -> None:
    with Agentplex("http://127.0.0.1:9") as nowhere, pytest.raises(errors.NetworkError) as caught:
        nowhere.health()
    assert caught.value.status == 0


# A daemon of a fleet (daemons sharing one database), faked: its listing has each session's
# owner, and a session another daemon drives is refused with 409 session_elsewhere.
FLEET_SESSION = {
    "sessionId": "busy",
    "agent": "mock",
    "agentMode": "build",
    "permissionMode": "default",
    "ended": False,
    "eventCount": 2,
    "createdAt": 0,
    "updatedAt": 0,
    "status": "idle",
    "queuedMessages": 0,
    "owner": "first",
    "ownerAlive": True,
}
ELSEWHERE = {
    "type": "urn:sandbox-agent:error:session_elsewhere",
    "title": "Conflict",
    "status": 409,
    "detail": 'session "busy" is driven by daemon "first" of the fleet; ask that daemon',
    "sessionId": "busy",
}


def fleet_daemon(urls: list[str]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        urls.append(str(request.url.raw_path, "ascii"))
        if request.url.path == "/v1/sessions":
            return httpx.Response(200, json={"sessions": [FLEET_SESSION]})
        return httpx.Response(409, json=ELSEWHERE, headers={"content-type": "application/problem+json"})

    return httpx.MockTransport(handler)


def test_list_sessions_sends_scope_only_when_given_and_reads_the_owner() -> None:
    urls: list[str] = []
    with Agentplex("http://daemon", transport=fleet_daemon(urls)) as client:
        [listed] = client.list_sessions()
        client.list_sessions(scope="fleet", timeout=5)
        client.list_sessions(scope="daemon")
    assert urls == ["/v1/sessions", "/v1/sessions?scope=fleet", "/v1/sessions?scope=daemon"]
    assert (listed.session_id, listed.owner, listed.owner_alive) == ("busy", "first", True)


def test_async_list_sessions_sends_scope_only_when_given() -> None:
    urls: list[str] = []

    async def main() -> list[models.SessionInfo]:
        async with AsyncAgentplex("http://daemon", transport=fleet_daemon(urls)) as client:
            await client.list_sessions()
            return await client.list_sessions(scope="fleet")

    [listed] = asyncio.run(main())
    assert urls == ["/v1/sessions", "/v1/sessions?scope=fleet"]
    assert (listed.owner, listed.owner_alive) == ("first", True)


def test_session_elsewhere_is_its_class() -> None:
    with Agentplex("http://daemon", transport=fleet_daemon([])) as client:
        with pytest.raises(SessionElsewhereError) as caught:
            client.get_session("busy")
        with pytest.raises(SessionElsewhereError):
            client.session("busy").send("hi")
    error = caught.value
    assert (error.code, error.status, error.title, error.session_id) == (
        "session_elsewhere",
        409,
        "Conflict",
        "busy",
    )
    assert error.detail is not None and 'daemon "first"' in error.detail
