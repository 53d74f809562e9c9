//! A store thread's connection to the database: made when needed, made again
//! after it was lost, with the statements prepared on it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use postgres::{Client, GenericClient, Statement};

use super::connect::{classify, Fault, Target};
use super::RECONNECT_PAUSE;
use crate::StoreError;

/// A connection and the statements prepared on it.
pub(crate) struct Connection {
    pub(crate) client: Client,
    pub(crate) statements: Statements,
}

impl Connection {
    pub(crate) fn new(client: Client) -> Self {
        Self {
            client,
            statements: Statements(HashMap::new()),
        }
    }
}

/// The statements prepared on a connection, by their SQL.
pub(crate) struct Statements(HashMap<&'static str, Statement>);

impl Statements {
    /// `sql` prepared through `client` (once per connection; a transaction of
    /// the connection may be the client).
    pub(crate) fn get(
        &mut self,
        client: &mut impl GenericClient,
        sql: &'static str,
    ) -> Result<Statement, postgres::Error> {
        if let Some(statement) = self.0.get(sql) {
            return Ok(statement.clone());
        }
        let statement = client.prepare(sql)?;
        self.0.insert(sql, statement.clone());
        Ok(statement)
    }
}

/// Why a piece of work on the database failed: the server (or the way to it),
/// or the store itself (what it read does not decode).
pub(crate) enum Failure {
    Sql(postgres::Error),
    Store(StoreError),
}

impl From<postgres::Error> for Failure {
    fn from(error: postgres::Error) -> Self {
        Failure::Sql(error)
    }
}

impl From<StoreError> for Failure {
    fn from(error: StoreError) -> Self {
        Failure::Store(error)
    }
}

impl From<serde_json::Error> for Failure {
    fn from(error: serde_json::Error) -> Self {
        Failure::Store(error.into())
    }
}

/// What a thread runs on connecting, before any work (the writer makes sure its
/// commits are flushed to disk).
pub(crate) type Setup = fn(&mut Connection) -> Result<(), postgres::Error>;

/// A thread's way to the database.
pub(crate) struct Link {
    target: Arc<Target>,
    connection: Option<Connection>,
    setup: Setup,
    /// When the last attempt to connect failed, and why: the next is not made
    /// before [`RECONNECT_PAUSE`] (everyone asking meanwhile gets this answer).
    failed: Option<(Instant, StoreError)>,
}

impl Link {
    pub(crate) fn new(target: Arc<Target>, connection: Option<Connection>, setup: Setup) -> Self {
        Self {
            target,
            connection,
            setup,
            failed: None,
        }
    }

    /// The connection, made now if there is none.
    fn connection(&mut self) -> Result<(&mut Connection, bool), StoreError> {
        let fresh = self.connection.is_none();
        if fresh {
            if let Some((at, error)) = &self.failed {
                if at.elapsed() < RECONNECT_PAUSE {
                    return Err(error.clone());
                }
            }
            let made = self
                .target
                .connect_once(None)
                .map_err(|error| self.target.error(error))
                .and_then(|client| {
                    let mut connection = Connection::new(client);
                    (self.setup)(&mut connection).map_err(|error| self.target.error(error))?;
                    Ok(connection)
                });
            match made {
                Ok(connection) => {
                    self.failed = None;
                    self.connection = Some(connection);
                }
                Err(error) => {
                    self.failed = Some((Instant::now(), error.clone()));
                    return Err(error);
                }
            }
        }
        Ok((self.connection.as_mut().expect("connected above"), fresh))
    }

    /// Runs `work` on the connection. When the connection turns out lost (the
    /// server restarted or closed it since it was last used), `work` runs once
    /// more on a new one: everything the store does is safe to do twice.
    pub(crate) fn run<T>(
        &mut self,
        mut work: impl FnMut(&mut Connection) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        loop {
            let (connection, fresh) = self.connection()?;
            let error = match work(connection) {
                Ok(value) => return Ok(value),
                Err(Failure::Store(error)) => return Err(error),
                Err(Failure::Sql(error)) => error,
            };
            let lost = classify(&error) == Fault::Unreachable || connection.client.is_closed();
            if lost {
                self.connection = None;
            }
            if !lost || fresh {
                return Err(self.target.error(error));
            }
            tracing::debug!(error = %super::connect::describe(&error), "the session database's connection was lost; connecting again");
        }
    }
}
