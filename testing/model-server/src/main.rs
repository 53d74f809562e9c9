//! `model-server`: runs the scripted model server until interrupted.

use clap::Parser;

/// A scripted model server on 127.0.0.1 for running agent CLIs offline.
#[derive(Parser)]
#[command(name = "model-server")]
struct Args {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, agentplex_model_server::router()).await
}
