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
    /// Opens a `width` x `height` window filled with `rgb` on the display of `env`
    /// (`DISPLAY`, and `XAUTHORITY` for its cookie: what a program on the desktop is
    /// started with).
    pub fn open(
        env: &[(String, String)],
        title: &str,
        width: u16,
        height: u16,
        rgb: u32,
    ) -> TestWindow {
        let (conn, screen_num) = connect(env);
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

/// The variables of a program on a desktop whose display is `display` and whose
/// folder (`runtimeLogPath` of the desktop's status) is `dir`: `DISPLAY`, and
/// `XAUTHORITY` when the folder holds the display's cookie (`Xauthority`).
pub fn desktop_env(display: &str, dir: Option<&str>) -> Vec<(String, String)> {
    let mut env = vec![("DISPLAY".to_owned(), display.to_owned())];
    let cookie = dir.map(|dir| std::path::Path::new(dir).join("Xauthority"));
    if let Some(cookie) = cookie.filter(|cookie| cookie.exists()) {
        env.push(("XAUTHORITY".to_owned(), cookie.display().to_string()));
    }
    env
}

/// A connection to the display of `env`, with the cookie of its `XAUTHORITY` file
/// when it names one.
fn connect(env: &[(String, String)]) -> (RustConnection, usize) {
    let var = |name: &str| {
        env.iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    let display = var("DISPLAY").expect("a DISPLAY to open the test window on");
    let Some(authority) = var("XAUTHORITY") else {
        return x11rb::connect(Some(display)).expect("the test window connects");
    };
    let cookie = cookie(&std::fs::read(authority).expect("the XAUTHORITY file"));
    let parsed = x11rb::reexports::x11rb_protocol::parse_display::parse_display(Some(display))
        .expect("a display name");
    let screen = usize::from(parsed.screen);
    let address = parsed.connect_instruction().next().expect("an address");
    let (stream, _) = x11rb::rust_connection::DefaultStream::connect(&address)
        .expect("the test window reaches the display");
    let conn = RustConnection::connect_to_stream_with_auth_info(
        stream,
        screen,
        b"MIT-MAGIC-COOKIE-1".to_vec(),
        cookie,
    )
    .expect("the test window connects with the cookie");
    (conn, screen)
}

/// The first `MIT-MAGIC-COOKIE-1` of an Xauthority file (entries of a family and
/// four length-prefixed fields: address, display number, protocol, data).
fn cookie(file: &[u8]) -> Vec<u8> {
    let mut rest = file;
    while rest.len() >= 2 {
        rest = &rest[2..];
        let mut fields = Vec::new();
        for _ in 0..4 {
            let length = usize::from(u16::from_be_bytes([rest[0], rest[1]]));
            fields.push(&rest[2..2 + length]);
            rest = &rest[2 + length..];
        }
        if fields[2] == b"MIT-MAGIC-COOKIE-1" {
            return fields[3].to_vec();
        }
    }
    panic!("no MIT-MAGIC-COOKIE-1 in the XAUTHORITY file")
}
