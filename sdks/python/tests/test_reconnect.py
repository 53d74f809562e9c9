"""``events()`` reconnection without a daemon: an ``httpx.MockTransport`` that drops the
stream, answers 503, and checks that each reconnect sends ``Last-Event-ID``."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from agentplex import Agentplex, AgentplexError, NetworkError, StreamError


def event(sequence: int, kind: str = "item.delta") -> dict[str, Any]:
    data: dict[str, Any] = {"item_id": "itm_1", "delta": str(sequence)}
    if kind == "session.ended":
        data = {"reason": "terminated", "terminated_by": "daemon"}
    return {
        "event_id": f"evt_{sequence}",
        "sequence": sequence,
        "time": "2026-01-01T00:00:00Z",
        "session_id": "s",
        "source": "agent",
        "synthetic": False,
        "type": kind,
        "data": data,
    }


def sse(*events: dict[str, Any]) -> bytes:
    frames = [f": keep-alive\n\nid: {e['sequence']}\ndata: {json.dumps(e)}\n\n" for e in events]
    return "".join(frames).encode()


SESSION = {
    "sessionId": "s",
    "agent": "mock",
    "agentMode": "build",
    "permissionMode": "default",
    "ended": False,
    "eventCount": 2,
    "createdAt": 0,
    "updatedAt": 0,
    "status": "running",
    "queuedMessages": 0,
}


class Dropping(httpx.SyncByteStream):
    """A body that sends some bytes, then fails as a dropped connection does."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    def __iter__(self) -> Any:
        yield self.body
        raise httpx.RemoteProtocolError("peer closed connection")


def test_events_reconnect_with_last_event_id_without_duplicates() -> None:
    seen_ids: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/sessions/s":
            return httpx.Response(200, json=SESSION)
        assert request.url.path == "/v1/sessions/s/events/sse"
        seen_ids.append(request.headers.get("last-event-id"))
        attempt = len(seen_ids)
        if attempt == 1:
            return httpx.Response(200, stream=Dropping(sse(event(1), event(2))))
        if attempt == 2:
            return httpx.Response(503, text="busy")
        # The daemon resends from the last id; an overlap would be dropped, a gap filled.
        return httpx.Response(200, content=sse(event(2), event(3), event(4, "session.ended")))

    with Agentplex("http://daemon", transport=httpx.MockTransport(handler)) as client:
        events = list(client.session("s").events(retry_delay=0.01))
    assert [e.sequence for e in events] == [1, 2, 3, 4]
    assert seen_ids == [None, "2", "2"]


def test_a_gap_is_filled_from_the_events_page() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/events"):
            assert request.url.params["offset"] == "1"
            return httpx.Response(200, json={"events": [event(2), event(3)], "hasMore": True})
        return httpx.Response(200, content=sse(event(1), event(4, "session.ended")))

    with Agentplex("http://daemon", transport=httpx.MockTransport(handler)) as client:
        assert [e.sequence for e in client.session("s").events()] == [1, 2, 3, 4]


def test_a_stream_that_keeps_failing_raises_stream_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    with Agentplex("http://daemon", transport=httpx.MockTransport(handler)) as client:
        with pytest.raises(StreamError) as caught:
            list(client.session("s").events(max_retries=2, retry_delay=0.001))
    assert caught.value.session_id == "s"


class AsyncDropping(httpx.AsyncByteStream):
    """``Dropping`` for the async client."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __aiter__(self) -> Any:
        yield self.body
        raise httpx.RemoteProtocolError("peer closed connection")


def test_async_events_reconnect_the_same_way() -> None:
    import asyncio

    from agentplex import AsyncAgentplex

    seen_ids: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen_ids.append(request.headers.get("last-event-id"))
        if len(seen_ids) == 1:
            return httpx.Response(200, stream=AsyncDropping(sse(event(1), event(2))))
        return httpx.Response(200, content=sse(event(2), event(3, "session.ended")))

    async def main() -> list[int]:
        async with AsyncAgentplex("http://daemon", transport=httpx.MockTransport(handler)) as client:
            return [e.sequence async for e in client.session("s").events(retry_delay=0.01)]

    assert asyncio.run(main()) == [1, 2, 3]
    assert seen_ids == [None, "2"]


def test_idempotent_requests_are_retried_and_posts_never() -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        if request.method == "GET" and len(calls) == 1:
            raise httpx.ConnectError("refused")
        if len(calls) <= 2:
            return httpx.Response(503, text="busy")
        if request.method == "GET":
            return httpx.Response(200, json={"status": "ok", "version": "0"})
        return httpx.Response(503, text="busy")

    with Agentplex("http://daemon", transport=httpx.MockTransport(handler), retry_delay=0.001) as client:
        assert client.health().status == "ok"
        assert calls == ["GET", "GET", "GET"]
        calls.clear()
        calls.extend(["x", "x"])  # past the GET's special cases
        with pytest.raises(AgentplexError) as caught:
            client.session("s").send("hello")
        assert caught.value.status == 503
        assert calls == ["x", "x", "POST"], "a POST is sent once"
    with Agentplex("http://daemon", transport=httpx.MockTransport(handler), max_retries=0) as client:
        calls.clear()
        with pytest.raises(NetworkError):
            client.health()
        assert calls == ["GET"]


def test_a_put_of_bytes_is_retried_a_streamed_one_never_and_a_call_may_say_how_often() -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        request.read()
        return httpx.Response(503, text="busy")

    with Agentplex("http://daemon", transport=httpx.MockTransport(handler), retry_delay=0.001) as client:
        with pytest.raises(AgentplexError):
            client.write_fs_file("/x", b"abc")
        assert calls == ["PUT"] * 3
        calls.clear()
        with pytest.raises(AgentplexError):
            client.write_fs_file("/x", iter([b"abc"]))
        assert calls == ["PUT"], "a stream cannot be sent again"
        calls.clear()
        with pytest.raises(AgentplexError):
            client.list_agents(max_retries=4)
        assert calls == ["GET"] * 5
