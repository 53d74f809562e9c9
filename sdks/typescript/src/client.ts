/**
 * `Agentplex`: a thin fetch client over the daemon's `/v1` routes, and `connect`, which
 * makes one after checking the daemon's health. Session routes live on `Session`; the
 * filesystem routes (`/v1/fs/*`) are here, with the 0.1.x SDK's method names, and the
 * process and desktop routes (`/v1/processes/*`, `/v1/desktop/*`) with the reference SDK's (the
 * desktop's written in desktop.ts, and put on `Agentplex` here). sdks/surface.json lists the
 * methods, the same as the Python SDK's.
 */
import {
  bodyOf,
  callOptions,
  seg,
  Transport,
  transportOf,
  transports,
  withoutUndefined,
  type ClientOptions,
  type RawBody,
  type RequestOptions,
} from "./http.js";
import { DesktopMethods } from "./desktop.js";
import { AgentplexError } from "./errors.js";
import {
  installEvents,
  installOutcome,
  type AddFromRegistryOptions,
  type InstallAgentOptions,
  type InstallEvent,
  type InstallResult,
  type ListRegistryOptions,
} from "./install.js";
import { Session } from "./session.js";
import { followProcessLogs, type FollowProcessLogsOptions, type ProcessLogEvent } from "./process-logs.js";
import { ProcessTerminal, type ConnectProcessTerminalOptions } from "./terminal.js";
import { bytesToBase64 } from "./process-logs.js";
import {
  importHeaders,
  NATIVE_LOST_HEADER,
  relay,
  type ExportSessionOptions,
  type ImportSessionOptions,
  type MoveSessionOptions,
} from "./moves.js";
import type {
  AcpServerInfo,
  AcpServerList,
  AdaptersReloadResponse,
  AgentInfo,
  AgentListResponse,
  AgentModeInfo,
  AgentModelsResponse,
  AgentModesResponse,
  CreateSessionRequest,
  CreateSessionResponse,
  FsActionResponse,
  FsDeleteQuery,
  FsEntriesQuery,
  FsEntry,
  FsMoveRequest,
  FsMoveResponse,
  FsPathQuery,
  FsSessionQuery,
  FsStat,
  FsUploadBatchQuery,
  FsUploadBatchResponse,
  FsWriteResponse,
  HealthResponse,
  ImportSessionResponse,
  ProcessConfig,
  ProcessCreateRequest,
  ProcessInfo,
  ProcessInputRequest,
  ProcessInputResponse,
  ProcessListResponse,
  ProcessLogsQuery,
  ProcessLogsResponse,
  ProcessRunRequest,
  ProcessRunResponse,
  ProcessSignalQuery,
  ProcessTerminalResizeRequest,
  RegistryListResponse,
  SessionInfo,
  SessionListResponse,
  SessionScope,
} from "./types.js";

export type { ClientOptions, RequestOptions };
export type {
  AddFromRegistryOptions,
  InstallAgentOptions,
  InstallEvent,
  InstallProgress,
  InstallResult,
  ListRegistryOptions,
} from "./install.js";

/** What the sessions an ACP connection creates run with, besides the agent. */
export interface AcpSessionOptions {
  /** Their model. */
  model?: string;
  /** Their mode. */
  agentMode?: string;
  /** Their permission mode. */
  permissionMode?: string;
}

/** Options of `createSession`: the creation body (`agent` required) and a signal. */
export interface CreateSessionOptions extends CreateSessionRequest, RequestOptions {}

/** Options of `listSessions`. */
export interface ListSessionsOptions extends RequestOptions {
  /**
   * `daemon` (the daemon's default): the sessions this daemon drives; `fleet`: every session of
   * the database it shares with other daemons (`--store postgres://...`), each with its `owner`
   * and `ownerAlive`. Sent only when given.
   */
  scope?: SessionScope;
}

/**
 * The body of `writeFsFile` (the file's bytes), `uploadFsBatch` (a tar archive, plain or gzip)
 * and `importSession` (a session archive), sent as is: bytes, a `Blob`, a string (as UTF-8), or a
 * `ReadableStream` (sent chunked as it is read, never held whole in memory).
 */
export type FsBody = RawBody;

// The desktop methods (desktop.ts) are the client's: declared here, put on its prototype below.
export interface Agentplex extends DesktopMethods {}

/** A client of the daemon's HTTP API (`connect()` makes one once it checked the daemon). */
export class Agentplex {
  constructor(options: ClientOptions) {
    transports.set(this, new Transport(options));
  }

  /** The daemon's address, without a trailing slash. */
  get baseUrl(): string {
    return transportOf(this).baseUrl;
  }

  /** The token sent with every request, if any. */
  get token(): string | undefined {
    return transportOf(this).token;
  }

  /** `GET /v1/health`: `{status: "ok", version}`. Needs no token. */
  health(options: RequestOptions = {}): Promise<HealthResponse> {
    return transportOf(this).json<HealthResponse>("GET", "/v1/health", callOptions(options));
  }

  /** `GET /v1/openapi.json`: the daemon's OpenAPI document. */
  openapi(options: RequestOptions = {}): Promise<Record<string, unknown>> {
    return transportOf(this).json("GET", "/v1/openapi.json", callOptions(options));
  }

  /** `GET /metrics`: the daemon's metrics in the OpenMetrics text format (docs/operate.md). */
  async metrics(options: RequestOptions = {}): Promise<string> {
    const bytes = await transportOf(this).bytes("GET", "/metrics", callOptions(options));
    return new TextDecoder().decode(bytes);
  }

  /**
   * The endpoint of `agent` over ACP's remote transport (`/acp/{agent}`), for an ACP client
   * library's HTTP or WebSocket stream (`createHttpStream(url)` of `@agentclientprotocol/sdk`;
   * `ws:` for its WebSocket stream): the daemon is then an ACP agent running `agent`.
   */
  acpUrl(agent: string, options: AcpSessionOptions = {}): string {
    return transportOf(this).url(`/acp/${seg(agent)}`, { ...options });
  }

  /**
   * The endpoint of ACP connection `serverId` over the reference's transport
   * (`/v1/acp/{serverId}`: POST messages, GET the SSE stream, DELETE to close), naming the
   * agent it runs on the first POST.
   */
  acpServerUrl(serverId: string, agent: string, options: AcpSessionOptions = {}): string {
    return transportOf(this).url(`/v1/acp/${seg(serverId)}`, { agent, ...options });
  }

  /** `GET /v1/acp`: the open ACP connections of the reference's transport and the remote one. */
  async listAcpServers(options: RequestOptions = {}): Promise<AcpServerInfo[]> {
    const body = await transportOf(this).json<AcpServerList>("GET", "/v1/acp", callOptions(options));
    return body.servers;
  }

  /** `GET /v1/agents`: every agent the daemon can drive, with install state and capabilities. */
  async listAgents(options: RequestOptions = {}): Promise<AgentInfo[]> {
    const body = await transportOf(this).json<AgentListResponse>("GET", "/v1/agents", callOptions(options));
    return body.agents;
  }

  /** `GET /v1/agents/{agent}/modes`. */
  async listAgentModes(agent: string, options: RequestOptions = {}): Promise<AgentModeInfo[]> {
    const body = await transportOf(this).json<AgentModesResponse>("GET", `/v1/agents/${seg(agent)}/modes`, {
      ...callOptions(options),
    });
    return body.modes;
  }

  /** `GET /v1/agents/{agent}/models`: the models, and `defaultModel`. */
  listAgentModels(agent: string, options: RequestOptions = {}): Promise<AgentModelsResponse> {
    return transportOf(this).json<AgentModelsResponse>("GET", `/v1/agents/${seg(agent)}/models`, {
      ...callOptions(options),
    });
  }

  /**
   * `POST /v1/agents/{agent}/install`: installs the agent's binary (nothing to do for builtins)
   * and resolves with what was installed. `onProgress` sees each step as it runs (the route's
   * event-stream mode). A failure rejects with an `InstallFailedError` whose `detail` names
   * each source tried. No time limit unless the call gives `timeoutMs` (it then covers the
   * wait for the daemon's first answer).
   */
  installAgent(agent: string, options: InstallAgentOptions = {}): Promise<InstallResult> {
    const { onProgress, ...rest } = options;
    return installOutcome(this.installAgentProgress(agent, rest), agent, onProgress);
  }

  /**
   * `POST /v1/agents/{agent}/install` as an event stream: `{event: "progress", data}` while it
   * runs, then one `{event: "result", data}`; a failure throws its `InstallFailedError`.
   */
  installAgentProgress(
    agent: string,
    options: Omit<InstallAgentOptions, "onProgress"> = {},
  ): AsyncGenerator<InstallEvent, void, undefined> {
    const { reinstall, version, ...request } = options;
    const path = `/v1/agents/${seg(agent)}/install`;
    return installEvents(transportOf(this), path, agent, { reinstall, version }, request);
  }

  /**
   * `GET /v1/registry`: the agents of the ACP registry's index (the public index of agents
   * speaking the Agent Client Protocol), where it came from (`source`, `fetchedAt`, `stale`),
   * and for each whether it can be installed here and whether it was added. `refresh: true`
   * fetches the index anew. A `StreamError` (502) when the index cannot be fetched and no copy
   * is cached.
   */
  listRegistry(options: ListRegistryOptions = {}): Promise<RegistryListResponse> {
    const { refresh, ...request } = options;
    return transportOf(this).json<RegistryListResponse>("GET", "/v1/registry", {
      query: { refresh },
      ...callOptions(request),
    });
  }

  /**
   * `POST /v1/registry/{agent}`: adds the ACP registry's agent to the daemon and installs it;
   * resolves with what was installed, and the agent is then in `listAgents()` and takes
   * sessions. `env` names variables of the daemon's environment the agent is given (its API
   * key). `onProgress` sees each install step. Rejects with `UnsupportedAgentError` (404) when
   * the registry lists no such agent, `InvalidRequestError` (409) when the id is one of the
   * daemon's own agents, `InstallFailedError` when the install fails, `StreamError` (502) when
   * the index cannot be fetched. No time limit unless the call gives `timeoutMs`.
   */
  addFromRegistry(agent: string, options: AddFromRegistryOptions = {}): Promise<InstallResult> {
    const { onProgress, ...rest } = options;
    return installOutcome(this.addFromRegistryProgress(agent, rest), agent, onProgress);
  }

  /**
   * `POST /v1/registry/{agent}` as an event stream: `{event: "progress", data}` while the
   * agent installs, then one `{event: "result", data}`; the errors of `addFromRegistry`.
   */
  addFromRegistryProgress(
    agent: string,
    options: Omit<AddFromRegistryOptions, "onProgress"> = {},
  ): AsyncGenerator<InstallEvent, void, undefined> {
    const { env, reinstall, ...request } = options;
    return installEvents(transportOf(this), `/v1/registry/${seg(agent)}`, agent, { env, reinstall }, request);
  }

  /**
   * `POST /v1/adapters/reload`: loads the daemon's adapters folder again; the adapters it holds
   * now, and why each other file was skipped. `NotConfiguredError` (409) when the daemon runs
   * without an adapters folder.
   */
  reloadAdapters(options: RequestOptions = {}): Promise<AdaptersReloadResponse> {
    return transportOf(this).json<AdaptersReloadResponse>("POST", "/v1/adapters/reload", callOptions(options));
  }

  /**
   * `GET /v1/sessions`: every session this daemon drives, live or ended; with `scope: "fleet"`,
   * every session of the database it shares with other daemons, with its `owner` and
   * `ownerAlive`.
   */
  async listSessions(options: ListSessionsOptions = {}): Promise<SessionInfo[]> {
    const { scope, ...request } = options;
    const body = await transportOf(this).json<SessionListResponse>("GET", "/v1/sessions", {
      query: { scope },
      ...callOptions(request),
    });
    return body.sessions;
  }

  /**
   * `POST /v1/sessions/{id}`: creates a session and starts its agent. The daemon's answer is in
   * `session.created` (`healthy: false` with an `error` when the agent failed to start; the
   * session then exists and has ended).
   */
  async createSession(id: string, options: CreateSessionOptions): Promise<Session> {
    const { signal, timeoutMs, maxRetries, ...body } = options;
    const created = await transportOf(this).json<CreateSessionResponse>("POST", `/v1/sessions/${seg(id)}`, {
      body: withoutUndefined(body),
      // Creating may install the agent first: no time limit unless the call gives one.
      ...callOptions({ signal, timeoutMs: timeoutMs ?? 0, maxRetries }),
    });
    return new Session(this, id, { created });
  }

  /**
   * The session with this id, with its current `info` (from `GET /v1/sessions`). Throws a
   * `AgentplexError` `session_not_found` (404) when there is none.
   */
  async getSession(id: string, options: RequestOptions = {}): Promise<Session> {
    const info = await sessionInfo(this, id, options);
    return new Session(this, id, { info });
  }

  /** A handle on a session by id, without a request (for a session known to exist). */
  session(id: string): Session {
    return new Session(this, id);
  }

  /**
   * `GET /v1/sessions/{id}/export`: the session as one archive (gzip-compressed tar: its
   * transcript, the adapter's state, its configuration without secret variables, the agent's
   * own session files), as a stream, once the daemon has answered (`session_not_found` rejects
   * here, not in the stream). A running session keeps running. `onNativeLost` hears why the
   * agent's own session is not in it, when it is not. Cancel the stream, or abort `signal`, to
   * stop early.
   */
  async exportSession(id: string, options: ExportSessionOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const { onNativeLost, ...request } = options;
    const response = await transportOf(this).byteResponse("GET", `/v1/sessions/${seg(id)}/export`, {
      headers: { accept: "application/gzip" },
      ...callOptions(request),
    });
    const lost = response.headers.get(NATIVE_LOST_HEADER);
    try {
      if (lost !== null) onNativeLost?.(lost);
    } catch (error) {
      await response.body?.cancel().catch(() => undefined);
      throw error;
    }
    return bodyOf(response);
  }

  /**
   * `POST /v1/sessions/{id}/import`: restores a session from an archive of `exportSession`
   * (bytes, a `Blob`, or a `ReadableStream` sent as it is read), under `id`, in `directory`
   * (default: the one it had, when it exists here); `env` gives the secret variables the export
   * left out (form-encoded in one header, see `ImportSessionOptions`). The daemon checks the
   * archive whole first: a damaged, truncated, foreign or too new one is `InvalidArchiveError`
   * (400) and writes nothing; `SessionAlreadyExistsError` (409) when `id` is taken,
   * `PathConflictError` (409) when an agent's file of the session is here with other contents.
   * Resolves with the session as it now is here, the secrets still missing, and `lost` when
   * the agent's own session did not come along.
   */
  async importSession(id: string, archive: FsBody, options: ImportSessionOptions = {}): Promise<ImportSessionResponse> {
    const { directory, env, ...request } = options;
    return transportOf(this).json<ImportSessionResponse>("POST", `/v1/sessions/${seg(id)}/import`, {
      query: { directory },
      raw: archive,
      headers: importHeaders(env),
      ...callOptions(request),
    });
  }

  /**
   * Moves session `id` from this daemon to the daemon of `to` (as `toId`, by default `id`):
   * the export's stream is the import's body, chunk by chunk, never held whole in memory or
   * stored (`fetch` sends a stream body with `duplex: "half"`: Node 20+, Bun, Chromium). The
   * session stays here until you delete it. Resolves as `importSession` does; a failure reading
   * the export rejects with its `NetworkError`. `signal`, `timeoutMs` and `maxRetries` apply to
   * both requests.
   */
  async moveSession(id: string, to: Agentplex, options: MoveSessionOptions = {}): Promise<ImportSessionResponse> {
    const { toId, directory, env, ...request } = options;
    // What cannot be sent is refused before the export starts.
    importHeaders(env);
    const archive = relay(await this.exportSession(id, request), `the archive of session "${id}"`, request.signal);
    try {
      return await to.importSession(toId ?? id, archive.body, { ...request, directory, env });
    } catch (error) {
      throw archive.failure ?? error;
    } finally {
      await archive.close();
    }
  }

  /**
   * `GET /v1/fs/entries`: the entries of a directory, sorted by name. Without `path`, the
   * directory of the session named by `sessionId`, or the daemon user's home directory.
   */
  listFsEntries(query: FsEntriesQuery = {}, options: RequestOptions = {}): Promise<FsEntry[]> {
    return transportOf(this).json<FsEntry[]>("GET", "/v1/fs/entries", { query, ...callOptions(options) });
  }

  /**
   * `GET /v1/fs/file`: a file's bytes, read whole. A relative `path` starts from the directory
   * of the session named by `sessionId`, or the home directory. `readFsFileStream` for large
   * files.
   */
  readFsFile(query: FsPathQuery, options: RequestOptions = {}): Promise<Uint8Array> {
    return transportOf(this).bytes("GET", "/v1/fs/file", { query, ...callOptions(options) });
  }

  /**
   * `GET /v1/fs/file`: a file's bytes as a stream, once the daemon has answered (errors such as
   * `path_not_found` reject here, not in the stream). Cancel the stream, or abort `signal`, to
   * stop early.
   */
  readFsFileStream(query: FsPathQuery, options: RequestOptions = {}): Promise<ReadableStream<Uint8Array>> {
    return transportOf(this).byteStream("GET", "/v1/fs/file", { query, ...callOptions(options) });
  }

  /**
   * `PUT /v1/fs/file`: writes `body` to a file as `application/octet-stream`, creating it and
   * its parent directories; `{path, bytesWritten}`. The file is replaced only once the whole
   * body has arrived. A larger body than the daemon's `--fs-max-bytes` is `payload_too_large`
   * (413).
   */
  writeFsFile(query: FsPathQuery, body: FsBody, options: RequestOptions = {}): Promise<FsWriteResponse> {
    return transportOf(this).json<FsWriteResponse>("PUT", "/v1/fs/file", {
      query,
      raw: body,
      headers: { "content-type": "application/octet-stream" },
      // Writing the same bytes again is harmless: retried like a GET (not for a stream body).
      idempotent: true,
      ...callOptions(options),
    });
  }

  /** `GET /v1/fs/stat`: a path's type, size and modification time. */
  statFs(query: FsPathQuery, options: RequestOptions = {}): Promise<FsStat> {
    return transportOf(this).json<FsStat>("GET", "/v1/fs/stat", { query, ...callOptions(options) });
  }

  /** `POST /v1/fs/mkdir`: creates a directory and its parents (an existing one is fine); `{path}`. */
  mkdirFs(query: FsPathQuery, options: RequestOptions = {}): Promise<FsActionResponse> {
    return transportOf(this).json<FsActionResponse>("POST", "/v1/fs/mkdir", { query, ...callOptions(options) });
  }

  /**
   * `POST /v1/fs/move`: moves or renames `from` to `to` (its parents are created); both absolute
   * paths. An existing `to` is `path_conflict` (409) unless `overwrite`. `query.sessionId`
   * resolves relative paths.
   */
  moveFs(request: FsMoveRequest, query: FsSessionQuery = {}, options: RequestOptions = {}): Promise<FsMoveResponse> {
    return transportOf(this).json<FsMoveResponse>("POST", "/v1/fs/move", {
      query,
      body: withoutUndefined(request),
      ...callOptions(options),
    });
  }

  /**
   * `DELETE /v1/fs/entry`: deletes a file, a symbolic link or a directory; a directory that is
   * not empty only with `recursive: true` (`path_conflict`, 409, without). `{path}`.
   */
  deleteFsEntry(query: FsDeleteQuery, options: RequestOptions = {}): Promise<FsActionResponse> {
    return transportOf(this).json<FsActionResponse>("DELETE", "/v1/fs/entry", { query, ...callOptions(options) });
  }

  /**
   * `POST /v1/fs/upload-batch`: unpacks a tar archive (plain or gzip) under `query.path`
   * (created when missing; default the session's or home directory), sent as
   * `application/x-tar`. All or nothing: an entry that would land outside the target refuses
   * the whole archive (400). `paths` lists what was written (at most 1024, then `truncated`).
   */
  uploadFsBatch(
    body: FsBody,
    query: FsUploadBatchQuery = {},
    options: RequestOptions = {},
  ): Promise<FsUploadBatchResponse> {
    return transportOf(this).json<FsUploadBatchResponse>("POST", "/v1/fs/upload-batch", {
      query,
      raw: body,
      headers: { "content-type": "application/x-tar" },
      ...callOptions(options),
    });
  }

  /** `GET /v1/processes/config`: the daemon's process limits (set by its flags). */
  getProcessConfig(options: RequestOptions = {}): Promise<ProcessConfig> {
    return transportOf(this).json<ProcessConfig>("GET", "/v1/processes/config", callOptions(options));
  }

  /**
   * `POST /v1/processes/run`: runs a command to completion and resolves with its exit status
   * and output. The daemon kills it after `request.timeoutMs` (30 s when absent), so the call
   * has no time limit of its own unless `options.timeoutMs` gives one.
   */
  runProcess(request: ProcessRunRequest, options: RequestOptions = {}): Promise<ProcessRunResponse> {
    return transportOf(this).json<ProcessRunResponse>("POST", "/v1/processes/run", {
      body: withoutUndefined(request),
      ...callOptions({ ...options, timeoutMs: options.timeoutMs ?? 0 }),
    });
  }

  /** `POST /v1/processes`: starts a managed process (`tty: true` for a terminal). */
  createProcess(request: ProcessCreateRequest, options: RequestOptions = {}): Promise<ProcessInfo> {
    return transportOf(this).json<ProcessInfo>("POST", "/v1/processes", {
      body: withoutUndefined(request),
      ...callOptions(options),
    });
  }

  /** `GET /v1/processes`: every process not deleted, oldest first. */
  async listProcesses(options: RequestOptions = {}): Promise<ProcessInfo[]> {
    const body = await transportOf(this).json<ProcessListResponse>("GET", "/v1/processes", callOptions(options));
    return body.processes;
  }

  /** `GET /v1/processes/{id}`; `ProcessNotFoundError` (404) for an unknown id. */
  getProcess(id: string, options: RequestOptions = {}): Promise<ProcessInfo> {
    return transportOf(this).json<ProcessInfo>("GET", `/v1/processes/${seg(id)}`, callOptions(options));
  }

  /**
   * `POST /v1/processes/{id}/stop`: SIGTERM to its process group, SIGKILL after the daemon's
   * grace. Answers at once, or with `waitMs` once it exited or `waitMs` passed.
   */
  stopProcess(id: string, query: ProcessSignalQuery = {}, options: RequestOptions = {}): Promise<ProcessInfo> {
    return transportOf(this).json<ProcessInfo>("POST", `/v1/processes/${seg(id)}/stop`, {
      query,
      ...callOptions(options),
    });
  }

  /** `POST /v1/processes/{id}/kill`: SIGKILL to its process group (`waitMs` as for `stopProcess`). */
  killProcess(id: string, query: ProcessSignalQuery = {}, options: RequestOptions = {}): Promise<ProcessInfo> {
    return transportOf(this).json<ProcessInfo>("POST", `/v1/processes/${seg(id)}/kill`, {
      query,
      ...callOptions(options),
    });
  }

  /** `DELETE /v1/processes/{id}`: forgets an exited process and its logs (`ProcessConflictError` while it runs). */
  deleteProcess(id: string, options: RequestOptions = {}): Promise<void> {
    return transportOf(this).none("DELETE", `/v1/processes/${seg(id)}`, callOptions(options));
  }

  /** `GET /v1/processes/{id}/logs`: the output held in its ring buffer, by entry and byte offset. */
  getProcessLogs(id: string, query: ProcessLogsQuery = {}, options: RequestOptions = {}): Promise<ProcessLogsResponse> {
    return transportOf(this).json<ProcessLogsResponse>("GET", `/v1/processes/${seg(id)}/logs`, {
      query,
      ...callOptions(options),
    });
  }

  /**
   * `GET /v1/processes/{id}/logs?follow=true` as an async iterator: the entries held, new ones
   * as they are read, `missed` when output was dropped before it was sent, and `exit` last.
   * Reconnects from the last entry yielded; leaving the loop closes the connection.
   */
  followProcessLogs(id: string, options: FollowProcessLogsOptions = {}): AsyncGenerator<ProcessLogEvent, void, undefined> {
    return followProcessLogs(this, id, options);
  }

  /**
   * `POST /v1/processes/{id}/input`: writes to its stdin (or terminal): a string as UTF-8, bytes
   * as they are, or the request body (its `data` is base64 unless `encoding` is `utf8`).
   * `ProcessConflictError` (409) when its stdin is not open, `PayloadTooLargeError` (413) past
   * `--process-input-bytes`.
   */
  sendProcessInput(
    id: string,
    input: string | Uint8Array | ProcessInputRequest,
    options: RequestOptions = {},
  ): Promise<ProcessInputResponse> {
    const request: ProcessInputRequest =
      typeof input === "string"
        ? { data: input, encoding: "utf8" }
        : input instanceof Uint8Array
          ? { data: bytesToBase64(input), encoding: "base64" }
          : input;
    return transportOf(this).json<ProcessInputResponse>("POST", `/v1/processes/${seg(id)}/input`, {
      body: withoutUndefined(request),
      ...callOptions(options),
    });
  }

  /** `POST /v1/processes/{id}/terminal/resize`: sets a terminal's size; answers the size set. */
  resizeProcessTerminal(
    id: string,
    size: ProcessTerminalResizeRequest,
    options: RequestOptions = {},
  ): Promise<ProcessTerminalResizeRequest> {
    return transportOf(this).json<ProcessTerminalResizeRequest>("POST", `/v1/processes/${seg(id)}/terminal/resize`, {
      body: size,
      ...callOptions(options),
    });
  }

  /**
   * The `ws:` (or `wss:`) URL of a process's terminal, with the token (`accessToken`, else the
   * client's) as the `access_token` query parameter: a WebSocket cannot send headers.
   */
  buildProcessTerminalWebSocketUrl(id: string, options: { accessToken?: string } = {}): string {
    const token = options.accessToken ?? this.token;
    const url = transportOf(this).url(`/v1/processes/${seg(id)}/terminal/ws`, { access_token: token });
    return url.replace(/^http/, "ws");
  }

  /**
   * Opens a WebSocket to a process's terminal and resolves once the daemon is ready: its
   * output (the scrollback first) comes to `onData`, `sendInput` and `resize` go to it.
   * Rejects with `ProcessNotFoundError` (404) or `ProcessConflictError` (409, no terminal).
   */
  connectProcessTerminal(id: string, options: ConnectProcessTerminalOptions = {}): Promise<ProcessTerminal> {
    return ProcessTerminal.open(
      id,
      {
        url: this.buildProcessTerminalWebSocketUrl(id, options),
        describe: () => this.getProcess(id, { signal: options.signal }),
      },
      { ...options, timeoutMs: options.timeoutMs ?? transportOf(this).timeoutMs },
    );
  }
}

// The desktop methods on the prototype, as if written in the class (`interface Agentplex` above).
for (const name of Object.getOwnPropertyNames(DesktopMethods.prototype)) {
  if (name !== "constructor") {
    Object.defineProperty(Agentplex.prototype, name, Object.getOwnPropertyDescriptor(DesktopMethods.prototype, name)!);
  }
}

/** @deprecated The 0.2 name of `Agentplex`. */
export const SandboxAgent = Agentplex;
/** @deprecated The 0.2 name of `Agentplex`. */
export type SandboxAgent = Agentplex;

/** The listed info of one session (`GET /v1/sessions/{id}`), or `session_not_found`. */
export function sessionInfo(client: Agentplex, id: string, options: RequestOptions = {}): Promise<SessionInfo> {
  return transportOf(client).json<SessionInfo>("GET", `/v1/sessions/${seg(id)}`, callOptions(options));
}

/** Options of `connect`. */
export interface ConnectOptions extends ClientOptions, Pick<RequestOptions, "signal"> {}

/**
 * A client of the daemon at `baseUrl`, once it is known to work: `GET /v1/health` must answer
 * as an agentplex daemon does, then `GET /v1/sessions` (which needs the token) must be
 * allowed. Each way it can fail says what is wrong:
 * - `NetworkError` (or `TimeoutError`): nothing answers at `baseUrl`;
 * - `UnexpectedResponseError`: something answers, but not an agentplex daemon;
 * - `TokenInvalidError`: the daemon wants a token and none was given, or refused the one given.
 */
export async function connect(options: ConnectOptions): Promise<Agentplex> {
  const { signal, ...clientOptions } = options;
  const client = new Agentplex(clientOptions);
  const where = client.baseUrl;
  let health: HealthResponse;
  try {
    health = await client.health({ signal, maxRetries: 0 });
  } catch (error) {
    if (signal?.aborted) throw error;
    if (error instanceof AgentplexError && error.code === "network_error") {
      throw AgentplexError.create("network_error", 0, `nothing answers at ${where}: ${error.detail ?? ""}`, {}, error);
    }
    if (error instanceof AgentplexError && error.status !== 0) {
      throw AgentplexError.create(
        "unexpected_response",
        error.status,
        `${where} is not an agentplex daemon: GET /v1/health answered ${error.status} (${error.detail ?? error.title})`,
        {},
        error,
      );
    }
    throw error;
  }
  if (typeof health !== "object" || health === null || health.status !== "ok" || typeof health.version !== "string") {
    throw AgentplexError.create(
      "unexpected_response",
      200,
      `${where} is not an agentplex daemon: GET /v1/health answered ${JSON.stringify(health).slice(0, 200)}`,
    );
  }
  try {
    await transportOf(client).none("GET", "/v1/sessions", { signal });
  } catch (error) {
    if (error instanceof AgentplexError && error.code === "token_invalid") {
      throw AgentplexError.create(
        "token_invalid",
        401,
        client.token === undefined
          ? `the daemon at ${where} requires a token and none was given: pass \`token\``
          : `the daemon at ${where} refused the token given`,
        {},
        error,
      );
    }
    throw error;
  }
  return client;
}
