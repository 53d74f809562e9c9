/**
 * `SandboxAgent`: a thin fetch client over the daemon's `/v1` routes, and `connect`, which
 * makes one after checking the daemon's health. Session routes live on `Session`.
 */
import { SandboxAgentError } from "./errors.js";
import { seg, Transport, type ClientOptions, type RequestOptions } from "./http.js";
import { Session } from "./session.js";
import type {
  AgentInfo,
  AgentListResponse,
  AgentModeInfo,
  AgentModelsResponse,
  AgentModesResponse,
  CreateSessionRequest,
  CreateSessionResponse,
  HealthResponse,
  SessionInfo,
  SessionListResponse,
} from "./types.js";

export type { ClientOptions, RequestOptions };

/** Options of `createSession`: the creation body (`agent` required) and a signal. */
export interface CreateSessionOptions extends CreateSessionRequest, RequestOptions {}

/** Options of `installAgent`. */
export interface InstallAgentOptions extends RequestOptions {
  /** Install again even when installed. */
  reinstall?: boolean;
  /** Version to install; the latest when absent. */
  version?: string;
}

export class SandboxAgent {
  /** @internal The request layer shared with `Session`. */
  readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
  }

  /** The daemon's address, without a trailing slash. */
  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /** The token sent with every request, if any. */
  get token(): string | undefined {
    return this.transport.token;
  }

  /** `GET /v1/health`: `{status: "ok", version}`. Needs no token. */
  health(options: RequestOptions = {}): Promise<HealthResponse> {
    return this.transport.json<HealthResponse>("GET", "/v1/health", { signal: options.signal });
  }

  /** `GET /v1/openapi.json`: the daemon's OpenAPI document. */
  openapi(options: RequestOptions = {}): Promise<Record<string, unknown>> {
    return this.transport.json("GET", "/v1/openapi.json", { signal: options.signal });
  }

  /** `GET /v1/agents`: every agent the daemon can drive, with install state and capabilities. */
  async listAgents(options: RequestOptions = {}): Promise<AgentInfo[]> {
    const body = await this.transport.json<AgentListResponse>("GET", "/v1/agents", { signal: options.signal });
    return body.agents;
  }

  /** `GET /v1/agents/{agent}/modes`. */
  async listAgentModes(agent: string, options: RequestOptions = {}): Promise<AgentModeInfo[]> {
    const body = await this.transport.json<AgentModesResponse>("GET", `/v1/agents/${seg(agent)}/modes`, {
      signal: options.signal,
    });
    return body.modes;
  }

  /** `GET /v1/agents/{agent}/models`: the models, and `defaultModel`. */
  listAgentModels(agent: string, options: RequestOptions = {}): Promise<AgentModelsResponse> {
    return this.transport.json<AgentModelsResponse>("GET", `/v1/agents/${seg(agent)}/models`, {
      signal: options.signal,
    });
  }

  /** `POST /v1/agents/{agent}/install`: installs the agent's binary (nothing to do for builtins). */
  async installAgent(agent: string, options: InstallAgentOptions = {}): Promise<void> {
    const { signal, ...body } = options;
    await this.transport.none("POST", `/v1/agents/${seg(agent)}/install`, {
      body: withoutUndefined(body),
      signal,
    });
  }

  /** `GET /v1/sessions`: every session, live or ended. */
  async listSessions(options: RequestOptions = {}): Promise<SessionInfo[]> {
    const body = await this.transport.json<SessionListResponse>("GET", "/v1/sessions", { signal: options.signal });
    return body.sessions;
  }

  /**
   * `POST /v1/sessions/{id}`: creates a session and starts its agent. The daemon's answer is in
   * `session.created` (`healthy: false` with an `error` when the agent failed to start; the
   * session then exists and has ended).
   */
  async createSession(id: string, options: CreateSessionOptions): Promise<Session> {
    const { signal, ...body } = options;
    const created = await this.transport.json<CreateSessionResponse>("POST", `/v1/sessions/${seg(id)}`, {
      body: withoutUndefined(body),
      signal,
    });
    return new Session(this, id, { created });
  }

  /**
   * The session with this id, with its current `info` (from `GET /v1/sessions`). Throws a
   * `SandboxAgentError` `session_not_found` (404) when there is none.
   */
  async getSession(id: string, options: RequestOptions = {}): Promise<Session> {
    const info = await this.sessionInfo(id, options);
    return new Session(this, id, { info });
  }

  /** A handle on a session by id, without a request (for a session known to exist). */
  session(id: string): Session {
    return new Session(this, id);
  }

  /** @internal The listed info of one session, or `session_not_found`. */
  async sessionInfo(id: string, options: RequestOptions = {}): Promise<SessionInfo> {
    const info = (await this.listSessions(options)).find((s) => s.sessionId === id);
    if (!info) {
      throw SandboxAgentError.create("session_not_found", 404, `session "${id}" not found`, { sessionId: id });
    }
    return info;
  }
}

/** Options of `connect`. */
export interface ConnectOptions extends ClientOptions, RequestOptions {}

/**
 * A client of the daemon at `baseUrl`, after checking that it answers `GET /v1/health`
 * (which needs no token: a wrong token shows up at the first other call).
 */
export async function connect(options: ConnectOptions): Promise<SandboxAgent> {
  const { signal, ...clientOptions } = options;
  const client = new SandboxAgent(clientOptions);
  await client.health({ signal });
  return client;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
