//! Client subcommands: one per HTTP route, printing the daemon's JSON answers.
//! A failed request prints the problem document on stderr and exits non-zero.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use futures::StreamExt;
use sandbox_agent_client::{
    AgentInstallRequest, Client, ClientError, CreateSessionRequest, EventStream, EventsQuery,
    MessageAttachment, MessageRequest, PermissionReply, SkillSource, SkillsConfig,
};
use serde::Serialize;

use super::error::CliError;

/// Where the daemon is and how to authenticate.
#[derive(Debug, Args)]
pub struct Connection {
    /// Base URL of the daemon.
    #[arg(
        long,
        env = "SANDBOX_AGENT_ENDPOINT",
        default_value = "http://127.0.0.1:2468"
    )]
    pub(super) endpoint: String,
    /// Token of the daemon.
    #[arg(long, env = "SANDBOX_AGENT_TOKEN", hide_env_values = true)]
    pub(super) token: Option<String>,
}

impl Connection {
    pub(super) fn client(&self) -> Result<Client, CliError> {
        Client::new(&self.endpoint, self.token.clone())
            .map_err(|e| CliError::request(&self.endpoint, e))
    }
}

#[derive(Debug, Subcommand)]
pub enum AgentsCommand {
    /// List agents with install state and capabilities.
    List(Connection),
    /// An agent's modes.
    Modes {
        agent: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// An agent's models.
    Models {
        agent: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Install an agent's binary (progress on stderr, the outcome as JSON).
    Install {
        agent: String,
        /// Install again even when the version is already installed.
        #[arg(long)]
        reinstall: bool,
        /// Version to install (latest when absent).
        #[arg(long = "version", visible_alias = "agent-version")]
        version: Option<String>,
        #[command(flatten)]
        connection: Connection,
    },
}

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Create a session.
    Create {
        #[command(flatten)]
        session: Box<CreateArgs>,
        #[command(flatten)]
        connection: Connection,
    },
    /// List sessions.
    List(Connection),
    /// Print one session (its entry of the list).
    Get {
        session_id: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Send a message (queued while a turn runs).
    Send {
        session_id: String,
        /// The message text (words are joined with spaces).
        #[arg(required = true)]
        message: Vec<String>,
        /// Attach a file by path (repeatable).
        #[arg(long = "attach")]
        attachments: Vec<PathBuf>,
        /// Print the turn's events as JSON lines until it needs you or ends.
        #[arg(long)]
        stream: bool,
        /// Include native payloads (with --stream).
        #[arg(long)]
        include_raw: bool,
        #[command(flatten)]
        connection: Connection,
    },
    /// Print a page of a session's events.
    Events {
        session_id: String,
        /// Last sequence already seen.
        #[arg(long)]
        offset: Option<u64>,
        #[arg(long)]
        limit: Option<u64>,
        #[arg(long)]
        include_raw: bool,
        #[command(flatten)]
        connection: Connection,
    },
    /// Follow a session's events as JSON lines until it ends.
    Watch {
        session_id: String,
        /// Last sequence already seen.
        #[arg(long)]
        offset: Option<u64>,
        #[arg(long)]
        include_raw: bool,
        #[command(flatten)]
        connection: Connection,
    },
    /// Interrupt the running turn.
    Cancel {
        session_id: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// End a session and kill its processes.
    Terminate {
        session_id: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Remove a session and its transcript for good (ending it first if it runs).
    Delete {
        session_id: String,
        #[command(flatten)]
        connection: Connection,
    },
}

/// The flags of `sessions create`: the create request's fields.
#[derive(Debug, Args)]
pub struct CreateArgs {
    session_id: String,
    #[arg(long)]
    agent: String,
    #[arg(long)]
    agent_mode: Option<String>,
    /// default, plan or bypass.
    #[arg(long)]
    permission_mode: Option<String>,
    #[arg(long)]
    model: Option<String>,
    #[arg(long)]
    variant: Option<String>,
    #[arg(long)]
    agent_version: Option<String>,
    /// Working directory of the agent.
    #[arg(long)]
    directory: Option<String>,
    #[arg(long)]
    title: Option<String>,
    /// Extra environment variable for the agent (KEY=VALUE, repeatable).
    #[arg(long = "env", value_parser = parse_key_value)]
    env: Vec<(String, String)>,
    /// MCP servers: a JSON file of the request's `mcp` object (server name → config).
    #[arg(long = "mcp-config")]
    mcp_config: Option<PathBuf>,
    /// A local skills folder (a skill, or folders of skills), repeatable.
    #[arg(long = "skill")]
    skills: Vec<String>,
}

impl CreateArgs {
    /// The session id and the request body.
    fn into_request(self) -> Result<(String, CreateSessionRequest), CliError> {
        let mcp = match &self.mcp_config {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    CliError::invalid(format!("cannot read {}: {e}", path.display()))
                })?;
                Some(serde_json::from_str(&text).map_err(|e| {
                    CliError::invalid(format!(
                        "{}: not an MCP server map (name → config): {e}",
                        path.display()
                    ))
                })?)
            }
            None => None,
        };
        let skills = (!self.skills.is_empty()).then(|| SkillsConfig {
            sources: self
                .skills
                .iter()
                .map(|source| SkillSource {
                    source_type: "local".into(),
                    source: source.clone(),
                    ..SkillSource::default()
                })
                .collect(),
        });
        let request = CreateSessionRequest {
            agent: self.agent,
            agent_mode: self.agent_mode,
            permission_mode: self.permission_mode,
            model: self.model,
            variant: self.variant,
            agent_version: self.agent_version,
            directory: self.directory,
            title: self.title,
            env: (!self.env.is_empty()).then(|| self.env.into_iter().collect()),
            mcp,
            skills,
        };
        Ok((self.session_id, request))
    }
}

#[derive(Debug, Subcommand)]
pub enum QuestionsCommand {
    /// Answer a question.
    Reply {
        session_id: String,
        question_id: String,
        /// A chosen answer to the (first) prompt (repeatable).
        #[arg(long = "answer", conflicts_with = "answers")]
        answer: Vec<String>,
        /// All answers as JSON: one array of strings per prompt, e.g. '[["Red"]]'.
        #[arg(long)]
        answers: Option<String>,
        #[command(flatten)]
        connection: Connection,
    },
    /// Decline a question.
    Reject {
        session_id: String,
        question_id: String,
        #[command(flatten)]
        connection: Connection,
    },
}

#[derive(Debug, Subcommand)]
pub enum PermissionsCommand {
    /// Answer a permission request.
    Reply {
        session_id: String,
        permission_id: String,
        reply: ReplyArg,
        #[command(flatten)]
        connection: Connection,
    },
}

/// A permission reply on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ReplyArg {
    Once,
    Always,
    Reject,
}

/// Why a `KEY=VALUE` argument is not one (clap prints it after the argument).
#[derive(Debug, thiserror::Error)]
enum KeyValueError {
    /// There is no `=`.
    #[error("expected KEY=VALUE, got {0:?}")]
    NoEquals(String),
    /// Nothing before the `=`.
    #[error("empty variable name in {0:?}")]
    EmptyKey(String),
}

/// A `KEY=VALUE` argument (`--env`).
fn parse_key_value(text: &str) -> Result<(String, String), KeyValueError> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| KeyValueError::NoEquals(text.to_owned()))?;
    if key.is_empty() {
        return Err(KeyValueError::EmptyKey(text.to_owned()));
    }
    Ok((key.to_owned(), value.to_owned()))
}

/// `sandbox-agent health`.
pub async fn health(connection: Connection) -> Result<(), CliError> {
    let client = connection.client()?;
    print_json(&call(&connection, client.health()).await?)
}

/// `sandbox-agent agents ...`.
pub async fn agents(command: AgentsCommand) -> Result<(), CliError> {
    match command {
        AgentsCommand::List(c) => print_json(&call(&c, c.client()?.list_agents()).await?),
        AgentsCommand::Modes {
            agent,
            connection: c,
        } => print_json(&call(&c, c.client()?.agent_modes(&agent)).await?),
        AgentsCommand::Models {
            agent,
            connection: c,
        } => print_json(&call(&c, c.client()?.agent_models(&agent)).await?),
        AgentsCommand::Install {
            agent,
            reinstall,
            version,
            connection: c,
        } => {
            let request = AgentInstallRequest {
                reinstall: Some(reinstall),
                version,
            };
            print_json(
                &super::install::follow(&c.endpoint, c.token.as_deref(), &agent, &request).await?,
            )
        }
    }
}

/// `sandbox-agent sessions ...`.
pub async fn sessions(command: SessionsCommand) -> Result<(), CliError> {
    match command {
        SessionsCommand::Create {
            session,
            connection: c,
        } => {
            let (session_id, request) = (*session).into_request()?;
            print_json(&call(&c, c.client()?.create_session(&session_id, &request)).await?)
        }
        SessionsCommand::List(c) => print_json(&call(&c, c.client()?.list_sessions()).await?),
        SessionsCommand::Get {
            session_id,
            connection: c,
        } => print_json(&call(&c, c.client()?.get_session(&session_id)).await?),
        SessionsCommand::Send {
            session_id,
            message,
            attachments,
            stream,
            include_raw,
            connection: c,
        } => {
            let request = MessageRequest {
                message: Some(message.join(" ")),
                attachments: attachments
                    .into_iter()
                    .map(|path| MessageAttachment {
                        path: path.display().to_string(),
                        mime: None,
                        filename: None,
                    })
                    .collect(),
                parts: None,
            };
            let client = c.client()?;
            if stream {
                let events = call(
                    &c,
                    client.send_message_stream(&session_id, &request, include_raw),
                )
                .await?;
                print_events(&c, events).await
            } else {
                call(&c, client.send_message(&session_id, &request)).await?;
                print_done()
            }
        }
        SessionsCommand::Events {
            session_id,
            offset,
            limit,
            include_raw,
            connection: c,
        } => {
            let query = EventsQuery {
                offset,
                limit,
                include_raw: Some(include_raw),
            };
            print_json(&call(&c, c.client()?.events(&session_id, &query)).await?)
        }
        SessionsCommand::Watch {
            session_id,
            offset,
            include_raw,
            connection: c,
        } => {
            let events = call(
                &c,
                c.client()?
                    .events_sse(&session_id, offset, include_raw, None),
            )
            .await?;
            print_events(&c, events).await
        }
        SessionsCommand::Cancel {
            session_id,
            connection: c,
        } => {
            call(&c, c.client()?.cancel(&session_id)).await?;
            print_done()
        }
        SessionsCommand::Terminate {
            session_id,
            connection: c,
        } => {
            call(&c, c.client()?.terminate(&session_id)).await?;
            print_done()
        }
        SessionsCommand::Delete {
            session_id,
            connection: c,
        } => {
            call(&c, c.client()?.delete_session(&session_id)).await?;
            print_done()
        }
    }
}

/// `sandbox-agent questions ...`.
pub async fn questions(command: QuestionsCommand) -> Result<(), CliError> {
    match command {
        QuestionsCommand::Reply {
            session_id,
            question_id,
            answer,
            answers,
            connection: c,
        } => {
            let answers = match answers {
                Some(json) => serde_json::from_str::<Vec<Vec<String>>>(&json).map_err(|e| {
                    CliError::invalid(format!(
                        "--answers must be a JSON array of string arrays: {e}"
                    ))
                })?,
                None => vec![answer],
            };
            call(
                &c,
                c.client()?
                    .reply_question(&session_id, &question_id, answers),
            )
            .await?;
            print_done()
        }
        QuestionsCommand::Reject {
            session_id,
            question_id,
            connection: c,
        } => {
            call(&c, c.client()?.reject_question(&session_id, &question_id)).await?;
            print_done()
        }
    }
}

/// `sandbox-agent permissions ...`.
pub async fn permissions(command: PermissionsCommand) -> Result<(), CliError> {
    match command {
        PermissionsCommand::Reply {
            session_id,
            permission_id,
            reply,
            connection: c,
        } => {
            let reply = match reply {
                ReplyArg::Once => PermissionReply::Once,
                ReplyArg::Always => PermissionReply::Always,
                ReplyArg::Reject => PermissionReply::Reject,
            };
            call(
                &c,
                c.client()?
                    .reply_permission(&session_id, &permission_id, reply),
            )
            .await?;
            print_done()
        }
    }
}

/// Awaits a request, turning a failure into a [`CliError`].
pub(super) async fn call<T>(
    connection: &Connection,
    request: impl std::future::Future<Output = Result<T, ClientError>>,
) -> Result<T, CliError> {
    request
        .await
        .map_err(|error| CliError::request(&connection.endpoint, error))
}

async fn print_events(connection: &Connection, mut events: EventStream) -> Result<(), CliError> {
    while let Some(event) = events.next().await {
        let event = event.map_err(|e| CliError::request(&connection.endpoint, e))?;
        println!(
            "{}",
            serde_json::to_string(&event).map_err(CliError::invalid)?
        );
    }
    Ok(())
}

pub(super) fn print_json(value: &impl Serialize) -> Result<(), CliError> {
    println!(
        "{}",
        serde_json::to_string_pretty(value).map_err(CliError::invalid)?
    );
    Ok(())
}

/// What a command whose route answers 204 prints.
fn print_done() -> Result<(), CliError> {
    print_json(&serde_json::json!({ "ok": true }))
}
