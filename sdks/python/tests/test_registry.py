"""The ACP registry's routes (``GET /v1/registry``, ``POST /v1/registry/{agent}``), sync and
async, against daemons reading a registry snapshot file (``--acp-registry FILE``) whose agent's
archive is on a port nothing listens on, so nothing is installed from the network."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentplex import (
    InstallFailedError,
    InvalidRequestError,
    LocalAgentplex,
    StreamError,
    UnsupportedAgentError,
    start,
    start_async,
)

from .conftest import daemon_env

ARCHIVE = {"archive": "http://127.0.0.1:9/none.tar.gz", "cmd": "./demo"}
PLATFORMS = ["linux-x86_64", "linux-aarch64", "darwin-x86_64", "darwin-aarch64", "windows-x86_64"]


def entry(id: str) -> dict[str, Any]:
    """A registry entry installable on every platform a test runs on, from an unreachable archive."""
    binary = {platform: ARCHIVE for platform in PLATFORMS}
    return {
        "id": id,
        "name": f"Name of {id}",
        "version": "1.0.0",
        "description": "d",
        "distribution": {"binary": binary},
    }


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A snapshot listing ``demo-agent`` and ``mock`` (one of the daemon's own agents)."""
    path = tmp_path_factory.mktemp("registry") / "registry.json"
    path.write_text(json.dumps({"version": "1.0.0", "agents": [entry("demo-agent"), entry("mock")]}))
    return path


@pytest.fixture(scope="module")
def client(binary: str, registry: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalAgentplex]:
    """A daemon of its own reading the snapshot."""
    home = tmp_path_factory.mktemp("home")
    args = ["--ephemeral", "--acp-registry", str(registry)]
    with start(binary, args=args, data_dir=home / "data", env=daemon_env(home)) as local:
        yield local


def test_lists_the_snapshot(client: LocalAgentplex, registry: Path) -> None:
    listing = client.list_registry()
    assert listing.source == str(registry)
    assert listing.stale is None
    assert [agent.id for agent in listing.agents] == ["demo-agent", "mock"]
    demo = listing.agents[0]
    assert (demo.name, demo.version, demo.description) == ("Name of demo-agent", "1.0.0", "d")
    assert demo.distributions == ["binary"]
    assert demo.installable and not demo.added
    assert len(client.list_registry(refresh=True).agents) == 2


def test_refuses_an_unknown_agent_and_one_of_the_daemons_own(client: LocalAgentplex) -> None:
    with pytest.raises(UnsupportedAgentError) as unknown:
        client.add_from_registry("no-such-agent")
    assert (unknown.value.status, unknown.value.code) == (404, "unsupported_agent")
    with pytest.raises(InvalidRequestError) as own:
        client.add_from_registry("mock", env=["MOCK_API_KEY"])
    assert (own.value.status, own.value.code) == (409, "invalid_request")
    with pytest.raises(UnsupportedAgentError):
        list(client.add_from_registry_progress("no-such-agent"))
    with pytest.raises(InvalidRequestError) as bad_env:
        client.add_from_registry("demo-agent", env="1-NOT-A-NAME")
    assert bad_env.value.status == 400


def test_an_archive_that_cannot_be_fetched_fails_the_install(client: LocalAgentplex) -> None:
    seen: list[str] = []
    with pytest.raises(InstallFailedError) as failed:
        client.add_from_registry(
            "demo-agent", env=["DEMO_API_KEY"], on_progress=lambda p: seen.append(p["stage"])
        )
    assert (failed.value.status, failed.value.code) == (500, "install_failed")
    assert "http://127.0.0.1:9/none.tar.gz" in (failed.value.detail or "")
    with pytest.raises(InstallFailedError):
        list(client.add_from_registry_progress("demo-agent", reinstall=True))


def test_no_index_is_a_stream_error(binary: str, tmp_path: Path) -> None:
    args = ["--ephemeral", "--acp-registry", "http://127.0.0.1:9/registry.json"]
    with start(binary, args=args, data_dir=tmp_path / "d", env=daemon_env(tmp_path)) as offline:
        with pytest.raises(StreamError) as caught:
            offline.list_registry(max_retries=0)
        assert caught.value.status == 502
        with pytest.raises(StreamError):
            offline.add_from_registry("demo-agent")


def test_the_async_client(binary: str, registry: Path, tmp_path: Path) -> None:
    async def main() -> None:
        args = ["--ephemeral", "--acp-registry", str(registry)]
        env = daemon_env(tmp_path)
        async with await start_async(binary, args=args, data_dir=tmp_path / "d", env=env) as client:
            listing = await client.list_registry(refresh=True)
            demo = listing.agents[0]
            assert (demo.id, demo.distributions, demo.added) == ("demo-agent", ["binary"], False)
            with pytest.raises(UnsupportedAgentError):
                await client.add_from_registry("no-such-agent")
            with pytest.raises(InvalidRequestError):
                await client.add_from_registry("mock")
            with pytest.raises(InstallFailedError):
                await client.add_from_registry("demo-agent", env=["DEMO_API_KEY"])
            with pytest.raises(InstallFailedError):
                _ = [event async for event in client.add_from_registry_progress("demo-agent")]

    asyncio.run(main())
