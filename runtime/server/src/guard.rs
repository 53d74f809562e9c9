//! The front door: which `Host` names the daemon answers to, and which web pages may
//! change its state, checked before any route.
//!
//! Two attacks come through a browser the user runs on the daemon's machine:
//! - **DNS rebinding**: a page on a domain the attacker controls makes that domain
//!   resolve to 127.0.0.1; the browser then treats the daemon as the page's own
//!   origin and reads every answer. The request carries the attacker's name in
//!   `Host`, so the daemon answers only the names it knows: loopback names always,
//!   and those `--allowed-host` adds. Without a token that list is the whole rule;
//!   with a token, any name is answered unless `--allowed-host` is given (proxies
//!   and sandbox providers front the daemon under names of their own, and the
//!   token is what protects it).
//! - **Cross-site requests**: any page may send a POST without a preflight (a CORS
//!   "simple request") or open a WebSocket; the browser does not let it read the
//!   answer, but the request is carried out. Without a token nothing else stops
//!   it, so a request that changes state (any method but `GET`, `HEAD` and
//!   `OPTIONS`, and every WebSocket handshake) coming from a browser context is
//!   refused unless that context is the daemon's own page or an origin
//!   `--cors-allow-origin` names. Browsers say where a request comes from in
//!   `Origin` (on every such request) and `Sec-Fetch-Site`; programs send neither.
//!   With a token, such a request cannot carry it (a page cannot set the headers
//!   without a preflight the daemon does not allow), so the token check refuses it.
//!
//! `GET /v1/health` is answered whatever the `Host`: liveness probes address the
//! daemon by whatever name their platform uses, and it tells nothing.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{HOST, ORIGIN, UPGRADE};
use axum::http::{HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// The header browsers use to say how a request's initiator relates to its target.
const SEC_FETCH_SITE: &str = "sec-fetch-site";

/// What the front door lets in.
#[derive(Debug, Clone)]
pub struct FrontDoor {
    /// The `Host` names answered; `None`: any.
    hosts: Option<Vec<HostPattern>>,
    /// Whether requests that change state must come from the daemon's own page or
    /// an allowed origin (no token).
    check_pages: bool,
    /// `--cors-allow-origin`: the origins, besides the daemon's own, whose pages may
    /// change state.
    origins: Arc<[String]>,
}

impl FrontDoor {
    /// The rules for a daemon with or without a token, `--allowed-host` patterns
    /// and `--cors-allow-origin` origins.
    pub fn new(has_token: bool, allowed_hosts: &[String], origins: Arc<[String]>) -> Self {
        let hosts = (!has_token || !allowed_hosts.is_empty()).then(|| {
            allowed_hosts
                .iter()
                .map(|pattern| HostPattern::parse(pattern))
                .collect()
        });
        FrontDoor {
            hosts,
            check_pages: !has_token,
            origins,
        }
    }

    /// Why a request may not pass, if it may not.
    pub fn refuse(&self, method: &Method, headers: &HeaderMap) -> Option<ApiError> {
        let host = headers.get(HOST).and_then(|value| value.to_str().ok());
        if let (Some(patterns), Some(host)) = (&self.hosts, host) {
            if !host_allowed(host, patterns) {
                return Some(ApiError::HostNotAllowed(format!(
                    "the daemon does not answer to the name {host:?}: it answers to loopback names (localhost, 127.0.0.1, [::1]) and to those --allowed-host adds"
                )));
            }
        }
        if !self.check_pages || !changes_state(method, headers) {
            return None;
        }
        match headers.get(ORIGIN) {
            Some(origin) => {
                let origin = origin.to_str().unwrap_or("<not text>");
                if is_own_or_allowed(origin, host, &self.origins) {
                    return None;
                }
                Some(ApiError::CrossOriginRefused(format!(
                    "a request from the page {origin:?} is refused: without a token, only the daemon's own pages and the origins --cors-allow-origin names may change its state"
                )))
            }
            None => {
                let site = headers
                    .get(SEC_FETCH_SITE)
                    .and_then(|value| value.to_str().ok())?;
                if matches!(site, "same-origin" | "none") {
                    return None;
                }
                Some(ApiError::CrossOriginRefused(format!(
                    "a request a browser sent from another site (Sec-Fetch-Site: {site}) is refused: without a token, only the daemon's own pages and the origins --cors-allow-origin names may change its state"
                )))
            }
        }
    }
}

/// The middleware that applies a [`FrontDoor`].
pub async fn check(State(door): State<Arc<FrontDoor>>, request: Request, next: Next) -> Response {
    if request.uri().path() == "/v1/health" {
        return next.run(request).await;
    }
    match door.refuse(request.method(), request.headers()) {
        Some(refusal) => {
            if WARNINGS.due() {
                tracing::warn!(
                    method = %request.method(),
                    path = request.uri().path(),
                    reason = %refusal,
                    "request refused at the front door (more are logged at debug level for a minute)"
                );
            } else {
                tracing::debug!(
                    method = %request.method(),
                    path = request.uri().path(),
                    reason = %refusal,
                    "request refused at the front door"
                );
            }
            refusal.into_response()
        }
        None => next.run(request).await,
    }
}

/// Refusals are logged as warnings at most once a minute (a hostile page may send
/// many), at debug level otherwise.
static WARNINGS: Throttle = Throttle::new(std::time::Duration::from_secs(60));

/// Lets something happen at most once per period.
struct Throttle {
    period: std::time::Duration,
    last: std::sync::Mutex<Option<std::time::Instant>>,
}

impl Throttle {
    const fn new(period: std::time::Duration) -> Self {
        Throttle {
            period,
            last: std::sync::Mutex::new(None),
        }
    }

    /// Whether the period has passed since the last time this answered true.
    fn due(&self) -> bool {
        let mut last = self.last.lock().expect("throttle");
        if last.is_some_and(|at| at.elapsed() < self.period) {
            return false;
        }
        *last = Some(std::time::Instant::now());
        true
    }
}

/// Whether a page at `origin` is the daemon's own (its origin names the `Host` the
/// request was sent to) or one of `allowed` (`*` allows any).
pub fn is_own_or_allowed(origin: &str, host: Option<&str>, allowed: &[String]) -> bool {
    let own = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .zip(host)
        .is_some_and(|(authority, host)| !host.is_empty() && authority.eq_ignore_ascii_case(host));
    own || allowed
        .iter()
        .any(|a| a == "*" || a.eq_ignore_ascii_case(origin))
}

/// Whether a request can change the daemon's state: every method but the safe
/// ones, and WebSocket handshakes (a terminal takes input over one).
fn changes_state(method: &Method, headers: &HeaderMap) -> bool {
    let safe = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    !safe || headers.contains_key(UPGRADE)
}

/// One `--allowed-host` value: a name (`sandbox.example.com`), a name with its port
/// (`sandbox.example.com:8080`), every subdomain of a domain (`.example.com`), or
/// any name (`*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPattern {
    /// Any name.
    Any,
    /// This name, on any port.
    Name(String),
    /// This name and port.
    NameAndPort(String),
    /// Names ending in this suffix (which starts with a dot).
    Suffix(String),
}

impl HostPattern {
    /// Reads a pattern; names are compared without case.
    pub fn parse(pattern: &str) -> Self {
        let pattern = pattern.trim().to_ascii_lowercase();
        if pattern == "*" {
            HostPattern::Any
        } else if pattern.starts_with('.') {
            HostPattern::Suffix(pattern)
        } else if split_port(&pattern).1.is_some() {
            HostPattern::NameAndPort(pattern)
        } else {
            HostPattern::Name(pattern)
        }
    }

    fn matches(&self, host: &str, name: &str) -> bool {
        match self {
            HostPattern::Any => true,
            HostPattern::Name(wanted) => name == wanted,
            HostPattern::NameAndPort(wanted) => host == wanted,
            HostPattern::Suffix(suffix) => name.ends_with(suffix.as_str()),
        }
    }
}

/// Whether a `Host` header value is a loopback name or matches a pattern.
pub fn host_allowed(host: &str, patterns: &[HostPattern]) -> bool {
    let host = host.trim().to_ascii_lowercase();
    let (name, _) = split_port(&host);
    // A fully qualified name may end with a dot.
    let name = name.strip_suffix('.').unwrap_or(name);
    is_loopback_name(name) || patterns.iter().any(|p| p.matches(&host, name))
}

/// `localhost`, an IPv4 address in 127.0.0.0/8, or `[::1]`: names no DNS answer
/// can make point elsewhere.
fn is_loopback_name(name: &str) -> bool {
    if name == "localhost" {
        return true;
    }
    if let Some(v6) = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
        return v6
            .parse::<std::net::Ipv6Addr>()
            .is_ok_and(|ip| ip.is_loopback());
    }
    name.parse::<std::net::Ipv4Addr>()
        .is_ok_and(|ip| ip.is_loopback())
}

/// A `Host` value's name and port (`[::1]:2468` -> (`[::1]`, 2468)).
fn split_port(host: &str) -> (&str, Option<&str>) {
    let colon = match host.rfind(':') {
        Some(colon) if !host[colon..].contains(']') => colon,
        _ => return (host, None),
    };
    let port = &host[colon + 1..];
    if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) {
        (&host[..colon], Some(port))
    } else {
        (host, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn no_token(allowed_hosts: &[&str], origins: &[&str]) -> FrontDoor {
        FrontDoor::new(
            false,
            &allowed_hosts
                .iter()
                .map(|h| h.to_string())
                .collect::<Vec<_>>(),
            origins.iter().map(|o| o.to_string()).collect(),
        )
    }

    #[test]
    fn loopback_names_are_answered_with_or_without_a_port() {
        for host in [
            "localhost",
            "LOCALHOST:2468",
            "localhost.:2468",
            "127.0.0.1",
            "127.0.0.1:2468",
            "127.1.2.3:80",
            "[::1]",
            "[::1]:2468",
        ] {
            assert!(host_allowed(host, &[]), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:2468",
            "localhost.evil.example",
            "127.0.0.1.nip.io:2468",
            "0.0.0.0:2468",
            "[::2]:2468",
            "192.168.1.5:2468",
            "",
        ] {
            assert!(!host_allowed(host, &[]), "{host}");
        }
    }

    #[test]
    fn allowed_host_patterns_add_names() {
        let patterns: Vec<_> = ["Sandbox.Example.com", "box:8080", ".e2b.app"]
            .into_iter()
            .map(HostPattern::parse)
            .collect();
        assert!(host_allowed("sandbox.example.com:2468", &patterns));
        assert!(host_allowed("box:8080", &patterns));
        assert!(!host_allowed("box:8081", &patterns));
        assert!(host_allowed("2468-abc.e2b.app", &patterns));
        assert!(!host_allowed("e2b.app.evil.example", &patterns));
        assert!(host_allowed("anything", &[HostPattern::Any]));
    }

    #[test]
    fn without_a_token_a_foreign_name_is_refused_and_with_one_it_is_not() {
        let request = headers(&[("host", "rebind.example:2468")]);
        let refused = no_token(&[], &[]).refuse(&Method::GET, &request);
        assert!(matches!(refused, Some(ApiError::HostNotAllowed(_))));
        assert!(no_token(&["rebind.example"], &[])
            .refuse(&Method::GET, &request)
            .is_none());
        let with_token = FrontDoor::new(true, &[], Arc::from([]));
        assert!(with_token.refuse(&Method::POST, &request).is_none());
        let with_token_and_hosts = FrontDoor::new(true, &["box".into()], Arc::from([]));
        assert!(with_token_and_hosts
            .refuse(&Method::GET, &request)
            .is_some());
    }

    #[test]
    fn without_a_token_only_own_and_allowed_pages_change_state() {
        let door = no_token(&[], &["http://localhost:5173"]);
        let from = |origin: &str| headers(&[("host", "127.0.0.1:2468"), ("origin", origin)]);
        // The daemon's own page, and an allowed origin.
        assert!(door
            .refuse(&Method::POST, &from("http://127.0.0.1:2468"))
            .is_none());
        assert!(door
            .refuse(&Method::DELETE, &from("http://localhost:5173"))
            .is_none());
        // Any other page, `null` origins included.
        for origin in ["http://evil.example", "http://127.0.0.1:3000", "null"] {
            assert!(
                matches!(
                    door.refuse(&Method::POST, &from(origin)),
                    Some(ApiError::CrossOriginRefused(_))
                ),
                "{origin}"
            );
        }
        // Reading is not changing state; a WebSocket handshake is.
        assert!(door
            .refuse(&Method::GET, &from("http://evil.example"))
            .is_none());
        let mut upgrade = from("http://evil.example");
        upgrade.insert(UPGRADE, HeaderValue::from_static("websocket"));
        assert!(door.refuse(&Method::GET, &upgrade).is_some());
        // Without `Origin`, the fetch metadata decides; programs send neither.
        let site = |value: &str| headers(&[("host", "localhost"), ("sec-fetch-site", value)]);
        assert!(door.refuse(&Method::POST, &site("cross-site")).is_some());
        assert!(door.refuse(&Method::POST, &site("same-site")).is_some());
        assert!(door.refuse(&Method::POST, &site("same-origin")).is_none());
        assert!(door
            .refuse(&Method::POST, &headers(&[("host", "localhost")]))
            .is_none());
    }

    #[test]
    fn ports_are_split_off_names_and_ipv6_literals() {
        assert_eq!(split_port("a:1"), ("a", Some("1")));
        assert_eq!(split_port("[::1]:2"), ("[::1]", Some("2")));
        assert_eq!(split_port("[::1]"), ("[::1]", None));
        assert_eq!(split_port("a:"), ("a:", None));
        assert_eq!(split_port("a:x"), ("a:x", None));
    }
}
