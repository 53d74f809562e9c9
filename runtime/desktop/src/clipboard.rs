//! The desktop's clipboard (the `CLIPBOARD` and `PRIMARY` selections).
//!
//! X keeps no clipboard contents: the program that owns a selection hands its text to
//! whoever asks. Setting the clipboard makes the desktop that owner, on a connection
//! of its own whose thread answers the requests (`TARGETS` and text as `UTF8_STRING`,
//! `STRING` or `TEXT`) until another program takes the selection. Reading asks the
//! owner for `UTF8_STRING` and waits (up to two seconds) for the text.

use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use agentplex_api::DesktopSelection;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ConnectionExt as _, CreateWindowAux, EventMask, PropMode, SelectionNotifyEvent,
    SelectionRequestEvent, Window, WindowClass, SELECTION_NOTIFY_EVENT,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;
use x11rb::CURRENT_TIME;

use crate::screen::x11;
use crate::xauth::Authority;
use crate::DesktopError;

x11rb::atom_manager! {
    /// The atoms of the selection protocol.
    Atoms: AtomsCookie {
        CLIPBOARD,
        PRIMARY,
        TARGETS,
        UTF8_STRING,
        TEXT,
        AGENTPLEX_CLIPBOARD,
    }
}

/// How long the owner of a selection has to hand over its text.
const ANSWER_WITHIN: Duration = Duration::from_secs(2);
/// The most bytes read of a selection's text.
const MAX_TEXT: u32 = 4 << 20;

/// The clipboard of a running desktop.
pub struct Clipboard {
    conn: Arc<RustConnection>,
    window: Window,
    atoms: Atoms,
    /// The text of each selection the desktop owns.
    owned: Arc<Mutex<HashMap<Atom, String>>>,
    /// Answers to our own requests for a selection's text; one reader at a time.
    answers: Mutex<Receiver<SelectionNotifyEvent>>,
}

impl Clipboard {
    /// Connects to `display` and starts answering for the selections it will own.
    pub fn start(display: &str, authority: &Authority) -> Result<Clipboard, DesktopError> {
        let (conn, screen_num) = authority.connect(display)?;
        let root = conn.setup().roots[screen_num].root;
        let window = conn.generate_id().map_err(x11)?;
        let aux = CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE);
        conn.create_window(
            0,
            window,
            root,
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
        let atoms = Atoms::new(&conn).map_err(x11)?.reply().map_err(x11)?;
        conn.flush().map_err(x11)?;
        let conn = Arc::new(conn);
        let owned = Arc::new(Mutex::new(HashMap::new()));
        let (sender, answers) = mpsc::channel();
        let serving = Server {
            conn: conn.clone(),
            atoms,
            owned: owned.clone(),
            answers: sender,
        };
        thread::Builder::new()
            .name("desktop-clipboard".into())
            .spawn(move || serving.run())
            .map_err(|error| DesktopError::X11(error.to_string()))?;
        Ok(Clipboard {
            conn,
            window,
            atoms,
            owned,
            answers: Mutex::new(answers),
        })
    }

    fn atom(&self, selection: DesktopSelection) -> Atom {
        match selection {
            DesktopSelection::Clipboard => self.atoms.CLIPBOARD,
            DesktopSelection::Primary => self.atoms.PRIMARY,
        }
    }

    /// The window that owns a selection now (`NONE` for nobody).
    fn owner(&self, atom: Atom) -> Result<Window, DesktopError> {
        let reply = self
            .conn
            .get_selection_owner(atom)
            .map_err(x11)?
            .reply()
            .map_err(x11)?;
        Ok(reply.owner)
    }

    /// Makes `text` the selection's, the desktop its owner.
    pub fn set(&self, selection: DesktopSelection, text: String) -> Result<(), DesktopError> {
        let atom = self.atom(selection);
        self.owned.lock().unwrap().insert(atom, text);
        self.conn
            .set_selection_owner(self.window, atom, CURRENT_TIME)
            .map_err(x11)?;
        if self.owner(atom)? != self.window {
            return Err(DesktopError::X11(
                "another program kept the selection".into(),
            ));
        }
        Ok(())
    }

    /// The selection's text (empty when nobody owns it or its owner has no text).
    pub fn get(&self, selection: DesktopSelection) -> Result<String, DesktopError> {
        let atom = self.atom(selection);
        let owner = self.owner(atom)?;
        if owner == x11rb::NONE {
            return Ok(String::new());
        }
        if owner == self.window {
            return Ok(self
                .owned
                .lock()
                .unwrap()
                .get(&atom)
                .cloned()
                .unwrap_or_default());
        }
        let answers = self.answers.lock().unwrap();
        // Answers to an earlier request that timed out.
        while answers.try_recv().is_ok() {}
        let property = self.atoms.AGENTPLEX_CLIPBOARD;
        self.conn
            .convert_selection(
                self.window,
                atom,
                self.atoms.UTF8_STRING,
                property,
                CURRENT_TIME,
            )
            .map_err(x11)?;
        self.conn.flush().map_err(x11)?;
        let answer = answers.recv_timeout(ANSWER_WITHIN).map_err(|_| {
            DesktopError::X11("the selection's owner did not hand over its text".into())
        })?;
        if answer.property == x11rb::NONE {
            return Ok(String::new());
        }
        let reply = self
            .conn
            .get_property(true, self.window, property, AtomEnum::ANY, 0, MAX_TEXT / 4)
            .map_err(x11)?
            .reply()
            .map_err(x11)?;
        Ok(String::from_utf8_lossy(&reply.value).into_owned())
    }
}

/// The thread that answers for the selections the desktop owns.
struct Server {
    conn: Arc<RustConnection>,
    atoms: Atoms,
    owned: Arc<Mutex<HashMap<Atom, String>>>,
    answers: Sender<SelectionNotifyEvent>,
}

impl Server {
    /// Until the X server goes away.
    fn run(self) {
        while let Ok(event) = self.conn.wait_for_event() {
            match event {
                Event::SelectionRequest(request) => {
                    let _ = self.answer(&request);
                }
                Event::SelectionClear(clear) => {
                    self.owned.lock().unwrap().remove(&clear.selection);
                }
                Event::SelectionNotify(notify) => {
                    let _ = self.answers.send(notify);
                }
                _ => {}
            }
        }
    }

    /// Hands a requestor the text (or the targets it comes as), or refuses.
    fn answer(&self, request: &SelectionRequestEvent) -> Result<(), DesktopError> {
        let text = self.owned.lock().unwrap().get(&request.selection).cloned();
        let atoms = &self.atoms;
        // An obsolete requestor names no property: the target is the property.
        let property = if request.property == x11rb::NONE {
            request.target
        } else {
            request.property
        };
        let given = match text {
            Some(_) if request.target == atoms.TARGETS => {
                let targets = [
                    atoms.TARGETS,
                    atoms.UTF8_STRING,
                    AtomEnum::STRING.into(),
                    atoms.TEXT,
                ];
                self.conn
                    .change_property32(
                        PropMode::REPLACE,
                        request.requestor,
                        property,
                        AtomEnum::ATOM,
                        &targets,
                    )
                    .map_err(x11)?;
                property
            }
            Some(text)
                if [atoms.UTF8_STRING, atoms.TEXT, AtomEnum::STRING.into()]
                    .contains(&request.target) =>
            {
                let kind = if request.target == atoms.TEXT {
                    atoms.UTF8_STRING
                } else {
                    request.target
                };
                self.conn
                    .change_property8(
                        PropMode::REPLACE,
                        request.requestor,
                        property,
                        kind,
                        text.as_bytes(),
                    )
                    .map_err(x11)?;
                property
            }
            _ => x11rb::NONE,
        };
        let notify = SelectionNotifyEvent {
            response_type: SELECTION_NOTIFY_EVENT,
            sequence: 0,
            time: request.time,
            requestor: request.requestor,
            selection: request.selection,
            target: request.target,
            property: given,
        };
        self.conn
            .send_event(false, request.requestor, EventMask::NO_EVENT, notify)
            .map_err(x11)?;
        self.conn.flush().map_err(x11)
    }
}
