"""``events()`` resumes after a dropped connection: the daemon restarts on the same address and
data dir while a consumer iterates, and the consumer sees every event once, in order."""

from __future__ import annotations

import threading
from pathlib import Path

from agentplex import Agentplex, UniversalEvent, start

from .conftest import daemon_env


def test_events_resume_across_a_daemon_restart(binary: str, tmp_path: Path) -> None:
    env = daemon_env(tmp_path)
    data = tmp_path / "data"
    first = start(binary, data_dir=data, env=env, token="resume-token")
    port = int(first.base_url.rsplit(":", 1)[1])
    client = Agentplex(first.base_url, token="resume-token")
    session = client.create_session("resume", agent="mock")

    seen: list[UniversalEvent] = []
    turns_ended = threading.Semaphore(0)
    failure: list[BaseException] = []

    def consume() -> None:
        try:
            for event in session.events(retry_delay=0.1):
                seen.append(event)
                if event.type == "turn.ended":
                    turns_ended.release()
        except BaseException as error:
            failure.append(error)
            turns_ended.release()

    consumer = threading.Thread(target=consume, daemon=True)
    consumer.start()
    session.send("echo before the restart")
    assert turns_ended.acquire(timeout=30) and not failure

    first.stop()
    second = start(binary, data_dir=data, env=env, token="resume-token", port=port)
    try:
        session.send("echo after the restart")
        assert turns_ended.acquire(timeout=60) and not failure, failure
        session.terminate()
        consumer.join(timeout=30)
        assert not consumer.is_alive() and not failure
    finally:
        client.close()
        second.stop()

    sequences = [e.sequence for e in seen]
    assert sequences == list(range(1, len(sequences) + 1)), sequences
    assert seen[-1].type == "session.ended"
    texts = [e for e in seen if e.type == "turn.ended"]
    assert len(texts) == 2
