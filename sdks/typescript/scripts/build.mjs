// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with declarations, with tsc.
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
for (const project of ["tsconfig.esm.json", "tsconfig.cjs.json"]) {
  execFileSync(process.execPath, [tsc, "-p", project], { cwd: root, stdio: "inherit" });
}
// The package is "type": "module"; this marks dist/cjs as CommonJS (its .js and .d.ts files).
writeFileSync(new URL("../dist/cjs/package.json", import.meta.url), `{ "type": "commonjs" }\n`);
