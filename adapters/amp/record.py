#!/usr/bin/env python3
"""Records transcripts/ cases from the real `amp` CLI (not run by the test suite).

Amp's current CLI runs its agent loop on Amp's servers (thread actors over a
WebSocket), so it cannot run offline. The CLI of January 2026 (`@sourcegraph/amp`
0.0.1767830505, plain JavaScript) still ran the loop locally and sent model calls to
`$AMP_URL/api/provider/anthropic/v1/messages`: pointed at a loopback stand-in for
Amp's server that forwards those calls to `testing/model-server`, it prints real
stream-json. This script drives it (and, for the auth failure, the current CLI) the
way the adapter does: the `--help` probe, then one process per turn with the argv of
the adapter's launch plan and the prompt on stdin. It writes each case's input lines
(`transcripts/NAME.jsonl`) with machine paths replaced by /workspace and /home/user;
`sandbox-agent adapters test --update` then writes the expected files (review them).

Usage (after `cargo build -p agentplex-model-server`):
    mkdir -p /tmp/amp-old && cd /tmp/amp-old && npm init -y && \
        npm install --ignore-scripts @sourcegraph/amp@0.0.1767830505-ga62310
    mkdir -p /tmp/amp-new && cd /tmp/amp-new && npm init -y && \
        npm install --ignore-scripts @sourcegraph/amp@0.0.1790142911-g7618fb
    python3 adapters/amp/record.py

Case `thinking` is not recorded here: the old CLI has no `--stream-json-thinking`
(it drops thinking blocks) and the new one needs Amp's service; it is written by hand
from the new CLI's help (see README.md).
"""

import http.client
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "adapters", "amp", "transcripts")
# Where the two CLIs were installed (see Usage); override with AMP_OLD_DIR / AMP_NEW_DIR.
OLD_DIR = os.environ.get("AMP_OLD_DIR", "/tmp/amp-old")
NEW_DIR = os.environ.get("AMP_NEW_DIR", "/tmp/amp-new")
OLD = ["node", os.path.join(OLD_DIR, "node_modules/@sourcegraph/amp/dist/main.js")]
NEW = [os.path.join(NEW_DIR, "node_modules/@ampcode/cli-linux-x64/amp")]
MODEL_SERVER = os.path.join(ROOT, "target", "debug", "model-server")


def amp_server(upstream_port):
    """A loopback stand-in for Amp's server: RPCs answer ok, model calls are forwarded."""

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, body):
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def handle_any(self):
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            prefix = "/api/provider/anthropic"
            if not self.path.startswith(prefix):
                user = {"id": "u1", "email": "user@example.com", "username": "user", "features": []}
                return self.reply(json.dumps({"ok": True, "result": user}).encode())
            conn = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=120)
            headers = {"content-type": "application/json", "x-api-key": "dummy"}
            conn.request("POST", self.path[len(prefix):], body=body, headers=headers)
            response = conn.getresponse()
            self.send_response(response.status)
            for key, value in response.getheaders():
                if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(key, value)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            while chunk := response.read1(65536):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

        do_GET = do_POST = handle_any

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


class Recorder:
    """One case: the input lines, as the adapter would receive them."""

    def __init__(self, env, workdir, home, permission_mode="default"):
        self.env, self.workdir, self.home = env, workdir, home
        self.lines = [{"input": "create", "config": {
            "sessionId": "s1", "agentMode": "build", "permissionMode": permission_mode,
            "model": None, "variant": None, "directory": "/workspace", "agentBinary": None,
            "env": [], "resumeNativeSessionId": None}}]
        self.turns = 0

    def clean(self, text):
        return text.replace(self.workdir, "/workspace").replace(self.home, "/home/user")

    def add(self, line):
        self.lines.append(line)

    def run(self, process, argv, stdin=None, kill_after=None, cancel=False):
        """Runs a process, adds its output lines and exit; kills it after
        `kill_after` stdout lines (with a `cancelTurn` input first when `cancel`)."""
        child = subprocess.Popen(argv, cwd=self.workdir, env=self.env, text=True,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True)
        if stdin is not None:
            child.stdin.write(stdin)
        child.stdin.close()
        seen = 0
        for line in child.stdout:
            self.add({"input": "stdout", "process": process, "line": self.clean(line.rstrip("\n"))})
            seen += 1
            if kill_after is not None and seen == kill_after:
                if cancel:
                    self.add({"input": "cancelTurn"})
                os.killpg(child.pid, signal.SIGKILL)
                break
        child.wait()
        for line in child.stderr.read().splitlines():
            self.add({"input": "stderr", "process": process, "line": self.clean(line)})
        code = child.returncode
        exit_line = {"input": "exit", "process": process,
                     "code": code if code >= 0 else None,
                     "signal": -code if code < 0 else None}
        self.add(exit_line)

    def probe(self, amp):
        self.add({"input": "start"})
        self.run("probe_1", amp + ["--help"])

    def turn(self, amp, text, flags, thread=None, **kwargs):
        self.turns += 1
        self.add({"input": "sendMessage", "text": text})
        argv = list(amp)
        if thread:
            argv += ["threads", "continue", thread]
        self.run(f"amp_{self.turns}", argv + flags, stdin=text + "\n", **kwargs)

    def thread(self):
        for line in self.lines:
            if line.get("input") == "stdout" and '"session_id"' in line["line"]:
                return json.loads(line["line"])["session_id"]
        return None

    def write(self, name):
        with open(os.path.join(OUT, name + ".jsonl"), "w") as f:
            for line in self.lines:
                f.write(json.dumps(line, separators=(",", ":")) + "\n")
        print("wrote", name)


def main():
    model = subprocess.Popen([MODEL_SERVER, "--port", "0"], stdout=subprocess.PIPE, text=True)
    port = int(model.stdout.readline().strip().rsplit(":", 1)[1])
    amp_port = amp_server(port)
    base = tempfile.mkdtemp(prefix="amp-record-")
    workdir, home = os.path.join(base, "ws"), os.path.join(base, "home")
    os.makedirs(workdir)
    os.makedirs(os.path.join(home, ".config", "amp"))
    with open(os.path.join(home, ".config", "amp", "settings.json"), "w") as f:
        json.dump({"amp.updates.mode": "disabled"}, f)
    env = {"PATH": os.environ["PATH"], "HOME": home, "AMP_API_KEY": "sgamp_test",
           "AMP_URL": f"http://127.0.0.1:{amp_port}"}
    execute = ["--execute", "--stream-json"]
    bypass = execute + ["--dangerously-allow-all"]
    try:
        r = Recorder(env, workdir, home)
        r.probe(OLD)
        r.turn(OLD, "hello there", execute)
        r.write("text-turn")

        r = Recorder(env, workdir, home, "bypass")
        r.probe(OLD)
        r.turn(OLD, "run: echo hi", bypass)
        r.write("tool-call")

        r = Recorder(env, workdir, home)
        r.probe(OLD)
        r.turn(OLD, "hello there", execute)
        r.turn(OLD, "what did I say?", execute, thread=r.thread())
        r.write("multi-turn-continue")

        r = Recorder(env, workdir, home)
        r.probe(OLD)
        r.turn(OLD, "fail: quota exceeded", execute)
        r.write("error-result")

        r = Recorder(env, workdir, home)
        r.probe(OLD)
        r.turn(OLD, "slow: 20", execute, kill_after=2)
        r.write("exit-mid-turn")

        r = Recorder(env, workdir, home)
        r.probe(OLD)
        r.turn(OLD, "slow: 20", execute, kill_after=2, cancel=True)
        r.turn(OLD, "hello again", execute, thread=r.thread())
        r.write("cancel")

        # The current CLI, offline: probed, launched, refused by the stand-in's 401.
        denied = dict(env, AMP_URL="http://127.0.0.1:9")
        r = Recorder(denied, workdir, home)
        r.probe(NEW)
        r.turn(NEW, "hello there", ["--execute", "--stream-json-thinking"])
        r.write("new-cli-unreachable")
    finally:
        model.kill()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
