/**
 * The process routes (`/v1/processes`): runs, managed processes with their logs followed live,
 * and a terminal over a real WebSocket, against the real daemon (with a token, so the
 * terminal's `access_token` is exercised).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  connect,
  decodeProcessLogData,
  PayloadTooLargeError,
  ProcessConflictError,
  ProcessNotFoundError,
  Agentplex,
  SpawnFailedError,
  type ProcessLogEvent,
  type ProcessTerminal,
  type WebSocketConstructor,
} from "../src/index.js";
import { collect, failure, startDaemon, startProxy, type Daemon } from "./helpers.js";

let daemon: Daemon;
let client: Agentplex;
let token: string;
/** Node 20 has no global WebSocket; Node 22+ and Bun do. */
const Socket = (globalThis.WebSocket ?? WebSocket) as unknown as WebSocketConstructor;

beforeAll(async () => {
  token = randomBytes(16).toString("hex");
  daemon = await startDaemon({ token });
  client = await connect({ baseUrl: daemon.baseUrl, token });
});
afterAll(async () => {
  await daemon?.stop();
});

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** Resolves with everything a terminal printed once `pattern` matches it (or fails after 10 s). */
function waitForOutput(terminal: ProcessTerminal, pattern: RegExp, seen: { text: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (pattern.test(seen.text)) {
        clearTimeout(timer);
        stop();
        resolve(seen.text);
      }
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no ${pattern} in the terminal's output: ${JSON.stringify(seen.text)}`));
    }, 10_000);
    const stop = terminal.onData(() => check());
    check();
  });
}

/** Opens a terminal and keeps all its output in `seen.text`. */
async function openTerminal(id: string): Promise<{ terminal: ProcessTerminal; seen: { text: string } }> {
  const terminal = await client.connectProcessTerminal(id, { WebSocket: Socket });
  const seen = { text: "" };
  const decoder = new TextDecoder();
  terminal.onData((chunk) => (seen.text += decoder.decode(chunk, { stream: true })));
  return { terminal, seen };
}

describe("runs", () => {
  it("runs a command to its end: exit code, stdout and stderr apart", async () => {
    const run = await client.runProcess({ command: "sh", args: ["-c", "echo out; echo err >&2; exit 3"] });
    expect(run.exitCode).toBe(3);
    expect(run.signal ?? null).toBeNull();
    expect(run.timedOut).toBe(false);
    expect(run.stdout).toBe("out\n");
    expect(run.stderr).toBe("err\n");
  });

  it("kills a run at its timeout and says by which signal", async () => {
    const run = await client.runProcess({ command: "sleep", args: ["30"], timeoutMs: 200 });
    expect(run.timedOut).toBe(true);
    expect(run.exitCode ?? null).toBeNull();
    expect(run.signal).toBe(9);
  });

  it("reports a program that cannot start as SpawnFailedError (400)", async () => {
    const error = await failure(client.runProcess({ command: `no-such-program-${randomBytes(4).toString("hex")}` }));
    expect(error).toBeInstanceOf(SpawnFailedError);
    expect(error.status).toBe(400);
  });
});

describe("managed processes", () => {
  it("echoes input through cat into its logs, followed live to its exit", async () => {
    const cat = await client.createProcess({ command: "cat", interactive: true });
    expect(cat.status).toBe("running");
    expect((await client.listProcesses()).map((p) => p.id)).toContain(cat.id);

    const events: ProcessLogEvent[] = [];
    const followed = (async () => {
      for await (const event of client.followProcessLogs(cat.id)) events.push(event);
    })();
    const line = `hello ${randomBytes(4).toString("hex")}\n`;
    // Half as a string (sent as UTF-8), half as bytes (sent as base64).
    const half = line.length / 2;
    const first = await client.sendProcessInput(cat.id, line.slice(0, half));
    const second = await client.sendProcessInput(cat.id, new TextEncoder().encode(line.slice(half)));
    expect(first.bytesWritten + second.bytesWritten).toBe(line.length);
    // The line comes back live, while cat still runs.
    const output = () => events.map((e) => (e.event === "log" ? text(decodeProcessLogData(e.data)) : "")).join("");
    await expect.poll(output).toBe(line);
    expect((await client.getProcess(cat.id)).status).toBe("running");

    const stopped = await client.stopProcess(cat.id, { waitMs: 5_000 });
    expect(stopped.status).toBe("exited");
    await followed;
    const last = events[events.length - 1]!;
    expect(last.event).toBe("exit");
    expect(last.event === "exit" && last.data.id).toBe(cat.id);

    const logs = await client.getProcessLogs(cat.id, { stream: "stdout" });
    expect(logs.entries.map((e) => text(decodeProcessLogData(e))).join("")).toBe(line);
    expect(logs.nextOffset).toBe(line.length);
    // Input to a process that exited is a conflict.
    expect(await failure(client.sendProcessInput(cat.id, { data: "x", encoding: "utf8" }))).toBeInstanceOf(
      ProcessConflictError,
    );

    await client.deleteProcess(cat.id);
    const gone = await failure(client.getProcess(cat.id));
    expect(gone).toBeInstanceOf(ProcessNotFoundError);
    expect(gone.status).toBe(404);
  });

  it("follows a log from an entry (since), and resumes where it stopped", async () => {
    const proc = await client.createProcess({ command: "sh", args: ["-c", "for i in 1 2 3; do echo $i; sleep 0.1; done"] });
    const first: ProcessLogEvent[] = [];
    for await (const event of client.followProcessLogs(proc.id)) {
      first.push(event);
      break; // leaves after the first entry
    }
    expect(first[0]!.event).toBe("log");
    const since = first[0]!.event === "log" ? first[0]!.data.sequence : 0;
    const rest: string[] = [];
    for await (const event of client.followProcessLogs(proc.id, { since })) {
      if (event.event === "log") rest.push(text(decodeProcessLogData(event.data)));
    }
    const firstText = first[0]!.event === "log" ? text(decodeProcessLogData(first[0]!.data)) : "";
    expect(firstText + rest.join("")).toBe("1\n2\n3\n");
  });

  it("resumes a followed log after dropped connections: every line once, in order", async () => {
    const proxy = await startProxy(daemon.port);
    try {
      const viaProxy = new Agentplex({ baseUrl: proxy.baseUrl, token });
      const proc = await client.createProcess({
        command: "sh",
        args: ["-c", "i=1; while [ $i -le 30 ]; do echo line-$i; i=$((i+1)); sleep 0.02; done"],
      });
      const before = proxy.requests.length;
      let text = "";
      let entries = 0;
      for await (const event of viaProxy.followProcessLogs(proc.id, { offset: 0, retryDelayMs: 10 })) {
        if (event.event !== "log") continue;
        text += new TextDecoder().decode(decodeProcessLogData(event.data));
        if (++entries % 5 === 0) proxy.dropAll(); // cut the stream every five entries
      }
      const expected = Array.from({ length: 30 }, (_, i) => `line-${i + 1}\n`).join("");
      expect(text).toBe(expected);
      const follows = proxy.requests.slice(before).filter((r) => r.includes("/logs?"));
      expect(follows.length).toBeGreaterThan(1);
      // Reconnects ask for what follows the last entry seen, not for the offset again.
      for (const request of follows.slice(1)) {
        expect(request).toMatch(/since=\d+/);
        expect(request).toMatch(/last-event-id: \d+/i);
        expect(request).not.toMatch(/offset=/);
      }
      await client.deleteProcess(proc.id);
    } finally {
      await proxy.close();
    }
  });

  it("refuses deleting a running process (409) and input past the limit (413); kill ends it", async () => {
    const cat = await client.createProcess({ command: "cat", interactive: true });
    const running = await failure(client.deleteProcess(cat.id));
    expect(running).toBeInstanceOf(ProcessConflictError);
    expect(running.status).toBe(409);

    const { maxInputBytesPerRequest } = await client.getProcessConfig();
    const tooLarge = await failure(
      client.sendProcessInput(cat.id, { data: Buffer.alloc(maxInputBytesPerRequest + 1).toString("base64") }),
    );
    expect(tooLarge).toBeInstanceOf(PayloadTooLargeError);
    expect(tooLarge.status).toBe(413);

    const killed = await client.killProcess(cat.id, { waitMs: 5_000 });
    expect(killed.status).toBe("exited");
    expect(killed.signal).toBe(9);
    await client.deleteProcess(cat.id);
  });

  it("reports unknown processes as ProcessNotFoundError on every route", async () => {
    for (const call of [
      () => client.getProcessLogs("proc_missing"),
      () => collect(client.followProcessLogs("proc_missing")),
      () => client.stopProcess("proc_missing"),
      () => client.resizeProcessTerminal("proc_missing", { cols: 80, rows: 24 }),
      () => client.connectProcessTerminal("proc_missing", { WebSocket: Socket }),
    ]) {
      expect(await failure(call())).toBeInstanceOf(ProcessNotFoundError);
    }
  });
});

describe("terminals", () => {
  it("runs sh in a terminal: typed input is evaluated, resize reaches stty", async () => {
    const sh = await client.createProcess({ command: "sh", tty: true, cols: 80, rows: 24 });
    expect(sh.tty).toBe(true);
    const { terminal, seen } = await openTerminal(sh.id);
    expect(terminal.processId).toBe(sh.id);

    terminal.sendInput("echo $((6*7))\r");
    // The echoed command line shows `6*7`; only the shell's answer has 42 (the prompt may come
    // before it on its line).
    await waitForOutput(terminal, /42\r?\n/, seen);

    terminal.resize(100, 30);
    terminal.sendInput("stty size\r");
    await waitForOutput(terminal, /30 100\r?\n/, seen);

    const resized = await client.resizeProcessTerminal(sh.id, { cols: 90, rows: 20 });
    expect(resized).toEqual({ cols: 90, rows: 20 });
    terminal.sendInput("stty size\r");
    await waitForOutput(terminal, /20 90\r?\n/, seen);

    const exited = new Promise((resolve) => terminal.onExit(resolve));
    terminal.sendInput("exit 5\r");
    expect(await exited).toEqual({ exitCode: 5, signal: null });
    expect((await terminal.closed).code).toBe(1000);
    await client.deleteProcess(sh.id);
  });

  it("replays the scrollback to a viewer that reconnects; close() leaves the process running", async () => {
    const sh = await client.createProcess({ command: "sh", tty: true });
    const first = await openTerminal(sh.id);
    // Typed as `$((40+2))`: only the shell's output has the marker as it is matched.
    const marker = `mark-${randomBytes(4).toString("hex")}`;
    first.terminal.sendInput(`echo ${marker}-$((40+2))\r`);
    await waitForOutput(first.terminal, new RegExp(`${marker}-42\\r?\\n`), first.seen);
    expect((await first.terminal.close()).code).toBe(1000);
    expect((await client.getProcess(sh.id)).status).toBe("running");

    const again = await openTerminal(sh.id);
    await waitForOutput(again.terminal, new RegExp(`${marker}-42\\r?\\n`), again.seen);
    await again.terminal.close();
    await client.killProcess(sh.id, { waitMs: 5_000 });
    await client.deleteProcess(sh.id);
  });

  it("refuses a terminal for a process without one (ProcessConflictError), and a wrong token", async () => {
    const cat = await client.createProcess({ command: "cat", interactive: true });
    const conflict = await failure(client.connectProcessTerminal(cat.id, { WebSocket: Socket }));
    expect(conflict).toBeInstanceOf(ProcessConflictError);
    expect(conflict.status).toBe(409);

    await client.killProcess(cat.id, { waitMs: 5_000 });
    await client.deleteProcess(cat.id);

    // A wrong access_token: the socket is refused (a WebSocket sees no status: a network_error).
    const sh = await client.createProcess({ command: "sh", tty: true });
    const url = client.buildProcessTerminalWebSocketUrl(sh.id, { accessToken: "wrong" });
    expect(url).toBe(`${daemon.baseUrl.replace("http", "ws")}/v1/processes/${sh.id}/terminal/ws?access_token=wrong`);
    const refused = await failure(client.connectProcessTerminal(sh.id, { WebSocket: Socket, accessToken: "wrong" }));
    expect(refused.code).toBe("network_error");
    await client.killProcess(sh.id, { waitMs: 5_000 });
    await client.deleteProcess(sh.id);
  });
});
