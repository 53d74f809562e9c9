/**
 * `Agentplex`: a thin fetch client over the daemon's `/v1` routes, and `connect`, which
 * makes one after checking the daemon's health. Session routes live on `Session`; the
 * filesystem routes (`/v1/fs/*`) are here, with the 0.1.x SDK's method names, and the
 * process and desktop routes (`/v1/processes/*`, `/v1/desktop/*`) with the reference SDK's.
 * sdks/surface.json lists the methods, the same as the Python SDK's.
 */
import {
  bodyOf,
  callOptions,
  seg,
  Transport,
  transportOf,
  transports,
  type ClientOptions,
  type RawBody,
  type RequestOptions,
} from "./http.js";
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
  DesktopActionResponse,
  DesktopClipboardQuery,
  DesktopClipboardResponse,
  DesktopClipboardWriteRequest,
  DesktopDisplayInfoResponse,
  DesktopKeyboardPressRequest,
  DesktopKeyboardTypeRequest,
  DesktopKeyRequest,
  DesktopLaunchRequest,
  DesktopLaunchResponse,
  DesktopMouseButtonRequest,
  DesktopMouseClickRequest,
  DesktopMouseDragRequest,
  DesktopMouseMoveRequest,
  DesktopMousePositionResponse,
  DesktopMouseScrollRequest,
  DesktopOpenRequest,
  DesktopOpenResponse,
  DesktopRecordingInfo,
  DesktopRecordingListResponse,
  DesktopRecordingStartRequest,
  DesktopRegionScreenshotQuery,
  DesktopScreenshotQuery,
  DesktopStartRequest,
  DesktopStatusResponse,
  DesktopWindowInfo,
  DesktopWindowListResponse,
  DesktopWindowMoveRequest,
  DesktopWindowResizeRequest,
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
   * The `ws:` (or `wss:`) URL of the desktop's live view (`GET /v1/desktop/stream/ws`): binary
   * JPEG frames of the screen after a `ready` frame, JSON input frames in. The token
   * (`accessToken`, else the client's) is its `access_token` query parameter, for a client
   * that cannot send headers (a browser's WebSocket).
   */
  buildDesktopStreamWebSocketUrl(
    options: { accessToken?: string; fps?: number; quality?: number; scale?: number } = {},
  ): string {
    const url = transportOf(this).url("/v1/desktop/stream/ws", {
      access_token: options.accessToken ?? this.token,
      fps: options.fps,
      quality: options.quality,
      scale: options.scale,
    });
    return url.replace(/^http/, "ws");
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

  /**
   * `GET /v1/desktop/status`: what the desktop is doing (`state`), its display, programs and
   * windows, and the programs it needs that are not installed (`missingDependencies`, with the
   * `installCommand` that installs them).
   */
  getDesktopStatus(options: RequestOptions = {}): Promise<DesktopStatusResponse> {
    return transportOf(this).json<DesktopStatusResponse>("GET", "/v1/desktop/status", callOptions(options));
  }

  /**
   * `POST /v1/desktop/start`: starts the desktop (Xvfb at the size asked, a session bus,
   * openbox; 1440x900 at 96 DPI by default) and resolves with its status once it runs. A running
   * desktop is left as it is. `DesktopUnavailableError` (501) when Xvfb or openbox is not
   * installed, `DesktopFailedError` (503) when they did not come up, `DesktopConflictError` (409)
   * while a start or stop is under way.
   */
  startDesktop(request: DesktopStartRequest = {}, options: RequestOptions = {}): Promise<DesktopStatusResponse> {
    return transportOf(this).json<DesktopStatusResponse>("POST", "/v1/desktop/start", {
      body: withoutUndefined(request),
      ...callOptions(options),
    });
  }

  /** `POST /v1/desktop/stop`: stops the desktop, its recording and its programs; its status once stopped. */
  stopDesktop(options: RequestOptions = {}): Promise<DesktopStatusResponse> {
    return transportOf(this).json<DesktopStatusResponse>("POST", "/v1/desktop/stop", callOptions(options));
  }

  /**
   * `GET /v1/desktop/display/info`: the display's name and size. Every route of the running
   * desktop (this one and those below) rejects with `DesktopNotRunningError` (409) when it is not
   * started.
   */
  getDesktopDisplayInfo(options: RequestOptions = {}): Promise<DesktopDisplayInfoResponse> {
    return transportOf(this).json<DesktopDisplayInfoResponse>("GET", "/v1/desktop/display/info", callOptions(options));
  }

  /**
   * `GET /v1/desktop/screenshot`: the whole screen as image bytes (`format`: `png`, the default,
   * `jpeg` at `quality`, or `webp`; `scale` shrinks it; `showCursor` draws the pointer).
   * `InvalidRequestError` (400) for a `quality` or `scale` out of range.
   */
  takeDesktopScreenshot(query: DesktopScreenshotQuery = {}, options: RequestOptions = {}): Promise<Uint8Array> {
    return transportOf(this).bytes("GET", "/v1/desktop/screenshot", {
      query,
      headers: { accept: IMAGE_TYPES },
      ...callOptions(options),
    });
  }

  /**
   * `GET /v1/desktop/screenshot/region`: the region `x`, `y`, `width`, `height` of the screen as
   * image bytes, with the options of `takeDesktopScreenshot`. `InvalidRequestError` (400) for a
   * region that is not on the screen.
   */
  takeDesktopRegionScreenshot(query: DesktopRegionScreenshotQuery, options: RequestOptions = {}): Promise<Uint8Array> {
    return transportOf(this).bytes("GET", "/v1/desktop/screenshot/region", {
      query,
      headers: { accept: IMAGE_TYPES },
      ...callOptions(options),
    });
  }

  /** `GET /v1/desktop/mouse/position`: where the pointer is, and the window under it. */
  getDesktopMousePosition(options: RequestOptions = {}): Promise<DesktopMousePositionResponse> {
    return transportOf(this).json<DesktopMousePositionResponse>(
      "GET",
      "/v1/desktop/mouse/position",
      callOptions(options),
    );
  }

  /**
   * `POST /v1/desktop/mouse/move`: moves the pointer; where it is then. A point off the screen is
   * an `InvalidRequestError` (400), here and in the mouse methods below.
   */
  moveDesktopMouse(
    request: DesktopMouseMoveRequest,
    options: RequestOptions = {},
  ): Promise<DesktopMousePositionResponse> {
    return desktopPointer(this, "move", request, options);
  }

  /** `POST /v1/desktop/mouse/click`: moves the pointer to `x`, `y` and clicks (`clickCount` 1 to 3, `button`). */
  clickDesktop(request: DesktopMouseClickRequest, options: RequestOptions = {}): Promise<DesktopMousePositionResponse> {
    return desktopPointer(this, "click", request, options);
  }

  /** `POST /v1/desktop/mouse/down`: presses a button (at `x`, `y` when given) and holds it. */
  mouseDownDesktop(
    request: DesktopMouseButtonRequest = {},
    options: RequestOptions = {},
  ): Promise<DesktopMousePositionResponse> {
    return desktopPointer(this, "down", request, options);
  }

  /** `POST /v1/desktop/mouse/up`: releases a button (at `x`, `y` when given). */
  mouseUpDesktop(
    request: DesktopMouseButtonRequest = {},
    options: RequestOptions = {},
  ): Promise<DesktopMousePositionResponse> {
    return desktopPointer(this, "up", request, options);
  }

  /** `POST /v1/desktop/mouse/drag`: presses at the start, moves to the end in steps, releases there. */
  dragDesktopMouse(
    request: DesktopMouseDragRequest,
    options: RequestOptions = {},
  ): Promise<DesktopMousePositionResponse> {
    return desktopPointer(this, "drag", request, options);
  }

  /** `POST /v1/desktop/mouse/scroll`: turns the wheel at `x`, `y` (`deltaY` > 0 scrolls down, `deltaX` > 0 right). */
  scrollDesktop(
    request: DesktopMouseScrollRequest,
    options: RequestOptions = {},
  ): Promise<DesktopMousePositionResponse> {
    return desktopPointer(this, "scroll", request, options);
  }

  /**
   * `POST /v1/desktop/keyboard/type`: types `text` (any Unicode) into the focused window,
   * `delayMs` apart. `InvalidRequestError` (400) past 10 000 characters or a `delayMs` over 1000.
   */
  typeDesktopText(request: DesktopKeyboardTypeRequest, options: RequestOptions = {}): Promise<DesktopActionResponse> {
    return desktopAction(this, "/v1/desktop/keyboard/type", request, options);
  }

  /**
   * `POST /v1/desktop/keyboard/press`: presses and releases a key (an X keysym name such as
   * `Return`, or a character) or a chord (`ctrl+shift+t`). `InvalidRequestError` (400) for a name
   * that names no key.
   */
  pressDesktopKey(request: DesktopKeyboardPressRequest, options: RequestOptions = {}): Promise<DesktopActionResponse> {
    return desktopAction(this, "/v1/desktop/keyboard/press", request, options);
  }

  /** `POST /v1/desktop/keyboard/down`: presses a key and holds it (until `keyUpDesktop`). */
  keyDownDesktop(request: DesktopKeyRequest, options: RequestOptions = {}): Promise<DesktopActionResponse> {
    return desktopAction(this, "/v1/desktop/keyboard/down", request, options);
  }

  /** `POST /v1/desktop/keyboard/up`: releases a key. */
  keyUpDesktop(request: DesktopKeyRequest, options: RequestOptions = {}): Promise<DesktopActionResponse> {
    return desktopAction(this, "/v1/desktop/keyboard/up", request, options);
  }

  /** `GET /v1/desktop/clipboard`: the clipboard's text (`selection: "primary"`: the primary selection's). */
  getDesktopClipboard(
    query: DesktopClipboardQuery = {},
    options: RequestOptions = {},
  ): Promise<DesktopClipboardResponse> {
    return transportOf(this).json<DesktopClipboardResponse>("GET", "/v1/desktop/clipboard", {
      query,
      ...callOptions(options),
    });
  }

  /** `POST /v1/desktop/clipboard`: puts `text` on the clipboard (or in the primary selection) for programs to paste. */
  setDesktopClipboard(
    request: DesktopClipboardWriteRequest,
    options: RequestOptions = {},
  ): Promise<DesktopActionResponse> {
    return desktopAction(this, "/v1/desktop/clipboard", request, options);
  }

  /** `GET /v1/desktop/windows`: the visible windows, bottom to top. */
  async listDesktopWindows(options: RequestOptions = {}): Promise<DesktopWindowInfo[]> {
    const body = await transportOf(this).json<DesktopWindowListResponse>(
      "GET",
      "/v1/desktop/windows",
      callOptions(options),
    );
    return body.windows;
  }

  /** `GET /v1/desktop/windows/focused`: the window with the focus; `WindowNotFoundError` (404) when none has it. */
  getDesktopFocusedWindow(options: RequestOptions = {}): Promise<DesktopWindowInfo> {
    return transportOf(this).json<DesktopWindowInfo>("GET", "/v1/desktop/windows/focused", callOptions(options));
  }

  /**
   * `POST /v1/desktop/windows/{id}/focus`: gives a window the focus and raises it; the window
   * after the change. `WindowNotFoundError` (404) for an unknown id, here and below.
   */
  focusDesktopWindow(id: string, options: RequestOptions = {}): Promise<DesktopWindowInfo> {
    return transportOf(this).json<DesktopWindowInfo>(
      "POST",
      `/v1/desktop/windows/${seg(id)}/focus`,
      callOptions(options),
    );
  }

  /** `POST /v1/desktop/windows/{id}/move`: moves a window's contents to `x`, `y`; the window after the change. */
  moveDesktopWindow(
    id: string,
    request: DesktopWindowMoveRequest,
    options: RequestOptions = {},
  ): Promise<DesktopWindowInfo> {
    return transportOf(this).json<DesktopWindowInfo>("POST", `/v1/desktop/windows/${seg(id)}/move`, {
      body: withoutUndefined(request),
      ...callOptions(options),
    });
  }

  /** `POST /v1/desktop/windows/{id}/resize`: resizes a window's contents; the window after the change. */
  resizeDesktopWindow(
    id: string,
    request: DesktopWindowResizeRequest,
    options: RequestOptions = {},
  ): Promise<DesktopWindowInfo> {
    return transportOf(this).json<DesktopWindowInfo>("POST", `/v1/desktop/windows/${seg(id)}/resize`, {
      body: withoutUndefined(request),
      ...callOptions(options),
    });
  }

  /**
   * `POST /v1/desktop/windows/{id}/close`: asks a window to close, as its close button would (the
   * program may ask first).
   */
  closeDesktopWindow(id: string, options: RequestOptions = {}): Promise<DesktopActionResponse> {
    return transportOf(this).json<DesktopActionResponse>(
      "POST",
      `/v1/desktop/windows/${seg(id)}/close`,
      callOptions(options),
    );
  }

  /**
   * `POST /v1/desktop/launch`: starts a program on the desktop as a managed process (its
   * `processId` works with `getProcess`, `stopProcess`...); with `wait: true`, waits up to 10 s
   * for its first window (`windowId`). `SpawnFailedError` (400) when it cannot start.
   */
  launchDesktopApp(request: DesktopLaunchRequest, options: RequestOptions = {}): Promise<DesktopLaunchResponse> {
    return transportOf(this).json<DesktopLaunchResponse>("POST", "/v1/desktop/launch", {
      body: withoutUndefined(request),
      ...callOptions(options),
    });
  }

  /**
   * `POST /v1/desktop/open`: opens a file or URL with its default program (`xdg-open`), as a
   * managed process. `DesktopUnavailableError` (501) when `xdg-open` is not installed.
   */
  openDesktopTarget(request: DesktopOpenRequest, options: RequestOptions = {}): Promise<DesktopOpenResponse> {
    return transportOf(this).json<DesktopOpenResponse>("POST", "/v1/desktop/open", {
      body: withoutUndefined(request),
      ...callOptions(options),
    });
  }

  /**
   * `POST /v1/desktop/recording/start`: starts recording the screen to an MP4 file (`fps` 1 to
   * 60, 15 by default). `DesktopConflictError` (409) while another recording runs,
   * `DesktopUnavailableError` (501) when ffmpeg is not installed.
   */
  startDesktopRecording(
    request: DesktopRecordingStartRequest = {},
    options: RequestOptions = {},
  ): Promise<DesktopRecordingInfo> {
    return transportOf(this).json<DesktopRecordingInfo>("POST", "/v1/desktop/recording/start", {
      body: withoutUndefined(request),
      ...callOptions(options),
    });
  }

  /**
   * `POST /v1/desktop/recording/stop`: stops the running recording; its file is complete when
   * this resolves. `DesktopConflictError` (409) when none runs.
   */
  stopDesktopRecording(options: RequestOptions = {}): Promise<DesktopRecordingInfo> {
    return transportOf(this).json<DesktopRecordingInfo>("POST", "/v1/desktop/recording/stop", callOptions(options));
  }

  /** `GET /v1/desktop/recordings`: the recordings, oldest first. */
  async listDesktopRecordings(options: RequestOptions = {}): Promise<DesktopRecordingInfo[]> {
    const body = await transportOf(this).json<DesktopRecordingListResponse>(
      "GET",
      "/v1/desktop/recordings",
      callOptions(options),
    );
    return body.recordings;
  }

  /** `GET /v1/desktop/recordings/{id}`; `RecordingNotFoundError` (404) for an unknown id. */
  getDesktopRecording(id: string, options: RequestOptions = {}): Promise<DesktopRecordingInfo> {
    return transportOf(this).json<DesktopRecordingInfo>(
      "GET",
      `/v1/desktop/recordings/${seg(id)}`,
      callOptions(options),
    );
  }

  /**
   * `DELETE /v1/desktop/recordings/{id}`: deletes a recording that has ended, and its file
   * (`DesktopConflictError` while it records).
   */
  deleteDesktopRecording(id: string, options: RequestOptions = {}): Promise<void> {
    return transportOf(this).none("DELETE", `/v1/desktop/recordings/${seg(id)}`, callOptions(options));
  }

  /**
   * `GET /v1/desktop/recordings/{id}/download`: a recording's MP4 file, read whole.
   * `DesktopConflictError` (409) while it records, `RecordingNotFoundError` (404) for an unknown id.
   */
  downloadDesktopRecording(id: string, options: RequestOptions = {}): Promise<Uint8Array> {
    return transportOf(this).bytes("GET", `/v1/desktop/recordings/${seg(id)}/download`, {
      headers: { accept: "video/mp4" },
      ...callOptions(options),
    });
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

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The accepted answers of the screenshot routes. */
const IMAGE_TYPES = "image/png, image/jpeg, image/webp";

/** A mouse route (`POST /v1/desktop/mouse/{action}`): where the pointer is after it. */
function desktopPointer(
  client: Agentplex,
  action: string,
  request: object,
  options: RequestOptions,
): Promise<DesktopMousePositionResponse> {
  return transportOf(client).json<DesktopMousePositionResponse>("POST", `/v1/desktop/mouse/${action}`, {
    body: withoutUndefined(request),
    ...callOptions(options),
  });
}

/** A desktop route answered with `{ok: true}`. */
function desktopAction(
  client: Agentplex,
  path: string,
  request: object,
  options: RequestOptions,
): Promise<DesktopActionResponse> {
  return transportOf(client).json<DesktopActionResponse>("POST", path, {
    body: withoutUndefined(request),
    ...callOptions(options),
  });
}
