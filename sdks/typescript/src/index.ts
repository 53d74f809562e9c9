/**
 * agentplex: the TypeScript client of the agentplex daemon. Works in Node 20+ and browsers
 * (fetch only). `start()`, which runs a local daemon, is in `agentplex/node`. Only what is
 * exported here is public; the modules behind it are not reachable from outside. The 0.2 names
 * (`SandboxAgent`, `SandboxAgentError`) are deprecated aliases of `Agentplex` and
 * `AgentplexError`.
 */
export { Agentplex, connect, SandboxAgent } from "./client.js";
export type {
  AcpSessionOptions,
  AddFromRegistryOptions,
  ConnectOptions,
  CreateSessionOptions,
  FsBody,
  InstallAgentOptions,
  InstallEvent,
  InstallProgress,
  InstallResult,
  ListRegistryOptions,
  ListSessionsOptions,
} from "./client.js";
export type { ClientOptions, RequestOptions } from "./http.js";
export type { ExportSessionOptions, ImportSessionOptions, MoveSessionOptions } from "./moves.js";
export { decodeProcessLogData } from "./process-logs.js";
export type { FollowProcessLogsOptions, ProcessLogEvent } from "./process-logs.js";
export { ProcessTerminal } from "./terminal.js";
export type {
  ConnectProcessTerminalOptions,
  TerminalClose,
  TerminalExit,
  WebSocketConstructor,
} from "./terminal.js";
export { Session } from "./session.js";
export type {
  EventsOptions,
  GetEventsOptions,
  MessageInput,
  PermissionHandler,
  PromptOptions,
  PromptResult,
  QuestionAnswer,
  QuestionHandler,
  RequestHandlers,
  SessionListeners,
  StreamOptions,
} from "./session.js";
export {
  ERROR_CLASSES,
  ERROR_TYPE_PREFIX,
  GatewayTimeoutError,
  isProblemDetails,
  AgentplexError,
  SandboxAgentError,
  AdapterFailedError,
  AgentNotInstalledError,
  AgentProcessExitedError,
  BinaryNotFoundError,
  DaemonExitedError,
  DesktopConflictError,
  DesktopFailedError,
  DesktopNotRunningError,
  DesktopUnavailableError,
  InstallFailedError,
  InternalError,
  InvalidRequestError,
  MethodNotAllowedError,
  ModeNotSupportedError,
  NetworkError,
  NotConfiguredError,
  NotFoundError,
  PathConflictError,
  StorageFullError,
  StorageUnavailableError,
  PathNotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  PortInUseError,
  ProcessConflictError,
  ProcessLimitReachedError,
  ProcessNotFoundError,
  RecordingNotFoundError,
  RequestNotFoundError,
  SessionAlreadyExistsError,
  SessionEndedError,
  SessionNotFoundError,
  SpawnFailedError,
  HostNotAllowedError,
  CrossOriginRefusedError,
  UnsupportedMediaTypeError,
  InvalidArchiveError,
  SessionElsewhereError,
  StreamError,
  TimeoutError,
  TokenInvalidError,
  UnexpectedResponseError,
  UnsupportedAgentError,
  WindowNotFoundError,
} from "./errors.js";
export type { AgentplexErrorInit, ClientErrorCode, ErrorCode, SandboxAgentErrorInit } from "./errors.js";
export type * from "./types.js";
