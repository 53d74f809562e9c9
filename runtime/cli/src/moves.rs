//! `agentplex sessions export | import | move`: a session out of one daemon as an
//! archive, into another from one, or straight from one daemon to another with
//! nothing stored in between.

use std::path::PathBuf;

use agentplex_client::{Client, ImportSessionQuery, ImportSessionResponse};
use clap::Args;
use futures::StreamExt;
use tokio::io::AsyncWriteExt;

use super::error::CliError;
use super::remote::{call, parse_key_value, show, Connection};

/// `sessions export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The session id.
    session_id: String,
    /// Where the archive goes [default: SESSION_ID.agentplex.tar.gz; `-` for stdout].
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    connection: Connection,
}

/// What `sessions import` and `sessions move` do with the session they bring in.
#[derive(Debug, Args)]
pub struct Landing {
    /// The session's working directory there [default: the one it had, when it exists there].
    #[arg(long)]
    directory: Option<String>,
    /// A secret variable the export left out (KEY=VALUE, repeatable).
    #[arg(long = "env", value_parser = parse_key_value)]
    env: Vec<(String, String)>,
}

/// `sessions import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The id the session gets here.
    session_id: String,
    /// The archive (`-` for stdin).
    file: PathBuf,
    #[command(flatten)]
    landing: Landing,
    #[command(flatten)]
    connection: Connection,
}

/// `sessions move`.
#[derive(Debug, Args)]
pub struct MoveArgs {
    /// The session id.
    session_id: String,
    /// Base URL of the daemon the session moves to.
    #[arg(long)]
    to: String,
    /// Token of the daemon the session moves to.
    #[arg(long, env = "AGENTPLEX_TO_TOKEN", hide_env_values = true)]
    to_token: Option<String>,
    /// The id the session gets there [default: the same].
    #[arg(long)]
    as_id: Option<String>,
    /// Delete the session here once it is there.
    #[arg(long)]
    delete: bool,
    #[command(flatten)]
    landing: Landing,
    #[command(flatten)]
    connection: Connection,
}

/// `agentplex sessions export`.
pub async fn export(args: ExportArgs) -> Result<(), CliError> {
    let c = &args.connection;
    let mut archive = call(c, c.client()?.export_session(&args.session_id)).await?;
    let path = args
        .output
        .unwrap_or_else(|| PathBuf::from(format!("{}.agentplex.tar.gz", args.session_id)));
    let to_stdout = path.as_os_str() == "-";
    let mut out: Box<dyn tokio::io::AsyncWrite + Unpin> = if to_stdout {
        Box::new(tokio::io::stdout())
    } else {
        let file = tokio::fs::File::create(&path)
            .await
            .map_err(|e| CliError::invalid(format!("cannot write {}: {e}", path.display())))?;
        Box::new(file)
    };
    let mut bytes = 0u64;
    while let Some(chunk) = archive.next().await {
        let chunk = chunk.map_err(|e| CliError::request(&c.endpoint, e))?;
        bytes += chunk.len() as u64;
        out.write_all(&chunk)
            .await
            .map_err(|e| CliError::invalid(format!("cannot write {}: {e}", path.display())))?;
    }
    out.flush()
        .await
        .map_err(|e| CliError::invalid(format!("cannot write {}: {e}", path.display())))?;
    if !to_stdout {
        let what = serde_json::json!({ "path": path, "bytes": bytes });
        show(c, &what, |_| {
            format!(
                "exported {} to {} ({bytes} bytes)",
                args.session_id,
                path.display()
            )
        })?;
    }
    Ok(())
}

/// `agentplex sessions import`.
pub async fn import(args: ImportArgs) -> Result<(), CliError> {
    let c = &args.connection;
    let archive = if args.file.as_os_str() == "-" {
        let mut bytes = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut tokio::io::stdin(), &mut bytes)
            .await
            .map_err(|e| CliError::invalid(format!("cannot read stdin: {e}")))?;
        reqwest::Body::from(bytes)
    } else {
        let file = tokio::fs::File::open(&args.file)
            .await
            .map_err(|e| CliError::invalid(format!("cannot read {}: {e}", args.file.display())))?;
        reqwest::Body::wrap_stream(tokio_util::io::ReaderStream::new(file))
    };
    let (query, env) = args.landing.parts();
    let answer = call(
        c,
        c.client()?
            .import_session(&args.session_id, &query, &env, archive),
    )
    .await?;
    show(c, &answer, |answer| landed("imported", answer))
}

/// `agentplex sessions move`.
pub async fn move_session(args: MoveArgs) -> Result<(), CliError> {
    let c = &args.connection;
    let from = c.client()?;
    let to =
        Client::new(&args.to, args.to_token.clone()).map_err(|e| CliError::request(&args.to, e))?;
    let to_id = args.as_id.as_deref().unwrap_or(&args.session_id);
    let (query, env) = args.landing.parts();
    let answer = from
        .move_session(&args.session_id, &to, to_id, &query, &env)
        .await
        .map_err(|e| match e.problem() {
            Some(_) => CliError::request(&args.to, e),
            None => CliError::request(&c.endpoint, e),
        })?;
    if args.delete {
        call(c, from.delete_session(&args.session_id)).await?;
    }
    show(c, &answer, |answer| {
        landed(&format!("moved to {}", args.to), answer)
    })
}

impl Landing {
    /// The import's query and secret variables.
    fn parts(&self) -> (ImportSessionQuery, Vec<(String, String)>) {
        let query = ImportSessionQuery {
            directory: self.directory.clone(),
        };
        (query, self.env.clone())
    }
}

/// What a person reads after an import.
fn landed(how: &str, answer: &ImportSessionResponse) -> String {
    let session = &answer.session;
    let mut text = format!(
        "{how}: {} ({}, {} events, in {})",
        session.session_id,
        session.agent,
        session.event_count,
        session.directory.as_deref().unwrap_or("?")
    );
    match &answer.lost {
        Some(lost) => text.push_str(&format!(
            "\nthe agent's own session did not come along ({lost}): the next message starts a new one"
        )),
        None => text.push_str(&format!(
            "\nthe agent's own session came along ({} files): the next message resumes it",
            answer.native_files
        )),
    }
    if !answer.missing_secrets.is_empty() {
        text.push_str(&format!(
            "\nnot given (pass them with --env): {}",
            answer.missing_secrets.join(", ")
        ));
    }
    text
}
