// Generated from docs/openapi.json by `npm run generate` (openapi-typescript).
// Do not edit: change the daemon, regenerate docs/openapi.json, then run `npm run generate`.

export interface paths {
    "/acp/{agent}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The connection's stream (with `Acp-Session-Id`, one session's), or a
         *     WebSocket connection.
         */
        get: operations["acp_remote_stream"];
        put?: never;
        /** One client message over the remote transport. */
        post: operations["acp_remote_post"];
        /** Closes a connection of the remote transport. */
        delete: operations["acp_remote_close"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The daemon's metrics (docs/operate.md lists them). */
        get: operations["get_metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/acp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The open ACP connections. */
        get: operations["acp_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/acp/{server_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The agent's messages to the client (notifications and requests), as SSE:
         *     each event's `id` resumes the stream with `Last-Event-ID`.
         */
        get: operations["acp_stream"];
        put?: never;
        /**
         * Sends one JSON-RPC message to the daemon as an ACP agent. A request is
         *     answered in the response (200) and in the stream, except `session/prompt`
         *     and `session/load`, answered in the stream only (202), after the updates
         *     they cause; a notification or an answer to one of the agent's requests gets
         *     202. A body that is not a JSON object is a 400; an object that is not
         *     JSON-RPC is answered with the JSON-RPC error, in a 200.
         */
        post: operations["acp_post"];
        /**
         * Closes an ACP connection: its sessions go on (they are the daemon's), the
         *     connection stops following them.
         */
        delete: operations["acp_close"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/adapters/reload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Loads the `--adapters-dir` folder again: new and changed components serve new
         *     sessions at once (the daemon also does this by itself when a file in the folder
         *     changes). Running sessions keep the adapter they started with.
         */
        post: operations["reload_adapters"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every agent this daemon can drive, with install state and capabilities. */
        get: operations["list_agents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agent}/install": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Installs the agent's binary: the latest version (or `version`), a no-op when
         *     that version is already installed unless `reinstall`. With
         *     `Accept: text/event-stream` the answer is a stream of `progress` events, then one
         *     `result` or `error` event.
         */
        post: operations["install_agent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agent}/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The agent's models and variants. */
        get: operations["agent_models"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agent}/modes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The agent's modes. */
        get: operations["agent_modes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/clipboard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The clipboard's text (or the primary selection's). */
        get: operations["desktop_clipboard"];
        put?: never;
        /**
         * Puts text on the clipboard (or in the primary selection), for programs on the
         *     desktop to paste.
         */
        post: operations["set_desktop_clipboard"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/display/info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The display's name and size. */
        get: operations["desktop_display_info"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/keyboard/down": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Presses a key and holds it. */
        post: operations["desktop_keyboard_down"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/keyboard/press": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Presses and releases a key or a chord (`ctrl+shift+t`). */
        post: operations["desktop_keyboard_press"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/keyboard/type": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Types text into the focused window, any Unicode. */
        post: operations["desktop_keyboard_type"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/keyboard/up": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Releases a key. */
        post: operations["desktop_keyboard_up"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/launch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Starts a program on the desktop as a managed process (`/v1/processes/{id}`),
         *     optionally waiting (up to 10 seconds) for its first window.
         */
        post: operations["desktop_launch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/mouse/click": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Moves the pointer and clicks (1 to 3 times). */
        post: operations["desktop_mouse_click"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/mouse/down": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Presses a button (after moving, when `x` and `y` are given) and holds it. */
        post: operations["desktop_mouse_down"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/mouse/drag": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Drags: presses at the start, moves to the end in steps, releases there. */
        post: operations["desktop_mouse_drag"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/mouse/move": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Moves the pointer. */
        post: operations["desktop_mouse_move"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/mouse/position": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where the pointer is, and the window under it. */
        get: operations["desktop_mouse_position"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/mouse/scroll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Turns the wheel at a point (`deltaY` > 0 scrolls down, `deltaX` > 0 right). */
        post: operations["desktop_mouse_scroll"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/mouse/up": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Releases a button (after moving, when `x` and `y` are given). */
        post: operations["desktop_mouse_up"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/open": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Opens a file or URL with its default program (`xdg-open`), as a managed process. */
        post: operations["desktop_open"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/recording/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Starts recording the screen to an MP4 file (one recording at a time). */
        post: operations["start_desktop_recording"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/recording/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stops the running recording; its file is complete when this answers. */
        post: operations["stop_desktop_recording"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/recordings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The recordings, oldest first. */
        get: operations["desktop_recordings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/recordings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One recording. */
        get: operations["desktop_recording"];
        put?: never;
        post?: never;
        /** Deletes a recording that has ended, and its file. */
        delete: operations["delete_desktop_recording"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/recordings/{id}/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A recording's MP4 file. */
        get: operations["download_desktop_recording"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/screenshot": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A screenshot of the whole screen. */
        get: operations["desktop_screenshot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/screenshot/region": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A screenshot of a region of the screen. */
        get: operations["desktop_region_screenshot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Starts the desktop: Xvfb at the size asked, a session bus, openbox. A running
         *     desktop is left as it is; a failed one is started again.
         */
        post: operations["start_desktop"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What the desktop is doing: its state, display, programs, windows, and the
         *     programs it needs that are missing.
         */
        get: operations["desktop_status"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stops the desktop, its recording and its programs (Xvfb, the bus, openbox). */
        post: operations["stop_desktop"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/stream/ws": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Upgrades to the live view of the desktop. */
        get: operations["desktop_stream_ws"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/windows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The visible windows, bottom to top. */
        get: operations["desktop_windows"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/windows/focused": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The window with the focus. */
        get: operations["desktop_focused_window"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/windows/{id}/close": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Asks a window to close, as its close button would (the program may ask first). */
        post: operations["close_desktop_window"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/windows/{id}/focus": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Gives a window the focus and raises it. */
        post: operations["focus_desktop_window"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/windows/{id}/move": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Moves a window's contents to a point. */
        post: operations["move_desktop_window"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/desktop/windows/{id}/resize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resizes a window's contents. */
        post: operations["resize_desktop_window"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fs/entries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Lists a directory (the session's directory, or the home directory, without `path`). */
        get: operations["entries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fs/entry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Deletes a file, a symbolic link, or a directory (one that is not empty only with
         *     `recursive=true`).
         */
        delete: operations["delete_entry"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fs/file": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Reads a file's raw bytes, streamed. */
        get: operations["read_file"];
        /**
         * Writes the request body to a file (creating it and its parent directories),
         *     streamed into place: a failed upload leaves the old file as it was.
         */
        put: operations["write_file"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fs/mkdir": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Creates a directory and its missing parents (an existing directory is fine). */
        post: operations["mkdir"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fs/move": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Moves or renames a file or directory. */
        post: operations["move_entry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fs/stat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Metadata of a path. */
        get: operations["stat"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fs/upload-batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Unpacks a tar archive (plain or gzip-compressed), streamed from the body, under
         *     `path` (created when missing). Entries that would land outside it are refused and
         *     then nothing is written.
         */
        post: operations["upload_batch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness and version. */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This API's OpenAPI document (served without a token: it holds no data). */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/processes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every managed process not deleted, oldest first. */
        get: operations["list_processes"];
        put?: never;
        /** Starts a managed process, with pipes or in a terminal (`tty`). */
        post: operations["create_process"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/processes/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The limits of the process API. */
        get: operations["process_config"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/processes/run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Runs a command to completion and answers its exit status and output. */
        post: operations["run_process"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/processes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One managed process. */
        get: operations["get_process"];
        put?: never;
        post?: never;
        /** Forgets an exited process, its exit status and its logs. */
        delete: operations["delete_process"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/processes/{id}/input": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Writes to the process's stdin (or its terminal). */
        post: operations["process_input"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/processes/{id}/kill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Kills the process: SIGKILL to its group. */
        post: operations["kill_process"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/processes/{id}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The process's buffered output; with `follow=true`, an SSE stream of it
         *     (`log`, `missed` and, once it exited, `exit` events).
         */
        get: operations["process_logs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/processes/{id}/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stops the process: SIGTERM to its group, SIGKILL after `--process-stop-grace-ms`. */
        post: operations["stop_process"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/processes/{id}/terminal/resize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sets the size of the process's terminal. */
        post: operations["resize_terminal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/processes/{id}/terminal/ws": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Upgrades to the terminal WebSocket of a process started with `tty`. */
        get: operations["terminal_ws"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/registry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The agents of the ACP registry's index (`--acp-registry`: fetched and cached
         *     for an hour, or a snapshot file), with whether each can be installed here and
         *     whether it was added.
         */
        get: operations["list_registry"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/registry/{agent}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Adds the registry's agent to this daemon and installs it (its npm or PyPI
         *     package or its release archive, in that order, with the registry's command
         *     line): then it is in `GET /v1/agents` and takes sessions, over REST and ACP.
         *     Kept across restarts; adding it again takes the registry's entry anew. With
         *     `Accept: text/event-stream` the answer is the install's `progress` events, then
         *     one `result` or `error` event, as `POST /v1/agents/{agent}/install`.
         */
        post: operations["add_from_registry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The sessions this daemon drives, or (`scope=fleet`) every session of the
         *     database it shares with other daemons, with their owner and whether it lives.
         */
        get: operations["list_sessions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One session, as `GET /v1/sessions` lists it (not in 0.1.x: a client needs not
         *     fetch the whole list to read one).
         */
        get: operations["get_session"];
        put?: never;
        /** Creates a session and starts its agent. */
        post: operations["create_session"];
        /** Removes a session and its transcript for good, ending it first if it runs. */
        delete: operations["delete_session"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/budget": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Replaces the caps on what the session's model calls may spend (needs the
         *     model gateway, `--gateway`). In force at once: raising a reached cap lets the
         *     session's calls through again. Answers the caps as stored.
         */
        put: operations["set_budget"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Interrupts the running turn; the session stays open. A no-op when idle. */
        post: operations["cancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A page of the transcript. */
        get: operations["get_events"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/events/sse": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The transcript from an offset (or `Last-Event-ID`), then live. */
        get: operations["get_events_sse"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Streams the session as one archive (gzip-compressed tar): its universal
         *     transcript, the adapter's state, its configuration with secret variables left
         *     out (named in the manifest), and the agent's own session files. A running
         *     session keeps running; the archive holds it as of the answer.
         */
        get: operations["export_session"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restores a session from an archive of `GET /v1/sessions/{id}/export` (the
         *     body), under this id, in this daemon's home and data dir and in the working
         *     directory asked for. The agent's own session files are written where the
         *     agent looks for them here, with what depends on the home and the working
         *     directory rewritten; the next message resumes the agent's own session. The
         *     archive is checked whole first (its manifest, every file's size and SHA-256,
         *     the transcript without gaps): a damaged, truncated, foreign or too-new archive
         *     writes nothing. Secret variables the export left out are given in
         *     `x-agentplex-env` headers, as form-encoded `NAME=value` pairs (`A=1&B=2`).
         */
        post: operations["import_session"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sends a message; queued when a turn is running. */
        post: operations["post_message"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/messages/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sends a message and streams the events of its turn, ending with the event
         *     that needs the client (`turn.ended`, `permission.requested`...).
         */
        post: operations["post_message_stream"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/modes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The session's agent mode, permission mode, model and variant, and what its
         *     running agent offers to change them to (its own modes and models, once it
         *     said: an ACP agent's answer to `session/new`).
         */
        get: operations["session_modes"];
        /**
         * Changes the session's agent mode, permission mode or model (a field left
         *     out keeps its value). They apply from the next message on: the running turn
         *     finishes as it began, and the transcript records the change. Refused (400)
         *     for a mode the agent does not have, and for an agent whose adapter cannot
         *     change modes (`mode-change`) or its model (`model-change`) in a running
         *     session. Answers both modes and the model.
         */
        put: operations["set_modes"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/permissions/{permission_id}/reply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Answers a permission request. */
        post: operations["reply_permission"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/policy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Replaces the session's approval policy: permission requests asked from now on
         *     are decided with it (those already waiting for the client stay as they are).
         *     A policy that cannot be used is refused naming the rule and field. Answers
         *     the policy as kept.
         */
        put: operations["set_policy"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/questions/{question_id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Declines a question. */
        post: operations["reject_question"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/questions/{question_id}/reply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Answers a question. */
        post: operations["reply_question"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/terminate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ends the session and kills its processes. Terminating an ended session is a no-op. */
        post: operations["terminate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description One open ACP connection. */
        AcpServerInfo: {
            /** @description The agent its new sessions run. */
            agent: string;
            /** @description Its id. */
            serverId: string;
            /** @description The sessions it follows. */
            sessionIds: string[];
        };
        /** @description The open ACP connections. */
        AcpServerList: {
            /** @description Every open connection. */
            servers: components["schemas"]["AcpServerInfo"][];
        };
        /** @description `POST /v1/adapters/reload`: what the adapters folder holds now. */
        AdaptersReloadResponse: {
            /**
             * @description The folder's components that loaded, in file-name order; each overrides a
             *     builtin with the same id.
             */
            adapters: components["schemas"]["LoadedAdapterInfo"][];
            /** @description Why each other component of the folder was skipped. */
            skipped: string[];
        };
        /** @description What an agent can report through the universal API. */
        AgentCapabilities: {
            /**
             * @description The kinds of request (`shell`, `read`, `write`, `fetch`, `mcp`, `other`) the
             *     agent asks permission for in the `default` permission mode when its session
             *     has an approval policy: what the policy can decide. What the agent does
             *     without asking, no policy can stop (docs/policies.md).
             */
            asksFor?: components["schemas"]["PolicyToolKind"][];
            /** @description A running turn can be cancelled and the session kept. */
            cancel?: boolean;
            commandExecution: boolean;
            errorEvents: boolean;
            fileAttachments: boolean;
            fileChanges: boolean;
            images: boolean;
            itemStarted: boolean;
            /** @description The session's `mcp` servers reach the agent (else a create request with them is refused). */
            mcpServers?: boolean;
            mcpTools: boolean;
            /**
             * @description A running session's agent mode and permission mode can change (`PUT
             *     /v1/sessions/{id}/modes`).
             */
            modeChange?: boolean;
            /** @description A running session's model can change (`PUT /v1/sessions/{id}/modes`). */
            modelChange?: boolean;
            /**
             * @description The agent's own session moves with the daemon's (`GET /v1/sessions/{id}/export`
             *     carries its files): after an import the agent resumes its own session. Without
             *     it an imported session keeps its transcript and starts a new agent session.
             */
            move?: boolean;
            permissions: boolean;
            planMode: boolean;
            questions: boolean;
            reasoning: boolean;
            /** @description A session continues after its agent process exits (native resume). */
            resume?: boolean;
            sessionLifecycle: boolean;
            /** @description The agent uses a shared long-running process or server. */
            sharedProcess: boolean;
            /** @description The session's `skills` reach the agent (else a create request with them is refused). */
            skills?: boolean;
            status: boolean;
            streamingDeltas: boolean;
            textMessages: boolean;
            toolCalls: boolean;
            toolResults: boolean;
            /** @description Turns report token usage. */
            usage?: boolean;
            /** @description A running session's model variant can change (`PUT /v1/sessions/{id}/modes`). */
            variantChange?: boolean;
            /** @description Models have variants (reasoning effort...). */
            variants?: boolean;
        };
        /** @description An error reported in a body that otherwise succeeded (`CreateSessionResponse`). */
        AgentError: {
            agent?: string | null;
            details?: unknown;
            message: string;
            session_id?: string | null;
            type: components["schemas"]["ErrorType"];
        };
        /** @description One agent the daemon can drive (one loaded adapter). */
        AgentInfo: {
            /** @description Version of the adapter component driving the agent. */
            adapterVersion?: string;
            capabilities: components["schemas"]["AgentCapabilities"];
            /** @description Whether the credentials the agent needs are available. */
            credentialsAvailable: boolean;
            id: string;
            installed: boolean;
            /** @description Human-readable name. */
            name?: string | null;
            /** @description Path of the installed binary. */
            path?: string | null;
            serverStatus?: null | components["schemas"]["ServerStatusInfo"];
            /** @description Installed agent version. */
            version?: string | null;
        };
        /** @description `POST /v1/agents/{agent}/install`. */
        AgentInstallRequest: {
            /** @description Install again even when installed. */
            reinstall?: boolean | null;
            /**
             * @description Version to install; the latest when absent. Letters, digits, `.`, `-`, `_`
             *     and `+`, at most 64 (else `400`).
             */
            version?: string | null;
        };
        /** @description `GET /v1/agents`. */
        AgentListResponse: {
            agents: components["schemas"]["AgentInfo"][];
        };
        /** @description One agent mode. */
        AgentModeInfo: {
            description: string;
            id: string;
            name: string;
        };
        /** @description One model. */
        AgentModelInfo: {
            defaultVariant?: string | null;
            id: string;
            name?: string | null;
            variants?: string[] | null;
        };
        /** @description `GET /v1/agents/{agent}/models`. */
        AgentModelsResponse: {
            defaultModel?: string | null;
            models: components["schemas"]["AgentModelInfo"][];
        };
        /** @description `GET /v1/agents/{agent}/modes`. */
        AgentModesResponse: {
            modes: components["schemas"]["AgentModeInfo"][];
        };
        /** @description The modes and models a running agent offers, as it said. */
        AgentOffer: {
            /**
             * @description The id of the mode it said the session runs in.
             * @default null
             */
            currentMode: string | null;
            /**
             * @description The id of the model it said the session runs.
             * @default null
             */
            currentModel: string | null;
            /**
             * @description The models it offers, in its order.
             * @default []
             */
            models: components["schemas"]["OfferedChoice"][];
            /**
             * @description The agent's own modes, in its order.
             * @default []
             */
            modes: components["schemas"]["OfferedChoice"][];
        };
        /**
         * @description Data of `agent.unparsed`: native output the adapter did not understand. The
         *     native text is kept in the event's `raw`.
         */
        AgentUnparsedData: {
            error: string;
            location: string;
            raw_hash?: string | null;
        };
        /**
         * @description An approval policy: rules over the tool an agent asks to use, deciding
         *     `allow`, `deny` or `ask`; deny wins over ask, ask over allow (docs/policies.md).
         */
        ApprovalPolicy: {
            /**
             * Format: uint64
             * @description How long an `ask` waits for the client before it is denied, in seconds
             *     (300 when absent, at most a day).
             */
            askTimeoutSecs?: number | null;
            default?: null | components["schemas"]["PolicyDecision"];
            /** @description The rules; every rule that matches a request is weighed. */
            rules?: components["schemas"]["PolicyRule"][];
        };
        /**
         * @description What the daemon did as the budget was reached.
         * @enum {string}
         */
        BudgetAction: "refused" | "cut" | "spent";
        /**
         * @description Which cap was reached.
         * @enum {string}
         */
        BudgetLimit: "cost_usd" | "tokens";
        /**
         * @description A budget's caps on metered model calls (`budget` of a session, at create and
         *     with `PUT /v1/sessions/{id}/budget`). An absent cap is no cap.
         */
        BudgetLimits: {
            /**
             * Format: double
             * @description The most the calls may cost, in US dollars at list prices.
             */
            maxCostUsd?: number | null;
            /**
             * Format: uint64
             * @description The most tokens the calls may use, input and output together.
             */
            maxTokens?: number | null;
        };
        /**
         * @description Data of `budget.reached`: a budget the session's model calls fall under is
         *     spent. Its running turn is cancelled and further calls are refused until the
         *     cap is raised.
         */
        BudgetReachedData: {
            action: components["schemas"]["BudgetAction"];
            limit: components["schemas"]["BudgetLimit"];
            /**
             * Format: double
             * @description The budget's cost cap, in US dollars.
             */
            max_cost_usd?: number | null;
            /**
             * Format: uint64
             * @description The budget's token cap.
             */
            max_tokens?: number | null;
            scope: components["schemas"]["BudgetScope"];
            /**
             * Format: double
             * @description What the calls under the budget have spent, in US dollars.
             */
            spent_cost_usd: number;
            /**
             * Format: uint64
             * @description The tokens the calls under the budget have used.
             */
            spent_tokens: number;
        };
        /**
         * @description Whose budget was reached.
         * @enum {string}
         */
        BudgetScope: "session" | "daemon";
        /** @description One typed piece of an item's content. */
        ContentPart: {
            text: string;
            /** @enum {string} */
            type: "text";
        } | {
            json: unknown;
            /** @enum {string} */
            type: "json";
        } | {
            arguments: string;
            call_id: string;
            name: string;
            /** @enum {string} */
            type: "tool_call";
        } | {
            call_id: string;
            output: string;
            /** @enum {string} */
            type: "tool_result";
        } | {
            action: components["schemas"]["FileAction"];
            diff?: string | null;
            path: string;
            /** @enum {string} */
            type: "file_ref";
        } | {
            text: string;
            /** @enum {string} */
            type: "reasoning";
            visibility: components["schemas"]["ReasoningVisibility"];
        } | {
            mime?: string | null;
            path: string;
            /** @enum {string} */
            type: "image";
        } | {
            detail?: string | null;
            label: string;
            /** @enum {string} */
            type: "status";
        };
        /** @description `POST /v1/sessions/{id}`. */
        CreateSessionRequest: {
            /** @description Agent id (`GET /v1/agents`). */
            agent: string;
            /** @description Agent mode; the agent's default (`build`) when absent. */
            agentMode?: string | null;
            /**
             * @description The agent version the session needs, installed when missing (unless the
             *     daemon runs with `--no-install`); written as an install's `version`.
             */
            agentVersion?: string | null;
            budget?: null | components["schemas"]["BudgetLimits"];
            /**
             * @description `true` gives the agent the sandbox's desktop as MCP tools (a server named
             *     `desktop`: screenshot, click, type, key, scroll, open, windows) that the daemon
             *     serves on 127.0.0.1 with a token of the session's own; the desktop starts at
             *     the first tool call if it does not run. Refused for an agent without the
             *     `mcpServers` capability (400), or where the desktop cannot run (501).
             */
            desktop?: boolean | null;
            /** @description Working directory of the agent; the daemon's when absent or empty. */
            directory?: string | null;
            /** @description Extra environment variables for the agent's processes. */
            env?: {
                [key: string]: string;
            } | null;
            /**
             * @description MCP servers for the agent, by name. Refused (400) for an agent without the
             *     `mcpServers` capability.
             */
            mcp?: {
                [key: string]: components["schemas"]["McpServerConfig"];
            } | null;
            model?: string | null;
            /** @description `default`, `plan`, `bypass` or `acceptEdits`; `default` when absent. */
            permissionMode?: string | null;
            policy?: null | components["schemas"]["ApprovalPolicy"];
            skills?: null | components["schemas"]["SkillsConfig"];
            title?: string | null;
            variant?: string | null;
        };
        /** @description `POST /v1/sessions/{id}` response. */
        CreateSessionResponse: {
            error?: null | components["schemas"]["AgentError"];
            /** @description Whether the agent started. */
            healthy: boolean;
            nativeSessionId?: string | null;
        };
        /**
         * @description Who decided.
         * @enum {string}
         */
        DecidedBy: "rule" | "default" | "client" | "timeout" | "agent";
        /** @description What the request asks for, as the policy saw it (the adapter's description). */
        DecidedInput: {
            /** @description For `shell`: the command line. */
            command?: string | null;
            /** @description For `mcp`: the tool, `server/tool`. */
            mcp?: string | null;
            /** @description For `read` and `write`: the paths, as the agent named them. */
            paths?: string[];
        };
        /** @description Answer of a desktop action that has nothing else to say. */
        DesktopActionResponse: {
            /** @description Always `true`: a failure is a problem document. */
            ok: boolean;
        };
        /** @description Answer of `GET /v1/desktop/clipboard`. */
        DesktopClipboardResponse: {
            /** @description The selection read. */
            selection: components["schemas"]["DesktopSelection"];
            /** @description Its text; empty when nobody holds it. */
            text: string;
        };
        /**
         * @description Body of `POST /v1/desktop/clipboard`: text the desktop holds until a program on it
         *     copies something else.
         */
        DesktopClipboardWriteRequest: {
            selection?: null | components["schemas"]["DesktopSelection"];
            /** @description The text. */
            text: string;
        };
        /** @description Answer of `GET /v1/desktop/display/info`. */
        DesktopDisplayInfoResponse: {
            /** @description The X display name (`:99`). */
            display: string;
            /** @description Size of the screen. */
            resolution: components["schemas"]["DesktopResolution"];
        };
        /** @description Why the desktop failed. */
        DesktopErrorInfo: {
            /** @description A stable code: `x_server_exited`, `x_server_start_failed`, `display_unreachable`. */
            code: string;
            /** @description What happened, for a person. */
            message: string;
        };
        /** @description Modifier keys held while a key is pressed. */
        DesktopKeyModifiers: {
            /** @description Alt. */
            alt?: boolean | null;
            /** @description The Super (Windows, Command) key. */
            cmd?: boolean | null;
            /** @description Control. */
            ctrl?: boolean | null;
            /** @description Shift. */
            shift?: boolean | null;
        };
        /** @description Body of `POST /v1/desktop/keyboard/down` and `.../up`. */
        DesktopKeyRequest: {
            /** @description An X keysym name or a character. */
            key: string;
        };
        /** @description Body of `POST /v1/desktop/keyboard/press`: a key, or a chord such as `ctrl+shift+t`. */
        DesktopKeyboardPressRequest: {
            /**
             * @description An X keysym name (`Return`, `Escape`, `F5`, `a`), a character, or a chord
             *     joined with `+` (`ctrl+c`).
             */
            key: string;
            modifiers?: null | components["schemas"]["DesktopKeyModifiers"];
        };
        /** @description Body of `POST /v1/desktop/keyboard/type`: text typed character by character. */
        DesktopKeyboardTypeRequest: {
            /**
             * Format: uint32
             * @description Pause between characters in milliseconds, at most 1000; none when absent.
             */
            delayMs?: number | null;
            /** @description The text; any Unicode (characters the keyboard lacks are mapped to a spare key). */
            text: string;
        };
        /** @description Body of `POST /v1/desktop/launch`: a program started on the desktop. */
        DesktopLaunchRequest: {
            /** @description The program: a path, or a name looked up in the daemon's `PATH`. */
            app: string;
            /** @description Its arguments. */
            args?: string[] | null;
            /** @description Wait (up to 10 seconds) for its first window and answer with its id. */
            wait?: boolean | null;
        };
        /** @description Answer of `POST /v1/desktop/launch`. */
        DesktopLaunchResponse: {
            /**
             * Format: uint32
             * @description Its process id.
             */
            pid?: number | null;
            /** @description The managed process it runs as (`/v1/processes/{id}`). */
            processId: string;
            /** @description Its first window, when `wait` was asked and one appeared. */
            windowId?: string | null;
        };
        /**
         * @description A mouse button.
         * @enum {string}
         */
        DesktopMouseButton: "left" | "middle" | "right";
        /**
         * @description Body of `POST /v1/desktop/mouse/down` and `.../up`: press or release a button,
         *     after moving there when `x` and `y` are given.
         */
        DesktopMouseButtonRequest: {
            button?: null | components["schemas"]["DesktopMouseButton"];
            /**
             * Format: int32
             * @description Where, from the left; where the pointer is when absent.
             */
            x?: number | null;
            /**
             * Format: int32
             * @description Where, from the top; where the pointer is when absent.
             */
            y?: number | null;
        };
        /** @description Body of `POST /v1/desktop/mouse/click`. */
        DesktopMouseClickRequest: {
            button?: null | components["schemas"]["DesktopMouseButton"];
            /**
             * Format: uint32
             * @description 1 (a click) to 3 (a triple click); 1 when absent.
             */
            clickCount?: number | null;
            /**
             * Format: int32
             * @description Where, from the left.
             */
            x: number;
            /**
             * Format: int32
             * @description Where, from the top.
             */
            y: number;
        };
        /** @description Body of `POST /v1/desktop/mouse/drag`: press at the start, move, release at the end. */
        DesktopMouseDragRequest: {
            button?: null | components["schemas"]["DesktopMouseButton"];
            /**
             * Format: int32
             * @description Where it ends, from the left.
             */
            endX: number;
            /**
             * Format: int32
             * @description Where it ends, from the top.
             */
            endY: number;
            /**
             * Format: int32
             * @description Where it starts, from the left.
             */
            startX: number;
            /**
             * Format: int32
             * @description Where it starts, from the top.
             */
            startY: number;
        };
        /** @description Body of `POST /v1/desktop/mouse/move`. */
        DesktopMouseMoveRequest: {
            /**
             * Format: int32
             * @description Where to, from the left.
             */
            x: number;
            /**
             * Format: int32
             * @description Where to, from the top.
             */
            y: number;
        };
        /** @description Where the pointer is. */
        DesktopMousePositionResponse: {
            /**
             * Format: uint32
             * @description The screen number (always 0).
             */
            screen?: number | null;
            /** @description The top-level window under the pointer, when there is one. */
            window?: string | null;
            /**
             * Format: int32
             * @description From the left.
             */
            x: number;
            /**
             * Format: int32
             * @description From the top.
             */
            y: number;
        };
        /** @description Body of `POST /v1/desktop/mouse/scroll`: wheel steps at a point. */
        DesktopMouseScrollRequest: {
            /**
             * Format: int32
             * @description Steps to the right (negative: to the left).
             */
            deltaX?: number | null;
            /**
             * Format: int32
             * @description Steps down (negative: up).
             */
            deltaY?: number | null;
            /**
             * Format: int32
             * @description Where, from the left.
             */
            x: number;
            /**
             * Format: int32
             * @description Where, from the top.
             */
            y: number;
        };
        /** @description Body of `POST /v1/desktop/open`: a file or URL opened with its default program. */
        DesktopOpenRequest: {
            /** @description A path or a URL. */
            target: string;
        };
        /** @description Answer of `POST /v1/desktop/open`. */
        DesktopOpenResponse: {
            /**
             * Format: uint32
             * @description Its process id.
             */
            pid?: number | null;
            /** @description The managed process of the opener (`/v1/processes/{id}`). */
            processId: string;
        };
        /**
         * @description One of the programs the desktop runs (the X server, the window manager, the
         *     session bus).
         */
        DesktopProcessInfo: {
            /** @description The file its output goes to. */
            logPath?: string | null;
            /** @description `xvfb`, `openbox` or `dbus`. */
            name: string;
            /**
             * Format: uint32
             * @description Its process id while it runs.
             */
            pid?: number | null;
            /** @description Whether it runs. */
            running: boolean;
        };
        /** @description A recording of the screen as an MP4 file (H.264). */
        DesktopRecordingInfo: {
            /**
             * Format: uint64
             * @description Its file's size now.
             */
            bytes: number;
            /** @description When it ended (RFC 3339). */
            endedAt?: string | null;
            /** @description Its file's name. */
            fileName: string;
            /** @description Its id. */
            id: string;
            /** @description The process id of the ffmpeg that records it, while it runs. */
            processId?: string | null;
            /** @description When it started (RFC 3339). */
            startedAt: string;
            /** @description Where it is in its life. */
            status: components["schemas"]["DesktopRecordingStatus"];
        };
        /** @description Answer of `GET /v1/desktop/recordings`. */
        DesktopRecordingListResponse: {
            /** @description The recordings, oldest first. */
            recordings: components["schemas"]["DesktopRecordingInfo"][];
        };
        /** @description Body of `POST /v1/desktop/recording/start`. */
        DesktopRecordingStartRequest: {
            /**
             * Format: uint32
             * @description Frames per second, 1 to 60; 15 when absent.
             */
            fps?: number | null;
        };
        /**
         * @description Where a recording is in its life.
         * @enum {string}
         */
        DesktopRecordingStatus: "recording" | "completed" | "failed";
        /** @description Size of the screen. */
        DesktopResolution: {
            /**
             * Format: uint32
             * @description Dots per inch the X server reports.
             */
            dpi?: number | null;
            /**
             * Format: uint32
             * @description Height in pixels.
             */
            height: number;
            /**
             * Format: uint32
             * @description Width in pixels.
             */
            width: number;
        };
        /**
         * @description An image format of a screenshot.
         * @enum {string}
         */
        DesktopScreenshotFormat: "png" | "jpeg" | "webp";
        /**
         * @description One of the desktop's selections.
         * @enum {string}
         */
        DesktopSelection: "clipboard" | "primary";
        /** @description Body of `POST /v1/desktop/start`; every field has a default. */
        DesktopStartRequest: {
            /**
             * Format: uint32
             * @description The display number (`:N`); the first free one when absent.
             */
            displayNum?: number | null;
            /**
             * Format: uint32
             * @description Dots per inch; 96 when absent.
             */
            dpi?: number | null;
            /**
             * Format: uint32
             * @description Height of the screen; 900 when absent.
             */
            height?: number | null;
            /**
             * Format: uint32
             * @description Accepted for the reference's clients; recordings take their rate at start.
             */
            recordingFps?: number | null;
            /**
             * @description Accepted for the reference's clients; the desktop's files are in the daemon's
             *     data dir.
             */
            stateDir?: string | null;
            /** @description Accepted for the reference's clients (its WebRTC stream); unused. */
            streamAudioCodec?: string | null;
            /**
             * Format: uint32
             * @description Frames per second of the live view (`/v1/desktop/stream/ws`); 10 when absent.
             */
            streamFrameRate?: number | null;
            /** @description Accepted for the reference's clients (its WebRTC stream); unused. */
            streamVideoCodec?: string | null;
            /** @description Accepted for the reference's clients (its WebRTC stream); unused. */
            webrtcPortRange?: string | null;
            /**
             * Format: uint32
             * @description Width of the screen; 1440 when absent.
             */
            width?: number | null;
        };
        /**
         * @description Where the desktop is in its life.
         * @enum {string}
         */
        DesktopState: "inactive" | "install_required" | "starting" | "active" | "stopping" | "failed";
        /** @description Answer of `GET /v1/desktop/status` (and of start and stop). */
        DesktopStatusResponse: {
            /** @description The X display name (`:99`) while it runs. */
            display?: string | null;
            /** @description The command that installs them, when some are missing. */
            installCommand?: string | null;
            lastError?: null | components["schemas"]["DesktopErrorInfo"];
            /** @description The programs it needs that are not installed. */
            missingDependencies?: string[];
            /** @description The programs it runs. */
            processes?: components["schemas"]["DesktopProcessInfo"][];
            resolution?: null | components["schemas"]["DesktopResolution"];
            /** @description The folder its programs' logs are in. */
            runtimeLogPath?: string | null;
            /** @description When it started (RFC 3339). */
            startedAt?: string | null;
            /** @description Where the desktop is in its life. */
            state: components["schemas"]["DesktopState"];
            /** @description Its visible windows, while it runs. */
            windows?: components["schemas"]["DesktopWindowInfo"][];
        };
        /**
         * @description A JSON text frame a client sends on the live view's WebSocket: input to the desktop,
         *     in screen coordinates. Anything else closes the socket with a reason.
         */
        DesktopStreamClientFrame: {
            /** @enum {string} */
            type: "mouseMove";
            /**
             * Format: int32
             * @description From the left.
             */
            x: number;
            /**
             * Format: int32
             * @description From the top.
             */
            y: number;
        } | {
            button?: null | components["schemas"]["DesktopMouseButton"];
            /** @enum {string} */
            type: "mouseDown";
            /**
             * Format: int32
             * @description From the left.
             */
            x: number;
            /**
             * Format: int32
             * @description From the top.
             */
            y: number;
        } | {
            button?: null | components["schemas"]["DesktopMouseButton"];
            /** @enum {string} */
            type: "mouseUp";
            /**
             * Format: int32
             * @description From the left.
             */
            x: number;
            /**
             * Format: int32
             * @description From the top.
             */
            y: number;
        } | {
            /**
             * Format: int32
             * @description Steps right (negative: left).
             */
            deltaX?: number | null;
            /**
             * Format: int32
             * @description Steps down (negative: up).
             */
            deltaY?: number | null;
            /** @enum {string} */
            type: "scroll";
            /**
             * Format: int32
             * @description From the left.
             */
            x: number;
            /**
             * Format: int32
             * @description From the top.
             */
            y: number;
        } | {
            /** @description The key. */
            key: string;
            /** @enum {string} */
            type: "keyDown";
        } | {
            /** @description The key. */
            key: string;
            /** @enum {string} */
            type: "keyUp";
        } | {
            /** @description The text. */
            text: string;
            /** @enum {string} */
            type: "type";
        };
        /**
         * @description A JSON text frame the live view's WebSocket sends (frames of the screen are binary
         *     JPEG messages).
         */
        DesktopStreamServerFrame: {
            /**
             * Format: uint32
             * @description Height of the screen.
             */
            height: number;
            /** @enum {string} */
            type: "ready";
            /**
             * Format: uint32
             * @description Width of the screen.
             */
            width: number;
        } | {
            /** @description Why. */
            message: string;
            /** @enum {string} */
            type: "error";
        };
        /** @description A top-level window the window manager manages. */
        DesktopWindowInfo: {
            /**
             * Format: uint32
             * @description Height of its contents.
             */
            height: number;
            /** @description Its X window id, in decimal. */
            id: string;
            /** @description Whether it has the focus. */
            isActive: boolean;
            /**
             * Format: uint32
             * @description The process that owns it, when it says (`_NET_WM_PID`).
             */
            pid?: number | null;
            /** @description Its title. */
            title: string;
            /**
             * Format: uint32
             * @description Width of its contents.
             */
            width: number;
            /**
             * Format: int32
             * @description Left edge of its contents on the screen.
             */
            x: number;
            /**
             * Format: int32
             * @description Top edge of its contents on the screen.
             */
            y: number;
        };
        /** @description Answer of `GET /v1/desktop/windows`. */
        DesktopWindowListResponse: {
            /** @description The windows, bottom to top. */
            windows: components["schemas"]["DesktopWindowInfo"][];
        };
        /** @description Body of `POST /v1/desktop/windows/{id}/move`. */
        DesktopWindowMoveRequest: {
            /**
             * Format: int32
             * @description New left edge of its contents.
             */
            x: number;
            /**
             * Format: int32
             * @description New top edge of its contents.
             */
            y: number;
        };
        /** @description Body of `POST /v1/desktop/windows/{id}/resize`. */
        DesktopWindowResizeRequest: {
            /**
             * Format: uint32
             * @description New height of its contents.
             */
            height: number;
            /**
             * Format: uint32
             * @description New width of its contents.
             */
            width: number;
        };
        /** @description Data of `error`. */
        ErrorData: {
            code?: string | null;
            details?: unknown;
            message: string;
        };
        /**
         * @description Error kinds of the API (also the codes of `urn:sandbox-agent:error:<code>`).
         * @enum {string}
         */
        ErrorType: "invalid_request" | "unsupported_agent" | "agent_not_installed" | "install_failed" | "agent_process_exited" | "token_invalid" | "permission_denied" | "session_not_found" | "session_already_exists" | "mode_not_supported" | "stream_error" | "timeout" | "session_ended" | "request_not_found" | "not_found" | "method_not_allowed" | "payload_too_large" | "adapter_failed" | "internal" | "path_not_found" | "path_conflict" | "not_configured" | "storage_full" | "storage_unavailable" | "process_not_found" | "process_conflict" | "process_limit_reached" | "spawn_failed" | "host_not_allowed" | "cross_origin_refused" | "unsupported_media_type" | "invalid_archive" | "session_elsewhere" | "desktop_unavailable" | "desktop_not_running" | "desktop_conflict" | "desktop_failed" | "window_not_found" | "recording_not_found";
        /**
         * @description Who produced an event.
         * @enum {string}
         */
        EventSource: "agent" | "daemon";
        /** @description Query of `GET /v1/sessions/{id}/events`. */
        EventsQuery: {
            /** @description Include native payloads (`raw`); `include_raw` is accepted too. */
            includeRaw?: boolean | null;
            /**
             * Format: uint64
             * @description Most events to return.
             */
            limit?: number | null;
            /**
             * Format: uint64
             * @description Last sequence already seen (exclusive).
             */
            offset?: number | null;
        };
        /** @description `GET /v1/sessions/{id}/events`. */
        EventsResponse: {
            events: components["schemas"]["UniversalEvent"][];
            hasMore: boolean;
        };
        /** @description Query of `GET /v1/sessions/{id}/events/sse`. */
        EventsSseQuery: {
            /** @description Include native payloads (`raw`); `include_raw` is accepted too. */
            includeRaw?: boolean | null;
            /**
             * Format: uint64
             * @description Last sequence already seen (exclusive); the `Last-Event-ID` header takes precedence.
             */
            offset?: number | null;
        };
        /**
         * @description What happened to a referenced file.
         * @enum {string}
         */
        FileAction: "read" | "write" | "patch";
        /** @description The answer of `mkdir` and `DELETE /v1/fs/entry`: the absolute path acted on. */
        FsActionResponse: {
            /** @description The absolute path. */
            path: string;
        };
        /** @description Query of `DELETE /v1/fs/entry`. */
        FsDeleteQuery: {
            /** @description Absolute path, or relative to the session's directory (or the home directory). */
            path: string;
            /** @description Delete a non-empty directory with everything in it (409 without it). */
            recursive?: boolean | null;
            /** @description Session whose directory relative paths start from; `session_id` is accepted too. */
            sessionId?: string | null;
        };
        /** @description Query of `GET /v1/fs/entries`. */
        FsEntriesQuery: {
            /**
             * @description The directory to list: absolute, or relative to the session's directory (or the
             *     home directory); that directory itself when absent.
             */
            path?: string | null;
            /** @description Session whose directory relative paths start from; `session_id` is accepted too. */
            sessionId?: string | null;
        };
        /** @description One entry of a directory listing (`GET /v1/fs/entries`). */
        FsEntry: {
            /**
             * @description File or directory (what a symbolic link leads to; FIFOs, sockets and devices
             *     are `file` here, see `kind`).
             */
            entryType: components["schemas"]["FsEntryType"];
            kind?: null | components["schemas"]["FsEntryKind"];
            /** @description Last modification time (RFC 3339), when the filesystem records one. */
            modified?: string | null;
            /** @description The entry's file name. */
            name: string;
            /** @description Its absolute path. */
            path: string;
            /**
             * Format: uint64
             * @description Size in bytes.
             */
            size: number;
        };
        /**
         * @description What a path itself is, without following a symbolic link at it (`entryType` keeps
         *     the 0.1.x two values, and follows links).
         * @enum {string}
         */
        FsEntryKind: "file" | "directory" | "symlink" | "fifo" | "socket" | "charDevice" | "blockDevice";
        /**
         * @description What a path names.
         * @enum {string}
         */
        FsEntryType: "file" | "directory";
        /** @description Body of `POST /v1/fs/move`. */
        FsMoveRequest: {
            /** @description The path to move. */
            from: string;
            /** @description Replace an existing `to` (a file, or an empty directory); refused (409) without it. */
            overwrite?: boolean | null;
            /** @description Where it goes; its parent directories are created. */
            to: string;
        };
        /** @description The answer of `POST /v1/fs/move`: both absolute paths. */
        FsMoveResponse: {
            /** @description The absolute source path. */
            from: string;
            /** @description The absolute destination path. */
            to: string;
        };
        /** @description Query of the routes that take one path. */
        FsPathQuery: {
            /** @description Absolute path, or relative to the session's directory (or the home directory). */
            path: string;
            /** @description Session whose directory relative paths start from; `session_id` is accepted too. */
            sessionId?: string | null;
        };
        /** @description Query of `POST /v1/fs/move`. */
        FsSessionQuery: {
            /** @description Session whose directory relative paths start from; `session_id` is accepted too. */
            sessionId?: string | null;
        };
        /** @description Metadata of one path (`GET /v1/fs/stat`). */
        FsStat: {
            /**
             * @description File or directory (what a symbolic link leads to; FIFOs, sockets and devices
             *     are `file` here, see `kind`).
             */
            entryType: components["schemas"]["FsEntryType"];
            kind?: null | components["schemas"]["FsEntryKind"];
            /** @description Last modification time (RFC 3339), when the filesystem records one. */
            modified?: string | null;
            /** @description The absolute path. */
            path: string;
            /**
             * Format: uint64
             * @description Size in bytes.
             */
            size: number;
        };
        /** @description Query of `POST /v1/fs/upload-batch`. */
        FsUploadBatchQuery: {
            /**
             * @description The directory to unpack into (created when missing): absolute, or relative to the
             *     session's directory (or the home directory); that directory itself when absent.
             */
            path?: string | null;
            /** @description Session whose directory relative paths start from; `session_id` is accepted too. */
            sessionId?: string | null;
        };
        /** @description The answer of `POST /v1/fs/upload-batch`. */
        FsUploadBatchResponse: {
            /**
             * @description The absolute paths written (files and directories), in archive order, at most
             *     [`FS_UPLOAD_LISTED_PATHS`] of them.
             */
            paths: string[];
            /** @description The archive held more entries than `paths` lists (all were written). */
            truncated: boolean;
        };
        /** @description The answer of `PUT /v1/fs/file`. */
        FsWriteResponse: {
            /**
             * Format: uint64
             * @description How many bytes the file now holds.
             */
            bytesWritten: number;
            /** @description The absolute path written. */
            path: string;
        };
        /** @description `GET /v1/health`. */
        HealthResponse: {
            /** @description Always `ok` when the daemon answers. */
            status: string;
            /** @description The daemon's version. */
            version?: string | null;
        };
        /** @description Query of `POST /v1/sessions/{id}/import`. */
        ImportSessionQuery: {
            /**
             * @description The session's working directory in this sandbox (absolute, or relative to
             *     the daemon's); by default the one it had, when it exists here.
             */
            directory?: string | null;
        };
        /** @description The answer of `POST /v1/sessions/{id}/import`. */
        ImportSessionResponse: {
            /**
             * @description Why the agent's own session did not come along, when it did not: the next
             *     message then starts a new session of the agent (the transcript stays).
             */
            lost?: string | null;
            /**
             * @description Secret variables the session had that the import was not given (header
             *     `x-agentplex-env`): its agent goes without them, or with the daemon's own.
             */
            missingSecrets: string[];
            /**
             * Format: uint64
             * @description How many of the agent's own session files were written.
             */
            nativeFiles: number;
            /** @description The session as it now is here. */
            session: components["schemas"]["SessionInfo"];
        };
        /** @description Data of `item.delta`. */
        ItemDeltaData: {
            delta: string;
            item_id: string;
            native_item_id?: string | null;
        };
        /** @description Data of `item.started` and `item.completed`. */
        ItemEventData: {
            item: components["schemas"]["UniversalItem"];
        };
        /**
         * @description What an item is.
         * @enum {string}
         */
        ItemKind: "message" | "tool_call" | "tool_result" | "system" | "status" | "unknown";
        /**
         * @description Who produced an item.
         * @enum {string}
         */
        ItemRole: "user" | "assistant" | "system" | "tool";
        /**
         * @description Lifecycle state of an item.
         * @enum {string}
         */
        ItemStatus: "in_progress" | "completed" | "failed";
        /** @description An adapter component loaded from the adapters folder. */
        LoadedAdapterInfo: {
            /** @description The adapter's own version. */
            adapterVersion: string;
            /** @description The contract it was built against (`sandbox-agent:adapter@0.5.0`). */
            contract: string;
            /** @description The agent id it registers. */
            id: string;
            /** @description The component file. */
            origin: string;
        };
        /** @description A local server's command: one string (the program) or a list (program and arguments). */
        McpCommand: string | string[];
        /** @description OAuth settings of a remote MCP server. */
        McpOAuthConfig: {
            clientId?: string | null;
            clientSecret?: string | null;
            scope?: string | null;
        };
        /** @description OAuth settings, or a boolean (`false` turns OAuth off, `true` keeps the agent's default). */
        McpOAuthConfigOrDisabled: boolean | components["schemas"]["McpOAuthConfig"];
        /**
         * @description The protocol of a remote MCP server.
         * @enum {string}
         */
        McpRemoteTransport: "http" | "sse";
        /** @description How an MCP server is reached, by its `type`. */
        McpServerConfig: {
            /** @description Arguments after those in `command`. */
            args?: string[];
            /** @description The program, or the program and its arguments. */
            command: components["schemas"]["McpCommand"];
            /** @description Working directory; the session's directory when absent. */
            cwd?: string | null;
            /** @description `false` leaves the server out. */
            enabled?: boolean | null;
            /** @description Variables added to the server's environment. */
            env?: {
                [key: string]: string;
            } | null;
            /**
             * Format: uint64
             * @description How long the agent may wait for the server.
             */
            timeoutMs?: number | null;
            /** @enum {string} */
            type: "local";
        } | {
            /**
             * @description A variable of the daemon's environment holding a bearer token, sent as
             *     `Authorization: Bearer <value>`.
             */
            bearerTokenEnvVar?: string | null;
            /** @description `false` leaves the server out. */
            enabled?: boolean | null;
            /**
             * @description Request headers whose values the daemon reads from its environment:
             *     header name → variable name.
             */
            envHeaders?: {
                [key: string]: string;
            } | null;
            /** @description Request headers. */
            headers?: {
                [key: string]: string;
            } | null;
            oauth?: null | components["schemas"]["McpOAuthConfigOrDisabled"];
            /**
             * Format: uint64
             * @description How long the agent may wait for the server.
             */
            timeoutMs?: number | null;
            transport?: null | components["schemas"]["McpRemoteTransport"];
            /** @enum {string} */
            type: "remote";
            /** @description The server's URL. */
            url: string;
        };
        /** @description A file attached to a 0.1.x message. */
        MessageAttachment: {
            filename?: string | null;
            mime?: string | null;
            path: string;
        };
        /** @description One part of a message sent as `parts`. */
        MessagePart: {
            text: string;
            /** @enum {string} */
            type: "text";
        } | {
            mime?: string | null;
            path: string;
            /** @enum {string} */
            type: "image";
        } | {
            filename?: string | null;
            mime?: string | null;
            path: string;
            /** @enum {string} */
            type: "file";
        };
        /**
         * @description `POST /v1/sessions/{id}/messages`: either `message` (+ `attachments`), the 0.1.x
         *     form, or `parts`.
         */
        MessageRequest: {
            attachments?: components["schemas"]["MessageAttachment"][];
            message?: string | null;
            parts?: components["schemas"]["MessagePart"][] | null;
        };
        /**
         * @description Data of `model.usage`: one model call of the agent, as the daemon metered it
         *     on its way to the provider. Input counts every token of the prompt, the cache
         *     reads and writes included; output counts the reasoning tokens too.
         */
        ModelUsageData: {
            /**
             * Format: uint64
             * @description Prompt tokens read from the provider's prompt cache.
             */
            cache_read_tokens: number;
            /**
             * Format: uint64
             * @description Prompt tokens written to the provider's prompt cache.
             */
            cache_write_tokens: number;
            /**
             * @description Whether the answer arrived whole: `false` when it broke off, the counts then
             *     being what had arrived.
             */
            complete: boolean;
            /**
             * Format: double
             * @description What the call cost in US dollars; absent when the model's price is unknown.
             */
            cost_usd?: number | null;
            /**
             * Format: uint64
             * @description From the request to the last byte of the answer, in milliseconds.
             */
            duration_ms: number;
            /**
             * @description Why the call failed though the provider answered it with a success: its
             *     answer broke off, fell silent, or ended without what ends a well-formed
             *     answer (an `error` event with code `model_call_failed` follows). Absent
             *     for a call that ended well, one the agent hung up on or a budget cut, and
             *     one answered with an error `status`.
             */
            error?: string | null;
            /**
             * @description The call's wire format: `anthropic-messages`, `openai-responses`,
             *     `openai-chat-completions` or `gemini`.
             */
            format: string;
            /**
             * Format: uint64
             * @description Prompt tokens, the cache reads and writes included.
             */
            input_tokens: number;
            /** @description The model that answered, as the provider names it. */
            model: string;
            /**
             * Format: uint64
             * @description Tokens generated, the reasoning tokens included.
             */
            output_tokens: number;
            /**
             * Format: uint64
             * @description Tokens the model spent reasoning.
             */
            reasoning_tokens: number;
            /**
             * Format: uint16
             * @description The HTTP status the provider answered with.
             */
            status: number;
        };
        /** @description One mode or model an agent offers. */
        OfferedChoice: {
            /**
             * @description The variant the model runs, when the agent said.
             * @default null
             */
            defaultVariant: string | null;
            /**
             * @description What it is, when the agent said.
             * @default null
             */
            description: string | null;
            /**
             * @description Its id, as the agent takes it.
             * @default
             */
            id: string;
            /**
             * @description Its name, when the agent gave one.
             * @default null
             */
            name: string | null;
            /**
             * @description A model's variants (its thought levels), as the session's `variant`
             *     takes them, when the agent said.
             * @default []
             */
            variants: string[];
        };
        /**
         * @description Data of `permission.decided`: one decision on a permission request of a
         *     session with an approval policy (always `source: daemon`). An `ask` is
         *     followed by the client's decision (or the timeout's), under the same
         *     `permission_id`.
         */
        PermissionDecidedData: {
            by: components["schemas"]["DecidedBy"];
            decision: components["schemas"]["PermissionDecision"];
            /** @description What the tool would do. */
            input?: components["schemas"]["DecidedInput"];
            /**
             * @description The agent decided it by itself, without asking, by the native rule its
             *     adapter handed it for the policy (a kind of tool the policy decides the
             *     same way whatever the call); `permission_id` is then the tool call's
             *     `call_id`, and no `permission.requested` or `permission.resolved` goes
             *     with it.
             */
            native?: boolean;
            /** @description The request decided (as in `permission.requested`). */
            permission_id: string;
            /** @description Why, in words (`denied by rules[0]: shell command "rm *"`). */
            reason: string;
            /**
             * Format: uint32
             * @description With `by: rule`: the index of the deciding rule in the policy's `rules`.
             */
            rule?: number | null;
            /**
             * @description What the deciding rule matched, when it was a part of the request: one
             *     command of a command line, or a path with its links resolved.
             */
            subject?: string | null;
            /**
             * @description The kind of tool: `shell`, `read`, `write`, `fetch`, `mcp` or `other`
             *     (`other` when the adapter could not say).
             */
            tool: string;
        };
        /**
         * @description What was decided of a permission request.
         * @enum {string}
         */
        PermissionDecision: "allow" | "ask" | "deny";
        /** @description Data of `permission.requested` and `permission.resolved`. */
        PermissionEventData: {
            /** @description What the agent wants to do. */
            action: string;
            metadata?: unknown;
            permission_id: string;
            status: components["schemas"]["PermissionStatus"];
        };
        /**
         * @description A reply to a permission request.
         * @enum {string}
         */
        PermissionReply: "once" | "always" | "reject";
        /** @description `POST /v1/sessions/{id}/permissions/{pid}/reply`. */
        PermissionReplyRequest: {
            reply: components["schemas"]["PermissionReply"];
        };
        /**
         * @description State of a permission request.
         * @enum {string}
         */
        PermissionStatus: "requested" | "accept" | "accept_for_session" | "reject";
        /**
         * @description What a policy decides.
         * @enum {string}
         */
        PolicyDecision: "allow" | "ask" | "deny";
        /** @description One rule of an approval policy. */
        PolicyRule: {
            /** @description A glob on each command of a `shell` request's command line (`rm *`). */
            command?: string | null;
            decision: components["schemas"]["PolicyDecision"];
            /** @description A glob on an `mcp` request's `server/tool`. */
            mcp?: string | null;
            /**
             * @description A glob on a `read` or `write` request's path (relative to the session's
             *     directory, absolute, or `~/`).
             */
            path?: string | null;
            tool?: null | components["schemas"]["PolicyToolKind"];
        };
        /**
         * @description The kinds of tool a policy's rules name.
         * @enum {string}
         */
        PolicyToolKind: "shell" | "read" | "write" | "fetch" | "mcp" | "other";
        /** @description An RFC 7807 problem document: every error response of the API. */
        ProblemDetails: {
            agent?: string | null;
            detail?: string | null;
            /** Format: int32 */
            exitCode?: number | null;
            instance?: string | null;
            sessionId?: string | null;
            /** Format: uint16 */
            status: number;
            stderr?: string | null;
            title: string;
            /** @description `urn:sandbox-agent:error:<code>`. */
            type: string;
        };
        /** @description The limits of the process API (`GET /v1/processes/config`), set by the daemon's flags. */
        ProcessConfig: {
            /**
             * Format: uint64
             * @description Timeout of a run that names none, in milliseconds.
             */
            defaultRunTimeoutMs: number;
            /**
             * Format: uint64
             * @description Most processes held at once: managed ones not deleted (running or exited)
             *     plus runs in progress (`--max-processes`).
             */
            maxConcurrentProcesses: number;
            /**
             * Format: uint64
             * @description Largest decoded input of one `POST .../input` or WebSocket input frame
             *     (`--process-input-bytes`).
             */
            maxInputBytesPerRequest: number;
            /**
             * Format: uint64
             * @description Log ring buffer of a process without a terminal, in bytes (`--process-log-bytes`).
             */
            maxLogBytesPerProcess: number;
            /**
             * Format: uint64
             * @description Most bytes a run keeps of stdout, and of stderr (`--process-output-bytes`).
             */
            maxOutputBytes: number;
            /**
             * Format: uint64
             * @description Longest timeout a run may ask for, in milliseconds.
             */
            maxRunTimeoutMs: number;
            /**
             * Format: uint64
             * @description Time between SIGTERM and SIGKILL when a process is stopped, in
             *     milliseconds (`--process-stop-grace-ms`).
             */
            stopGraceMs: number;
            /**
             * Format: uint64
             * @description Scrollback ring buffer of a terminal, in bytes (`--terminal-scrollback-bytes`).
             */
            terminalScrollbackBytes: number;
        };
        /** @description Body of `POST /v1/processes`: start a managed process. */
        ProcessCreateRequest: {
            /** @description Its arguments (no shell: use `sh -c` for one). */
            args?: string[];
            /**
             * Format: uint16
             * @description Terminal width in columns (with `tty`); 80 when absent.
             */
            cols?: number | null;
            /** @description The program: a path, or a name looked up in the daemon's `PATH`. */
            command: string;
            /** @description Working directory; the daemon's when absent or empty. */
            cwd?: string | null;
            /**
             * @description Variables added to the daemon's environment (`TERM` defaults to
             *     `xterm-256color` in a terminal).
             */
            env?: {
                [key: string]: string;
            };
            /**
             * @description Keep its stdin open for `POST .../input` (always so in a terminal); without
             *     it stdin is empty.
             */
            interactive?: boolean;
            /**
             * @description Leave the process running when the daemon stops (by default the daemon
             *     stops every process it started). Not with `tty`: a terminal ends with the
             *     daemon. Its output pipes close with the daemon: it should write elsewhere.
             */
            outliveDaemon?: boolean;
            /**
             * Format: uint16
             * @description Terminal height in rows (with `tty`); 24 when absent.
             */
            rows?: number | null;
            /**
             * @description Run it in a pseudo-terminal: one output stream (`pty`), input and the
             *     terminal WebSocket, resizable.
             */
            tty?: boolean;
        };
        /**
         * @description How bytes travel in a JSON string.
         * @enum {string}
         */
        ProcessDataEncoding: "utf8" | "base64";
        /** @description A managed process (kept after it exits, until deleted). */
        ProcessInfo: {
            /** @description Its arguments. */
            args: string[];
            /** @description The program, as asked for. */
            command: string;
            /**
             * Format: int64
             * @description When it started (Unix milliseconds).
             */
            createdAtMs: number;
            /** @description Its working directory, when one was asked for. */
            cwd?: string | null;
            /**
             * Format: int32
             * @description The exit status, once it exited on its own.
             */
            exitCode?: number | null;
            /**
             * Format: int64
             * @description When it exited (Unix milliseconds).
             */
            exitedAtMs?: number | null;
            /** @description The daemon's id for it (`proc_<n>`). */
            id: string;
            /** @description Its stdin is open for input (always so in a terminal). */
            interactive: boolean;
            /** @description It is left running when the daemon stops. */
            outliveDaemon?: boolean;
            /**
             * Format: uint32
             * @description Its pid, which is also its process group's id.
             */
            pid?: number | null;
            /**
             * Format: int32
             * @description The signal that ended it, when one did.
             */
            signal?: number | null;
            /** @description Whether it runs. */
            status: components["schemas"]["ProcessState"];
            /** @description It runs in a terminal. */
            tty: boolean;
        };
        /** @description Body of `POST /v1/processes/{id}/input`. */
        ProcessInputRequest: {
            /** @description The bytes, in `encoding`. */
            data: string;
            encoding?: null | components["schemas"]["ProcessDataEncoding"];
        };
        /** @description The answer of `POST /v1/processes/{id}/input`. */
        ProcessInputResponse: {
            /**
             * Format: uint64
             * @description How many bytes were written (all of them).
             */
            bytesWritten: number;
        };
        /** @description `GET /v1/processes`. */
        ProcessListResponse: {
            /** @description Every process not deleted, oldest first. */
            processes: components["schemas"]["ProcessInfo"][];
        };
        /** @description One chunk of output, as read. */
        ProcessLogEntry: {
            /** @description The bytes, in `encoding`. */
            data: string;
            /** @description Always `base64`. */
            encoding: string;
            /**
             * Format: uint64
             * @description Where its first byte is in everything the process printed (all streams, in
             *     the order read), from 0.
             */
            offset?: number;
            /**
             * Format: uint64
             * @description Its number, from 1, over all the process's streams.
             */
            sequence: number;
            /** @description Which output it came from. */
            stream: components["schemas"]["ProcessLogsStream"];
            /**
             * Format: int64
             * @description When it was read (Unix milliseconds).
             */
            timestampMs: number;
        };
        /**
         * @description Data of the SSE `missed` event of a followed log: output dropped from the ring
         *     buffer before the reader got it.
         */
        ProcessLogsMissed: {
            /**
             * Format: uint64
             * @description Where the stream goes on.
             */
            firstOffset: number;
            /**
             * Format: uint64
             * @description How many bytes were skipped (0 when the stream started `since` an entry
             *     already dropped: then only `missedEntries` is known).
             */
            missedBytes: number;
            /**
             * Format: uint64
             * @description How many entries were skipped.
             */
            missedEntries: number;
        };
        /** @description The answer of `GET /v1/processes/{id}/logs` (without `follow`). */
        ProcessLogsResponse: {
            /** @description The entries held that were asked for, oldest first. */
            entries: components["schemas"]["ProcessLogEntry"][];
            /**
             * Format: uint64
             * @description Offset of the oldest byte the ring buffer still holds: what came before
             *     was dropped.
             */
            firstOffset?: number;
            /**
             * Format: uint64
             * @description Bytes asked for that were dropped before this read (reading from an
             *     `offset`, or from the start).
             */
            missedBytes?: number;
            /**
             * Format: uint64
             * @description Entries asked for that were dropped before this read (reading `since` a
             *     sequence).
             */
            missedEntries?: number;
            /**
             * Format: uint64
             * @description Offset one past the newest byte: where the next output will start.
             */
            nextOffset?: number;
            /** @description The process read. */
            processId: string;
            /** @description The output read. */
            stream: components["schemas"]["ProcessLogsStream"];
        };
        /**
         * @description Which output of a process.
         * @enum {string}
         */
        ProcessLogsStream: "stdout" | "stderr" | "combined" | "pty";
        /** @description Body of `POST /v1/processes/run`: run a command to completion. */
        ProcessRunRequest: {
            /** @description Its arguments (no shell: use `sh -c` for one). */
            args?: string[];
            /** @description The program: a path, or a name looked up in the daemon's `PATH`. */
            command: string;
            /** @description Working directory; the daemon's when absent or empty. */
            cwd?: string | null;
            /** @description Variables added to the daemon's environment. */
            env?: {
                [key: string]: string;
            };
            /**
             * Format: uint64
             * @description Most bytes kept of stdout, and of stderr; the daemon's `maxOutputBytes` when
             *     absent, and never more. Output past it is read and dropped.
             */
            maxOutputBytes?: number | null;
            outputEncoding?: null | components["schemas"]["ProcessDataEncoding"];
            /**
             * @description Bytes written to the command's stdin, which is then closed; an empty stdin
             *     when absent.
             */
            stdin?: string | null;
            stdinEncoding?: null | components["schemas"]["ProcessDataEncoding"];
            /**
             * Format: uint64
             * @description The command's process group is killed (SIGKILL) after this long; the
             *     daemon's `defaultRunTimeoutMs` when absent, at most `maxRunTimeoutMs`.
             */
            timeoutMs?: number | null;
        };
        /** @description The answer of `POST /v1/processes/run`. */
        ProcessRunResponse: {
            /**
             * Format: uint64
             * @description From spawn to exit (and the end of its output), in milliseconds.
             */
            durationMs: number;
            /** @description How `stdout` and `stderr` are encoded. */
            encoding?: components["schemas"]["ProcessDataEncoding"];
            /**
             * Format: int32
             * @description The exit status, when the command exited on its own.
             */
            exitCode?: number | null;
            /**
             * Format: int32
             * @description The signal that ended it (9 after a timeout), when one did.
             */
            signal?: number | null;
            /** @description What it printed on stderr (at most `maxOutputBytes` bytes). */
            stderr: string;
            /** @description It printed more on stderr than was kept. */
            stderrTruncated: boolean;
            /** @description What it printed on stdout (at most `maxOutputBytes` bytes). */
            stdout: string;
            /** @description It printed more on stdout than was kept. */
            stdoutTruncated: boolean;
            /** @description The timeout passed and the command was killed. */
            timedOut: boolean;
        };
        /**
         * @description Whether a managed process runs.
         * @enum {string}
         */
        ProcessState: "running" | "exited";
        /** @description Body of `POST /v1/processes/{id}/terminal/resize`, and its answer. */
        ProcessTerminalResizeRequest: {
            /**
             * Format: uint16
             * @description Width in columns.
             */
            cols: number;
            /**
             * Format: uint16
             * @description Height in rows.
             */
            rows: number;
        };
        /** @description Data of `question.requested` and `question.resolved`. */
        QuestionEventData: {
            options: string[];
            prompt: string;
            question_id: string;
            response?: string | null;
            status: components["schemas"]["QuestionStatus"];
        };
        /** @description `POST /v1/sessions/{id}/questions/{qid}/reply`. */
        QuestionReplyRequest: {
            /** @description One list of chosen answers per prompt. */
            answers: string[][];
        };
        /**
         * @description State of a question.
         * @enum {string}
         */
        QuestionStatus: "requested" | "answered" | "rejected";
        /**
         * @description Whether reasoning text is meant for end users.
         * @enum {string}
         */
        ReasoningVisibility: "public" | "private";
        /** @description `POST /v1/registry/{agent}`. */
        RegistryAddRequest: {
            /**
             * @description Variables of the daemon's environment the agent's processes are given (its
             *     API key, its base URL), by name: the registry names none, and an agent is
             *     not given another agent's credentials otherwise. Kept with the agent;
             *     adding it again replaces them.
             */
            env?: components["schemas"]["VariableName"][] | null;
            /** @description Install again even when the entry's version is installed. */
            reinstall?: boolean | null;
        };
        /** @description One agent of the ACP registry. */
        RegistryAgentInfo: {
            /** @description Whether it was added to this daemon (it is then in `GET /v1/agents`). */
            added: boolean;
            authors?: string[];
            description: string;
            /**
             * @description How the registry distributes it: `npx` (an npm package), `uvx` (a PyPI
             *     package), `binary` (release archives per platform).
             */
            distributions: string[];
            /** @description Its id, the agent id it gets here once added. */
            id: string;
            /**
             * @description Whether one of its distributions can be installed on this daemon's
             *     platform with its `--install-source`.
             */
            installable: boolean;
            license?: string | null;
            name: string;
            repository?: string | null;
            /** @description The version its entry installs. */
            version: string;
            website?: string | null;
        };
        /** @description `GET /v1/registry`: the agents of the ACP registry's index. */
        RegistryListResponse: {
            /** @description The agents, in the registry's order. */
            agents: components["schemas"]["RegistryAgentInfo"][];
            /** @description When the index was fetched (RFC 3339), or the snapshot file last changed. */
            fetchedAt?: string | null;
            /** @description The URL or snapshot file the index came from (`--acp-registry`). */
            source: string;
            /** @description Set when a fetch failed and an older cached copy is shown: why it failed. */
            stale?: string | null;
        };
        /**
         * @description State of an agent's shared server process.
         * @enum {string}
         */
        ServerStatus: "running" | "stopped" | "error";
        /** @description Details of an agent's shared server process. */
        ServerStatusInfo: {
            baseUrl?: string | null;
            lastError?: string | null;
            /** Format: uint64 */
            restartCount: number;
            status: components["schemas"]["ServerStatus"];
            /** Format: uint64 */
            uptimeMs?: number | null;
        };
        /**
         * @description A session's modes and model, and what its running agent offers to change
         *     them to: `GET /v1/sessions/{id}/modes`.
         */
        SessionChoices: {
            /** @description The agent mode it runs in. */
            agentMode: string;
            /** @description The model it names, when it names one. */
            model?: string | null;
            offered?: null | components["schemas"]["AgentOffer"];
            /** @description `default`, `plan`, `bypass` or `acceptEdits`. */
            permissionMode: string;
            /** @description The model's variant it names, when it names one. */
            variant?: string | null;
        };
        /**
         * @description Why a session ended.
         * @enum {string}
         */
        SessionEndReason: "completed" | "error" | "terminated";
        /** @description Data of `session.ended`. */
        SessionEndedData: {
            /**
             * Format: int32
             * @description Process exit code when the agent process ended the session.
             */
            exit_code?: number | null;
            /** @description Error message when the reason is `error`. */
            message?: string | null;
            reason: components["schemas"]["SessionEndReason"];
            stderr?: null | components["schemas"]["StderrOutput"];
            terminated_by: components["schemas"]["TerminatedBy"];
        };
        /** @description One session, as listed. */
        SessionInfo: {
            agent: string;
            agentMode: string;
            budget?: null | components["schemas"]["BudgetLimits"];
            /**
             * Format: int64
             * @description Unix time in milliseconds.
             */
            createdAt: number;
            /** @description `true` when the agent has the desktop's MCP tools (`desktop` at create). */
            desktop?: boolean | null;
            directory?: string | null;
            ended: boolean;
            /** Format: uint64 */
            eventCount: number;
            /**
             * @description The session's MCP servers as created, with header and environment values
             *     redacted.
             */
            mcp?: {
                [key: string]: components["schemas"]["McpServerConfig"];
            } | null;
            model?: string | null;
            nativeSessionId?: string | null;
            /**
             * @description With a database daemons share (`--store postgres://...`): the daemon that
             *     drives the session, or drove it last.
             */
            owner?: string | null;
            /**
             * @description With a database daemons share: whether that daemon's lease on the session
             *     runs (it renews it while it lives). A session whose owner is not alive is
             *     taken over by the next daemon asked for it.
             */
            ownerAlive?: boolean | null;
            permissionMode: string;
            policy?: null | components["schemas"]["ApprovalPolicy"];
            /**
             * Format: uint64
             * @description Messages waiting for the running turn to end.
             */
            queuedMessages: number;
            sessionId: string;
            skills?: null | components["schemas"]["SkillsConfig"];
            status: components["schemas"]["SessionStatus"];
            title?: string | null;
            /**
             * Format: int64
             * @description Unix time in milliseconds of the latest event.
             */
            updatedAt: number;
            usage?: null | components["schemas"]["SessionUsage"];
            variant?: string | null;
        };
        /** @description `GET /v1/sessions`. */
        SessionListResponse: {
            sessions: components["schemas"]["SessionInfo"][];
        };
        /**
         * @description A session's agent mode, permission mode, model and variant, as `PUT
         *     /v1/sessions/{id}/modes` changes them (a field left out keeps its value) and
         *     answers them (both modes given; the model and the variant when the session
         *     names them). They apply from the next message on.
         */
        SessionModes: {
            /**
             * @description One of the agent's modes (`GET /v1/agents/{agent}/modes`), or one the
             *     running agent offered (the session's `agent offered` item).
             */
            agentMode?: string | null;
            /**
             * @description The model, as at create (`GET /v1/agents/{agent}/models` lists the
             *     agent's known ones); for agents whose adapter declares `model-change`.
             */
            model?: string | null;
            /** @description `default`, `plan`, `bypass` or `acceptEdits`. */
            permissionMode?: string | null;
            /**
             * @description The model's variant (reasoning effort...), as at create (the agent's
             *     models list theirs); for agents whose adapter declares `variant-change`.
             */
            variant?: string | null;
        };
        /**
         * @description Which sessions `GET /v1/sessions` lists.
         * @enum {string}
         */
        SessionScope: "daemon" | "fleet";
        /** @description Data of `session.started`. */
        SessionStartedData: {
            metadata?: unknown;
        };
        /**
         * @description What a session is doing.
         * @enum {string}
         */
        SessionStatus: "idle" | "running" | "awaiting_input" | "ended";
        /**
         * @description `usage` of a session: the totals of its metered model calls (each one also a
         *     `model.usage` event of its transcript).
         */
        SessionUsage: {
            currentTurn?: null | components["schemas"]["UsageTotals"];
            lastTurn?: null | components["schemas"]["UsageTotals"];
            /**
             * @description Whether this daemon meters the session's model calls now (a session keeps
             *     the totals of calls metered before, by a daemon that did).
             */
            metered: boolean;
            /** @description Every metered call of the session. */
            total: components["schemas"]["UsageTotals"];
        };
        /** @description One source of skills: folders holding a `SKILL.md`. */
        SkillSource: {
            /** @description A git branch, tag or commit. */
            ref?: string | null;
            /** @description Only these skills (by folder name); all the source has when absent. */
            skills?: string[] | null;
            /**
             * @description The directory (absolute, or relative to the session's directory), or the
             *     repository URL.
             */
            source: string;
            /** @description The folder inside the source that holds the skills. */
            subpath?: string | null;
            /** @description `local` (a directory on the sandbox's disk) or `git` (a repository the daemon clones). */
            type: string;
        };
        /** @description Where a session's skills come from. */
        SkillsConfig: {
            /** @description The sources, in order; a later skill of the same name replaces an earlier one. */
            sources: components["schemas"]["SkillSource"][];
        };
        /** @description A bounded excerpt of stderr. */
        StderrOutput: {
            /** @description First lines, or all of them when not truncated. */
            head?: string | null;
            /** @description Last lines, only when truncated. */
            tail?: string | null;
            /** Format: uint64 */
            total_lines?: number | null;
            truncated: boolean;
        };
        /**
         * @description A JSON text frame a client sends on the terminal WebSocket. Anything else
         *     (a binary frame, text that is not one of these) closes the socket with a reason.
         */
        TerminalClientFrame: {
            /** @description The bytes, in `encoding`. */
            data: string;
            encoding?: null | components["schemas"]["ProcessDataEncoding"];
            /** @enum {string} */
            type: "input";
        } | {
            /**
             * Format: uint16
             * @description Width in columns (at least 1).
             */
            cols: number;
            /**
             * Format: uint16
             * @description Height in rows (at least 1).
             */
            rows: number;
            /** @enum {string} */
            type: "resize";
        } | {
            /** @enum {string} */
            type: "close";
        };
        /**
         * @description A JSON text frame the daemon sends on the terminal WebSocket; the terminal's
         *     output comes in binary frames.
         */
        TerminalServerFrame: {
            /** @description The process whose terminal this is. */
            processId: string;
            /** @enum {string} */
            type: "ready";
        } | {
            /**
             * Format: int32
             * @description Its exit status, when it exited on its own.
             */
            exitCode?: number | null;
            /**
             * Format: int32
             * @description The signal that ended it, when one did.
             */
            signal?: number | null;
            /** @enum {string} */
            type: "exit";
        } | {
            /** @description Why. */
            message: string;
            /** @enum {string} */
            type: "error";
        };
        /**
         * @description Who ended a session.
         * @enum {string}
         */
        TerminatedBy: "agent" | "daemon";
        /** @description Data of `turn.started` and `turn.ended`. */
        TurnEventData: {
            metadata?: unknown;
            phase: components["schemas"]["TurnPhase"];
            turn_id?: string | null;
            usage?: null | components["schemas"]["Usage"];
        };
        /**
         * @description Whether a turn event opens or closes the turn.
         * @enum {string}
         */
        TurnPhase: "started" | "ended";
        /** @description Query of `POST /v1/sessions/{id}/messages/stream`. */
        TurnStreamQuery: {
            /** @description Include native payloads (`raw`); `include_raw` is accepted too. */
            includeRaw?: boolean | null;
        };
        /** @description One event of a session's transcript, as clients receive it. */
        UniversalEvent: {
            /** @description The event's payload. */
            data: components["schemas"]["UniversalEventData"];
            /** @description Unique identifier of this event. */
            event_id: string;
            /** @description The agent's own session or thread id, once known. */
            native_session_id?: string | null;
            /** @description The native payload, only with `include_raw=true`. */
            raw?: unknown;
            /**
             * Format: uint64
             * @description Position in the session's transcript: starts at 1, no gaps.
             */
            sequence: number;
            /** @description The daemon's session id. */
            session_id: string;
            /** @description `agent` for native events, `daemon` for synthetic ones. */
            source: components["schemas"]["EventSource"];
            /** @description Whether the event fills a gap in the agent's native stream. */
            synthetic: boolean;
            /** @description RFC 3339 time the daemon recorded the event. */
            time: string;
            /** @description What kind of event this is; selects the shape of `data`. */
            type: components["schemas"]["UniversalEventType"];
        };
        /**
         * @description The payload of an event; which variant is given by the envelope's `type`.
         *
         *     Untagged on the wire. Variants with required fields come first so that
         *     deserializing picks the right one.
         */
        UniversalEventData: components["schemas"]["TurnEventData"] | components["schemas"]["ModelUsageData"] | components["schemas"]["BudgetReachedData"] | components["schemas"]["PermissionDecidedData"] | components["schemas"]["SessionEndedData"] | components["schemas"]["ItemEventData"] | components["schemas"]["ItemDeltaData"] | components["schemas"]["PermissionEventData"] | components["schemas"]["QuestionEventData"] | components["schemas"]["AgentUnparsedData"] | components["schemas"]["ErrorData"] | components["schemas"]["SessionStartedData"];
        /**
         * @description The event types of the universal transcript.
         * @enum {string}
         */
        UniversalEventType: "session.started" | "session.ended" | "turn.started" | "turn.ended" | "item.started" | "item.delta" | "item.completed" | "error" | "permission.requested" | "permission.resolved" | "question.requested" | "question.resolved" | "agent.unparsed" | "model.usage" | "budget.reached" | "permission.decided";
        /** @description A discrete unit of a transcript. */
        UniversalItem: {
            content: components["schemas"]["ContentPart"][];
            item_id: string;
            kind: components["schemas"]["ItemKind"];
            native_item_id?: string | null;
            /** @description The item this one belongs to (a subagent's parent tool call...). */
            parent_id?: string | null;
            role?: null | components["schemas"]["ItemRole"];
            status: components["schemas"]["ItemStatus"];
        };
        /** @description Token and cost accounting of a turn. */
        Usage: {
            /**
             * Format: uint64
             * @description Input tokens written to the prompt cache (part of `input_tokens`).
             */
            cache_write_tokens?: number | null;
            /** Format: uint64 */
            cached_tokens?: number | null;
            /** Format: double */
            cost_usd?: number | null;
            /** Format: uint64 */
            input_tokens?: number | null;
            /** Format: uint64 */
            output_tokens?: number | null;
            /** Format: uint64 */
            reasoning_tokens?: number | null;
        };
        /**
         * @description Token and cost totals of metered model calls. Input tokens include the cache
         *     reads and writes; output tokens include the reasoning tokens.
         */
        UsageTotals: {
            /**
             * Format: uint64
             * @description Prompt tokens read from the provider's prompt cache.
             */
            cacheReadTokens: number;
            /**
             * Format: uint64
             * @description Prompt tokens written to the provider's prompt cache.
             */
            cacheWriteTokens: number;
            /**
             * Format: double
             * @description What the calls of a known price cost, in US dollars; absent when no call
             *     had one.
             */
            costUsd?: number | null;
            /**
             * Format: uint64
             * @description Prompt tokens, the cache reads and writes included.
             */
            inputTokens: number;
            /**
             * Format: uint64
             * @description Model calls counted.
             */
            modelCalls: number;
            /**
             * Format: uint64
             * @description Tokens generated, the reasoning tokens included.
             */
            outputTokens: number;
            /**
             * Format: uint64
             * @description Tokens the models spent reasoning.
             */
            reasoningTokens: number;
        };
        /**
         * @description The name of an environment variable (`ANTHROPIC_API_KEY`): a letter or `_`,
         *     then letters, digits and `_`, at most 128 characters. Only its schema is used.
         */
        VariableName: string;
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    acp_remote_stream: {
        parameters: {
            query?: {
                /** @description The daemon's token, for a WebSocket (a browser cannot set headers on one); taken only with the upgrade */
                access_token?: string;
            };
            header: {
                /** @description The connection (a WebSocket upgrade, which opens one, sends none) */
                "Acp-Connection-Id": string;
                /** @description The session whose messages to stream */
                "Acp-Session-Id"?: string | null;
            };
            path: {
                /** @description The agent the connection's sessions run */
                agent: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A WebSocket connection: one JSON-RPC message per text frame */
            101: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description SSE stream of JSON-RPC messages */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": unknown;
                };
            };
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such connection, or no such agent */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    acp_remote_post: {
        parameters: {
            query?: {
                /** @description The model of its new sessions */
                model?: string;
                /** @description The mode of its new sessions */
                agentMode?: string;
                /** @description The permission mode of its new sessions */
                permissionMode?: string;
                /** @description The model variant of its new sessions */
                variant?: string;
            };
            header?: {
                /** @description The connection (absent on `initialize`) */
                "Acp-Connection-Id"?: string | null;
            };
            path: {
                /** @description The agent the connection's sessions run */
                agent: string;
            };
            cookie?: never;
        };
        /** @description A JSON-RPC 2.0 message */
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The answer to `initialize`, with `Acp-Connection-Id`; without a connection, the JSON-RPC error of any other message */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description Taken; the answer comes in a stream */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The body is not a JSON object */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such connection, or no such agent */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    acp_remote_close: {
        parameters: {
            query?: never;
            header: {
                /** @description The connection */
                "Acp-Connection-Id": string;
            };
            path: {
                /** @description The agent the connection's sessions run */
                agent: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Closed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    get_metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenMetrics text (Prometheus) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/openmetrics-text": string;
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    acp_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcpServerList"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    acp_stream: {
        parameters: {
            query?: never;
            header?: {
                /** @description Resume after this message */
                "Last-Event-ID"?: number;
            };
            path: {
                /** @description The client's connection id */
                server_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description SSE stream of JSON-RPC messages */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": unknown;
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    acp_post: {
        parameters: {
            query?: {
                /** @description The agent (on the first POST) */
                agent?: string;
                /** @description The model of its new sessions */
                model?: string;
                /** @description The mode of its new sessions */
                agentMode?: string;
                /** @description The permission mode of its new sessions */
                permissionMode?: string;
                /** @description The model variant of its new sessions */
                variant?: string;
            };
            header?: never;
            path: {
                /** @description The client's connection id */
                server_id: string;
            };
            cookie?: never;
        };
        /** @description A JSON-RPC 2.0 message */
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The JSON-RPC response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description Taken (a notification or a response) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The body is not a JSON object */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The server is not open and no `agent` names one to open, or the agent is unknown */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The server id runs another agent */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    acp_close: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The client's connection id */
                server_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Closed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    reload_adapters: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdaptersReloadResponse"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The daemon runs without an adapters folder */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    list_agents: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentListResponse"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    install_agent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Agent id */
                agent: string;
            };
            cookie?: never;
        };
        /** @description Optional; an empty body is accepted */
        requestBody?: {
            content: {
                "application/json": null | components["schemas"]["AgentInstallRequest"];
            };
        };
        responses: {
            /** @description With `Accept: text/event-stream`: `progress` events, then a `result` or `error` event */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": unknown;
                };
            };
            /** @description Installed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No agent has that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    agent_models: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Agent id */
                agent: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentModelsResponse"];
                };
            };
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No agent has that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    agent_modes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Agent id */
                agent: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentModesResponse"];
                };
            };
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No agent has that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_clipboard: {
        parameters: {
            query?: {
                /** @description `clipboard` when absent. */
                selection?: components["schemas"]["DesktopSelection"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopClipboardResponse"];
                };
            };
            /** @description `selection` is not `clipboard` or `primary` (`invalid_request`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    set_desktop_clipboard: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopClipboardWriteRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopActionResponse"];
                };
            };
            /** @description `selection` is not `clipboard` or `primary` (`invalid_request`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_display_info: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopDisplayInfoResponse"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_keyboard_down: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopKeyRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopActionResponse"];
                };
            };
            /** @description A key name that names no key (`invalid_request`, naming `key`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_keyboard_press: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopKeyboardPressRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopActionResponse"];
                };
            };
            /** @description A key name that names no key (`invalid_request`, naming `key`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_keyboard_type: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopKeyboardTypeRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopActionResponse"];
                };
            };
            /** @description More than 10,000 characters, or `delayMs` over 1000 (`invalid_request`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_keyboard_up: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopKeyRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopActionResponse"];
                };
            };
            /** @description A key name that names no key (`invalid_request`, naming `key`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_launch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopLaunchRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopLaunchResponse"];
                };
            };
            /** @description The program cannot start (`spawn_failed`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_mouse_click: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopMouseClickRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopMousePositionResponse"];
                };
            };
            /** @description A point off the screen, or a bad button or count (`invalid_request`, naming the field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_mouse_down: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopMouseButtonRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopMousePositionResponse"];
                };
            };
            /** @description A point off the screen, or a bad button or count (`invalid_request`, naming the field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_mouse_drag: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopMouseDragRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopMousePositionResponse"];
                };
            };
            /** @description A point off the screen, or a bad button or count (`invalid_request`, naming the field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_mouse_move: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopMouseMoveRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopMousePositionResponse"];
                };
            };
            /** @description A point off the screen, or a bad button or count (`invalid_request`, naming the field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_mouse_position: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopMousePositionResponse"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_mouse_scroll: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopMouseScrollRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopMousePositionResponse"];
                };
            };
            /** @description A point off the screen, or a bad button or count (`invalid_request`, naming the field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_mouse_up: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopMouseButtonRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopMousePositionResponse"];
                };
            };
            /** @description A point off the screen, or a bad button or count (`invalid_request`, naming the field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_open: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopOpenRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopOpenResponse"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description `xdg-open` is not installed (`desktop_unavailable`) */
            501: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    start_desktop_recording: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Optional; 15 frames per second when absent */
        requestBody?: {
            content: {
                "application/json": null | components["schemas"]["DesktopRecordingStartRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopRecordingInfo"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A recording runs already (`desktop_conflict`), or the desktop is not running (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description ffmpeg is not installed (`desktop_unavailable`) */
            501: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    stop_desktop_recording: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopRecordingInfo"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No recording runs (`desktop_conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_recordings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopRecordingListResponse"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_recording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The recording's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopRecordingInfo"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No recording has that id (`recording_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    delete_desktop_recording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The recording's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No recording has that id (`recording_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description It is still recording (`desktop_conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    download_desktop_recording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The recording's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The MP4 file */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": number[];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No recording has that id (`recording_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description It is still recording (`desktop_conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_screenshot: {
        parameters: {
            query?: {
                /** @description `png` when absent. */
                format?: components["schemas"]["DesktopScreenshotFormat"];
                /** @description JPEG quality, 1 to 100; 85 when absent. */
                quality?: number;
                /** @description Scale factor, above 0 and at most 1; 1 when absent. */
                scale?: number;
                /** @description Draw the mouse cursor; `false` when absent. */
                showCursor?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The image */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": number[];
                    "image/png": number[];
                    "image/webp": number[];
                };
            };
            /** @description `quality` or `scale` out of range (`invalid_request`, naming the field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_region_screenshot: {
        parameters: {
            query: {
                /** @description Left edge of the region. */
                x: number;
                /** @description Top edge of the region. */
                y: number;
                /** @description Width of the region. */
                width: number;
                /** @description Height of the region. */
                height: number;
                /** @description `png` when absent. */
                format?: components["schemas"]["DesktopScreenshotFormat"];
                /** @description JPEG quality, 1 to 100; 85 when absent. */
                quality?: number;
                /** @description Scale factor, above 0 and at most 1; 1 when absent. */
                scale?: number;
                /** @description Draw the mouse cursor; `false` when absent. */
                showCursor?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The image */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": number[];
                    "image/png": number[];
                    "image/webp": number[];
                };
            };
            /** @description The region is not on the screen, or `quality` or `scale` is out of range (`invalid_request`, naming the field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    start_desktop: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Optional; an empty body starts a 1440x900 screen at 96 DPI */
        requestBody?: {
            content: {
                "application/json": null | components["schemas"]["DesktopStartRequest"];
            };
        };
        responses: {
            /** @description The desktop's status once it runs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopStatusResponse"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A start or stop is under way (`desktop_conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Xvfb or openbox is not installed (`desktop_unavailable`, naming the packages and the command that installs them) */
            501: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The X server or the window manager did not come up (`desktop_failed`, with the end of its log) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_status: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopStatusResponse"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    stop_desktop: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The desktop's status once stopped */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopStatusResponse"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A start or stop is under way (`desktop_conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_stream_ws: {
        parameters: {
            query?: {
                /**
                 * @description The daemon's token, for browsers (a WebSocket cannot send headers); only the
                 *     WebSocket routes accept it.
                 */
                access_token?: string;
                /**
                 * @description Frames per second at most, 1 to 30; 10 when absent. A frame is sent only when
                 *     the screen changed.
                 */
                fps?: number;
                /** @description JPEG quality of the frames, 1 to 100; 70 when absent. */
                quality?: number;
                /**
                 * @description Scale of the frames, above 0 and at most 1; 1 when absent. Input coordinates
                 *     stay the screen's.
                 */
                scale?: number;
            };
            header: {
                /** @description Holds `upgrade` (the WebSocket handshake) */
                Connection: string;
                /** @description `websocket` */
                Upgrade: string;
                /** @description `13` */
                "Sec-WebSocket-Version": string;
                /** @description The handshake's key (RFC 6455) */
                "Sec-WebSocket-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Switched to the WebSocket: a `ready` text frame (`DesktopStreamServerFrame`), then binary JPEG frames of the screen; JSON `DesktopStreamClientFrame`s in */
            101: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not a WebSocket handshake (checked first), or `fps`, `quality` or `scale` out of range */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A page of another origin than the daemon's, not allowed by `--cors-allow-origin` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not running (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_windows: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopWindowListResponse"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    desktop_focused_window: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopWindowInfo"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No window has the focus (`window_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    close_desktop_window: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The window's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopActionResponse"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No window has that id (`window_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    focus_desktop_window: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The window's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The window after the change */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopWindowInfo"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No window has that id (`window_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    move_desktop_window: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The window's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopWindowMoveRequest"];
            };
        };
        responses: {
            /** @description The window after the change */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopWindowInfo"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No window has that id (`window_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    resize_desktop_window: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The window's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DesktopWindowResizeRequest"];
            };
        };
        responses: {
            /** @description The window after the change */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DesktopWindowInfo"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No window has that id (`window_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The desktop is not started, or its X server died (`desktop_not_running`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    entries: {
        parameters: {
            query?: {
                /**
                 * @description The directory to list: absolute, or relative to the session's directory (or the
                 *     home directory); that directory itself when absent.
                 */
                path?: string;
                /** @description Session whose directory relative paths start from; `session_id` is accepted too. */
                sessionId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The directory's entries, sorted by name */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FsEntry"][];
                };
            };
            /** @description A bad path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Not permitted */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such directory or session */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Not a directory (`path_conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    delete_entry: {
        parameters: {
            query: {
                /** @description Absolute path, or relative to the session's directory (or the home directory). */
                path: string;
                /** @description Session whose directory relative paths start from; `session_id` is accepted too. */
                sessionId?: string;
                /** @description Delete a non-empty directory with everything in it (409 without it). */
                recursive?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FsActionResponse"];
                };
            };
            /** @description A bad path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Not permitted */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such path or session */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A directory that is not empty, without `recursive`, or a file on the way */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    read_file: {
        parameters: {
            query: {
                /** @description Absolute path, or relative to the session's directory (or the home directory). */
                path: string;
                /** @description Session whose directory relative paths start from; `session_id` is accepted too. */
                sessionId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file's bytes (`content-length` only when the size can be trusted: `/proc` and sysfs files are read to their end) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description A bad path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Not permitted */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such file or session */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A directory, a FIFO, a socket or a device (`path_conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    write_file: {
        parameters: {
            query: {
                /** @description Absolute path, or relative to the session's directory (or the home directory). */
                path: string;
                /** @description Session whose directory relative paths start from; `session_id` is accepted too. */
                sessionId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The file's new bytes */
        requestBody: {
            content: {
                "application/octet-stream": string;
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FsWriteResponse"];
                };
            };
            /** @description A bad path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Not permitted */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such session */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A directory, a FIFO, a socket or a device, or a file on the way (`path_conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Larger than `--fs-max-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    mkdir: {
        parameters: {
            query: {
                /** @description Absolute path, or relative to the session's directory (or the home directory). */
                path: string;
                /** @description Session whose directory relative paths start from; `session_id` is accepted too. */
                sessionId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FsActionResponse"];
                };
            };
            /** @description A bad path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Not permitted */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such session */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A file is in the way */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    move_entry: {
        parameters: {
            query?: {
                /** @description Session whose directory relative paths start from; `session_id` is accepted too. */
                sessionId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FsMoveRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FsMoveResponse"];
                };
            };
            /** @description A bad path, or a move into itself */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Not permitted */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such source or session */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The destination exists (without `overwrite`), or is a directory that is not empty, or a file is on the way */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    stat: {
        parameters: {
            query: {
                /** @description Absolute path, or relative to the session's directory (or the home directory). */
                path: string;
                /** @description Session whose directory relative paths start from; `session_id` is accepted too. */
                sessionId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FsStat"];
                };
            };
            /** @description A bad path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Not permitted */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such path or session */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    upload_batch: {
        parameters: {
            query?: {
                /**
                 * @description The directory to unpack into (created when missing): absolute, or relative to the
                 *     session's directory (or the home directory); that directory itself when absent.
                 */
                path?: string;
                /** @description Session whose directory relative paths start from; `session_id` is accepted too. */
                sessionId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A tar archive, optionally gzip-compressed */
        requestBody: {
            content: {
                "application/x-tar": string;
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FsUploadBatchResponse"];
                };
            };
            /** @description Not a tar archive, an entry outside the target, or a bad path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Not permitted */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such session */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The target is not a directory, or an entry would replace a directory with a file (or the reverse), or go through a symbolic link out of the target */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body or its unpacked size is over `--fs-max-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is not sent as an archive (`application/x-tar`, `application/gzip` or `application/octet-stream`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthResponse"];
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI 3.1 document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    list_processes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessListResponse"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    create_process: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProcessCreateRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessInfo"];
                };
            };
            /** @description A bad body, or the program cannot start (`spawn_failed`, with the system's reason) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description `cwd` is outside the daemon's `--fs-root` (`permission_denied`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description `cwd` does not exist (`path_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description `--max-processes` processes are held already (`process_limit_reached`), or `cwd` is not a directory (`path_conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    process_config: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessConfig"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    run_process: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProcessRunRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessRunResponse"];
                };
            };
            /** @description A bad body, or the program cannot start (`spawn_failed`, with the system's reason) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description `cwd` is outside the daemon's `--fs-root` (`permission_denied`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description `cwd` does not exist (`path_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description `--max-processes` processes are held already (`process_limit_reached`), or `cwd` is not a directory (`path_conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    get_process: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Process id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessInfo"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No process has that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    delete_process: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Process id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No process has that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description It is running: stop or kill it first */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    process_input: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Process id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProcessInputRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessInputResponse"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No process has that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Its stdin is not open (started without `interactive` or `tty`), or it exited */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description More than `--process-input-bytes` decoded bytes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    kill_process: {
        parameters: {
            query?: {
                /**
                 * @description Wait up to this long for the process to exit before answering; answer at
                 *     once when absent (a stop still sends SIGKILL after the grace).
                 */
                waitMs?: number;
            };
            header?: never;
            path: {
                /** @description Process id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessInfo"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No process has that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    process_logs: {
        parameters: {
            query?: {
                /** @description Which output; `pty` for a terminal, else `combined`, when absent. */
                stream?: components["schemas"]["ProcessLogsStream"];
                /** @description Only the last N entries still held (without `follow`). */
                tail?: number;
                /**
                 * @description Answer with an SSE stream: the entries held, then new ones as they come,
                 *     ending after the process exited.
                 */
                follow?: boolean;
                /** @description Only entries whose `sequence` is greater (`Last-Event-ID` too). */
                since?: number;
                /** @description Only output from this byte offset on (an entry that straddles it is cut). */
                offset?: number;
            };
            header?: {
                /** @description With `follow`: resume after this sequence */
                "Last-Event-ID"?: number;
            };
            path: {
                /** @description Process id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The entries held; with `follow=true` a `text/event-stream` instead */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessLogsResponse"];
                    "text/event-stream": unknown;
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No process has that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    stop_process: {
        parameters: {
            query?: {
                /**
                 * @description Wait up to this long for the process to exit before answering; answer at
                 *     once when absent (a stop still sends SIGKILL after the grace).
                 */
                waitMs?: number;
            };
            header?: never;
            path: {
                /** @description Process id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessInfo"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No process has that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    resize_terminal: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Process id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProcessTerminalResizeRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessTerminalResizeRequest"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No process has that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description It has no terminal */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    terminal_ws: {
        parameters: {
            query?: {
                /**
                 * @description The daemon's token, for browsers (a WebSocket cannot send headers); only
                 *     this route accepts it.
                 */
                access_token?: string;
            };
            header: {
                /** @description Holds `upgrade` (the WebSocket handshake) */
                Connection: string;
                /** @description `websocket` */
                Upgrade: string;
                /** @description `13` */
                "Sec-WebSocket-Version": string;
                /** @description The handshake's key (RFC 6455) */
                "Sec-WebSocket-Key": string;
            };
            path: {
                /** @description Process id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Switched to the WebSocket: binary frames of terminal output out (the scrollback first, after a `ready` text frame), JSON `TerminalClientFrame`s in, `TerminalServerFrame`s as text */
            101: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not a WebSocket handshake (checked first) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A page of another origin than the daemon's, not allowed by `--cors-allow-origin` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No process has that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description It has no terminal */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    list_registry: {
        parameters: {
            query?: {
                /** @description Fetch the index anew even when the cached copy is under an hour old. */
                refresh?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegistryListResponse"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The index cannot be fetched and no copy is cached */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    add_from_registry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The registry's agent id */
                agent: string;
            };
            cookie?: never;
        };
        /** @description Optional; an empty body is accepted */
        requestBody?: {
            content: {
                "application/json": null | components["schemas"]["RegistryAddRequest"];
            };
        };
        responses: {
            /** @description With `Accept: text/event-stream`: `progress` events, then a `result` or `error` event */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": unknown;
                };
            };
            /** @description Added and installed */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentInfo"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The registry lists no such agent */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The id is one of this daemon's own agents */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The install failed */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The index cannot be fetched and no copy is cached */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    list_sessions: {
        parameters: {
            query?: {
                /** @description `daemon` (the default) or `fleet`. */
                scope?: components["schemas"]["SessionScope"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionListResponse"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The shared session database cannot be read (`scope=fleet`) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    get_session: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionInfo"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    create_session: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Client-chosen session id: 1-128 of [A-Za-z0-9._-] */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSessionRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateSessionResponse"];
                };
            };
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description `directory` is outside the daemon's `--fs-root` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The agent is not installed (`agent_not_installed`), or `directory` does not exist (`path_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The session exists (`session_already_exists`), `directory` is not a directory (`path_conflict`), or a `budget` needs the model gateway the daemon runs without (`not_configured`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The session database cannot be written */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The data dir's disk is full */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    delete_session: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    set_budget: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BudgetLimits"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BudgetLimits"];
                };
            };
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The daemon runs without the model gateway, or does not meter the session's agent (`not_configured`); the session ended */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    cancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    get_events: {
        parameters: {
            query?: {
                /** @description Last sequence already seen (exclusive). */
                offset?: number;
                /** @description Most events to return. */
                limit?: number;
                /** @description Include native payloads (`raw`); `include_raw` is accepted too. */
                includeRaw?: boolean;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventsResponse"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    get_events_sse: {
        parameters: {
            query?: {
                /** @description Last sequence already seen (exclusive); the `Last-Event-ID` header takes precedence. */
                offset?: number;
                /** @description Include native payloads (`raw`); `include_raw` is accepted too. */
                includeRaw?: boolean;
            };
            header?: {
                /** @description Resume after this sequence */
                "Last-Event-ID"?: number;
            };
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description SSE stream of UniversalEvent */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": unknown;
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    export_session: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session archive. `x-agentplex-native-lost` says why the agent's own session is not in it, when it is not */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/gzip": number[];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such session */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The session's events are not all stored yet */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    import_session: {
        parameters: {
            query?: {
                /**
                 * @description The session's working directory in this sandbox (absolute, or relative to
                 *     the daemon's); by default the one it had, when it exists here.
                 */
                directory?: string;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        /** @description A session archive */
        requestBody: {
            content: {
                "application/gzip": number[];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportSessionResponse"];
                };
            };
            /** @description Not a session archive, a damaged, truncated or too new one, or a working directory that is not here */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No session has that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A session with this id exists, or an agent's file of the session is here with other contents */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The archive is over `--fs-max-bytes` unpacked */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is not sent as an archive */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    post_message: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MessageRequest"];
            };
        };
        responses: {
            /** @description Accepted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The session database cannot be written */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The data dir's disk is full */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    post_message_stream: {
        parameters: {
            query?: {
                /** @description Include native payloads (`raw`); `include_raw` is accepted too. */
                includeRaw?: boolean;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MessageRequest"];
            };
        };
        responses: {
            /** @description SSE stream of UniversalEvent */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": unknown;
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The session has ended */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    session_modes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionChoices"];
                };
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    set_modes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SessionModes"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionModes"];
                };
            };
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The session ended */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    reply_permission: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Permission id */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PermissionReplyRequest"];
            };
        };
        responses: {
            /** @description Answered */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The session has ended */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    set_policy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApprovalPolicy"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalPolicy"];
                };
            };
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The session ended */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    reject_question: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Question id */
                question_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Rejected */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The session has ended */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    reply_question: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Question id */
                question_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QuestionReplyRequest"];
            };
        };
        responses: {
            /** @description Answered */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The session has ended */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    terminate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Terminated */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A bad parameter or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing or wrong token (when the daemon has one) */
            401: {
                headers: {
                    /** @description `Bearer realm="sandbox-agent"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The session has ended */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description An internal failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
}
