"""``start()``: the binary it finds (``agentplex`` first), the token's variables, the daemon's
listening line (both forms), its stop, and its failures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import agentplex.daemon_binary
from agentplex import (
    Agentplex,
    BinaryNotFoundError,
    DaemonExitedError,
    PortInUseError,
    TimeoutError,
    TokenInvalidError,
    UnexpectedResponseError,
    find_binary,
    start,
)
from agentplex.local import _launch

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


def script(path: Path, body: str) -> str:
    """An executable shell script."""
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def renamed_binary(binary: str, folder: Path) -> str:
    """The binary under test as ``agentplex`` in a folder of its own. A binary from before the
    rename reads only SANDBOX_AGENT_TOKEN: the script then hands it AGENTPLEX_TOKEN under that
    name, and refuses to run when start() gave SANDBOX_AGENT_TOKEN (an ``agentplex`` binary
    gets only AGENTPLEX_TOKEN)."""
    folder.mkdir()
    path = folder / "agentplex"
    if os.path.basename(binary) == "agentplex":
        path.symlink_to(binary)
        return str(path)
    return script(
        path,
        '[ -z "$SANDBOX_AGENT_TOKEN" ] || { echo "SANDBOX_AGENT_TOKEN given" >&2; exit 3; }\n'
        f'SANDBOX_AGENT_TOKEN="$AGENTPLEX_TOKEN" exec "{binary}" "$@"',
    )


def test_agentplex_comes_before_sandbox_agent(
    binary: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    renamed = renamed_binary(binary, tmp_path / "new")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "sandbox-agent").symlink_to(binary)
    monkeypatch.delenv("AGENTPLEX_BIN", raising=False)
    monkeypatch.delenv("SANDBOX_AGENT_BIN", raising=False)
    # sandbox-agent comes first on PATH: agentplex is still preferred.
    monkeypatch.setenv("PATH", f"{tmp_path / 'old'}:{tmp_path / 'new'}")
    assert find_binary() == renamed
    monkeypatch.setenv("PATH", str(tmp_path / "old"))
    assert find_binary() == str(tmp_path / "old" / "sandbox-agent")
    monkeypatch.setenv("SANDBOX_AGENT_BIN", str(tmp_path / "nope"))
    monkeypatch.setenv("AGENTPLEX_BIN", renamed)
    assert find_binary() == renamed
    env = {**daemon_env(tmp_path), "PATH": os.environ["PATH"]}
    with start(args=["--ephemeral"], data_dir=tmp_path / "d", env=env) as client:
        assert client.daemon.binary == renamed
        assert client.list_sessions() == []
        with pytest.raises(TokenInvalidError):
            Agentplex(client.base_url).list_sessions()


def test_the_token_goes_by_the_environment_only(binary: str, tmp_path: Path) -> None:
    # Token variables of the caller (here files that do not exist) are not passed on.
    missing = str(tmp_path / "nope")
    env = {**daemon_env(tmp_path), "AGENTPLEX_TOKEN_FILE": missing, "SANDBOX_AGENT_TOKEN_FILE": missing}
    with start(binary, token="given-token", args=["--ephemeral"], data_dir=tmp_path / "d", env=env) as client:
        assert client.token == "given-token" and client.list_sessions() == []
        assert "given-token" not in " ".join(client.daemon.process.args)  # type: ignore[arg-type]
    # A binary named sandbox-agent (0.2 and older read only that name) gets both names.
    old = daemon_env_of("/old/bin/sandbox-agent", "t")
    assert old == {"AGENTPLEX_TOKEN": "t", "SANDBOX_AGENT_TOKEN": "t"}
    assert daemon_env_of("/bin/agentplex", "t") == {"AGENTPLEX_TOKEN": "t"}


def daemon_env_of(binary: str, token: str) -> dict[str, str]:
    """The token variables ``start()`` gives a binary of that name."""
    env = agentplex.daemon_binary.daemon_env({"SANDBOX_AGENT_TOKEN": "other"}, binary, token)
    return {name: value for name, value in env.items() if "TOKEN" in name}


@pytest.mark.parametrize(
    ("line", "port"),
    [
        ("sandbox-agent listening on http://127.0.0.1:4321", 4321),
        ("agentplex listening on http://127.0.0.1:4322", 4322),
        ('{"level":"INFO","fields":{"message":"agentplex listening on http://127.0.0.1:4323"}}', 4323),
    ],
)
def test_both_listening_lines(tmp_path: Path, line: str, port: int) -> None:
    liar = script(tmp_path / "liar.sh", f"echo '{line}'\nexec sleep 30")
    daemon, base_url, _ = _launch(liar, "127.0.0.1", 0, None, None, (), None, "pipe", 10)
    daemon.stop(grace=1)
    assert base_url == f"http://127.0.0.1:{port}"


def test_another_first_line_a_silent_binary_and_a_port_in_use(binary: str, tmp_path: Path) -> None:
    other = script(tmp_path / "other.sh", "echo 'hello from something else'\nexec sleep 30")
    with pytest.raises(UnexpectedResponseError):
        start(other)
    sleeps = script(tmp_path / "sleeps.sh", "exec sleep 30")
    with pytest.raises(TimeoutError) as caught:
        start(sleeps, timeout=0.3)
    assert (caught.value.code, caught.value.status) == ("timeout", 0)
    with start(binary, args=["--ephemeral"], data_dir=tmp_path / "d", env=daemon_env(tmp_path)) as first:
        port = int(first.base_url.rsplit(":", 1)[1])
        with pytest.raises(PortInUseError):
            start(binary, port=port, args=["--ephemeral"], env=daemon_env(tmp_path))
