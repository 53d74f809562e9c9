//! `agentplex gateway`: the model-key broker, run outside the sandbox with the
//! providers' real keys (`--keys FILE`), and `gateway --new-token`, which makes
//! a sandbox's token and the hash the keys file knows it by. The broker itself is
//! `agentplex_gateway::Broker`; this is its command line.

use std::io::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use agentplex_gateway::{Broker, BrokerConfig, Prices, SandboxToken};
use clap::Args;
use serde_json::json;

use crate::error::LocalError;
use crate::{block_on, logging, Failure};

/// `agentplex gateway` flags.
#[derive(Debug, Args)]
pub struct GatewayArgs {
    /// The keys file: each provider's base URL and real key, and each sandbox's
    /// token hash (JSON, in the shape docs/gateway.md gives). Read again whenever
    /// it changes: a sandbox taken out of it is refused from its next call.
    #[arg(
        long,
        env = "AGENTPLEX_BROKER_KEYS",
        value_name = "FILE",
        required_unless_present = "new_token"
    )]
    keys: Option<PathBuf>,
    /// Address to listen on; one that is not loopback needs --allow-plain-http.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 2469)]
    port: u16,
    /// A price table to price the calls it logs with, in place of the one
    /// shipped (JSON, in the shape docs/gateway.md gives).
    #[arg(long, env = "AGENTPLEX_PRICES", value_name = "FILE")]
    prices: Option<PathBuf>,
    /// Listen on a --host that is not loopback over plain HTTP: the sandboxes'
    /// tokens and their calls then travel in clear (prefer loopback behind a
    /// TLS proxy or a tunnel).
    #[arg(long)]
    allow_plain_http: bool,
    /// Make a new sandbox token instead of running the broker: print it (or
    /// write it to --out) and its SHA-256, which the keys file holds instead of
    /// the token.
    #[arg(long)]
    new_token: bool,
    /// With --new-token: write the token to this new file (mode 600) instead of
    /// printing it.
    #[arg(long, value_name = "FILE", requires = "new_token")]
    out: Option<PathBuf>,
    #[command(flatten)]
    log: logging::LogArgs,
}

/// Runs `agentplex gateway`: the broker until SIGINT or SIGTERM, or
/// `--new-token`.
pub fn gateway(args: GatewayArgs) -> Result<(), Failure> {
    match args.new_token {
        true => Ok(token(args.out)?),
        false => serve(args),
    }
}

/// `gateway --new-token`: a new token, printed or written to `out`, and its hash.
fn token(out: Option<PathBuf>) -> Result<(), LocalError> {
    let token = SandboxToken::new();
    let printed = match &out {
        Some(path) => {
            write_new_private(path, &format!("{}\n", token.token()))?;
            json!({"tokenFile": path, "tokenSha256": token.sha256()})
        }
        None => json!({"token": token.token(), "tokenSha256": token.sha256()}),
    };
    println!("{}", serde_json::to_string_pretty(&printed)?);
    Ok(())
}

/// Writes `text` to `path`, a file that must not exist yet, readable by its
/// owner only.
fn write_new_private(path: &PathBuf, text: &str) -> Result<(), LocalError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let failed = |source| LocalError::Write {
        path: path.clone(),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(failed)?;
    file.write_all(text.as_bytes()).map_err(failed)
}

/// The broker: starts it, says where it listens on stdout
/// (`agentplex gateway listening on http://HOST:PORT`), and serves until
/// SIGINT or SIGTERM.
fn serve(args: GatewayArgs) -> Result<(), Failure> {
    let prices = match &args.prices {
        Some(path) => Prices::from_file(path).map_err(LocalError::from)?,
        None => Prices::built_in(),
    };
    let config = BrokerConfig {
        listen: SocketAddr::new(args.host, args.port),
        keys: args.keys.expect("clap requires --keys without --new-token"),
        prices,
        plain_http_on_network: args.allow_plain_http,
    };
    let _telemetry = args.log.init().map_err(LocalError::from)?;
    block_on(async {
        let broker = Broker::start(config).await.map_err(LocalError::from)?;
        let line = format!("agentplex gateway listening on http://{}", broker.addr());
        let mut stdout = std::io::stdout().lock();
        if let Err(error) = writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
            tracing::warn!(%error, "cannot print the listening line on stdout");
        }
        drop(stdout);
        stopped().await.map_err(|error| Failure {
            message: format!("cannot wait for a stop signal: {error}"),
            code: 1,
        })?;
        tracing::info!("broker stopping");
        Ok(())
    })
}

/// Ends at the first SIGINT or SIGTERM.
async fn stopped() -> std::io::Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    tokio::select! {
        _ = interrupt.recv() => {}
        _ = terminate.recv() => {}
    }
    Ok(())
}
