"""The filesystem routes (/v1/fs/*)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from agentplex import LocalAgentplex, PathConflictError


def tar_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_files_round_trip(client: LocalAgentplex, tmp_path: Path) -> None:
    root = str(tmp_path)
    written = client.write_fs_file(f"{root}/notes/a.md", "# Notes\n")
    assert written.bytes_written == 8
    assert client.read_fs_file(f"{root}/notes/a.md") == b"# Notes\n"
    client.write_fs_file(f"{root}/big.bin", iter([b"x" * 70000, b"y" * 70000]))
    assert b"".join(client.read_fs_file_stream(f"{root}/big.bin")) == b"x" * 70000 + b"y" * 70000
    stat = client.stat_fs(f"{root}/notes/a.md")
    assert (stat.entry_type, stat.size) == ("file", 8)
    assert client.mkdir_fs(f"{root}/dir/sub").path == f"{root}/dir/sub"
    moved = client.move_fs(f"{root}/notes/a.md", f"{root}/dir/b.md")
    assert moved.to == f"{root}/dir/b.md"
    client.write_fs_file(f"{root}/c.md", b"c")
    with pytest.raises(PathConflictError):
        client.move_fs(f"{root}/c.md", f"{root}/dir/b.md")
    client.move_fs(f"{root}/c.md", f"{root}/dir/b.md", overwrite=True)
    names = [(e.name, e.entry_type) for e in client.list_fs_entries(f"{root}/dir")]
    assert names == [("b.md", "file"), ("sub", "directory")]
    uploaded = client.upload_fs_batch(tar_of({"x/y.txt": b"y"}), path=f"{root}/up")
    assert not uploaded.truncated and uploaded.paths
    assert client.read_fs_file(f"{root}/up/x/y.txt") == b"y"
    with pytest.raises(PathConflictError):
        client.delete_fs_entry(f"{root}/dir")
    assert client.delete_fs_entry(f"{root}/dir", recursive=True).path == f"{root}/dir"
    assert not (tmp_path / "dir").exists()


def test_paths_relative_to_a_session(client: LocalAgentplex, tmp_path: Path) -> None:
    client.create_session("fs-session", agent="mock", directory=str(tmp_path))
    client.write_fs_file("rel.txt", b"hi", session_id="fs-session")
    assert (tmp_path / "rel.txt").read_bytes() == b"hi"
    assert [e.name for e in client.list_fs_entries(session_id="fs-session")] == ["rel.txt"]
