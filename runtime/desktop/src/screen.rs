//! One connection to the desktop's X server, shared by every request: what the
//! screen is, and the atoms the other modules ask it about.
//!
//! Input ([`crate::input`]), screenshots ([`crate::capture`]) and windows
//! ([`crate::windows`]) are methods of [`Screen`] in their own modules. Every call
//! blocks on the X server: the desktop runs them on tokio's blocking threads.

use std::sync::Mutex;

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt as _, GetPropertyReply, ImageOrder, Window};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

use crate::input::Keyboard;
use crate::xauth::Authority;
use crate::DesktopError;

x11rb::atom_manager! {
    /// The atoms of the window manager conventions (EWMH, ICCCM) the desktop uses.
    pub Atoms: AtomsCookie {
        _NET_CLIENT_LIST,
        _NET_ACTIVE_WINDOW,
        _NET_WM_NAME,
        _NET_WM_PID,
        _NET_CLOSE_WINDOW,
        _NET_MOVERESIZE_WINDOW,
        UTF8_STRING,
        WM_NAME,
    }
}

/// How the X server lays out one pixel of the screen in an image.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PixelLayout {
    /// Bytes per pixel: 4 (or 3 at depth 24 without padding).
    pub bytes: usize,
    /// Whether the lowest byte comes first.
    pub lsb_first: bool,
    /// Masks of the colours in a pixel value.
    pub red: u32,
    pub green: u32,
    pub blue: u32,
}

/// The desktop's X server, connected.
pub struct Screen {
    pub(crate) conn: RustConnection,
    pub(crate) root: Window,
    width: u16,
    height: u16,
    pub(crate) atoms: Atoms,
    pub(crate) pixels: PixelLayout,
    /// The keyboard's mapping as typing left it; one typist at a time.
    pub(crate) keyboard: Mutex<Keyboard>,
}

impl Screen {
    /// Connects to `display` (`:99`) and checks it has what the desktop uses (XTEST,
    /// a true-colour screen).
    pub fn connect(display: &str, authority: &Authority) -> Result<Screen, DesktopError> {
        let (conn, screen_num) = authority.connect(display)?;
        let setup = conn.setup();
        let screen = &setup.roots[screen_num];
        let (root, width, height) = (screen.root, screen.width_in_pixels, screen.height_in_pixels);
        let depth = screen.root_depth;
        let bits = setup
            .pixmap_formats
            .iter()
            .find(|format| format.depth == depth)
            .map(|format| format.bits_per_pixel)
            .unwrap_or(0);
        let visual = screen
            .allowed_depths
            .iter()
            .flat_map(|allowed| &allowed.visuals)
            .find(|visual| visual.visual_id == screen.root_visual)
            .ok_or_else(|| DesktopError::X11("the screen has no root visual".into()))?;
        if !matches!(bits, 24 | 32) || visual.red_mask == 0 {
            return Err(DesktopError::X11(format!(
                "the screen is {bits} bits per pixel at depth {depth}: the desktop needs a true-colour screen (Xvfb -screen 0 WxHx24)"
            )));
        }
        let pixels = PixelLayout {
            bytes: usize::from(bits / 8),
            lsb_first: setup.image_byte_order == ImageOrder::LSB_FIRST,
            red: visual.red_mask,
            green: visual.green_mask,
            blue: visual.blue_mask,
        };
        conn.xtest_get_version(2, 2)
            .map_err(x11)?
            .reply()
            .map_err(|_| DesktopError::X11(format!("{display} has no XTEST extension")))?;
        let atoms = Atoms::new(&conn).map_err(x11)?.reply().map_err(x11)?;
        let keyboard = Keyboard::load(&conn)?;
        Ok(Screen {
            conn,
            root,
            width,
            height,
            atoms,
            pixels,
            keyboard: Mutex::new(keyboard),
        })
    }

    /// Width and height of the screen in pixels.
    pub fn size(&self) -> (u32, u32) {
        (u32::from(self.width), u32::from(self.height))
    }

    /// Whether the X server still answers.
    pub fn answers(&self) -> bool {
        self.conn.sync().is_ok()
    }

    /// Waits until the X server has carried out every request sent so far.
    pub(crate) fn sync(&self) -> Result<(), DesktopError> {
        self.conn.sync().map_err(x11)
    }

    /// A property of a window as 32-bit values (empty when it has none).
    pub(crate) fn property32(
        &self,
        window: Window,
        property: u32,
    ) -> Result<Vec<u32>, DesktopError> {
        Ok(self
            .property(window, property, 4096)?
            .value32()
            .map(|values| values.collect())
            .unwrap_or_default())
    }

    /// A text property of a window (empty when it has none).
    pub(crate) fn text_property(
        &self,
        window: Window,
        property: u32,
    ) -> Result<String, DesktopError> {
        let value = self.property(window, property, 16384)?.value;
        Ok(String::from_utf8_lossy(&value).into_owned())
    }

    /// A property of a window, of any type, up to `words` 32-bit words of it.
    fn property(
        &self,
        window: Window,
        property: u32,
        words: u32,
    ) -> Result<GetPropertyReply, DesktopError> {
        self.conn
            .get_property(false, window, property, x11rb::NONE, 0, words)
            .map_err(x11)?
            .reply()
            .map_err(x11)
    }
}

/// An X protocol failure as the desktop's error.
pub(crate) fn x11(error: impl std::fmt::Display) -> DesktopError {
    DesktopError::X11(error.to_string())
}
