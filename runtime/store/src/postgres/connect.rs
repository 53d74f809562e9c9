//! Reaching the database: the URL (its `sslmode` and `sslrootcert`), TLS, the
//! name messages show (never the password), and what an error of the server or
//! of the network means for the store.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use postgres::config::Host;
use postgres::error::SqlState;
use postgres::{Client, Config};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::{cause, cause_while, StoreError};

/// How long one connection attempt may take when the URL does not say
/// (`connect_timeout`, in seconds).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long sent data may stay unacknowledged before the connection is taken
/// for dead, when the URL does not say (`tcp_user_timeout`): a write to a
/// server that vanished fails instead of waiting for ever.
const TCP_USER_TIMEOUT: Duration = Duration::from_secs(15);
/// The first pause between two attempts while the store opens; it doubles up to
/// [`LONGEST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(100);
const LONGEST_PAUSE: Duration = Duration::from_secs(2);

/// A database the store connects to.
pub(crate) struct Target {
    config: Config,
    tls: MakeRustlsConnect,
    /// `postgres://user@host:port/dbname`: what messages name.
    pub(crate) name: String,
}

/// What a failure says about the database, whatever was being done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Out of reach for now: refused, reset, closed, timed out, shutting down,
    /// starting, or too many connections. Trying again may work.
    Unreachable,
    /// The server's disk is full.
    Full,
    /// The server cannot write now (a read-only standby, failing I/O, no rights).
    Unwritable,
    /// Refused for good: authentication, no such database, bad configuration.
    Refused,
    /// What was asked failed (a bug, a constraint): not where the database lives.
    Other,
}

impl Target {
    /// Reads a `postgres://` (or `postgresql://`) URL. Besides the options the
    /// client knows, `sslrootcert=FILE` adds the certificates of a PEM file to
    /// the web's roots (`system`: the web's roots only), and `sslmode` may also
    /// be `verify-ca` or `verify-full`, the same as `require` here: whenever
    /// TLS is used the server's certificate and name are verified.
    pub(crate) fn parse(url: &str) -> Result<Self, StoreError> {
        let shown = shown_url(url);
        let refused = |error: crate::Cause| StoreError::Refused {
            database: shown.clone(),
            cause: error,
        };
        let (url, root_file) = take_tls_options(url);
        let mut config: Config = url
            .parse()
            .map_err(|error| refused(cause_while("reading the URL", error)))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_tcp_user_timeout().is_none() {
            config.tcp_user_timeout(TCP_USER_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("agentplex");
        }
        let name = name(&config);
        let tls = tls(root_file.as_ref()).map_err(|error| StoreError::Refused {
            database: name.clone(),
            cause: error,
        })?;
        Ok(Self { config, tls, name })
    }

    /// One attempt to connect, within `limit` (or the URL's `connect_timeout`
    /// if shorter).
    pub(crate) fn connect_once(&self, limit: Option<Duration>) -> Result<Client, postgres::Error> {
        match limit {
            Some(limit) => {
                let mut config = self.config.clone();
                let timeout = self
                    .config
                    .get_connect_timeout()
                    .map_or(limit, |timeout| (*timeout).min(limit));
                config.connect_timeout(timeout.max(Duration::from_millis(100)));
                config.connect(self.tls.clone())
            }
            None => self.config.connect(self.tls.clone()),
        }
    }

    /// Connects, trying again while the database is out of reach, for `within`
    /// at most; then an error naming the database and the last reason.
    pub(crate) fn connect_within(&self, within: Duration) -> Result<Client, StoreError> {
        let deadline = Instant::now() + within;
        let mut pause = FIRST_PAUSE;
        let mut said = false;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let error = match self.connect_once(Some(left)) {
                Ok(client) => return Ok(client),
                Err(error) => error,
            };
            let fault = classify(&error);
            if fault != Fault::Unreachable {
                let mut reason = describe(&error);
                if reason.contains("invalid peer certificate") {
                    reason.push_str(
                        " (name the authority that signed the server's certificate with \
                         sslrootcert=FILE in the URL)",
                    );
                }
                return Err(StoreError::Refused {
                    database: self.name.clone(),
                    cause: cause(reason),
                });
            }
            if Instant::now() + pause >= deadline {
                return Err(StoreError::Unreachable {
                    database: self.name.clone(),
                    cause: cause(format!(
                        "gave up after {} s: {}",
                        within.as_secs_f32().round(),
                        describe(&error)
                    )),
                });
            }
            if !said {
                tracing::warn!(database = %self.name, error = %describe(&error), "the session database cannot be reached yet; trying again");
                said = true;
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(LONGEST_PAUSE);
        }
    }

    /// `error` as the store reports it, naming this database when it is out of reach.
    pub(crate) fn error(&self, error: postgres::Error) -> StoreError {
        let fault = classify(&error);
        let error = cause(describe(&error));
        match fault {
            Fault::Unreachable | Fault::Refused => StoreError::Unreachable {
                database: self.name.clone(),
                cause: error,
            },
            Fault::Full => StoreError::Full(error),
            Fault::Unwritable => StoreError::Unwritable(error),
            Fault::Other => StoreError::Io(error),
        }
    }
}

/// What a failure says about where the database is (see [`Fault`]).
pub(crate) fn classify(error: &postgres::Error) -> Fault {
    if let Some(code) = error.code() {
        return classify_code(code);
    }
    let io =
        std::error::Error::source(error).and_then(|source| source.downcast_ref::<std::io::Error>());
    if io
        .and_then(|io| io.get_ref())
        .is_some_and(|inner| inner.is::<rustls::Error>())
    {
        // The server's certificate is not trusted (or TLS cannot be agreed on):
        // no retry changes that.
        return Fault::Refused;
    }
    let network = error.is_closed() || io.is_some() || error.to_string().starts_with("timeout");
    if network {
        Fault::Unreachable
    } else if error.to_string().starts_with("invalid") {
        Fault::Refused
    } else {
        Fault::Other
    }
}

fn classify_code(code: &SqlState) -> Fault {
    let code = code.code();
    match code {
        // disk_full
        "53100" => Fault::Full,
        // read_only_sql_transaction (a standby after a failover),
        // insufficient_privilege (rights taken away under the running daemon)
        "25006" | "42501" => Fault::Unwritable,
        // too_many_connections
        "53300" => Fault::Unreachable,
        // invalid_authorization_specification, invalid_password,
        // invalid_catalog_name (no such database)
        "28000" | "28P01" | "3D000" => Fault::Refused,
        _ if code.starts_with("08") || code.starts_with("57P") => Fault::Unreachable,
        // insufficient_resources, system_error (I/O)
        _ if code.starts_with("53") || code.starts_with("58") => Fault::Unwritable,
        _ => Fault::Other,
    }
}

/// An error with its causes, on one line (the client's own message says only
/// "db error" or "error connecting to server").
pub(crate) fn describe(error: &postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        return format!(
            "{}: {} (SQLSTATE {})",
            db.severity(),
            db.message(),
            db.code().code()
        );
    }
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}

/// The URL without `sslrootcert` (the client does not know it) and with
/// `sslmode=verify-*` as `require`; the root certificates file it named.
fn take_tls_options(url: &str) -> (String, Option<PathBuf>) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_owned(), None);
    };
    let mut root_file = None;
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match (key, value) {
            ("sslrootcert", "system") => {}
            ("sslrootcert", file) => root_file = Some(PathBuf::from(percent_decode(file))),
            ("sslmode", "verify-ca" | "verify-full") => kept.push("sslmode=require".to_owned()),
            _ => kept.push(pair.to_owned()),
        }
    }
    if kept.is_empty() {
        (base.to_owned(), root_file)
    } else {
        (format!("{base}?{}", kept.join("&")), root_file)
    }
}

/// `%XX` escapes decoded (a file name in a URL).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let hex = bytes
            .get(index + 1..index + 3)
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (bytes[index], hex) {
            (b'%', Some(byte)) => {
                decoded.push(byte);
                index += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

/// The TLS connector: the server's certificate verified against the web's
/// roots (webpki-roots, as reqwest's) and those of `root_file`.
fn tls(root_file: Option<&PathBuf>) -> Result<MakeRustlsConnect, crate::Cause> {
    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(file) = root_file {
        let reading = || format!("reading sslrootcert {}", file.display());
        let certificates = CertificateDer::pem_file_iter(file)
            .map_err(|error| cause_while(reading(), error))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| cause_while(reading(), error))?;
        if certificates.is_empty() {
            return Err(cause(format!("{} holds no certificate", file.display())));
        }
        for certificate in certificates {
            roots
                .add(certificate)
                .map_err(|error| cause_while(reading(), error))?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| cause_while("setting up TLS", error))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

/// `postgres://user@host:port/dbname` (several hosts joined by commas; a
/// Unix socket folder as it is), never the password.
fn name(config: &Config) -> String {
    let user = config.get_user().unwrap_or("");
    let ports = config.get_ports();
    let hosts: Vec<String> = if config.get_hosts().is_empty() {
        config
            .get_hostaddrs()
            .iter()
            .map(|address| address.to_string())
            .collect()
    } else {
        config
            .get_hosts()
            .iter()
            .map(|host| match host {
                Host::Tcp(name) => name.clone(),
                Host::Unix(folder) => folder.display().to_string(),
            })
            .collect()
    };
    let hosts: Vec<String> = hosts
        .into_iter()
        .enumerate()
        .map(|(index, host)| {
            let port = ports.get(index).or(ports.first()).copied().unwrap_or(5432);
            if host.contains(':') && !host.starts_with('/') {
                format!("[{host}]:{port}")
            } else {
                format!("{host}:{port}")
            }
        })
        .collect();
    let hosts = if hosts.is_empty() {
        "localhost:5432".to_owned()
    } else {
        hosts.join(",")
    };
    let dbname = config.get_dbname().unwrap_or(user);
    format!("postgres://{user}@{hosts}/{dbname}")
}

/// What a message may show of a URL that did not parse: its scheme and host
/// part without the user's password.
fn shown_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return "(not a postgres:// URL)".to_owned();
    };
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let rest = match rest.rsplit_once('@') {
        Some((credentials, host)) => {
            let user = credentials.split(':').next().unwrap_or("");
            format!("{user}@{host}")
        }
        None => rest.to_owned(),
    };
    format!("{scheme}://{rest}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_shown_never_holds_the_password() {
        let target =
            Target::parse("postgres://fleet:s3cret@db.example:6543/sessions?sslmode=require")
                .unwrap();
        assert_eq!(target.name, "postgres://fleet@db.example:6543/sessions");
        let target = Target::parse("postgresql://fleet@10.0.0.1/fleet").unwrap();
        assert_eq!(target.name, "postgres://fleet@10.0.0.1:5432/fleet");
        let error = Target::parse("postgres://fleet:s3cret@db.example/x?sslmode=sometimes")
            .err()
            .expect("refused");
        let message = error.to_string();
        assert!(!message.contains("s3cret"), "{message}");
        assert!(message.contains("fleet@db.example/x"), "{message}");
    }

    #[test]
    fn tls_options_the_client_does_not_know_are_taken_out() {
        let (url, file) = take_tls_options(
            "postgres://u@h/d?sslmode=verify-full&sslrootcert=%2Fetc%2Fca%20bundle.pem&application_name=x",
        );
        assert_eq!(url, "postgres://u@h/d?sslmode=require&application_name=x");
        assert_eq!(file, Some(PathBuf::from("/etc/ca bundle.pem")));
        let (url, file) = take_tls_options("postgres://u@h/d?sslrootcert=system");
        assert_eq!((url.as_str(), file), ("postgres://u@h/d", None));
        let error = Target::parse("postgres://u@h/d?sslrootcert=/nonexistent/ca.pem")
            .err()
            .expect("refused");
        assert!(error.to_string().contains("/nonexistent/ca.pem"), "{error}");
    }

    #[test]
    fn sqlstates_say_where_the_fault_is() {
        assert_eq!(classify_code(&SqlState::DISK_FULL), Fault::Full);
        assert_eq!(classify_code(&SqlState::ADMIN_SHUTDOWN), Fault::Unreachable);
        assert_eq!(
            classify_code(&SqlState::CONNECTION_FAILURE),
            Fault::Unreachable
        );
        assert_eq!(
            classify_code(&SqlState::READ_ONLY_SQL_TRANSACTION),
            Fault::Unwritable
        );
        assert_eq!(classify_code(&SqlState::INVALID_PASSWORD), Fault::Refused);
        assert_eq!(classify_code(&SqlState::UNIQUE_VIOLATION), Fault::Other);
    }
}
