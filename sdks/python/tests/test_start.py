"""``start()``: the daemon's listening line, its stop, and its failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentplex import BinaryNotFoundError, DaemonExitedError, start

from .conftest import daemon_env


def test_start_reads_the_listening_line_and_stops(binary: str, tmp_path: Path) -> None:
    with start(binary, args=["--ephemeral"], data_dir=tmp_path / "d", env=daemon_env(tmp_path)) as client:
        assert client.base_url.startswith("http://127.0.0.1:")
        assert not client.base_url.endswith(":0")
        assert client.token and client.list_sessions() == []
        process = client.daemon.process
    assert process.poll() is not None


def test_a_missing_binary(tmp_path: Path) -> None:
    with pytest.raises(BinaryNotFoundError):
        start(str(tmp_path / "no-such-binary"))


def test_a_daemon_that_exits_reports_its_stderr(binary: str, tmp_path: Path) -> None:
    with pytest.raises(DaemonExitedError) as caught:
        start(binary, args=["--adapters-dir", str(tmp_path / "missing")], env=daemon_env(tmp_path))
    assert caught.value.exit_code == 1
    assert caught.value.stderr
