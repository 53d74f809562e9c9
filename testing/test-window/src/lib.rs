//! A test program for the desktop's tests: one window of a known size and colour that
//! records the clicks and keys it receives, on its own X connection and thread.

use std::sync::{Arc, Mutex};
use std::thread;

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ConnectionExt as _, CreateWindowAux, EventMask, PropMode, WindowClass,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

/// What the window received.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Received {
    /// Buttons pressed, with where in the window.
    pub clicks: Vec<(u8, i16, i16)>,
    /// Text typed (Return as a newline), from the keys' keysyms.
    pub text: String,
    /// Keys pressed with Control held, as their characters.
    pub with_control: Vec<char>,
}

/// The window, recording in the background.
pub struct TestWindow {
    /// Its X window id.
    pub id: u32,
    received: Arc<Mutex<Received>>,
}

impl TestWindow {
    /// Opens a `width` x `height` window filled with `rgb` on `display`.
    pub fn open(display: &str, title: &str, width: u16, height: u16, rgb: u32) -> TestWindow {
        let (conn, screen_num) = x11rb::connect(Some(display)).expect("the test window connects");
        let screen = &conn.setup().roots[screen_num];
        let id = conn.generate_id().unwrap();
        let events = EventMask::KEY_PRESS | EventMask::BUTTON_PRESS | EventMask::EXPOSURE;
        conn.create_window(
            x11rb::COPY_DEPTH_FROM_PARENT,
            id,
            screen.root,
            0,
            0,
            width,
            height,
            0,
            WindowClass::INPUT_OUTPUT,
            0,
            &CreateWindowAux::new()
                .background_pixel(rgb)
                .event_mask(events),
        )
        .unwrap();
        conn.change_property8(
            PropMode::REPLACE,
            id,
            AtomEnum::WM_NAME,
            AtomEnum::STRING,
            title.as_bytes(),
        )
        .unwrap();
        let pid_atom = conn
            .intern_atom(false, b"_NET_WM_PID")
            .unwrap()
            .reply()
            .unwrap()
            .atom;
        conn.change_property32(
            PropMode::REPLACE,
            id,
            pid_atom,
            AtomEnum::CARDINAL,
            &[std::process::id()],
        )
        .unwrap();
        conn.map_window(id).unwrap();
        conn.sync().unwrap();
        let received = Arc::new(Mutex::new(Received::default()));
        let recording = received.clone();
        thread::spawn(move || record(conn, recording));
        TestWindow { id, received }
    }

    /// What it received so far.
    pub fn received(&self) -> Received {
        self.received.lock().unwrap().clone()
    }
}

fn record(conn: RustConnection, received: Arc<Mutex<Received>>) {
    let mut mapping = Mapping::load(&conn);
    while let Ok(event) = conn.wait_for_event() {
        match event {
            Event::MappingNotify(_) => mapping = Mapping::load(&conn),
            Event::ButtonPress(press) => {
                received
                    .lock()
                    .unwrap()
                    .clicks
                    .push((press.detail, press.event_x, press.event_y));
            }
            Event::KeyPress(press) => {
                let state = u16::from(press.state);
                let keysym = mapping.keysym(press.detail, state & 1 != 0);
                let c = match keysym {
                    0xff0d => Some('\n'),
                    _ => x11_keysymdef::lookup_by_keysym(keysym)
                        .map(|record| record.unicode)
                        .filter(|&c| c != '\0')
                        .or_else(|| {
                            char::from_u32(keysym & 0x00ff_ffff).filter(|_| keysym >> 24 == 1)
                        }),
                };
                let mut received = received.lock().unwrap();
                match c {
                    Some(c) if state & 4 != 0 => received.with_control.push(c),
                    Some(c) => received.text.push(c),
                    None => {}
                }
            }
            _ => {}
        }
    }
}

/// The keyboard mapping as the window knows it.
struct Mapping {
    first: u8,
    per: usize,
    keysyms: Vec<u32>,
}

impl Mapping {
    fn load(conn: &RustConnection) -> Mapping {
        let setup = conn.setup();
        let (first, last) = (setup.min_keycode, setup.max_keycode);
        let reply = conn
            .get_keyboard_mapping(first, last - first + 1)
            .unwrap()
            .reply()
            .unwrap();
        Mapping {
            first,
            per: usize::from(reply.keysyms_per_keycode),
            keysyms: reply.keysyms,
        }
    }

    fn keysym(&self, keycode: u8, shifted: bool) -> u32 {
        let row = usize::from(keycode - self.first) * self.per;
        let syms = &self.keysyms[row..row + self.per];
        if shifted && syms.get(1).is_some_and(|&sym| sym != 0) {
            syms[1]
        } else {
            syms[0]
        }
    }
}
