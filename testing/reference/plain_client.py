#!/usr/bin/env python3
"""Measures daemons the way a plain client outside the project does, side by side:
no client library, one process, the shipped binaries.

Usage: plain_client.py NAME=BINARY [NAME=BINARY ...]
  e.g. plain_client.py ours=target/x86_64-unknown-linux-musl/dist/agentplex \\
                       0.1.11=/path/to/sandbox-agent

For each round (PLAIN_ROUNDS, 2), each binary in turn, in a fresh HOME, on loopback,
without a token:

1. Turns over one open SSE stream: one `mock` session, its
   `GET /v1/sessions/{id}/events/sse` open on a socket, PLAIN_TURNS (20) messages one
   after another, each timed from just before its `POST` to the turn's first event
   (`turn.started`) on the stream. No warm-up: the first turns count. Twice: each
   `POST` on a new connection (what `curl` or `urllib` do), then every `POST` on one
   kept-alive connection (what a client library with a pool does).
2. PLAIN_SESSIONS (1,000) `mock` sessions, PLAIN_CONCURRENCY (16) at a time, each
   created, sent one message, and followed on its own SSE stream until `turn.ended`;
   the daemon's PSS (`/proc/PID/smaps_rollup`) at once after the last turn ended,
   and again 1 s later.

Prints one line per figure and round, and the ratio of each binary to the last one
named. Not a test: it asserts nothing.
"""
import concurrent.futures
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

TURNS = int(os.environ.get("PLAIN_TURNS", "20"))
SESSIONS = int(os.environ.get("PLAIN_SESSIONS", "1000"))
CONCURRENCY = int(os.environ.get("PLAIN_CONCURRENCY", "16"))
ROUNDS = int(os.environ.get("PLAIN_ROUNDS", "2"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(binary, ours):
    home = tempfile.mkdtemp(prefix="plain-client-")
    port = free_port()
    args = [binary, "server", "--no-token", "--host", "127.0.0.1", "--port", str(port)]
    if ours:
        args += ["--data-dir", f"{home}/data"]
    else:
        args += ["--no-telemetry"]
    env = dict(os.environ, HOME=home, XDG_DATA_HOME=f"{home}/.local/share",
               XDG_CACHE_HOME=f"{home}/.cache", XDG_CONFIG_HOME=f"{home}/.config")
    env.pop("AGENTPLEX_TOKEN", None)
    child = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if request(port, "GET", "/v1/health")[0] == 200:
                return child, port
        except OSError:
            pass
        time.sleep(0.02)
    child.kill()
    raise SystemExit(f"{binary} did not answer /v1/health within 30 s")


def request(port, method, path, body=None, connection=None):
    """One request; on a new connection unless one is given. Returns (status, body)."""
    own = connection is None
    conn = connection or http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"content-type": "application/json"} if body is not None else {}
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    answer = conn.getresponse()
    data = answer.read()
    if own:
        conn.close()
    return answer.status, data


class Stream:
    """A `GET .../events/sse` read off a plain socket, one event at a time."""

    def __init__(self, port, session):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.sendall(f"GET /v1/sessions/{session}/events/sse HTTP/1.1\r\n"
                          f"Host: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
        self.raw = b""
        self.body = b""
        self.chunked = None  # known once the headers are read

    def _read(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise RuntimeError("the SSE stream ended")
        self.raw += chunk

    def _fill(self):
        """Moves what has arrived of the body (de-chunked) from `raw` to `body`."""
        if self.chunked is None:
            while b"\r\n\r\n" not in self.raw:
                self._read()
            head, self.raw = self.raw.split(b"\r\n\r\n", 1)
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(f"SSE answered {head.splitlines()[0]!r}")
            self.chunked = b"transfer-encoding: chunked" in head.lower()
        if not self.chunked:
            self.body += self.raw
            self.raw = b""
            return
        while b"\r\n" in self.raw:
            size_line, rest = self.raw.split(b"\r\n", 1)
            size = int(size_line.split(b";")[0], 16)
            if len(rest) < size + 2:
                return
            self.body += rest[:size]
            self.raw = rest[size + 2:]

    def next_type(self, timeout=60):
        """The `type` of the next event."""
        self.sock.settimeout(timeout)
        while True:
            self._fill()
            while b"\n" in self.body:
                line, self.body = self.body.split(b"\n", 1)
                if line.startswith(b"data:"):
                    return json.loads(line[5:].strip()).get("type")
            self._read()

    def until(self, kind):
        while self.next_type() != kind:
            pass

    def close(self):
        self.sock.close()


def create(port, session):
    status, data = request(port, "POST", f"/v1/sessions/{session}", {"agent": "mock"})
    if status not in (200, 201):
        raise RuntimeError(f"creating {session}: {status} {data[:200]!r}")


def send(port, session, text, connection=None):
    status, data = request(port, "POST", f"/v1/sessions/{session}/messages",
                           {"message": text}, connection)
    if status not in (200, 204):
        raise RuntimeError(f"message to {session}: {status} {data[:200]!r}")


def turns(port, session, keep_alive):
    create(port, session)
    stream = Stream(port, session)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60) if keep_alive else None
    samples = []
    for i in range(TURNS):
        begin = time.perf_counter()
        send(port, session, f"ping {i}", connection)
        stream.until("turn.started")
        samples.append(time.perf_counter() - begin)
        stream.until("turn.ended")
    stream.close()
    if connection:
        connection.close()
    return samples


def one_session(port, i):
    session = f"plain-{i}"
    create(port, session)
    stream = Stream(port, session)
    send(port, session, "hello")
    stream.until("turn.ended")
    stream.close()


def pss_kib(pid):
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            if line.startswith("Pss:"):
                return int(line.split()[1])
    return 0


def measure(binary, ours):
    child, port = start(binary, ours)
    try:
        figures = {}
        time.sleep(0.3)
        figures["PSS idle (MiB)"] = pss_kib(child.pid) / 1024
        for label, keep_alive in [("new connection", False), ("kept alive", True)]:
            samples = turns(port, f"turns-{'k' if keep_alive else 'n'}", keep_alive)
            figures[f"POST -> first event, {label}, median (us)"] = statistics.median(samples) * 1e6
            figures[f"POST -> first event, {label}, first turn (us)"] = samples[0] * 1e6
        begin = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(CONCURRENCY) as pool:
            list(pool.map(lambda i: one_session(port, i), range(SESSIONS)))
        figures[f"PSS at once after {SESSIONS} turns (MiB)"] = pss_kib(child.pid) / 1024
        took = time.monotonic() - begin
        time.sleep(1)
        figures[f"PSS 1 s after {SESSIONS} turns (MiB)"] = pss_kib(child.pid) / 1024
        figures[f"{SESSIONS} sessions with their turn (s)"] = took
        return figures
    finally:
        child.terminate()
        child.wait(10)


def main():
    binaries = [arg.split("=", 1) for arg in sys.argv[1:]]
    if not binaries or any(len(b) != 2 for b in binaries):
        raise SystemExit(__doc__)
    results = {name: [] for name, _ in binaries}
    for round_ in range(ROUNDS):
        for name, binary in binaries:
            print(f"round {round_ + 1}: {name}", file=sys.stderr)
            results[name].append(measure(binary, name.startswith("ours")))
    base = binaries[-1][0]
    for figure in results[base][0]:
        print(figure)
        for name, _ in binaries:
            values = [r[figure] for r in results[name]]
            ratios = [v / b[figure] if b[figure] else float("nan")
                      for v, b in zip(values, results[base])]
            print(f"  {name:>8}: " + ", ".join(f"{v:,.1f}" for v in values)
                  + ("" if name == base else "   ratio " + ", ".join(f"{r:.2f}x" for r in ratios)))


if __name__ == "__main__":
    main()
