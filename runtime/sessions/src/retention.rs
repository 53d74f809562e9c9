//! `--retention`: how long ended sessions are kept, by age or by count.

use std::str::FromStr;
use std::time::Duration;

use super::SessionManager;

/// Which ended sessions the daemon removes on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retention {
    /// Ended sessions whose last event is older than this.
    MaxAge(Duration),
    /// All but the newest N ended sessions.
    MaxCount(usize),
}

/// A retention policy that does not parse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid retention {0:?}: use an age such as 7d, 12h, 30m or 90s, or a count such as 100")]
pub struct InvalidRetention(String);

impl FromStr for Retention {
    type Err = InvalidRetention;

    /// `30d`, `12h`, `45m`, `90s` (age) or a plain number (count).
    fn from_str(text: &str) -> Result<Self, InvalidRetention> {
        let bad = || InvalidRetention(text.to_owned());
        let text = text.trim();
        if let Ok(count) = text.parse::<usize>() {
            return Ok(Self::MaxCount(count));
        }
        let split = text.len().checked_sub(1).ok_or_else(bad)?;
        let (number, unit) = text.split_at(split);
        let number: u64 = number.parse().map_err(|_| bad())?;
        let seconds = match unit {
            "s" => 1,
            "m" => 60,
            "h" => 3600,
            "d" => 86_400,
            _ => return Err(bad()),
        };
        Ok(Self::MaxAge(Duration::from_secs(
            number.saturating_mul(seconds),
        )))
    }
}

impl SessionManager {
    /// Removes the ended sessions the policy no longer keeps; returns their ids.
    pub fn prune(&self, retention: Retention, now_millis: i64) -> Vec<String> {
        let mut ended: Vec<(i64, String)> = self
            .list()
            .iter()
            .filter_map(|session| {
                let state = session.shared.state.lock().unwrap();
                state
                    .ended
                    .then(|| (state.updated_at, session.shared.record.id.clone()))
            })
            .collect();
        // Newest first.
        ended.sort_by(|a, b| b.cmp(a));
        let doomed: Vec<String> = match retention {
            Retention::MaxCount(keep) => ended.into_iter().skip(keep).map(|(_, id)| id).collect(),
            Retention::MaxAge(age) => {
                let cutoff = now_millis - age.as_millis() as i64;
                ended
                    .into_iter()
                    .filter(|(updated_at, _)| *updated_at < cutoff)
                    .map(|(_, id)| id)
                    .collect()
            }
        };
        doomed
            .into_iter()
            .filter(|id| match self.remove_ended(id) {
                Ok(()) => true,
                Err(error) => {
                    tracing::warn!(session_id = %id, %error, "retention could not remove session");
                    false
                }
            })
            .collect()
    }

    /// Prunes now and then every second until the daemon stops.
    pub fn spawn_retention(self: &std::sync::Arc<Self>, retention: Retention) {
        let manager = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            loop {
                tick.tick().await;
                let removed =
                    tokio::task::block_in_place(|| manager.prune(retention, super::now_millis()));
                if !removed.is_empty() {
                    tracing::info!(sessions = ?removed, "retention removed ended sessions");
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_and_counts_parse() {
        assert_eq!(
            "7d".parse(),
            Ok(Retention::MaxAge(Duration::from_secs(7 * 86_400)))
        );
        assert_eq!(
            "90s".parse(),
            Ok(Retention::MaxAge(Duration::from_secs(90)))
        );
        assert_eq!(
            "12h".parse(),
            Ok(Retention::MaxAge(Duration::from_secs(12 * 3600)))
        );
        assert_eq!("100".parse(), Ok(Retention::MaxCount(100)));
        for bad in ["", "d", "7w", "-3d", "1.5h", "many"] {
            let error = bad.parse::<Retention>().unwrap_err();
            assert!(
                error.to_string().contains("invalid retention"),
                "{bad}: {error}"
            );
        }
    }
}
