#!/usr/bin/env python3
"""A broken stand-in for an agent CLI that speaks stream-json on stdin/stdout.

The reliability tests install it under the name of the agent binary an adapter
launches. It answers the control handshake, ignores SIGTERM, notes its pid in
$FAKE_AGENT_PIDS (a folder), and misbehaves on request. Each user message is
one command:

  echo TEXT           answers TEXT and ends the turn
  exit CODE           prints to stderr and exits with CODE in the middle of the turn
  flood MIB BYTES     prints MIB MiB of non-JSON lines of BYTES bytes, then answers
  garbage             prints lines that are not UTF-8, then answers
  longline MIB        prints one line of MIB MiB, then answers
  hang                stops answering anything (and keeps ignoring SIGTERM)
"""

import json
import os
import signal
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)

if "--version" in sys.argv:
    print("2.1.197 (Claude Code)")
    sys.exit(0)

pids = os.environ.get("FAKE_AGENT_PIDS")
if pids:
    open(os.path.join(pids, str(os.getpid())), "w").close()

out = sys.stdout.buffer
MIB = 1 << 20


def send(message):
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def answer(text):
    """An assistant message with TEXT, then the end of the turn."""
    send({"type": "assistant", "message": {"id": "msg", "role": "assistant",
                                           "content": [{"type": "text", "text": text}]}})
    send({"type": "result", "subtype": "success", "is_error": False, "result": text,
          "session_id": "fake", "total_cost_usd": 0,
          "usage": {"input_tokens": 1, "output_tokens": 1}})


def write_lines(total, size):
    line = b"flood " + b"x" * max(size - 7, 0) + b"\n"
    written = 0
    while written < total:
        out.write(line)
        written += len(line)
    out.flush()
    return written


def run(command, argument):
    if command == "echo":
        answer(argument)
    elif command == "exit":
        for n in range(1, 4):
            sys.stderr.write(f"fake agent: fatal problem {n} of 3\n")
        sys.stderr.flush()
        send({"type": "stream_event", "event": {"type": "content_block_start", "index": 0,
                                                "content_block": {"type": "text", "text": ""}}})
        os._exit(int(argument))
    elif command == "flood":
        mib, size = argument.split()
        written = write_lines(int(mib) * MIB, int(size))
        answer(f"flooded {written} bytes")
    elif command == "garbage":
        out.write(b"\xff\xfe not UTF-8 \xc3\x28 at all\n")
        out.write(b'{"type":"assistant","message":{"id":"msg","role":"assistant",'
                  b'"content":[{"type":"text","text":"broken \xff\xfe bytes"}]}}\n')
        out.flush()
        answer("after the garbage")
    elif command == "longline":
        size = int(argument) * MIB
        chunk = b"y" * MIB
        for _ in range(size // MIB):
            out.write(chunk)
        out.write(b"\n")
        out.flush()
        answer(f"after a line of {size} bytes")
    elif command == "hang":
        while True:
            time.sleep(3600)


for raw in sys.stdin.buffer:
    message = json.loads(raw)
    if message.get("type") == "control_request":
        if message.get("request", {}).get("subtype") == "initialize":
            send({"type": "control_response",
                  "response": {"subtype": "success", "request_id": message["request_id"],
                               "response": {}}})
        continue
    if message.get("type") == "user":
        text = message["message"]["content"][0]["text"]
        command, _, argument = text.partition(" ")
        run(command, argument)
