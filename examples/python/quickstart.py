"""A tour of the Python SDK against a local daemon and its `mock` agent: create a session,
stream a turn as it happens, answer a permission request, and list the session's files.

    AGENTPLEX_BIN=target/debug/agentplex python examples/python/quickstart.py
"""

from __future__ import annotations

import tempfile

from agentplex import PermissionEventData, UniversalEvent, models, start


def allow(request: PermissionEventData, event: UniversalEvent) -> models.PermissionReply:
    """Answers every permission request: once."""
    print(f"  permission asked: {request.action} {request.metadata} -> once")
    return "once"


def main() -> None:
    with (
        tempfile.TemporaryDirectory(prefix="agentplex-example-") as workdir,
        start(args=["--ephemeral"]) as client,
    ):
        print(f"daemon {client.health().version} at {client.base_url}")
        session = client.create_session("quickstart", agent="mock", directory=workdir)

        # Stream a turn: deltas arrive as the agent writes.
        print("turn 1:")
        for event in session.stream("echo hello from Python"):
            if event.type == "item.delta" and isinstance(event.data, models.ItemDeltaData):
                print(f"  delta {event.data.delta!r}")
            else:
                print(f"  {event.sequence} {event.type}")

        # A turn that asks for permission; the callback answers it.
        result = session.prompt("permission ls", on_permission=allow)
        print(f"turn 2: {result.text}")

        # Files of the session's directory.
        client.write_fs_file("notes.md", "# Notes\n", session_id=session.id)
        for entry in client.list_fs_entries(session_id=session.id):
            print(f"file {entry.name} ({entry.entry_type}, {entry.size} bytes)")
        session.terminate()


if __name__ == "__main__":
    main()
