//! Mutators shared by the fuzz targets: every decision is drawn from an
//! [`Unstructured`], so the same bytes give the same mutation.
//!
//! - [`payload`]: a native line or body mutated, JSON-aware when it parses as JSON
//!   ([`value`]), as text otherwise ([`text`]);
//! - [`string`]: a string that tends to break parsers and checks (empty, control
//!   characters, right-to-left marks, URLs, paths, numbers as text, huge ones);
//! - [`scalar`]: a JSON scalar of any type, extremes included.

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Value};

/// Strings that often break parsers and checks.
const INTERESTING: &[&str] = &[
    "",
    " ",
    "\0",
    "\n",
    "\r\n",
    "\u{202e}",
    "\u{feff}",
    "💥",
    "null",
    "true",
    "-1",
    "1e309",
    "NaN",
    "{",
    "}]",
    "\"",
    "\\",
    "\\u0000",
    "%00",
    "http://example.com/",
    "http://127.0.0.1:1/",
    "file:///etc/passwd",
    "../../etc/passwd",
    "/etc/passwd",
    "a/../../b",
    "data: x\n\n",
];

/// `text` mutated one to four times: as JSON when it parses (the result stays
/// JSON, with other types, nesting or strings in places), as text otherwise or
/// sometimes anyway. `donors` are other payloads whose parts may be spliced in.
pub fn payload(u: &mut Unstructured<'_>, text: &str, donors: &[String]) -> Result<String> {
    let parsed = serde_json::from_str::<Value>(text).ok();
    match parsed {
        Some(mut json) if u.ratio(7, 8)? => {
            for _ in 0..u.int_in_range(1..=4)? {
                value(u, &mut json, donors)?;
            }
            Ok(json.to_string())
        }
        _ => text_mutation(u, text, donors),
    }
}

/// `text` mutated one to three times by characters ([`text`]).
fn text_mutation(u: &mut Unstructured<'_>, text: &str, donors: &[String]) -> Result<String> {
    let mut text = text.to_owned();
    for _ in 0..u.int_in_range(1..=3)? {
        text = self::text(u, &text, donors)?;
    }
    Ok(text)
}

/// One mutation of a JSON value at a random place in it: a scalar of another type,
/// a [`string`], a part of a donor payload, a key removed, added or renamed, an
/// element removed or repeated, or the place wrapped in deep nesting.
pub fn value(u: &mut Unstructured<'_>, json: &mut Value, donors: &[String]) -> Result<()> {
    let place = pick(u, json, 0)?;
    match u.int_in_range(0..=7)? {
        0 => *place = scalar(u)?,
        1 => *place = Value::String(string(u)?),
        2 => {
            if let Some(part) = donor_part(u, donors)? {
                *place = part;
            }
        }
        3 => match place {
            Value::Object(map) if !map.is_empty() => {
                let key = nth_key(u, map)?;
                map.remove(&key);
            }
            Value::Array(items) if !items.is_empty() => {
                items.remove(u.choose_index(items.len())?);
            }
            other => *other = Value::Null,
        },
        4 => match place {
            Value::Object(map) => {
                let key = if u.ratio(1, 2)? {
                    string(u)?
                } else {
                    u.choose(INTERESTING)?.to_string()
                };
                map.insert(key, scalar(u)?);
            }
            Value::Array(items) if !items.is_empty() => {
                let copy = items[u.choose_index(items.len())?].clone();
                let at = u.int_in_range(0..=items.len())?;
                items.insert(at, copy);
            }
            other => *other = Value::Array(vec![other.take()]),
        },
        5 => {
            if let Value::Object(map) = place {
                if !map.is_empty() {
                    let key = nth_key(u, map)?;
                    let moved = map.remove(&key).unwrap_or_default();
                    map.insert(format!("{key}{}", u.choose(INTERESTING)?), moved);
                }
            }
        }
        6 => {
            let depth = u.int_in_range(1..=100)?;
            for _ in 0..depth {
                let inner = place.take();
                *place = if u.ratio(1, 2)? {
                    Value::Array(vec![inner])
                } else {
                    Value::Object(Map::from_iter([("a".to_owned(), inner)]))
                };
            }
        }
        _ => {
            if let Value::String(text) = place {
                *text = self::text(u, text, donors)?;
            } else {
                *place = Value::String(place.to_string());
            }
        }
    }
    Ok(())
}

/// A random place in `json`: the root or, often, somewhere inside.
fn pick<'a>(u: &mut Unstructured<'_>, json: &'a mut Value, depth: usize) -> Result<&'a mut Value> {
    let children = match json {
        Value::Array(items) => items.len(),
        Value::Object(map) => map.len(),
        _ => 0,
    };
    if children == 0 || depth > 64 || u.ratio(1, 4)? {
        return Ok(json);
    }
    let index = u.choose_index(children)?;
    let child = match json {
        Value::Array(items) => &mut items[index],
        Value::Object(map) => map.values_mut().nth(index).expect("in range"),
        _ => unreachable!("only containers have children"),
    };
    pick(u, child, depth + 1)
}

fn nth_key(u: &mut Unstructured<'_>, map: &Map<String, Value>) -> Result<String> {
    let index = u.choose_index(map.len())?;
    Ok(map.keys().nth(index).expect("in range").clone())
}

/// A random part of a random donor that parses as JSON.
fn donor_part(u: &mut Unstructured<'_>, donors: &[String]) -> Result<Option<Value>> {
    if donors.is_empty() {
        return Ok(None);
    }
    let donor = u.choose(donors)?;
    let Ok(mut json) = serde_json::from_str::<Value>(donor) else {
        return Ok(Some(Value::String(donor.clone())));
    };
    Ok(Some(pick(u, &mut json, 0)?.take()))
}

/// One mutation of `text` by characters: cut short, something inserted, a range
/// deleted or repeated, the start of a donor joined to the rest, or replaced by
/// deeply nested brackets.
pub fn text(u: &mut Unstructured<'_>, text: &str, donors: &[String]) -> Result<String> {
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(at, _)| at)
        .chain([text.len()])
        .collect();
    let mut at = || -> Result<usize> { Ok(*u.choose(&boundaries)?) };
    let (a, b) = {
        let (x, y) = (at()?, at()?);
        (x.min(y), x.max(y))
    };
    Ok(match u.int_in_range(0..=5)? {
        0 => text[..a].to_owned(),
        1 => format!("{}{}{}", &text[..a], string(u)?, &text[a..]),
        2 => format!("{}{}", &text[..a], &text[b..]),
        3 => format!("{}{}", &text[..b], &text[a..]),
        4 if !donors.is_empty() => {
            let donor = u.choose(donors)?;
            let cut = donor.char_indices().map(|(i, _)| i).nth(b - a).unwrap_or(0);
            format!("{}{}", &text[..a], &donor[cut..])
        }
        _ => {
            let depth = u.int_in_range(100..=20_000)?;
            let (open, close) = *u.choose(&[("[", "]"), ("{\"a\":", "}")])?;
            format!("{}{}", open.repeat(depth), close.repeat(depth / 2))
        }
    })
}

/// A string that tends to break things: one of a list of troublemakers, arbitrary
/// Unicode, a number as text, or (rarely) a huge one of up to 1 MiB.
pub fn string(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0..=63)? {
        0..=31 => u.choose(INTERESTING)?.to_string(),
        32..=49 => u.arbitrary::<String>()?,
        50..=59 => u.arbitrary::<i64>()?.to_string(),
        60..=62 => "x".repeat(u.int_in_range(1000..=70_000)?),
        _ => "é\u{0}".repeat(u.int_in_range(100_000..=350_000)?),
    })
}

/// A JSON scalar of any type: null, booleans, extreme and fractional numbers,
/// [`string`]s.
pub fn scalar(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=9)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(i64::MIN),
        3 => Value::from(u64::MAX),
        4 => Value::from(-1),
        5 => Value::from(1.5e308),
        6 => Value::from(0.5),
        7 => Value::from(u.arbitrary::<i32>()?),
        8 => Value::Array(Vec::new()),
        _ => Value::String(string(u)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(seed: u64) -> Vec<u8> {
        let mut bytes = vec![0u8; 4096];
        fastrand::Rng::with_seed(seed).fill(&mut bytes);
        bytes
    }

    #[test]
    fn json_stays_json_and_changes() {
        let line =
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hi"}]}}"#;
        let donors = vec![r#"{"other":[1,2,{"deep":true}]}"#.to_owned()];
        let (mut changed, mut json) = (0, 0);
        for seed in 0..300 {
            let bytes = bytes(seed);
            let mutated = payload(&mut Unstructured::new(&bytes), line, &donors).unwrap();
            changed += usize::from(mutated != line);
            json += usize::from(serde_json::from_str::<Value>(&mutated).is_ok());
        }
        assert!(changed > 250, "most mutations change the line: {changed}");
        assert!(json > 200, "most keep it JSON: {json}");
        assert!(json < 300, "some break it as text: {json}");
    }

    #[test]
    fn text_mutations_keep_valid_utf8_at_char_boundaries() {
        let line = "héllo wörld ✓";
        for seed in 0..300 {
            let bytes = bytes(seed);
            // A panic here would be a cut inside a character.
            let _ = text(&mut Unstructured::new(&bytes), line, &["ünï".to_owned()]).unwrap();
        }
    }

    #[test]
    fn the_same_bytes_give_the_same_mutation() {
        let bytes = bytes(42);
        let once = payload(&mut Unstructured::new(&bytes), r#"{"a":[1,2]}"#, &[]).unwrap();
        let again = payload(&mut Unstructured::new(&bytes), r#"{"a":[1,2]}"#, &[]).unwrap();
        assert_eq!(once, again);
    }
}
