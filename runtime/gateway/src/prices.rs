//! List prices, as data: the table built in from `prices.json`, or one a file
//! replaces it with (`--prices FILE`).
//!
//! The shape, in US dollars per million tokens:
//!
//! ```json
//! {"version": 1, "asOf": "2026-12-03", "notes": ["..."],
//!  "models": [{"match": "claude-sonnet-4-5", "input": 3.0, "output": 15.0,
//!              "cacheRead": 0.30, "cacheWrite": 3.75, "cacheWrite1h": 6.0,
//!              "longContext": {"above": 200000, "input": 6.0, "output": 22.5},
//!              "source": "https://..."}]}
//! ```
//!
//! A model is found by its exact id, else by the longest `match` it extends
//! with a dated snapshot: `-` or `@` then at least three digits
//! (`claude-sonnet-4-5-20250929`, `claude-opus-4-1@20250805`,
//! `gpt-6.2-sol-2026-11-01`, `gemini-2.5-flash-001`). A newer model of the
//! same family (`claude-sonnet-5-5` beside `claude-sonnet-5`) is a different
//! model: unknown, it gets no cost rather than another model's.
//!
//! The cost of a call is the sum of (input − cache reads − cache writes) ×
//! `input`, cache reads × `cacheRead`, 5-minute cache writes × `cacheWrite`,
//! 1-hour cache writes × `cacheWrite1h` and output × `output`, at the
//! `longContext` rates when the call's input is above their threshold. A rate
//! the table leaves out that a call needs leaves the cost unknown.

use std::path::Path;

use serde::Deserialize;

use crate::error::{located, Error};
use crate::usage::Tokens;

/// The table built into the gateway.
const BUILT_IN: &str = include_str!("../prices.json");

/// A price table.
#[derive(Debug, Clone, PartialEq)]
pub struct Prices {
    as_of: String,
    models: Vec<ModelPrice>,
}

/// The file's shape.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Table {
    /// Read to refuse other versions.
    #[serde(rename = "version")]
    _version: Version,
    as_of: String,
    /// Notes for the people reading the file.
    #[serde(default, rename = "notes")]
    _notes: Vec<String>,
    models: Models,
}

/// The format version: 1 is the only one.
#[derive(Debug, Deserialize)]
#[serde(try_from = "u64")]
struct Version;

impl TryFrom<u64> for Version {
    type Error = String;

    fn try_from(version: u64) -> Result<Self, Self::Error> {
        match version {
            1 => Ok(Version),
            other => Err(format!(
                "version {other} is not known (this gateway reads version 1)"
            )),
        }
    }
}

/// The models, each `match` once.
#[derive(Debug, Deserialize)]
#[serde(try_from = "Vec<ModelPrice>")]
struct Models(Vec<ModelPrice>);

impl TryFrom<Vec<ModelPrice>> for Models {
    type Error = String;

    fn try_from(models: Vec<ModelPrice>) -> Result<Self, Self::Error> {
        for (index, model) in models.iter().enumerate() {
            if model.id.is_empty() {
                return Err(format!("model {} has an empty \"match\"", index + 1));
            }
            if models[..index].iter().any(|other| other.id == model.id) {
                return Err(format!("\"{}\" is listed twice", model.id));
            }
        }
        Ok(Models(models))
    }
}

/// One model's prices, in US dollars per million tokens.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ModelPrice {
    /// The model id, or the id its dated snapshots extend.
    #[serde(rename = "match")]
    id: String,
    input: Rate,
    output: Rate,
    cache_read: Option<Rate>,
    cache_write: Option<Rate>,
    #[serde(rename = "cacheWrite1h")]
    cache_write_1h: Option<Rate>,
    /// Rates for calls with more input than its threshold.
    long_context: Option<LongContext>,
    /// Where the prices were read, for the people reading the file.
    #[serde(rename = "source")]
    _source: Option<String>,
}

/// The rates of calls with more input than `above`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct LongContext {
    above: u64,
    input: Rate,
    output: Rate,
    cache_read: Option<Rate>,
    cache_write: Option<Rate>,
    #[serde(rename = "cacheWrite1h")]
    cache_write_1h: Option<Rate>,
}

/// The rates one call is billed at.
#[derive(Debug, Clone, Copy)]
struct Rates {
    input: Rate,
    output: Rate,
    cache_read: Option<Rate>,
    cache_write: Option<Rate>,
    cache_write_1h: Option<Rate>,
}

impl ModelPrice {
    /// The rates of a call with `input` tokens of input.
    fn rates(&self, input: u64) -> Rates {
        match self.long_context {
            Some(long) if input > long.above => Rates {
                input: long.input,
                output: long.output,
                cache_read: long.cache_read,
                cache_write: long.cache_write,
                cache_write_1h: long.cache_write_1h,
            },
            _ => Rates {
                input: self.input,
                output: self.output,
                cache_read: self.cache_read,
                cache_write: self.cache_write,
                cache_write_1h: self.cache_write_1h,
            },
        }
    }
}

/// A price: a finite number, 0 or more.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(try_from = "f64")]
struct Rate(f64);

impl TryFrom<f64> for Rate {
    type Error = String;

    fn try_from(usd: f64) -> Result<Self, Self::Error> {
        if usd.is_finite() && usd >= 0.0 {
            Ok(Rate(usd))
        } else {
            Err(format!("price {usd} is not a number of dollars, 0 or more"))
        }
    }
}

impl Prices {
    /// The table built into the gateway (`runtime/gateway/prices.json`).
    pub fn built_in() -> Self {
        Self::parse(BUILT_IN, "built-in").expect("the built-in price table is valid (tested)")
    }

    /// The table in `path`; an invalid one is an error that names the line,
    /// the column and what is wrong.
    pub fn from_file(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::PricesUnreadable {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    fn parse(text: &str, origin: &str) -> Result<Self, Error> {
        let table: Table = serde_json::from_str(text).map_err(|error| {
            let (line, column, reason) = located(&error);
            Error::Prices {
                origin: origin.to_owned(),
                line,
                column,
                reason,
            }
        })?;
        Ok(Self {
            as_of: table.as_of,
            models: table.models.0,
        })
    }

    /// The day the prices were read, as the table says (`2026-12-03`).
    pub fn as_of(&self) -> &str {
        &self.as_of
    }

    /// The list price of a call of `model` with these counts, in US dollars;
    /// `None` when the model is unknown or the table has no rate for one of
    /// the counts.
    pub fn cost(&self, model: &str, tokens: &Tokens) -> Option<f64> {
        let rates = self.find(model)?.rates(tokens.input);
        let cache_write_1h = tokens.cache_write_1h.min(tokens.cache_write);
        let cache_write_5m = tokens.cache_write - cache_write_1h;
        let uncached = tokens
            .input
            .saturating_sub(tokens.cache_read + tokens.cache_write);
        let priced = |count: u64, rate: Option<Rate>| match (count, rate) {
            (0, _) => Some(0.0),
            (count, rate) => Some(count as f64 * rate?.0),
        };
        let per_million = priced(uncached, Some(rates.input))?
            + priced(tokens.output, Some(rates.output))?
            + priced(tokens.cache_read, rates.cache_read)?
            + priced(cache_write_5m, rates.cache_write)?
            + priced(cache_write_1h, rates.cache_write_1h)?;
        Some(per_million / 1_000_000.0)
    }

    /// The prices of `model`: its exact id, else the longest `match` it extends
    /// with a dated snapshot.
    fn find(&self, model: &str) -> Option<&ModelPrice> {
        if let Some(exact) = self.models.iter().find(|price| price.id == model) {
            return Some(exact);
        }
        self.models
            .iter()
            .filter(|price| {
                model
                    .strip_prefix(price.id.as_str())
                    .is_some_and(is_snapshot_suffix)
            })
            .max_by_key(|price| price.id.len())
    }
}

impl Default for Prices {
    fn default() -> Self {
        Self::built_in()
    }
}

/// Whether `rest` is a dated snapshot's suffix: `-` or `@`, then three digits or more.
fn is_snapshot_suffix(rest: &str) -> bool {
    let Some(after) = rest.strip_prefix(['-', '@']) else {
        return false;
    };
    after.bytes().take_while(u8::is_ascii_digit).count() >= 3
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(input: u64, output: u64) -> Tokens {
        Tokens {
            input,
            output,
            ..Tokens::default()
        }
    }

    fn close(actual: Option<f64>, expected: f64) {
        let actual = actual.expect("a cost");
        assert!((actual - expected).abs() < 1e-9, "{actual} != {expected}");
    }

    #[test]
    fn the_built_in_table_is_valid_and_dated() {
        let prices = Prices::built_in();
        assert_eq!(prices.as_of(), "2026-12-03");
        assert!(prices.models.len() > 10);
    }

    #[test]
    fn models_are_found_exactly_or_by_a_dated_snapshot() {
        let prices = Prices::built_in();
        let input = |model: &str| prices.find(model).map(|price| price.input.0);
        assert_eq!(input("claude-sonnet-4-5"), Some(3.0));
        assert_eq!(input("claude-sonnet-4-5-20250929"), Some(3.0));
        assert_eq!(input("claude-opus-4-1@20250805"), Some(15.0));
        // `claude-opus-4-20250514` is Opus 4, not Opus 4.x.
        assert_eq!(input("claude-opus-4-20250514"), Some(15.0));
        assert_eq!(input("claude-opus-4-5-20251101"), Some(5.0));
        assert_eq!(input("gpt-6.2-sol-2026-11-01"), Some(2.0));
        assert_eq!(input("gemini-2.5-flash-lite-001"), Some(0.1));
        // Newer models of a family and other variants are not their elders.
        assert_eq!(input("claude-sonnet-5-5"), None);
        assert_eq!(input("claude-fable-5-2"), None);
        assert_eq!(input("gemini-2.5-flash-preview-09-2025"), None);
        assert_eq!(input("gpt-6.2-sol-pro"), None);
        assert_eq!(input("scripted"), None);
    }

    #[test]
    fn cost_prices_each_kind_of_token_at_its_rate() {
        let prices = Prices::built_in();
        // Sonnet 4.5: 10,000 in (2,000 read from cache, 3,000 written, 1,000 of
        // them for an hour) and 500 out.
        let call = Tokens {
            input: 10_000,
            output: 500,
            cache_read: 2_000,
            cache_write: 3_000,
            cache_write_1h: 1_000,
            reasoning: 100,
        };
        let expected =
            (5_000.0 * 3.0 + 2_000.0 * 0.30 + 2_000.0 * 3.75 + 1_000.0 * 6.0 + 500.0 * 15.0) / 1e6;
        close(prices.cost("claude-sonnet-4-5-20250929", &call), expected);
        close(
            prices.cost("claude-haiku-4-5", &tokens(1_000_000, 1_000_000)),
            6.0,
        );
        assert_eq!(prices.cost("scripted", &call), None);
    }

    #[test]
    fn long_calls_are_billed_at_the_long_context_rates() {
        let prices = Prices::built_in();
        close(
            prices.cost("gpt-6.2-sol", &tokens(272_000, 1_000)),
            (272_000.0 * 2.0 + 10_000.0) / 1e6,
        );
        close(
            prices.cost("gpt-6.2-sol", &tokens(272_001, 1_000)),
            (272_001.0 * 4.0 + 15_000.0) / 1e6,
        );
        close(prices.cost("gemini-2.5-pro", &tokens(300_000, 0)), 0.75);
    }

    #[test]
    fn a_count_without_a_rate_leaves_the_cost_unknown() {
        let prices = Prices::built_in();
        let cached = Tokens {
            cache_read: 10,
            ..tokens(100, 10)
        };
        // The table has no verified Gemini cache rates.
        assert_eq!(prices.cost("gemini-2.5-flash", &cached), None);
        close(
            prices.cost("gemini-2.5-flash", &tokens(100, 10)),
            (30.0 + 25.0) / 1e6,
        );
        // Sonnet 4.5's long-context cache rates are not in the table either.
        let long_cached = Tokens {
            cache_read: 10,
            ..tokens(300_000, 10)
        };
        assert_eq!(prices.cost("claude-sonnet-4-5", &long_cached), None);
    }

    #[test]
    fn a_bad_file_is_refused_with_its_name_line_column_and_reason() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prices.json");
        std::fs::write(
            &path,
            "{\"version\": 1, \"asOf\": \"2026-12-03\",\n \"models\": [\n  {\"match\": \"m\", \"input\": \"3\", \"output\": 1}\n]}\n",
        )
        .unwrap();
        let error = Prices::from_file(&path).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with(&format!("price table {}, line 3 column ", path.display())),
            "{message}"
        );
        assert!(
            message.contains("invalid type: string \"3\", expected f64"),
            "{message}"
        );

        let good = dir.path().join("good.json");
        std::fs::write(&good, BUILT_IN.replace("2026-12-03", "2027-01-01")).unwrap();
        assert_eq!(Prices::from_file(&good).unwrap().as_of(), "2027-01-01");
        let missing = Prices::from_file(&dir.path().join("missing.json")).unwrap_err();
        assert!(
            matches!(missing, Error::PricesUnreadable { .. }),
            "{missing}"
        );
    }

    fn error(text: &str) -> (usize, usize, String) {
        match Prices::parse(text, "test") {
            Err(Error::Prices {
                line,
                column,
                reason,
                ..
            }) => (line, column, reason),
            other => panic!("an error: {other:?}"),
        }
    }

    #[test]
    fn a_bad_table_names_the_place_and_the_reason() {
        let (line, _, reason) = error("{\"version\": 1,\n \"asOf\": \"x\",\n \"models\": [{\"match\": \"m\", \"input\": -1, \"output\": 1}]}");
        assert_eq!(line, 3);
        assert!(
            reason.contains("price -1 is not a number of dollars"),
            "{reason}"
        );

        let (line, column, reason) = error("{\"version\": 2, \"asOf\": \"x\", \"models\": []}");
        assert_eq!((line, column), (1, 13));
        assert!(reason.contains("version 2 is not known"), "{reason}");

        let (_, _, reason) = error("{\"version\": 1, \"asOf\": \"x\", \"models\": [{\"match\": \"m\", \"input\": 1, \"output\": 1, \"cached\": 1}]}");
        assert!(reason.contains("cached"), "{reason}");

        let (_, _, reason) = error("{\"version\": 1, \"asOf\": \"x\", \"models\": [{\"match\": \"m\", \"input\": 1, \"output\": 1}, {\"match\": \"m\", \"input\": 2, \"output\": 2}]}");
        assert!(reason.contains("\"m\" is listed twice"), "{reason}");

        let (line, column, reason) = error("{\"version\": 1,\n\"asOf\": \"x\",\n\"models\": [,]}");
        assert_eq!((line, column), (3, 12));
        assert!(reason.starts_with("expected value"), "{reason}");
    }
}
