//! The desktop's top-level windows as the window manager lists them (the EWMH
//! conventions openbox follows): list, focus, move, resize and close.
//!
//! Requests go to the window manager as client messages, as a pager would send them;
//! each call waits (up to three seconds) until the window is where it was asked to be, so
//! the answer describes the window after the change.

use std::thread;
use std::time::{Duration, Instant};

use agentplex_api::DesktopWindowInfo;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    ClientMessageEvent, ConnectionExt as _, CreateWindowAux, EventMask, MapState, Window,
    WindowClass,
};

use crate::screen::{x11, Screen};
use crate::DesktopError;

/// How long a change may take to show before the answer describes it as it is.
const SETTLE: Duration = Duration::from_secs(3);

/// `_NET_MOVERESIZE_WINDOW` flags: static gravity, x/y/width/height given, from a pager.
const STATIC_GRAVITY: u32 = 10;
const MOVE: u32 = (1 << 8) | (1 << 9);
const RESIZE: u32 = (1 << 10) | (1 << 11);
const FROM_PAGER: u32 = 2 << 12;

impl Screen {
    /// The managed windows that are visible, bottom to top.
    pub fn windows(&self) -> Result<Vec<DesktopWindowInfo>, DesktopError> {
        let active = self.active_window()?;
        let mut windows = Vec::new();
        for window in self.property32(self.root, self.atoms._NET_CLIENT_LIST)? {
            // A window may go away between the list and the question.
            if let Ok(Some(info)) = self.describe(window, active) {
                windows.push(info);
            }
        }
        Ok(windows)
    }

    /// The window that has the focus, if any (none when the window the manager last
    /// named is gone).
    pub fn focused(&self) -> Result<Option<DesktopWindowInfo>, DesktopError> {
        match self.active_window()? {
            Some(window) => Ok(self.describe(window, Some(window)).ok().flatten()),
            None => Ok(None),
        }
    }

    /// Gives a window the focus and raises it.
    pub fn focus(&self, id: &str) -> Result<DesktopWindowInfo, DesktopError> {
        let window = self.managed(id)?;
        self.send_to_manager(
            window,
            self.atoms._NET_ACTIVE_WINDOW,
            [2, x11rb::CURRENT_TIME, 0, 0, 0],
        )?;
        self.settle(window, |info| info.is_active)
    }

    /// Moves a window's contents to `(x, y)`.
    pub fn move_window(&self, id: &str, x: i32, y: i32) -> Result<DesktopWindowInfo, DesktopError> {
        let window = self.managed(id)?;
        let flags = STATIC_GRAVITY | MOVE | FROM_PAGER;
        self.send_to_manager(
            window,
            self.atoms._NET_MOVERESIZE_WINDOW,
            [flags, x as u32, y as u32, 0, 0],
        )?;
        self.settle(window, |info| info.x == x && info.y == y)
    }

    /// Resizes a window's contents.
    pub fn resize_window(
        &self,
        id: &str,
        width: u32,
        height: u32,
    ) -> Result<DesktopWindowInfo, DesktopError> {
        let window = self.managed(id)?;
        let flags = STATIC_GRAVITY | RESIZE | FROM_PAGER;
        self.send_to_manager(
            window,
            self.atoms._NET_MOVERESIZE_WINDOW,
            [flags, 0, 0, width, height],
        )?;
        self.settle(window, |info| info.width == width && info.height == height)
    }

    /// Asks a window to close, as its close button would.
    pub fn close_window(&self, id: &str) -> Result<(), DesktopError> {
        let window = self.managed(id)?;
        self.send_to_manager(
            window,
            self.atoms._NET_CLOSE_WINDOW,
            [x11rb::CURRENT_TIME, 2, 0, 0, 0],
        )?;
        self.sync()
    }

    /// The first visible window of a process, waiting up to `timeout` for one.
    pub fn window_of(
        &self,
        pid: u32,
        timeout: Duration,
    ) -> Result<Option<DesktopWindowInfo>, DesktopError> {
        let deadline = Instant::now() + timeout;
        loop {
            let found = self
                .windows()?
                .into_iter()
                .find(|window| window.pid == Some(pid));
            if found.is_some() || Instant::now() >= deadline {
                return Ok(found);
            }
            thread::sleep(Duration::from_millis(25));
        }
    }

    /// Waits (up to 10 seconds) until a window manager manages windows on the display:
    /// a probe window is mapped (again every half second: one mapped while the manager
    /// was still starting may be missed) until the manager lists it.
    pub fn wait_for_window_manager(&self) -> Result<bool, DesktopError> {
        let deadline = Instant::now() + Duration::from_secs(10);
        let probe = self.conn.generate_id().map_err(x11)?;
        let aux = CreateWindowAux::new().override_redirect(0);
        self.conn
            .create_window(
                0,
                probe,
                self.root,
                0,
                0,
                1,
                1,
                0,
                WindowClass::INPUT_ONLY,
                0,
                &aux,
            )
            .map_err(x11)?;
        let mut managed = false;
        while !managed && Instant::now() < deadline {
            self.conn.unmap_window(probe).map_err(x11)?;
            self.conn.map_window(probe).map_err(x11)?;
            let retry = Instant::now() + Duration::from_millis(500);
            while !managed && Instant::now() < retry.min(deadline) {
                thread::sleep(Duration::from_millis(10));
                managed = self
                    .property32(self.root, self.atoms._NET_CLIENT_LIST)?
                    .contains(&probe);
            }
        }
        self.conn.destroy_window(probe).map_err(x11)?;
        self.sync()?;
        Ok(managed)
    }

    /// The managed window a client names, or why there is none.
    fn managed(&self, id: &str) -> Result<Window, DesktopError> {
        let not_found = || DesktopError::WindowNotFound(id.to_string());
        let window: Window = id.parse().map_err(|_| not_found())?;
        if self
            .property32(self.root, self.atoms._NET_CLIENT_LIST)?
            .contains(&window)
        {
            Ok(window)
        } else {
            Err(not_found())
        }
    }

    /// The managed window whose frame (the root's child) is `frame`.
    pub(crate) fn client_of_frame(&self, frame: Window) -> Result<Option<u32>, DesktopError> {
        for window in self.property32(self.root, self.atoms._NET_CLIENT_LIST)? {
            if window == frame || self.top_level(window).ok() == Some(frame) {
                return Ok(Some(window));
            }
        }
        Ok(None)
    }

    /// The root's child that holds `window`.
    fn top_level(&self, mut window: Window) -> Result<Window, DesktopError> {
        loop {
            let tree = self
                .conn
                .query_tree(window)
                .map_err(x11)?
                .reply()
                .map_err(x11)?;
            if tree.parent == tree.root || tree.parent == x11rb::NONE {
                return Ok(window);
            }
            window = tree.parent;
        }
    }

    fn active_window(&self) -> Result<Option<Window>, DesktopError> {
        let active = self.property32(self.root, self.atoms._NET_ACTIVE_WINDOW)?;
        Ok(active
            .first()
            .copied()
            .filter(|&window| window != x11rb::NONE))
    }

    /// A window as the API describes it, if it is visible.
    fn describe(
        &self,
        window: Window,
        active: Option<Window>,
    ) -> Result<Option<DesktopWindowInfo>, DesktopError> {
        let attributes = self
            .conn
            .get_window_attributes(window)
            .map_err(x11)?
            .reply()
            .map_err(x11)?;
        if attributes.map_state != MapState::VIEWABLE {
            return Ok(None);
        }
        let geometry = self
            .conn
            .get_geometry(window)
            .map_err(x11)?
            .reply()
            .map_err(x11)?;
        let origin = self
            .conn
            .translate_coordinates(window, self.root, 0, 0)
            .map_err(x11)?
            .reply()
            .map_err(x11)?;
        let mut title = self.text_property(window, self.atoms._NET_WM_NAME)?;
        if title.is_empty() {
            title = self.text_property(window, self.atoms.WM_NAME)?;
        }
        Ok(Some(DesktopWindowInfo {
            id: window.to_string(),
            title,
            x: i32::from(origin.dst_x),
            y: i32::from(origin.dst_y),
            width: u32::from(geometry.width),
            height: u32::from(geometry.height),
            is_active: active == Some(window),
            pid: self
                .property32(window, self.atoms._NET_WM_PID)?
                .first()
                .copied(),
        }))
    }

    fn send_to_manager(
        &self,
        window: Window,
        kind: u32,
        data: [u32; 5],
    ) -> Result<(), DesktopError> {
        let event = ClientMessageEvent::new(32, window, kind, data);
        let mask = EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY;
        self.conn
            .send_event(false, self.root, mask, event)
            .map_err(x11)?;
        self.conn.flush().map_err(x11)
    }

    /// The window once `done` holds of it, or as it is after [`SETTLE`].
    fn settle(
        &self,
        window: Window,
        done: impl Fn(&DesktopWindowInfo) -> bool,
    ) -> Result<DesktopWindowInfo, DesktopError> {
        let deadline = Instant::now() + SETTLE;
        loop {
            let active = self.active_window()?;
            let info = self
                .describe(window, active)?
                .ok_or_else(|| DesktopError::WindowNotFound(window.to_string()))?;
            if done(&info) || Instant::now() >= deadline {
                return Ok(info);
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}
