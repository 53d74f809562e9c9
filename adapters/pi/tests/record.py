#!/usr/bin/env python3
"""Records the transcripts in ../transcripts from the real `pi` binary.

The script plays the host and writes what the adapter writes (the `get_state` at
launch, `prompt`, `abort`, with the adapter's request ids), so every native line in
a transcript is what Pi really printed, in the order the host would feed it.

    cargo run -p agentplex-model-server -- --port 0      # prints its URL
    PI_RECORD_BIN=testing/agents/node_modules/.bin/pi \
    PI_RECORD_MODEL_URL=http://127.0.0.1:PORT \
      python3 adapters/pi/tests/record.py [scenario ...]

Each scenario runs in a fresh working directory and HOME (with a models.json that
points Pi at the model server); their paths become /workspace and /home/user.
"""

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "transcripts")
BIN = os.environ.get("PI_RECORD_BIN", "pi")
MODEL_URL = os.environ.get("PI_RECORD_MODEL_URL", "http://127.0.0.1:8000")
TIMEOUT = 60

SCENARIOS = {
    "text-multi-turn": ("default", [("send", "hello"), ("send", "second message")]),
    "think": ("default", [("send", "think: colors")]),
    "tool-run": ("default", [("send", "run: echo hi && sleep 0.3 && echo there")]),
    "file-write-read": ("default", [("send", "write: notes.txt: hello file"), ("send", "read: notes.txt")]),
    "plan-read-only": ("plan", [("send", "write: notes.txt: hello file")]),
    "api-error": ("default", [("send", "fail: boom")]),
    "cancel-streaming": ("default", [("cancel", "slow: 20"), ("send", "after cancel")]),
    "crash-mid-turn": ("default", [("kill_mid", "slow: 20")]),
    "idle-exit-resume": ("default", [("send", "remember-marker"), ("kill_idle", None), ("send", "what did I say")]),
    "resume-missing": ("default", [("resume_missing", None), ("send", "hello again")]),
    "terminate": ("default", [("send", "hello"), ("terminate", None)]),
}


class Recorder:
    def __init__(self, name, permission_mode, resume=None):
        self.name = name
        self.root = tempfile.mkdtemp(prefix="pi-record-")
        self.ws = os.path.join(self.root, "ws")
        self.home = os.path.join(self.root, "home")
        os.makedirs(self.ws)
        agent = os.path.join(self.home, ".pi", "agent")
        os.makedirs(agent)
        with open(os.path.join(agent, "models.json"), "w") as f:
            json.dump({"providers": {"scripted": {
                "baseUrl": MODEL_URL, "api": "anthropic-messages", "apiKey": "sk-scripted",
                "models": [{"id": "scripted", "name": "Scripted", "reasoning": True,
                            "input": ["text", "image"]}]}}}, f)
        with open(os.path.join(agent, "settings.json"), "w") as f:
            json.dump({"defaultProvider": "scripted", "defaultModel": "scripted"}, f)
        self.permission_mode = permission_mode
        self.inputs = []
        self.lock = threading.Lock()
        self.requests = 0
        self.processes = 0
        self.proc = None
        self.pid = None
        self.native = resume
        self.persisted = resume is not None
        self.events = queue.Queue()
        config = {"sessionId": "s1", "agentMode": "build", "permissionMode": permission_mode,
                  "directory": "/workspace"}
        if resume:
            config["resumeNativeSessionId"] = resume
        self.add({"input": "create", "config": config})

    def normalize(self, text):
        text = text.replace(self.ws, "/workspace").replace(self.home, "/home/user")
        return text.replace("--" + self.ws.strip("/").replace("/", "-") + "--", "--workspace--")

    def add(self, entry):
        with self.lock:
            self.inputs.append(entry)

    def req(self):
        self.requests += 1
        return f"req_{self.requests}"

    def write(self, command):
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def launch(self):
        self.processes += 1
        self.pid = f"pi_{self.processes}"
        argv = [BIN, "--mode", "rpc"]
        if self.permission_mode == "plan":
            argv += ["--tools", "read,grep,find,ls"]
        if self.persisted and self.native:
            argv += ["--session", self.native]
        env = dict(os.environ, HOME=self.home, PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1",
                   PI_TELEMETRY="0")
        self.proc = subprocess.Popen(argv, cwd=self.ws, env=env, text=True, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc, pid = self.proc, self.pid
        readers = [threading.Thread(target=self.read, args=(proc.stdout, "stdout", pid)),
                   threading.Thread(target=self.read, args=(proc.stderr, "stderr", pid))]
        for reader in readers:
            reader.start()

        def waiter():
            for reader in readers:
                reader.join()
            code = proc.wait()
            exit_entry = {"input": "exit", "process": pid, "code": None, "signal": None}
            if code < 0:
                exit_entry["signal"] = -code
            else:
                exit_entry["code"] = code
            self.add(exit_entry)
            self.events.put(("exit", pid))

        threading.Thread(target=waiter).start()
        self.write({"id": self.req(), "type": "get_state"})

    def read(self, stream, kind, pid):
        for line in stream:
            line = line.rstrip("\n")
            self.add({"input": kind, "process": pid, "line": self.normalize(line)})
            if kind == "stdout":
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if message.get("command") == "get_state" and message.get("success"):
                    if message["data"]["sessionId"] != self.native:
                        self.native = message["data"]["sessionId"]
                        self.persisted = False
                if message.get("type") == "agent_end":
                    self.persisted = True
                self.events.put((message.get("type"), message))

    def wait(self, kind, count=1):
        deadline = time.time() + TIMEOUT
        seen = 0
        while time.time() < deadline:
            try:
                event = self.events.get(timeout=1)
            except queue.Empty:
                continue
            if event[0] == kind or (kind == "text_delta" and event[0] == "message_update"
                                    and event[1]["assistantMessageEvent"]["type"] == "text_delta"):
                seen += 1
                if seen == count:
                    return
        raise SystemExit(f"{self.name}: no {kind}")

    def start(self):
        self.add({"input": "start"})
        self.launch()
        self.wait("response")

    def send(self, text, wait=True):
        self.add({"input": "sendMessage", "text": text})
        if self.proc is None or self.proc.poll() is not None:
            self.launch()
        self.write({"id": self.req(), "type": "prompt", "message": text})
        if wait:
            self.wait("agent_end")

    def run(self, steps):
        for step, argument in steps:
            if step == "resume_missing":
                self.add({"input": "start"})
                self.launch()
                self.wait("exit")
                time.sleep(0.2)
                # The adapter forgets the id and starts afresh.
                self.native, self.persisted = None, False
                self.launch()
                self.wait("response")
            elif step == "send":
                self.send(argument)
            elif step == "cancel":
                self.send(argument, wait=False)
                self.wait("text_delta", 3)
                self.add({"input": "cancelTurn"})
                self.write({"id": self.req(), "type": "abort"})
                self.wait("agent_end")
                time.sleep(0.5)
            elif step == "kill_mid":
                self.send(argument, wait=False)
                self.wait("text_delta", 3)
                self.proc.send_signal(signal.SIGKILL)
                self.wait("exit")
                return
            elif step == "kill_idle":
                time.sleep(0.5)
                self.proc.send_signal(signal.SIGKILL)
                self.wait("exit")
            elif step == "terminate":
                with self.lock:
                    self.inputs.append({"input": "terminate"})
                    self.proc.stdin.close()
                    self.inputs_final = list(self.inputs)
                self.proc.wait()
                return

    def save(self):
        inputs = getattr(self, "inputs_final", None) or self.inputs
        time.sleep(0.3)
        with self.lock:
            inputs = getattr(self, "inputs_final", None) or list(self.inputs)
        path = os.path.join(OUT, f"{self.name}.jsonl")
        with open(path, "w") as f:
            for entry in inputs:
                f.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")
        if self.proc and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()
        shutil.rmtree(self.root, ignore_errors=True)
        print(f"recorded {path} ({len(inputs)} inputs)")


def main():
    names = sys.argv[1:] or list(SCENARIOS)
    for name in names:
        permission_mode, steps = SCENARIOS[name]
        resume = "01a208c3-0000-7000-8000-000000000000" if name == "resume-missing" else None
        recorder = Recorder(name, permission_mode, resume)
        if steps[0][0] != "resume_missing":
            recorder.start()
        recorder.run(steps)
        recorder.save()


if __name__ == "__main__":
    main()
