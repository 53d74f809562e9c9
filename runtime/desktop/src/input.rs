//! Mouse and keyboard input through the XTEST extension: to the programs on the
//! desktop it is a real device.
//!
//! A key is pressed by its keycode, with Shift when its keysym is on the key's shifted
//! level. A character no key has (`€` on a US layout, an emoji) is given a spare
//! keycode (one with no keysym) for as long as the desktop runs, so text in any script
//! can be typed; when the spares run out the oldest such mapping is reused.

use std::collections::VecDeque;
use std::thread;
use std::time::Duration;

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    ConnectionExt as _, BUTTON_PRESS_EVENT, BUTTON_RELEASE_EVENT, KEY_PRESS_EVENT,
    KEY_RELEASE_EVENT, MOTION_NOTIFY_EVENT,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;
use x11rb::CURRENT_TIME;

use crate::keys::{self, Chord, Modifier};
use crate::screen::{x11, Screen};
use crate::DesktopError;

/// The keyboard mapping as the desktop knows it.
pub(crate) struct Keyboard {
    first: u8,
    per_keycode: usize,
    keysyms: Vec<u32>,
    /// Keycodes with no keysym of their own, for characters no key has.
    spares: Vec<u8>,
    /// Spares given a keysym, oldest first.
    lent: VecDeque<u8>,
}

impl Keyboard {
    /// The server's mapping.
    pub(crate) fn load(conn: &RustConnection) -> Result<Keyboard, DesktopError> {
        let setup = conn.setup();
        let (first, last) = (setup.min_keycode, setup.max_keycode);
        let reply = conn
            .get_keyboard_mapping(first, last - first + 1)
            .map_err(x11)?
            .reply()
            .map_err(x11)?;
        let per_keycode = usize::from(reply.keysyms_per_keycode).max(1);
        let spares = reply
            .keysyms
            .chunks(per_keycode)
            .enumerate()
            .filter(|(_, syms)| syms.iter().all(|&sym| sym == 0))
            .map(|(index, _)| first + index as u8)
            .collect();
        Ok(Keyboard {
            first,
            per_keycode,
            keysyms: reply.keysyms,
            spares,
            lent: VecDeque::new(),
        })
    }

    /// The keycode with `keysym` and whether Shift reaches it.
    fn find(&self, keysym: u32) -> Option<(u8, bool)> {
        (0..2).find_map(|level| {
            self.keysyms
                .chunks(self.per_keycode)
                .position(|syms| syms.get(level) == Some(&keysym))
                .map(|index| (self.first + index as u8, level == 1))
        })
    }

    /// A keycode that types `keysym`: the layout's, or a spare mapped to it.
    fn keycode(&mut self, conn: &RustConnection, keysym: u32) -> Result<(u8, bool), DesktopError> {
        if let Some(found) = self.find(keysym) {
            return Ok(found);
        }
        let spare = match self.spares.pop() {
            Some(spare) => spare,
            None => self.lent.pop_front().ok_or_else(|| {
                DesktopError::X11("the keyboard has no spare keycode to type with".into())
            })?,
        };
        let row = vec![keysym; self.per_keycode];
        conn.change_keyboard_mapping(1, spare, self.per_keycode as u8, &row)
            .map_err(x11)?;
        let start = usize::from(spare - self.first) * self.per_keycode;
        self.keysyms[start..start + self.per_keycode].copy_from_slice(&row);
        self.lent.push_back(spare);
        // Clients learn the new mapping from MappingNotify before the key arrives.
        conn.get_input_focus().map_err(x11)?.reply().map_err(x11)?;
        Ok((spare, false))
    }
}

/// A mouse button as X numbers it (4 to 7 are the wheel).
pub type Button = u8;

/// The wheel's buttons: up, down, left, right.
const WHEEL: [Button; 4] = [4, 5, 6, 7];

impl Screen {
    /// Moves the pointer to `(x, y)`.
    pub fn move_pointer(&self, x: i32, y: i32) -> Result<(), DesktopError> {
        self.fake(MOTION_NOTIFY_EVENT, 0, x, y)
    }

    /// Presses or releases a button where the pointer is.
    pub fn button(&self, button: Button, down: bool) -> Result<(), DesktopError> {
        let kind = if down {
            BUTTON_PRESS_EVENT
        } else {
            BUTTON_RELEASE_EVENT
        };
        self.fake(kind, button, 0, 0)
    }

    /// Clicks `count` times where the pointer is.
    pub fn click(&self, button: Button, count: u32) -> Result<(), DesktopError> {
        for _ in 0..count {
            self.button(button, true)?;
            self.button(button, false)?;
        }
        Ok(())
    }

    /// Turns the wheel `dx` steps right (negative: left) and `dy` down (negative: up).
    pub fn scroll(&self, dx: i32, dy: i32) -> Result<(), DesktopError> {
        let steps = [(dy < 0, -dy), (dy > 0, dy), (dx < 0, -dx), (dx > 0, dx)];
        for (button, (wanted, count)) in WHEEL.into_iter().zip(steps) {
            if wanted {
                self.click(button, count.unsigned_abs())?;
            }
        }
        Ok(())
    }

    /// Where the pointer is, and the top-level window under it.
    pub fn pointer(&self) -> Result<(i32, i32, Option<u32>), DesktopError> {
        let reply = self
            .conn
            .query_pointer(self.root)
            .map_err(x11)?
            .reply()
            .map_err(x11)?;
        let under = match reply.child {
            x11rb::NONE => None,
            frame => self.client_of_frame(frame)?,
        };
        Ok((i32::from(reply.root_x), i32::from(reply.root_y), under))
    }

    /// Presses or releases the key that types `keysym`.
    pub fn key(&self, keysym: u32, down: bool) -> Result<(), DesktopError> {
        let (keycode, _) = self.keyboard.lock().unwrap().keycode(&self.conn, keysym)?;
        self.fake_key(keycode, down)
    }

    /// Presses and releases a chord: modifiers down, the key (shifted when its
    /// keysym is on the shifted level), modifiers up.
    pub fn press(&self, chord: &Chord) -> Result<(), DesktopError> {
        let mut keyboard = self.keyboard.lock().unwrap();
        let mut held = Vec::new();
        for modifier in &chord.modifiers {
            held.push(keyboard.keycode(&self.conn, modifier.keysym())?.0);
        }
        let (keycode, shifted) = keyboard.keycode(&self.conn, chord.keysym)?;
        if shifted && !chord.modifiers.contains(&Modifier::Shift) {
            held.push(keyboard.keycode(&self.conn, Modifier::Shift.keysym())?.0);
        }
        drop(keyboard);
        for &modifier in &held {
            self.fake_key(modifier, true)?;
        }
        self.fake_key(keycode, true)?;
        self.fake_key(keycode, false)?;
        for &modifier in held.iter().rev() {
            self.fake_key(modifier, false)?;
        }
        Ok(())
    }

    /// Types `text` character by character, `delay` apart.
    pub fn type_text(&self, text: &str, delay: Duration) -> Result<(), DesktopError> {
        for (index, c) in text.chars().enumerate() {
            if index > 0 && !delay.is_zero() {
                self.sync()?;
                thread::sleep(delay);
            }
            self.press(&Chord {
                modifiers: Vec::new(),
                keysym: keys::char_keysym(c),
            })?;
        }
        Ok(())
    }

    fn fake_key(&self, keycode: u8, down: bool) -> Result<(), DesktopError> {
        let kind = if down {
            KEY_PRESS_EVENT
        } else {
            KEY_RELEASE_EVENT
        };
        self.fake(kind, keycode, 0, 0)
    }

    fn fake(&self, kind: u8, detail: u8, x: i32, y: i32) -> Result<(), DesktopError> {
        let (x, y) = (clamp16(x), clamp16(y));
        self.conn
            .xtest_fake_input(kind, detail, CURRENT_TIME, self.root, x, y, 0)
            .map_err(x11)?;
        Ok(())
    }
}

fn clamp16(value: i32) -> i16 {
    value.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
}
