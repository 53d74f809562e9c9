/**
 * The API's types, from the TypeScript SDK's names for the shapes generated from
 * `docs/openapi.json` (type-only: nothing of the SDK is bundled).
 */
export type {
  AgentInfo,
  AgentListResponse,
  AgentModelsResponse,
  AgentModesResponse,
  ContentPart,
  CreateSessionRequest,
  CreateSessionResponse,
  DesktopStatusResponse,
  DesktopStreamServerFrame,
  EventsResponse,
  FsEntry,
  FsStat,
  FsWriteResponse,
  PermissionReply,
  ProblemDetails,
  ProcessCreateRequest,
  ProcessInfo,
  ProcessListResponse,
  ProcessLogEntry,
  ProcessLogsMissed,
  TerminalServerFrame,
  SessionInfo,
  SessionListResponse,
  SessionModes,
  SessionStatus,
  UniversalEvent,
  UniversalItem,
  Usage,
} from "../../sdks/typescript/src/types.js";
