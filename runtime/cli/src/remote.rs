//! Client subcommands: one per HTTP route, printing the daemon's answers as
//! text for a person on a terminal, as JSON otherwise or with `--json`. A failed
//! request prints the problem on stderr and exits non-zero.

use std::path::PathBuf;

use agentplex_client::{
    AgentInstallRequest, Client, ClientError, CreateSessionRequest, EventStream, EventsQuery,
    MessageAttachment, MessageRequest, PermissionReply, RegistryAddRequest, SkillSource,
    SkillsConfig,
};
use clap::{Args, Subcommand, ValueEnum};
use futures::StreamExt;
use serde::Serialize;

use super::error::CliError;
use super::human::{self, OutputArgs, Transcript};

/// Where the daemon is and how to authenticate.
#[derive(Debug, Args)]
pub struct Connection {
    /// Base URL of the daemon.
    #[arg(
        long,
        env = "AGENTPLEX_ENDPOINT",
        default_value = "http://127.0.0.1:2468"
    )]
    pub(super) endpoint: String,
    /// Token of the daemon.
    #[arg(long, env = "AGENTPLEX_TOKEN", hide_env_values = true)]
    pub(super) token: Option<String>,
    #[command(flatten)]
    pub(super) output: OutputArgs,
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
        /// The agent id (`agentplex agents list` shows them).
        agent: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// An agent's models.
    Models {
        /// The agent id (`agentplex agents list` shows them).
        agent: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Install an agent's binary (progress on stderr, the outcome as JSON).
    Install {
        /// The agent id (`agentplex agents list` shows them).
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
    /// The agents of the ACP registry, with which can be installed here and
    /// which were added.
    Registry {
        /// Fetch the registry's index anew even when the cached copy is fresh.
        #[arg(long)]
        refresh: bool,
        #[command(flatten)]
        connection: Connection,
    },
    /// Add an agent of the ACP registry and install it (progress on stderr, the
    /// outcome as JSON): then it runs like the others, through the generic ACP
    /// adapter.
    Add {
        /// The registry's agent id (`agentplex agents registry` lists them).
        agent: String,
        /// A variable of the daemon's environment the agent's processes are given
        /// (its API key, its base URL); repeat for more.
        #[arg(long = "env", value_name = "NAME")]
        env: Vec<String>,
        /// Install again even when the entry's version is installed.
        #[arg(long)]
        reinstall: bool,
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
    List {
        /// Every session of the database the daemon shares with others
        /// (`--store postgres://...`), with the daemon driving each.
        #[arg(long)]
        fleet: bool,
        #[command(flatten)]
        connection: Connection,
    },
    /// Print one session (its entry of the list).
    Get {
        /// The session id.
        session_id: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Send a message (queued while a turn runs).
    Send {
        /// The session id.
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
        /// The session id.
        session_id: String,
        /// Last sequence already seen: the page starts after it [default: 0].
        #[arg(long)]
        offset: Option<u64>,
        /// Most events in the page [default: all].
        #[arg(long)]
        limit: Option<u64>,
        /// Include each event's native payload (`raw`).
        #[arg(long)]
        include_raw: bool,
        #[command(flatten)]
        connection: Connection,
    },
    /// Follow a session live (a transcript, or JSON lines with --json) until it ends.
    Watch {
        /// The session id.
        session_id: String,
        /// Last sequence already seen: start after it [default: 0, the whole transcript].
        #[arg(long)]
        offset: Option<u64>,
        /// Include each event's native payload (`raw`).
        #[arg(long)]
        include_raw: bool,
        #[command(flatten)]
        connection: Connection,
    },
    /// Interrupt the running turn.
    Cancel {
        /// The session id.
        session_id: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Change a running session's agent mode, permission mode, model or variant (from its next message on; one left out is kept).
    Modes {
        /// The session id.
        session_id: String,
        #[command(flatten)]
        modes: ModeArgs,
        #[command(flatten)]
        connection: Connection,
    },
    /// End a session and kill its processes.
    Terminate {
        /// The session id.
        session_id: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Remove a session and its transcript for good (ending it first if it runs).
    Delete {
        /// The session id.
        session_id: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Write a session as one archive: its transcript, its state and the agent's own session files.
    Export(super::moves::ExportArgs),
    /// Restore a session from an archive of `sessions export` (in another sandbox, say).
    Import(super::moves::ImportArgs),
    /// Move a session to another daemon, streaming it from one to the other.
    Move(super::moves::MoveArgs),
}

/// A session's agent mode, permission mode, model and variant, as `sessions create`,
/// `sessions modes` and `acp` take them (one left out: a new session's default,
/// or a running session's value kept).
#[derive(Debug, Args)]
pub struct ModeArgs {
    /// One of the agent's modes (`agentplex agents modes AGENT`); a new session's
    /// default is the agent's first.
    #[arg(long)]
    pub agent_mode: Option<String>,
    /// `default`, `acceptEdits`, `plan` or `bypass`; a new session's default is
    /// `default`.
    #[arg(long)]
    pub permission_mode: Option<String>,
    /// The model (`agentplex agents models AGENT` lists the agent's known ones); a
    /// new session's default is the agent's own.
    #[arg(long)]
    pub model: Option<String>,
    /// A variant of the model (such as a reasoning effort), where the agent has them
    /// (`agentplex agents models AGENT` lists them).
    #[arg(long)]
    pub variant: Option<String>,
}

impl From<ModeArgs> for agentplex_api::SessionModes {
    fn from(args: ModeArgs) -> Self {
        Self {
            agent_mode: args.agent_mode,
            permission_mode: args.permission_mode,
            model: args.model,
            variant: args.variant,
        }
    }
}

/// The flags of `sessions create`: the create request's fields.
#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The new session's id: 1-128 of A-Z a-z 0-9 . _ - (you choose it).
    session_id: String,
    /// The agent to run (`agentplex agents list` shows them).
    #[arg(long)]
    agent: String,
    #[command(flatten)]
    modes: ModeArgs,
    /// The agent version to run (installed on demand) [default: the installed or latest].
    #[arg(long)]
    agent_version: Option<String>,
    /// Working directory of the agent.
    #[arg(long)]
    directory: Option<String>,
    /// A title shown in session lists.
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
    /// The most the session's model calls may cost, in US dollars (needs a daemon
    /// with `--gateway`).
    #[arg(long, value_name = "USD")]
    max_cost_usd: Option<f64>,
    /// The most tokens the session's model calls may use, input and output
    /// together (needs a daemon with `--gateway`).
    #[arg(long, value_name = "TOKENS")]
    max_tokens: Option<u64>,
    /// Give the agent the sandbox's desktop as MCP tools (screenshot, click, type,
    /// key, scroll, open, windows).
    #[arg(long)]
    desktop: bool,
    /// An approval policy (a JSON file, docs/policies.md) deciding the agent's
    /// permission requests before you see them.
    #[arg(long, value_name = "FILE")]
    policy: Option<std::path::PathBuf>,
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
        let policy =
            match &self.policy {
                Some(path) => {
                    let text = std::fs::read_to_string(path).map_err(|e| {
                        CliError::invalid(format!("cannot read {}: {e}", path.display()))
                    })?;
                    Some(serde_json::from_str(&text).map_err(|e| {
                        CliError::invalid(format!("{}: not JSON: {e}", path.display()))
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
            agent_mode: self.modes.agent_mode,
            permission_mode: self.modes.permission_mode,
            model: self.modes.model,
            variant: self.modes.variant,
            agent_version: self.agent_version,
            directory: self.directory,
            title: self.title,
            env: (!self.env.is_empty()).then(|| self.env.into_iter().collect()),
            mcp,
            skills,
            budget: (self.max_cost_usd.is_some() || self.max_tokens.is_some()).then_some(
                agentplex_universal::BudgetLimits {
                    max_cost_usd: self.max_cost_usd,
                    max_tokens: self.max_tokens,
                },
            ),
            desktop: self.desktop.then_some(true),
            policy,
        };
        Ok((self.session_id, request))
    }
}

#[derive(Debug, Subcommand)]
pub enum QuestionsCommand {
    /// Answer a question.
    Reply {
        /// The session id.
        session_id: String,
        /// The question's id (in its `question.requested` event).
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
        /// The session id.
        session_id: String,
        /// The question's id (in its `question.requested` event).
        question_id: String,
        #[command(flatten)]
        connection: Connection,
    },
}

#[derive(Debug, Subcommand)]
pub enum PermissionsCommand {
    /// Answer a permission request.
    Reply {
        /// The session id.
        session_id: String,
        /// The request's id (in its `permission.requested` event).
        permission_id: String,
        /// once: allow this time; always: for the rest of the session; reject: refuse.
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
pub(super) enum KeyValueError {
    /// There is no `=`.
    #[error("expected KEY=VALUE, got {0:?}")]
    NoEquals(String),
    /// Nothing before the `=`.
    #[error("empty variable name in {0:?}")]
    EmptyKey(String),
}

/// A `KEY=VALUE` argument (`--env`).
pub(super) fn parse_key_value(text: &str) -> Result<(String, String), KeyValueError> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| KeyValueError::NoEquals(text.to_owned()))?;
    if key.is_empty() {
        return Err(KeyValueError::EmptyKey(text.to_owned()));
    }
    Ok((key.to_owned(), value.to_owned()))
}

/// `agentplex health`.
pub async fn health(connection: Connection) -> Result<(), CliError> {
    let client = connection.client()?;
    let health = call(&connection, client.health()).await?;
    show(&connection, &health, |health| {
        format!(
            "{} at {} (version {})",
            health.status,
            connection.endpoint,
            health.version.as_deref().unwrap_or("unknown")
        )
    })
}

/// `agentplex agents ...`.
pub async fn agents(command: AgentsCommand) -> Result<(), CliError> {
    match command {
        AgentsCommand::List(c) => {
            let list = call(&c, c.client()?.list_agents()).await?;
            show(&c, &list, |list| human::agents(&list.agents))
        }
        AgentsCommand::Modes {
            agent,
            connection: c,
        } => show(
            &c,
            &call(&c, c.client()?.agent_modes(&agent)).await?,
            human::modes,
        ),
        AgentsCommand::Models {
            agent,
            connection: c,
        } => show(
            &c,
            &call(&c, c.client()?.agent_models(&agent)).await?,
            human::models,
        ),
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
            let path = format!("/v1/agents/{agent}/install");
            let outcome =
                super::install::follow(&c.endpoint, c.token.as_deref(), &path, &request).await?;
            show(&c, &outcome, |outcome| {
                let version = outcome.version.as_deref().unwrap_or("(no version)");
                let place = outcome.path.as_deref().unwrap_or("builtin");
                match outcome.already_installed {
                    true => format!(
                        "{} {version} was already installed at {place}",
                        outcome.agent
                    ),
                    false => format!("installed {} {version} at {place}", outcome.agent),
                }
            })
        }
        AgentsCommand::Registry {
            refresh,
            connection: c,
        } => show(
            &c,
            &call(&c, c.client()?.list_registry(refresh)).await?,
            human::registry,
        ),
        AgentsCommand::Add {
            agent,
            env,
            reinstall,
            connection: c,
        } => {
            let request = RegistryAddRequest {
                env: Some(env),
                reinstall: Some(reinstall),
            };
            let path = format!("/v1/registry/{agent}");
            let outcome =
                super::install::follow(&c.endpoint, c.token.as_deref(), &path, &request).await?;
            show(&c, &outcome, |outcome| {
                let version = outcome.version.as_deref().unwrap_or("(no version)");
                let place = outcome.path.as_deref().unwrap_or("-");
                format!(
                    "added {} {version} from the ACP registry, at {place}",
                    outcome.agent
                )
            })
        }
    }
}

/// `agentplex sessions ...`.
pub async fn sessions(command: SessionsCommand) -> Result<(), CliError> {
    match command {
        SessionsCommand::Create {
            session,
            connection: c,
        } => {
            let (session_id, request) = (*session).into_request()?;
            let answer = call(&c, c.client()?.create_session(&session_id, &request)).await?;
            show(&c, &answer, |answer| {
                human::created(&session_id, &request.agent, answer)
            })
        }
        SessionsCommand::List {
            fleet,
            connection: c,
        } => {
            let scope = match fleet {
                true => agentplex_client::SessionScope::Fleet,
                false => agentplex_client::SessionScope::Daemon,
            };
            let list = call(&c, c.client()?.list_sessions_in(scope)).await?;
            show(&c, &list, |list| human::sessions(&list.sessions))
        }
        SessionsCommand::Get {
            session_id,
            connection: c,
        } => show(
            &c,
            &call(&c, c.client()?.get_session(&session_id)).await?,
            human::session,
        ),
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
                done(
                    &c,
                    format!("sent; follow it: agentplex sessions watch {session_id}"),
                )
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
            let page = call(&c, c.client()?.events(&session_id, &query)).await?;
            show(&c, &page, |page| {
                let mut transcript = Transcript::default();
                let mut text: String = page.events.iter().map(|e| transcript.render(e)).collect();
                if let (true, Some(last)) = (page.has_more, page.events.last()) {
                    text.push_str(&format!("\n(more: --offset {})", last.sequence));
                }
                text.trim_end().to_owned()
            })
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
            done(&c, format!("cancelled the running turn of {session_id}"))
        }
        SessionsCommand::Modes {
            session_id,
            modes,
            connection: c,
        } => {
            let change = agentplex_api::SessionModes::from(modes);
            let modes = call(&c, c.client()?.set_modes(&session_id, &change)).await?;
            show(&c, &modes, |modes| human::modes_changed(&session_id, modes))
        }
        SessionsCommand::Terminate {
            session_id,
            connection: c,
        } => {
            call(&c, c.client()?.terminate(&session_id)).await?;
            done(&c, format!("terminated {session_id}"))
        }
        SessionsCommand::Delete {
            session_id,
            connection: c,
        } => {
            call(&c, c.client()?.delete_session(&session_id)).await?;
            done(&c, format!("deleted {session_id}"))
        }
        SessionsCommand::Export(args) => super::moves::export(args).await,
        SessionsCommand::Import(args) => super::moves::import(args).await,
        SessionsCommand::Move(args) => super::moves::move_session(args).await,
    }
}

/// `agentplex questions ...`.
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
            done(&c, format!("answered {question_id}"))
        }
        QuestionsCommand::Reject {
            session_id,
            question_id,
            connection: c,
        } => {
            call(&c, c.client()?.reject_question(&session_id, &question_id)).await?;
            done(&c, format!("declined {question_id}"))
        }
    }
}

/// `agentplex permissions ...`.
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
            done(&c, format!("answered {permission_id}"))
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

/// Prints events as they come: a transcript for a person, JSON lines otherwise.
async fn print_events(connection: &Connection, mut events: EventStream) -> Result<(), CliError> {
    use std::io::Write;
    let human = connection.output.human();
    let mut transcript = Transcript::default();
    let mut stdout = std::io::stdout();
    while let Some(event) = events.next().await {
        let event = event.map_err(|e| CliError::request(&connection.endpoint, e))?;
        let text = if human {
            transcript.render(&event)
        } else {
            serde_json::to_string(&event).map_err(CliError::invalid)? + "\n"
        };
        // Streamed text shows as it comes, not line by line.
        let _ = stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush());
    }
    Ok(())
}

/// Prints an answer: `text` of it for a person, JSON otherwise.
pub(super) fn show<T: Serialize>(
    connection: &Connection,
    value: &T,
    text: impl FnOnce(&T) -> String,
) -> Result<(), CliError> {
    if connection.output.human() {
        println!("{}", text(value));
        Ok(())
    } else {
        print_json(value)
    }
}

pub(super) fn print_json(value: &impl Serialize) -> Result<(), CliError> {
    println!(
        "{}",
        serde_json::to_string_pretty(value).map_err(CliError::invalid)?
    );
    Ok(())
}

/// What a command whose route answers 204 prints: `what` happened, for a
/// person; `{"ok": true}` otherwise.
pub(super) fn done(connection: &Connection, what: String) -> Result<(), CliError> {
    show(connection, &serde_json::json!({ "ok": true }), |_| what)
}
