// Bundles the inspector into dist/ (committed, so building the daemon needs no npm):
// dist/app.js (esbuild, minified, one file), dist/app.css (xterm.js's stylesheet, then ours)
// and dist/index.html (copied).
// The output depends only on the sources and the pinned esbuild, so `npm run check:dist`
// can rebuild it and compare with what is committed.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
await build({
  entryPoints: [join(root, "src", "main.ts")],
  outfile: join(dist, "app.js"),
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2022",
  legalComments: "eof",
  charset: "utf8",
  logLevel: "warning",
});
copyFileSync(join(root, "src", "index.html"), join(dist, "index.html"));
const xtermCss = readFileSync(join(root, "node_modules", "@xterm", "xterm", "css", "xterm.css"), "utf8");
writeFileSync(join(dist, "app.css"), `${xtermCss}\n${readFileSync(join(root, "src", "style.css"), "utf8")}`);
console.log("inspector: built dist/");
