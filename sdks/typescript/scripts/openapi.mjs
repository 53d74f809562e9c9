// Generates src/generated/openapi.ts from the committed docs/openapi.json with
// openapi-typescript, or (with --check) fails when the committed file is stale.
//
//   node scripts/openapi.mjs           write src/generated/openapi.ts
//   node scripts/openapi.mjs --check   regenerate to a temporary file and compare
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

const root = fileURLToPath(new URL("..", import.meta.url));
const schema = new URL("../../../docs/openapi.json", import.meta.url);
const target = join(root, "src", "generated", "openapi.ts");

const HEADER = `// Generated from docs/openapi.json by \`npm run generate\` (openapi-typescript).
// Do not edit: change the daemon, regenerate docs/openapi.json, then run \`npm run generate\`.

`;

async function generate() {
  const ast = await openapiTS(schema, { alphabetize: false });
  return HEADER + astToString(ast);
}

const text = await generate();
if (process.argv.includes("--check")) {
  const dir = await mkdtemp(join(tmpdir(), "sandbox-agent-openapi-"));
  try {
    const fresh = join(dir, "openapi.ts");
    await writeFile(fresh, text);
    const [a, b] = await Promise.all([readFile(fresh, "utf8"), readFile(target, "utf8").catch(() => "")]);
    if (a !== b) {
      console.error(
        "src/generated/openapi.ts is stale: it does not match docs/openapi.json.\n" +
          "Run `npm run generate` in sdks/typescript and commit the result.",
      );
      process.exit(1);
    }
    console.log("src/generated/openapi.ts matches docs/openapi.json");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
} else {
  await writeFile(target, text);
  console.log(`wrote ${target}`);
}
