/**
 * The desktop methods of `Agentplex` (`/v1/desktop/*`, the reference SDK's names) and the URL of
 * its live view: `DesktopMethods`, which client.ts puts on `Agentplex.prototype` and declares on
 * `Agentplex` (`interface Agentplex extends DesktopMethods`), so they are the client's own
 * methods as if written in its class.
 */
import { callOptions, seg, transportOf, withoutUndefined, type RequestOptions } from "./http.js";
import type {
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
} from "./types.js";

/** The desktop methods of `Agentplex`; never made on its own (see the module's comment). */
export abstract class DesktopMethods {
  /** The token sent with every request, if any (the client's `token`). */
  abstract readonly token: string | undefined;

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

/** The accepted answers of the screenshot routes. */
const IMAGE_TYPES = "image/png, image/jpeg, image/webp";

/** A mouse route (`POST /v1/desktop/mouse/{action}`): where the pointer is after it. */
function desktopPointer(
  client: DesktopMethods,
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
  client: DesktopMethods,
  path: string,
  request: object,
  options: RequestOptions,
): Promise<DesktopActionResponse> {
  return transportOf(client).json<DesktopActionResponse>("POST", path, {
    body: withoutUndefined(request),
    ...callOptions(options),
  });
}
