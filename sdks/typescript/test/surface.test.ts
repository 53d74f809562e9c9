/**
 * The public surface against docs/openapi.json and sdks/surface.json, the table the Python
 * SDK's tests/test_surface.py reads too: every operation of the document has its methods, the
 * SDK has no public method the table does not list (so both SDKs have the same ones), every
 * error code has the class the table names, and docs/sdk-typescript.md names every method.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_START_TIMEOUT_MS } from "../src/daemon-binary.js";
import { DEFAULT_MAX_RETRIES, DEFAULT_RETRY_DELAY_MS, DEFAULT_TIMEOUT_MS, RETRY_STATUSES } from "../src/http.js";
import * as sdk from "../src/node.js";
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_STREAM_RETRIES, DEFAULT_STREAM_RETRY_DELAY_MS } from "../src/reconnect.js";

interface Surface {
  operations: Record<string, { client?: string[]; session?: string[] }>;
  helpers: { client: string[]; session: string[]; module: string[] };
  errors: Record<string, string>;
  baseError: string;
  deprecated: { typescript: Record<string, string> };
  defaults: Record<string, number | number[]>;
}

const read = (path: string): unknown => JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));
const surface = read("../../surface.json") as Surface;
const openapi = read("../../../docs/openapi.json") as {
  paths: Record<string, Record<string, { operationId?: string }>>;
  components: { schemas: { ErrorType: { enum: string[] } } };
};
const exported = sdk as unknown as Record<string, unknown>;

/** The methods a class's instances have that are not internal: the prototype's functions. */
function publicMethods(prototype: object): string[] {
  return Object.getOwnPropertyNames(prototype)
    .filter((name) => name !== "constructor")
    .filter((name) => typeof Object.getOwnPropertyDescriptor(prototype, name)!.value === "function")
    .sort();
}

/** The methods the table lists on the client or the session. */
/** The methods listed on the client or the session, each once (a URL builder serves several routes). */
function listed(on: "client" | "session"): string[] {
  const names = [...Object.values(surface.operations).flatMap((methods) => methods[on] ?? []), ...surface.helpers[on]];
  return [...new Set(names)].sort();
}

describe("the surface shared with the Python SDK (sdks/surface.json)", () => {
  it("covers every operation of docs/openapi.json, and no other", () => {
    const ids = Object.values(openapi.paths)
      .flatMap((item) => Object.values(item).map((operation) => operation.operationId))
      .filter((id): id is string => id !== undefined);
    expect(Object.keys(surface.operations).sort()).toEqual(ids.sort());
    for (const [id, methods] of Object.entries(surface.operations)) {
      expect([...(methods.client ?? []), ...(methods.session ?? [])].length, id).toBeGreaterThan(0);
    }
  });

  it("Agentplex has exactly the client methods listed", () => {
    expect(publicMethods(sdk.Agentplex.prototype)).toEqual(listed("client"));
  });

  it("Session has exactly the session methods listed", () => {
    expect(publicMethods(sdk.Session.prototype)).toEqual(listed("session"));
  });

  it("exports the functions listed", () => {
    for (const name of surface.helpers.module) expect(typeof exported[name], name).toBe("function");
  });

  it("has the class listed for every error code, the daemon's and its own", () => {
    expect(Object.keys(sdk.ERROR_CLASSES).sort()).toEqual(Object.keys(surface.errors).sort());
    for (const code of openapi.components.schemas.ErrorType.enum) expect(surface.errors).toHaveProperty(code);
    for (const [code, name] of Object.entries(surface.errors)) {
      expect(sdk.ERROR_CLASSES[code]!.name, code).toBe(name);
      expect(exported[name], name).toBe(sdk.ERROR_CLASSES[code]);
      expect(sdk.AgentplexError.create(code, 0)).toBeInstanceOf(exported[name] as typeof sdk.AgentplexError);
    }
    expect(exported[surface.baseError]).toBe(sdk.AgentplexError);
    expect(sdk.AgentplexError.create("timeout", 0).name).toBe("TimeoutError");
  });

  it("keeps the 0.2 names as aliases of the new ones", () => {
    for (const [old, now] of Object.entries(surface.deprecated.typescript)) {
      expect(exported[now], now).toBeDefined();
      expect(exported[old], old).toBe(exported[now]);
    }
    expect(new sdk.SandboxAgent({ baseUrl: "http://127.0.0.1:9" })).toBeInstanceOf(sdk.Agentplex);
    expect(sdk.AgentplexError.create("session_not_found", 404)).toBeInstanceOf(sdk.SandboxAgentError);
  });

  it("starts with the defaults listed", () => {
    expect({
      timeoutSeconds: DEFAULT_TIMEOUT_MS / 1000,
      maxRetries: DEFAULT_MAX_RETRIES,
      retryDelaySeconds: DEFAULT_RETRY_DELAY_MS / 1000,
      retryStatuses: RETRY_STATUSES,
      streamMaxRetries: DEFAULT_STREAM_RETRIES,
      streamRetryDelaySeconds: DEFAULT_STREAM_RETRY_DELAY_MS / 1000,
      idleTimeoutSeconds: DEFAULT_IDLE_TIMEOUT_MS / 1000,
      startTimeoutSeconds: DEFAULT_START_TIMEOUT_MS / 1000,
    }).toEqual(surface.defaults);
  });

  it("docs/sdk-typescript.md shows every method", () => {
    const doc = readFileSync(new URL("../../../docs/sdk-typescript.md", import.meta.url), "utf8");
    const names = [...listed("client"), ...listed("session"), ...surface.helpers.module];
    // A call or a signature (`name(`), or the name in backquotes.
    const shown = (name: string) => new RegExp(`(?<![\\w$])${name}\\(|\`${name}\``).test(doc);
    const missing = names.filter((name) => !shown(name));
    expect(missing).toEqual([]);
  });
});
