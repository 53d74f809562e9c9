/**
 * Names for the API's types. Every shape comes from `src/generated/openapi.ts`, which is
 * generated from the committed `docs/openapi.json`; this module only gives them short names
 * and adds `UniversalEvent` as a union discriminated by `type`.
 */
import type { components, operations, paths } from "./generated/openapi.js";

export type { components, operations, paths };

type Schemas = components["schemas"];

export type HealthResponse = Schemas["HealthResponse"];
export type AgentInfo = Schemas["AgentInfo"];
export type AgentCapabilities = Schemas["AgentCapabilities"];
export type AgentListResponse = Schemas["AgentListResponse"];
export type AgentModeInfo = Schemas["AgentModeInfo"];
export type AgentModesResponse = Schemas["AgentModesResponse"];
export type AgentModelInfo = Schemas["AgentModelInfo"];
export type AgentModelsResponse = Schemas["AgentModelsResponse"];
export type AgentInstallRequest = Schemas["AgentInstallRequest"];
export type AgentError = Schemas["AgentError"];
/** `GET /v1/registry`: the agents of the ACP registry's index (`listRegistry`). */
export type RegistryListResponse = Schemas["RegistryListResponse"];
/** One agent of the ACP registry. */
export type RegistryAgentInfo = Schemas["RegistryAgentInfo"];
/** The body of `POST /v1/registry/{agent}` (`addFromRegistry`). */
export type RegistryAddRequest = Schemas["RegistryAddRequest"];
export type AdaptersReloadResponse = Schemas["AdaptersReloadResponse"];
export type ServerStatus = Schemas["ServerStatus"];
export type ServerStatusInfo = Schemas["ServerStatusInfo"];

export type SessionInfo = Schemas["SessionInfo"];
/** `SessionInfo.usage`: the totals of the session's metered model calls. */
export type SessionUsage = Schemas["SessionUsage"];
/** Token and cost totals of metered model calls (`SessionUsage`). */
export type UsageTotals = Schemas["UsageTotals"];
export type SessionStatus = Schemas["SessionStatus"];
export type SessionListResponse = Schemas["SessionListResponse"];
export type AcpServerList = Schemas["AcpServerList"];
export type AcpServerInfo = Schemas["AcpServerInfo"];
/** Which sessions `listSessions` lists: `daemon` (the default) or `fleet`. */
export type SessionScope = Schemas["SessionScope"];
export type CreateSessionRequest = Schemas["CreateSessionRequest"];
export type CreateSessionResponse = Schemas["CreateSessionResponse"];
export type ImportSessionQuery = Schemas["ImportSessionQuery"];
export type ImportSessionResponse = Schemas["ImportSessionResponse"];
export type MessageRequest = Schemas["MessageRequest"];
export type MessagePart = Schemas["MessagePart"];
export type MessageAttachment = Schemas["MessageAttachment"];
export type PermissionReply = Schemas["PermissionReply"];
export type PermissionStatus = Schemas["PermissionStatus"];
export type QuestionStatus = Schemas["QuestionStatus"];
export type ProblemDetails = Schemas["ProblemDetails"];
/** The error codes the daemon documents (`urn:sandbox-agent:error:<code>`). */
export type ErrorType = Schemas["ErrorType"];

export type FsEntriesQuery = Schemas["FsEntriesQuery"];
export type FsPathQuery = Schemas["FsPathQuery"];
export type FsDeleteQuery = Schemas["FsDeleteQuery"];
export type FsSessionQuery = Schemas["FsSessionQuery"];
export type FsUploadBatchQuery = Schemas["FsUploadBatchQuery"];
export type FsEntry = Schemas["FsEntry"];
export type FsEntryType = Schemas["FsEntryType"];
export type FsStat = Schemas["FsStat"];
export type FsActionResponse = Schemas["FsActionResponse"];
export type FsMoveRequest = Schemas["FsMoveRequest"];
export type FsMoveResponse = Schemas["FsMoveResponse"];
export type FsWriteResponse = Schemas["FsWriteResponse"];
export type FsUploadBatchResponse = Schemas["FsUploadBatchResponse"];

export type ProcessConfig = Schemas["ProcessConfig"];
export type ProcessRunRequest = Schemas["ProcessRunRequest"];
export type ProcessRunResponse = Schemas["ProcessRunResponse"];
export type ProcessCreateRequest = Schemas["ProcessCreateRequest"];
export type ProcessInfo = Schemas["ProcessInfo"];
export type ProcessState = Schemas["ProcessState"];
export type ProcessListResponse = Schemas["ProcessListResponse"];
export type ProcessInputRequest = Schemas["ProcessInputRequest"];
export type ProcessInputResponse = Schemas["ProcessInputResponse"];
export type ProcessDataEncoding = Schemas["ProcessDataEncoding"];
export type ProcessLogEntry = Schemas["ProcessLogEntry"];
export type ProcessLogsMissed = Schemas["ProcessLogsMissed"];
export type ProcessLogsResponse = Schemas["ProcessLogsResponse"];
export type ProcessLogsStream = Schemas["ProcessLogsStream"];
export type ProcessTerminalResizeRequest = Schemas["ProcessTerminalResizeRequest"];
/** A JSON text frame a client sends on a terminal WebSocket. */
export type TerminalClientFrame = Schemas["TerminalClientFrame"];
/** A JSON text frame the daemon sends on a terminal WebSocket (output comes in binary frames). */
export type TerminalServerFrame = Schemas["TerminalServerFrame"];
/** The query of `GET /v1/processes/{id}/logs` (`follow` is `followProcessLogs`'s). */
export type ProcessLogsQuery = Omit<NonNullable<operations["process_logs"]["parameters"]["query"]>, "follow">;
/** The query of `POST /v1/processes/{id}/stop` and `.../kill`. */
export type ProcessSignalQuery = NonNullable<operations["stop_process"]["parameters"]["query"]>;

/** The state of the desktop (`GET /v1/desktop/status`, and the answer of start and stop). */
export type DesktopStatusResponse = Schemas["DesktopStatusResponse"];
/** Where the desktop is in its life: `inactive`, `starting`, `active`... */
export type DesktopState = Schemas["DesktopState"];
/** The body of `POST /v1/desktop/start` (`startDesktop`); every field has a default. */
export type DesktopStartRequest = Schemas["DesktopStartRequest"];
/** One of the programs the desktop runs (the X server, the window manager, the session bus). */
export type DesktopProcessInfo = Schemas["DesktopProcessInfo"];
/** Why the desktop failed (`DesktopStatusResponse.lastError`). */
export type DesktopErrorInfo = Schemas["DesktopErrorInfo"];
/** The size of the screen. */
export type DesktopResolution = Schemas["DesktopResolution"];
/** `GET /v1/desktop/display/info`: the display's name and size. */
export type DesktopDisplayInfoResponse = Schemas["DesktopDisplayInfoResponse"];
/** An image format of a screenshot: `png` (the default), `jpeg` or `webp`. */
export type DesktopScreenshotFormat = Schemas["DesktopScreenshotFormat"];
/** The query of `GET /v1/desktop/screenshot` (`takeDesktopScreenshot`). */
export type DesktopScreenshotQuery = NonNullable<operations["desktop_screenshot"]["parameters"]["query"]>;
/** The query of `GET /v1/desktop/screenshot/region` (`takeDesktopRegionScreenshot`). */
export type DesktopRegionScreenshotQuery = operations["desktop_region_screenshot"]["parameters"]["query"];
/** The answer of a desktop action that has nothing else to say (`{ok: true}`). */
export type DesktopActionResponse = Schemas["DesktopActionResponse"];
/** A mouse button: `left`, `middle` or `right`. */
export type DesktopMouseButton = Schemas["DesktopMouseButton"];
/** Where the pointer is, and the window under it. */
export type DesktopMousePositionResponse = Schemas["DesktopMousePositionResponse"];
/** The body of `POST /v1/desktop/mouse/move` (`moveDesktopMouse`). */
export type DesktopMouseMoveRequest = Schemas["DesktopMouseMoveRequest"];
/** The body of `POST /v1/desktop/mouse/click` (`clickDesktop`). */
export type DesktopMouseClickRequest = Schemas["DesktopMouseClickRequest"];
/** The body of `POST /v1/desktop/mouse/down` and `.../up` (`mouseDownDesktop`, `mouseUpDesktop`). */
export type DesktopMouseButtonRequest = Schemas["DesktopMouseButtonRequest"];
/** The body of `POST /v1/desktop/mouse/drag` (`dragDesktopMouse`). */
export type DesktopMouseDragRequest = Schemas["DesktopMouseDragRequest"];
/** The body of `POST /v1/desktop/mouse/scroll` (`scrollDesktop`). */
export type DesktopMouseScrollRequest = Schemas["DesktopMouseScrollRequest"];
/** The body of `POST /v1/desktop/keyboard/type` (`typeDesktopText`). */
export type DesktopKeyboardTypeRequest = Schemas["DesktopKeyboardTypeRequest"];
/** The body of `POST /v1/desktop/keyboard/press` (`pressDesktopKey`). */
export type DesktopKeyboardPressRequest = Schemas["DesktopKeyboardPressRequest"];
/** Modifier keys held while a key is pressed. */
export type DesktopKeyModifiers = Schemas["DesktopKeyModifiers"];
/** The body of `POST /v1/desktop/keyboard/down` and `.../up` (`keyDownDesktop`, `keyUpDesktop`). */
export type DesktopKeyRequest = Schemas["DesktopKeyRequest"];
/** One of the desktop's selections: `clipboard` (the default) or `primary`. */
export type DesktopSelection = Schemas["DesktopSelection"];
/** The query of `GET /v1/desktop/clipboard` (`getDesktopClipboard`). */
export type DesktopClipboardQuery = NonNullable<operations["desktop_clipboard"]["parameters"]["query"]>;
/** `GET /v1/desktop/clipboard`: a selection's text. */
export type DesktopClipboardResponse = Schemas["DesktopClipboardResponse"];
/** The body of `POST /v1/desktop/clipboard` (`setDesktopClipboard`). */
export type DesktopClipboardWriteRequest = Schemas["DesktopClipboardWriteRequest"];
/** A JSON frame the client sends on the live view's WebSocket (`GET /v1/desktop/stream/ws`). */
export type DesktopStreamClientFrame = Schemas["DesktopStreamClientFrame"];
/** A JSON frame the live view's WebSocket sends (frames of the screen are binary JPEG). */
export type DesktopStreamServerFrame = Schemas["DesktopStreamServerFrame"];
/** A top-level window of the desktop. */
export type DesktopWindowInfo = Schemas["DesktopWindowInfo"];
export type DesktopWindowListResponse = Schemas["DesktopWindowListResponse"];
/** The body of `POST /v1/desktop/windows/{id}/move` (`moveDesktopWindow`). */
export type DesktopWindowMoveRequest = Schemas["DesktopWindowMoveRequest"];
/** The body of `POST /v1/desktop/windows/{id}/resize` (`resizeDesktopWindow`). */
export type DesktopWindowResizeRequest = Schemas["DesktopWindowResizeRequest"];
/** The body of `POST /v1/desktop/launch` (`launchDesktopApp`). */
export type DesktopLaunchRequest = Schemas["DesktopLaunchRequest"];
/** `POST /v1/desktop/launch`: the managed process the program runs as, and its first window. */
export type DesktopLaunchResponse = Schemas["DesktopLaunchResponse"];
/** The body of `POST /v1/desktop/open` (`openDesktopTarget`). */
export type DesktopOpenRequest = Schemas["DesktopOpenRequest"];
/** `POST /v1/desktop/open`: the managed process of the opener. */
export type DesktopOpenResponse = Schemas["DesktopOpenResponse"];
/** The body of `POST /v1/desktop/recording/start` (`startDesktopRecording`). */
export type DesktopRecordingStartRequest = Schemas["DesktopRecordingStartRequest"];
/** A recording of the screen (an MP4 file). */
export type DesktopRecordingInfo = Schemas["DesktopRecordingInfo"];
/** Where a recording is in its life: `recording`, `completed` or `failed`. */
export type DesktopRecordingStatus = Schemas["DesktopRecordingStatus"];
export type DesktopRecordingListResponse = Schemas["DesktopRecordingListResponse"];

export type UniversalEventType = Schemas["UniversalEventType"];
export type UniversalEventData = Schemas["UniversalEventData"];
export type EventSource = Schemas["EventSource"];
export type UniversalItem = Schemas["UniversalItem"];
export type ItemKind = Schemas["ItemKind"];
export type ItemRole = Schemas["ItemRole"];
export type ItemStatus = Schemas["ItemStatus"];
export type ContentPart = Schemas["ContentPart"];
export type FileAction = Schemas["FileAction"];
export type ReasoningVisibility = Schemas["ReasoningVisibility"];
export type Usage = Schemas["Usage"];
export type StderrOutput = Schemas["StderrOutput"];
export type SessionEndReason = Schemas["SessionEndReason"];
export type TerminatedBy = Schemas["TerminatedBy"];
export type SessionStartedData = Schemas["SessionStartedData"];
export type SessionEndedData = Schemas["SessionEndedData"];
export type TurnEventData = Schemas["TurnEventData"];
export type ItemEventData = Schemas["ItemEventData"];
export type ItemDeltaData = Schemas["ItemDeltaData"];
export type PermissionEventData = Schemas["PermissionEventData"];
export type QuestionEventData = Schemas["QuestionEventData"];
export type ErrorData = Schemas["ErrorData"];
export type AgentUnparsedData = Schemas["AgentUnparsedData"];
/** Data of `model.usage`: one model call of the agent, as the daemon metered it. */
export type ModelUsageData = Schemas["ModelUsageData"];
/** Data of `budget.reached`: a budget over the session's model calls was reached. */
export type BudgetReachedData = Schemas["BudgetReachedData"];
/** A session's caps on what its model calls may spend (`budget`). */
export type BudgetLimits = Schemas["BudgetLimits"];
/** Data of `permission.decided`: how a permission request was decided under the session's approval policy. */
export type PermissionDecidedData = Schemas["PermissionDecidedData"];
/** An approval policy (`policy` of a session, `PUT /v1/sessions/{id}/policy`). */
export type ApprovalPolicy = Schemas["ApprovalPolicy"];
/** A session's agent mode and permission mode (`PUT /v1/sessions/{id}/modes`). */
export type SessionModes = Schemas["SessionModes"];
/** A session's modes, model and variant, and what its running agent offers (`GET /v1/sessions/{id}/modes`). */
export type SessionChoices = Schemas["SessionChoices"];
/** What a running agent offers its session: its own modes and models. */
export type AgentOffer = Schemas["AgentOffer"];

/**
 * Accepts a map only when its keys are exactly the OpenAPI document's event types, so a
 * regenerated schema that gains or loses one fails to compile here.
 */
type EveryEventType<
  T extends Record<UniversalEventType, unknown> & Record<Exclude<keyof T, UniversalEventType>, never>,
> = T;

/** The shape of `data` for each event `type` (the API documents this pairing). */
export type EventDataMap = EveryEventType<{
  "session.started": SessionStartedData;
  "session.ended": SessionEndedData;
  "turn.started": TurnEventData;
  "turn.ended": TurnEventData;
  "item.started": ItemEventData;
  "item.delta": ItemDeltaData;
  "item.completed": ItemEventData;
  error: ErrorData;
  "permission.requested": PermissionEventData;
  "permission.resolved": PermissionEventData;
  "question.requested": QuestionEventData;
  "question.resolved": QuestionEventData;
  "agent.unparsed": AgentUnparsedData;
  "model.usage": ModelUsageData;
  "budget.reached": BudgetReachedData;
  "permission.decided": PermissionDecidedData;
}>;

/** The envelope fields every event has. */
export type UniversalEventEnvelope = Omit<Schemas["UniversalEvent"], "type" | "data">;

/**
 * One event of a session's transcript. A union discriminated by `type`, so
 * `if (event.type === "item.delta") event.data.delta` type-checks.
 */
export type UniversalEvent = {
  [K in UniversalEventType]: UniversalEventEnvelope & { type: K; data: EventDataMap[K] };
}[UniversalEventType];

/** `GET /v1/sessions/{id}/events`: a page of events, typed as `UniversalEvent`. */
export type EventsResponse = Omit<Schemas["EventsResponse"], "events"> & { events: UniversalEvent[] };

/** The event of one type: `EventOf<"permission.requested">`. */
export type EventOf<T extends UniversalEventType> = Extract<UniversalEvent, { type: T }>;
