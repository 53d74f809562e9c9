/**
 * The built package (run after `npm run build`): both module formats load through the
 * package's own `exports`, and the main entry pulls in no Node module.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const built = existsSync(join(root, "dist", "esm", "index.js")) && existsSync(join(root, "dist", "cjs", "index.js"));
// A specifier vite leaves alone, so Node resolves the package by its own name and `exports`.
const load = (specifier: string) => import(/* @vite-ignore */ specifier);

describe.runIf(built)("the built package", () => {
  it("loads as ES modules", async () => {
    const main = await load("agentplex");
    expect(typeof main.connect).toBe("function");
    expect(typeof main.SandboxAgent).toBe("function");
    expect(typeof main.SandboxAgentError).toBe("function");
    expect(main.start).toBeUndefined();
    const node = await load("agentplex/node");
    expect(typeof node.start).toBe("function");
    expect(node.SandboxAgentError).toBe(main.SandboxAgentError);
  });

  it("loads as CommonJS", () => {
    const require = createRequire(join(root, "package.json"));
    const main = require("agentplex");
    expect(typeof main.connect).toBe("function");
    expect(main.start).toBeUndefined();
    const error = main.SandboxAgentError.create("timeout", 504, "slow");
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe("timeout");
    const node = require("agentplex/node");
    expect(typeof node.start).toBe("function");
    expect(node.SandboxAgentError).toBe(main.SandboxAgentError);
  });

  it.each(["esm", "cjs"])("keeps Node modules out of the %s main entry", (format) => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      expect(text, file).not.toMatch(/["'](node:)?(child_process|fs|net|crypto|os|path)["']/);
      for (const [, spec] of text.matchAll(/(?:from |import\(|require\()["'](\.[^"']+)["']/g)) {
        visit(join(dirname(file), spec!.endsWith(".js") ? spec! : `${spec}.js`));
      }
    };
    visit(join(root, "dist", format, "index.js"));
    expect(seen.size).toBeGreaterThan(4);
  });
});
