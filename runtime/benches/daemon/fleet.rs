//! The PostgreSQL store on loopback, and how long a session whose daemon died
//! waits before another daemon of the fleet carries it on.

use std::path::Path;
use std::time::{Duration, Instant};

use agentplex_client::CreateSessionRequest;
use agentplex_store::postgres::temp::TempPostgres;

use super::{ms, Daemon, Table};

/// Deaths timed (the median is reported).
const TAKEOVERS: usize = 5;

/// The daemon's stores: the default SQLite database, memory only, and a
/// PostgreSQL database on loopback (`--store`, when the bench could start a
/// server: [`Postgres`]), each with its label and flags.
pub fn stores(postgres: Option<&Postgres>) -> Vec<(String, Vec<String>)> {
    let mut stores = vec![
        ("SQLite store (default)".to_owned(), Vec::new()),
        ("--ephemeral".to_owned(), vec!["--ephemeral".to_owned()]),
    ];
    if let Some(postgres) = postgres {
        stores.push((
            "PostgreSQL store (--store, loopback)".to_owned(),
            vec!["--store".to_owned(), postgres.url.clone()],
        ));
    }
    stores
}

/// A PostgreSQL server of the bench's own, with one database for its daemons.
pub struct Postgres {
    _server: TempPostgres,
    /// The database's URL.
    pub url: String,
}

impl Postgres {
    /// Starts one, or says why not (no PostgreSQL installed).
    pub fn start() -> Option<Postgres> {
        match TempPostgres::start() {
            Ok(server) => {
                let url = server.create_database("bench");
                Some(Postgres {
                    _server: server,
                    url,
                })
            }
            Err(error) => {
                eprintln!("no PostgreSQL server for the bench ({error}): its rows are left out");
                None
            }
        }
    }
}

/// Kills the daemon driving a session (SIGKILL) and times how long until
/// another daemon of the fleet, asked for the session over and over, answers
/// for it as its owner; with the default lease (3 s), renewed every second.
pub async fn takeover(table: &mut Table, postgres: &Postgres, scratch: &Path, cache_dir: &Path) {
    let flags = ["--store", postgres.url.as_str()];
    let mut samples = Vec::new();
    let successor = Daemon::start_with(scratch, cache_dir, &flags);
    let request = CreateSessionRequest {
        agent: "mock".into(),
        ..Default::default()
    };
    for round in 0..TAKEOVERS {
        let mut owner = Daemon::start_with(scratch, cache_dir, &flags);
        let id = format!("taken-{round}");
        owner.client().create_session(&id, &request).await.unwrap();
        // Dies at another point of its renewal cycle each round, as a crash would.
        tokio::time::sleep(Duration::from_millis(250 * round as u64 + 100)).await;
        owner.child.kill().unwrap();
        let died = Instant::now();
        owner.child.wait().unwrap();
        // Asked over and over: each answer waits out what is left of the lease.
        let client = successor.client();
        while let Err(error) = client.get_session(&id).await {
            assert!(
                died.elapsed() < Duration::from_secs(30),
                "never taken over: {error:?}"
            );
        }
        samples.push(died.elapsed());
    }
    table.section("Fleet: a session whose daemon died (PostgreSQL on loopback)");
    let mut sorted = samples.clone();
    table.row(
        "owner killed → another daemon answers for it",
        ms(super::median(&mut sorted)),
        format!(
            "median of {TAKEOVERS} (default lease 3 s; each: {})",
            super::list_ms(&samples)
        ),
    );
}
