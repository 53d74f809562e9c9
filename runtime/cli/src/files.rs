//! `agentplex fs ...`: the daemon's filesystem routes from the command line. File
//! contents stream both ways (`cat` to stdout, `put` from a file or stdin, `upload`
//! of a local directory as a tar archive built on the fly); the other commands print
//! the daemon's JSON answer.

use std::io::Write;
use std::path::{Path, PathBuf};

use agentplex_client::{
    FsDeleteQuery, FsEntriesQuery, FsMoveRequest, FsPathQuery, FsSessionQuery, FsUploadBatchQuery,
};
use clap::{Args, Subcommand};
use futures::StreamExt;
use tokio::io::AsyncWriteExt;

use super::error::CliError;
use super::human;
use super::remote::{call, show, Connection};

/// Where relative daemon paths start.
#[derive(Debug, Args)]
pub struct Scope {
    /// Resolve relative paths in this session's directory (else the daemon's home).
    #[arg(long = "session")]
    session: Option<String>,
    #[command(flatten)]
    connection: Connection,
}

#[derive(Debug, Subcommand)]
pub enum FsCommand {
    /// List a directory (the session's directory, or the home directory, by default).
    Ls {
        /// The directory on the daemon's side: absolute, or relative to the session's (or home) directory. [default: that directory].
        path: Option<String>,
        #[command(flatten)]
        scope: Scope,
    },
    /// Print a file's bytes to stdout.
    Cat {
        /// The path on the daemon's side: absolute, or relative to the session's (or home) directory.
        path: String,
        #[command(flatten)]
        scope: Scope,
    },
    /// Write a file from a local file, or from stdin.
    Put {
        /// The path on the daemon's side: absolute, or relative to the session's (or home) directory.
        path: String,
        /// Local file to send [default: stdin].
        #[arg(long = "from")]
        from: Option<PathBuf>,
        #[command(flatten)]
        scope: Scope,
    },
    /// A path's type, size and modification time.
    Stat {
        /// The path on the daemon's side: absolute, or relative to the session's (or home) directory.
        path: String,
        #[command(flatten)]
        scope: Scope,
    },
    /// Create a directory and its parents.
    Mkdir {
        /// The path on the daemon's side: absolute, or relative to the session's (or home) directory.
        path: String,
        #[command(flatten)]
        scope: Scope,
    },
    /// Move or rename a file or directory.
    Mv {
        /// The path to move (on the daemon's side, as for the other commands).
        from: String,
        /// Where it goes.
        to: String,
        /// Replace an existing destination.
        #[arg(long)]
        overwrite: bool,
        #[command(flatten)]
        scope: Scope,
    },
    /// Delete a file or directory.
    Rm {
        /// The path on the daemon's side: absolute, or relative to the session's (or home) directory.
        path: String,
        /// Delete a directory with everything in it.
        #[arg(long, short = 'r')]
        recursive: bool,
        #[command(flatten)]
        scope: Scope,
    },
    /// Upload a local directory (sent as a tar archive) or a `.tar`/`.tar.gz` file, unpacked
    /// under the daemon's directory `--to`.
    Upload {
        /// The local directory or `.tar`/`.tar.gz` file.
        local: PathBuf,
        /// Directory on the daemon's side [default: the session's or the home directory].
        #[arg(long = "to")]
        to: Option<String>,
        #[command(flatten)]
        scope: Scope,
    },
}

/// `agentplex fs ...`.
pub async fn fs(command: FsCommand) -> Result<(), CliError> {
    match command {
        FsCommand::Ls { path, scope } => {
            let query = FsEntriesQuery {
                path,
                session_id: scope.session.clone(),
            };
            let c = &scope.connection;
            show(c, &call(c, c.client()?.fs_entries(&query)).await?, |e| {
                human::entries(e)
            })
        }
        FsCommand::Cat { path, scope } => cat(path_query(path, &scope), &scope.connection).await,
        FsCommand::Put { path, from, scope } => {
            let body = match from {
                Some(file) => local_stream(&file).await?,
                None => reqwest::Body::wrap_stream(tokio_util::io::ReaderStream::new(
                    tokio::io::stdin(),
                )),
            };
            let c = &scope.connection;
            let query = path_query(path, &scope);
            show(
                c,
                &call(c, c.client()?.fs_write_file(&query, body)).await?,
                |w| format!("wrote {} bytes to {}", w.bytes_written, w.path),
            )
        }
        FsCommand::Stat { path, scope } => {
            let c = &scope.connection;
            let query = path_query(path, &scope);
            show(c, &call(c, c.client()?.fs_stat(&query)).await?, human::stat)
        }
        FsCommand::Mkdir { path, scope } => {
            let c = &scope.connection;
            let query = path_query(path, &scope);
            show(c, &call(c, c.client()?.fs_mkdir(&query)).await?, |done| {
                format!("created {}", done.path)
            })
        }
        FsCommand::Mv {
            from,
            to,
            overwrite,
            scope,
        } => {
            let c = &scope.connection;
            let query = FsSessionQuery {
                session_id: scope.session.clone(),
            };
            let request = FsMoveRequest {
                from,
                to,
                overwrite: Some(overwrite),
            };
            show(
                c,
                &call(c, c.client()?.fs_move(&query, &request)).await?,
                |moved| format!("moved {} to {}", moved.from, moved.to),
            )
        }
        FsCommand::Rm {
            path,
            recursive,
            scope,
        } => {
            let c = &scope.connection;
            let query = FsDeleteQuery {
                path,
                session_id: scope.session.clone(),
                recursive: Some(recursive),
            };
            show(c, &call(c, c.client()?.fs_delete(&query)).await?, |done| {
                format!("deleted {}", done.path)
            })
        }
        FsCommand::Upload { local, to, scope } => {
            let body = if local.is_dir() {
                tar_stream(local)
            } else {
                local_stream(&local).await?
            };
            let c = &scope.connection;
            let query = FsUploadBatchQuery {
                path: to,
                session_id: scope.session.clone(),
            };
            show(
                c,
                &call(c, c.client()?.fs_upload_batch(&query, body)).await?,
                |up| {
                    let more = if up.truncated {
                        " (list truncated)"
                    } else {
                        ""
                    };
                    format!("unpacked {} paths{more}", up.paths.len())
                },
            )
        }
    }
}

fn path_query(path: String, scope: &Scope) -> FsPathQuery {
    FsPathQuery {
        path,
        session_id: scope.session.clone(),
    }
}

/// Streams a file's bytes to stdout.
async fn cat(query: FsPathQuery, connection: &Connection) -> Result<(), CliError> {
    let mut chunks = call(connection, connection.client()?.fs_read_file(&query)).await?;
    let mut stdout = tokio::io::stdout();
    while let Some(chunk) = chunks.next().await {
        let chunk = call(connection, async { chunk }).await?;
        stdout
            .write_all(&chunk)
            .await
            .map_err(|e| CliError::invalid(format!("writing to stdout: {e}")))?;
    }
    stdout
        .flush()
        .await
        .map_err(|e| CliError::invalid(format!("writing to stdout: {e}")))
}

/// A local file as a streamed request body.
async fn local_stream(path: &Path) -> Result<reqwest::Body, CliError> {
    let file = tokio::fs::File::open(path)
        .await
        .map_err(|e| CliError::invalid(format!("cannot read {}: {e}", path.display())))?;
    Ok(reqwest::Body::wrap_stream(
        tokio_util::io::ReaderStream::new(file),
    ))
}

/// A tar archive of a local directory, built on a blocking thread while it is sent.
fn tar_stream(dir: PathBuf) -> reqwest::Body {
    let (sender, receiver) = tokio::sync::mpsc::channel::<std::io::Result<Vec<u8>>>(8);
    tokio::task::spawn_blocking(move || {
        let writer = std::io::BufWriter::with_capacity(1 << 16, ChannelWriter(sender.clone()));
        let mut builder = tar::Builder::new(writer);
        builder.follow_symlinks(false);
        let built = builder
            .append_dir_all(".", &dir)
            .and_then(|()| builder.into_inner())
            .and_then(|mut writer| writer.flush());
        if let Err(error) = built {
            let _ = sender.blocking_send(Err(std::io::Error::new(
                error.kind(),
                format!("archiving {}: {error}", dir.display()),
            )));
        }
    });
    reqwest::Body::wrap_stream(tokio_stream::wrappers::ReceiverStream::new(receiver))
}

/// Sends what is written as chunks of a request body.
struct ChannelWriter(tokio::sync::mpsc::Sender<std::io::Result<Vec<u8>>>);

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .blocking_send(Ok(buf.to_vec()))
            .map_err(|_| std::io::Error::other("the upload was abandoned"))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
