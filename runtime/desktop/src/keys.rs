//! Keys as clients name them (`Return`, `ctrl+shift+t`, `é`), turned into X keysyms.
//!
//! A name is an X keysym name (`BackSpace`, `Page_Up`, `F5`: every name of the X
//! protocol's keysym table), one of the common spellings of the same keys that
//! browsers and other tools use (`Enter`, `Esc`, `PageUp`, `ArrowLeft`), or a single
//! character. A chord joins modifiers and a key with `+`.

/// A modifier key held around another key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modifier {
    /// Control.
    Ctrl,
    /// Shift.
    Shift,
    /// Alt.
    Alt,
    /// Super (the Windows or Command key).
    Super,
}

impl Modifier {
    /// The keysym of the modifier's left key.
    pub fn keysym(self) -> u32 {
        match self {
            Modifier::Ctrl => 0xffe3,
            Modifier::Shift => 0xffe1,
            Modifier::Alt => 0xffe9,
            Modifier::Super => 0xffeb,
        }
    }

    fn named(name: &str) -> Option<Modifier> {
        match name.to_ascii_lowercase().as_str() {
            "ctrl" | "control" => Some(Modifier::Ctrl),
            "shift" => Some(Modifier::Shift),
            "alt" | "option" => Some(Modifier::Alt),
            "super" | "cmd" | "command" | "meta" | "win" | "windows" => Some(Modifier::Super),
            _ => None,
        }
    }
}

/// A key with the modifiers held while it is pressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chord {
    /// Held down in this order, released in the reverse.
    pub modifiers: Vec<Modifier>,
    /// The key pressed.
    pub keysym: u32,
}

/// A key name that names no key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown key {0:?}: use an X keysym name (Return, Escape, F5, a), a single character, or a chord such as ctrl+c")]
pub struct UnknownKey(pub String);

/// The keysym of a Return key (a typed newline).
pub const RETURN: u32 = 0xff0d;

/// Common spellings of keys whose X names differ, lower case.
const ALIASES: &[(&str, &str)] = &[
    ("enter", "Return"),
    ("return", "Return"),
    ("esc", "Escape"),
    ("escape", "Escape"),
    ("backspace", "BackSpace"),
    ("del", "Delete"),
    ("delete", "Delete"),
    ("ins", "Insert"),
    ("insert", "Insert"),
    ("tab", "Tab"),
    ("space", "space"),
    ("home", "Home"),
    ("end", "End"),
    ("pageup", "Prior"),
    ("pgup", "Prior"),
    ("page_up", "Prior"),
    ("pagedown", "Next"),
    ("pgdn", "Next"),
    ("page_down", "Next"),
    ("up", "Up"),
    ("arrowup", "Up"),
    ("down", "Down"),
    ("arrowdown", "Down"),
    ("left", "Left"),
    ("arrowleft", "Left"),
    ("right", "Right"),
    ("arrowright", "Right"),
    ("capslock", "Caps_Lock"),
    ("printscreen", "Print"),
    ("menu", "Menu"),
    ("ctrl", "Control_L"),
    ("control", "Control_L"),
    ("shift", "Shift_L"),
    ("alt", "Alt_L"),
    ("super", "Super_L"),
    ("cmd", "Super_L"),
    ("meta", "Super_L"),
];

/// The keysym a key name names.
pub fn keysym(name: &str) -> Result<u32, UnknownKey> {
    let mut chars = name.chars();
    if let (Some(only), None) = (chars.next(), chars.next()) {
        return Ok(char_keysym(only));
    }
    let lower = name.to_ascii_lowercase();
    let named = ALIASES
        .iter()
        .find(|(alias, _)| *alias == lower)
        .map(|(_, x_name)| *x_name)
        .unwrap_or(name);
    if let Some(record) = x11_keysymdef::lookup_by_name(named) {
        return Ok(record.keysym);
    }
    // Function keys in any case (`f5`).
    if let Some(number) = lower.strip_prefix('f').and_then(|n| n.parse::<u32>().ok()) {
        if (1..=35).contains(&number) {
            return Ok(0xffbd + number);
        }
    }
    Err(UnknownKey(name.to_string()))
}

/// The keysym that types a character: Return for a newline, Tab for a tab, the
/// keysym table's for the rest, and X's Unicode keysyms for what it lacks.
pub fn char_keysym(c: char) -> u32 {
    match c {
        '\n' | '\r' => RETURN,
        '\t' => 0xff09,
        '\u{8}' => 0xff08,
        _ => x11_keysymdef::lookup_by_codepoint(c)
            .map(|record| record.keysym)
            .unwrap_or(0x0100_0000 | c as u32),
    }
}

/// A chord (`ctrl+shift+t`, `Return`, `ctrl++`), with `extra` modifiers held too.
pub fn chord(text: &str, extra: &[Modifier]) -> Result<Chord, UnknownKey> {
    if text.is_empty() {
        return Err(UnknownKey(String::new()));
    }
    let (held, key) = match text.rsplit_once('+') {
        // `+` itself, or a chord ending in `+` (`ctrl++`).
        Some((rest, "")) => (rest.strip_suffix('+').unwrap_or(rest), "+"),
        Some((held, key)) => (held, key),
        None => ("", text),
    };
    let named = held
        .split('+')
        .filter(|name| !name.is_empty())
        .map(|name| Modifier::named(name).ok_or_else(|| UnknownKey(name.to_string())));
    let mut modifiers = Vec::new();
    for modifier in extra.iter().copied().map(Ok).chain(named) {
        let modifier = modifier?;
        if !modifiers.contains(&modifier) {
            modifiers.push(modifier);
        }
    }
    Ok(Chord {
        modifiers,
        keysym: keysym(key)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_aliases_characters_and_function_keys() {
        assert_eq!(keysym("Return"), Ok(RETURN));
        assert_eq!(keysym("Enter"), Ok(RETURN));
        assert_eq!(keysym("BackSpace"), Ok(0xff08));
        assert_eq!(keysym("PageUp"), Ok(0xff55));
        assert_eq!(keysym("F5"), Ok(0xffc2));
        assert_eq!(keysym("f12"), Ok(0xffc9));
        assert_eq!(keysym("a"), Ok(0x61));
        assert_eq!(keysym("A"), Ok(0x41));
        assert_eq!(keysym("é"), Ok(0xe9));
        assert_eq!(keysym("€"), Ok(0x20ac));
        assert_eq!(keysym("🙂"), Ok(0x0100_0000 | 0x1f642));
        assert_eq!(keysym("NoSuchKey"), Err(UnknownKey("NoSuchKey".into())));
        assert_eq!(keysym("F99"), Err(UnknownKey("F99".into())));
    }

    #[test]
    fn chords() {
        assert_eq!(
            chord("ctrl+shift+t", &[]),
            Ok(Chord {
                modifiers: vec![Modifier::Ctrl, Modifier::Shift],
                keysym: 0x74
            })
        );
        assert_eq!(
            chord("c", &[Modifier::Ctrl, Modifier::Ctrl]),
            Ok(Chord {
                modifiers: vec![Modifier::Ctrl],
                keysym: 0x63
            })
        );
        assert_eq!(chord("+", &[]).unwrap().keysym, 0x2b);
        assert_eq!(
            chord("ctrl++", &[]),
            Ok(Chord {
                modifiers: vec![Modifier::Ctrl],
                keysym: 0x2b
            })
        );
        assert_eq!(chord("hyper+a", &[]), Err(UnknownKey("hyper".into())));
        assert_eq!(chord("", &[]), Err(UnknownKey(String::new())));
    }
}
