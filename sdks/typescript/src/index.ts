/**
 * sandbox-agent: the TypeScript client of the sandbox-agent daemon. Works in Node 20+ and
 * browsers (fetch only). `start()`, which runs a local daemon, is in `sandbox-agent/node`.
 */
export { connect, SandboxAgent } from "./client.js";
export type { ConnectOptions, CreateSessionOptions, FsBody, InstallAgentOptions } from "./client.js";
export type { ClientOptions, RequestOptions } from "./http.js";
export { Session, toMessageRequest } from "./session.js";
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
} from "./session.js";
export { ERROR_TYPE_PREFIX, isProblemDetails, SandboxAgentError } from "./errors.js";
export type { ClientErrorCode, ErrorCode, SandboxAgentErrorInit } from "./errors.js";
export { parseSse } from "./sse.js";
export type { SseMessage } from "./sse.js";
export type * from "./types.js";
