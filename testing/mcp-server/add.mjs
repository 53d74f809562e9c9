#!/usr/bin/env node
// A minimal MCP server on stdio for the conformance suite: one tool, `add`, which
// adds two numbers. Newline-delimited JSON-RPC 2.0, no dependencies. Every request
// it receives is appended to the file named by MCP_ADD_LOG, when set, so a test can
// check that the agent really started it and called the tool.
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const log = (message) => {
  if (process.env.MCP_ADD_LOG) appendFileSync(process.env.MCP_ADD_LOG, JSON.stringify(message) + "\n");
};
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");

const ADD = {
  name: "add",
  description: "Adds two numbers and answers their sum.",
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  },
};

function answer(method, params) {
  switch (method) {
    case "initialize":
      return {
        protocolVersion: params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "sandbox-agent-test-add", version: "1.0.0" },
      };
    case "ping":
      return {};
    case "tools/list":
      return { tools: [ADD] };
    case "tools/call": {
      if (params?.name !== "add") throw { code: -32602, message: `no tool ${params?.name}` };
      const { a, b } = params.arguments ?? {};
      return { content: [{ type: "text", text: `sum: ${Number(a) + Number(b)}` }], isError: false };
    }
    default:
      throw { code: -32601, message: `method not found: ${method}` };
  }
}

createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return send({ id: null, error: { code: -32700, message: "parse error" } });
  }
  log(message);
  if (message.id === undefined || message.id === null) return; // a notification
  try {
    send({ id: message.id, result: answer(message.method, message.params) });
  } catch (error) {
    send({ id: message.id, error: { code: error.code ?? -32603, message: error.message ?? String(error) } });
  }
});
