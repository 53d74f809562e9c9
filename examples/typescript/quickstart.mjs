// A tour of the TypeScript SDK against a local daemon and its `mock` agent: create a session,
// stream a turn as it happens, answer a permission request, and list the session's files.
// The same steps as examples/python/quickstart.py.
//
//   npm install agentplex
//   AGENTPLEX_BIN=target/debug/agentplex node examples/typescript/quickstart.mjs
//
// (The SDK's test suite runs this file against the packed package: sdks/typescript/test/package.test.ts.)

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { start } from "agentplex/node";

const workdir = mkdtempSync(join(tmpdir(), "agentplex-example-"));
// Extra daemon flags may follow on the command line (the test gives its cache folder).
const client = await start({ args: ["--ephemeral", ...process.argv.slice(2)] });
try {
  console.log(`daemon ${(await client.health()).version} at ${client.baseUrl}`);
  const session = await client.createSession("quickstart", { agent: "mock", directory: workdir });

  // Stream a turn: deltas arrive as the agent writes.
  console.log("turn 1:");
  await session.prompt("echo hello from TypeScript", {
    onEvent: (event) =>
      console.log(
        event.type === "item.delta" ? `  delta ${JSON.stringify(event.data.delta)}` : `  ${event.sequence} ${event.type}`,
      ),
  });

  // A turn that asks for permission; the listener answers it.
  session.on("permission", (request) => {
    console.log(`  permission asked: ${request.action} ${JSON.stringify(request.metadata)} -> once`);
    return "once";
  });
  const result = await session.prompt("permission ls");
  console.log(`turn 2: ${result.text}`);

  // Files of the session's directory.
  await client.writeFsFile({ path: "notes.md", sessionId: session.id }, "# Notes\n");
  for (const entry of await client.listFsEntries({ sessionId: session.id })) {
    console.log(`file ${entry.name} (${entry.entryType}, ${entry.size} bytes)`);
  }
  await session.terminate();
} finally {
  await client.dispose();
  rmSync(workdir, { recursive: true, force: true });
}
