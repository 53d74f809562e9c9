// Type-checks the TypeScript examples of the docs pages that show the SDK (PAGES) against the
// SDK's sources: each ```ts block becomes a module under .docs-examples/ (imports of
// "agentplex" point at src/), with `client` and `session` declared when the block does not
// make its own.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("..", import.meta.url));
/** The pages under docs/ whose ```ts blocks use the SDK. */
const PAGES = ["sdk-typescript.md", "quickstart.md", "migrating.md"];
const outDir = join(root, ".docs-examples");
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir);

const blocks = PAGES.flatMap((page) => {
  const doc = readFileSync(join(root, "..", "..", "docs", page), "utf8");
  const found = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  if (found.length === 0) throw new Error(`docs/${page} has no \`\`\`ts example`);
  return found;
});
const files = blocks.map((code, i) => {
  const body = code
    .replaceAll('"agentplex/node"', '"../src/node.js"')
    .replaceAll('"agentplex"', '"../src/index.js"');
  const declares = (name) => new RegExp(`\\b(?:const|let|var)\\s+${name}\\b|\\bimport[^;]*\\b${name}\\b`).test(body);
  const prelude = [
    'import type { LocalSandboxAgent as __Client, Session as __Session } from "../src/node.js";',
    declares("client") ? "" : "declare const client: __Client;",
    declares("session") ? "" : "declare const session: __Session;",
  ].join("\n");
  const file = join(outDir, `example-${String(i + 1).padStart(2, "0")}.ts`);
  writeFileSync(file, `${prelude}\n${body}\nexport {};\n`);
  return file;
});

const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => {
    throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  },
});
const program = ts.createProgram(files, { ...config.options, noUnusedLocals: false, noUnusedParameters: false, noEmit: true });
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) {
  console.error(
    ts.formatDiagnosticsWithColorAndContext(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => root,
      getNewLine: () => "\n",
    }),
  );
  console.error(`docs (${PAGES.join(", ")}): ${diagnostics.length} type error(s) in the examples (see .docs-examples/)`);
  process.exit(1);
}
rmSync(outDir, { recursive: true, force: true });
console.log(`docs (${PAGES.join(", ")}): ${files.length} examples type-check`);
