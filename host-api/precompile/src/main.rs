//! `agentplex-precompile --target TRIPLE --out DIR COMPONENT.wasm...`: precompiles
//! builtin adapter components for TRIPLE into DIR, as the builtins' build script
//! would (the others stored against the base, `sandbox_agent_adapter_mock.wasm`,
//! when it is among them), and prints each artifact's path. A build of the daemon
//! for TRIPLE given `AGENTPLEX_PRECOMPILED_BUILTINS=DIR` embeds them instead of
//! precompiling (see the library's docs). Only this machine's architecture's
//! Cranelift backend is built in unless the `all-arch` feature is on.

use std::path::PathBuf;
use std::process::ExitCode;

use agentplex_precompile::{base_index, precompile_builtin};

/// What the command line asks for.
struct Request {
    target: String,
    out: PathBuf,
    components: Vec<PathBuf>,
}

const USAGE: &str = "usage: agentplex-precompile --target TRIPLE --out DIR COMPONENT.wasm...";

fn main() -> ExitCode {
    let request = match parse(std::env::args().skip(1)) {
        Ok(request) => request,
        Err(error) => {
            eprintln!("agentplex-precompile: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&request) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("agentplex-precompile: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Precompiles the base first, then the others against it.
fn run(request: &Request) -> Result<(), String> {
    std::fs::create_dir_all(&request.out)
        .map_err(|e| format!("creating {}: {e}", request.out.display()))?;
    let base = match base_index(&request.components) {
        Some(index) => {
            let path = &request.components[index];
            let wasm =
                std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
            let artifact = precompile_builtin(path, None, &request.out, &request.target)?;
            println!("{}", artifact.display());
            Some((index, wasm, artifact))
        }
        None => None,
    };
    for (index, path) in request.components.iter().enumerate() {
        if base.as_ref().is_some_and(|(base, _, _)| *base == index) {
            continue;
        }
        let against = base
            .as_ref()
            .map(|(_, wasm, artifact)| (&wasm[..], artifact.as_path()));
        let artifact = precompile_builtin(path, against, &request.out, &request.target)?;
        println!("{}", artifact.display());
    }
    Ok(())
}

/// Reads `--target TRIPLE --out DIR` and one component or more.
fn parse(mut args: impl Iterator<Item = String>) -> Result<Request, String> {
    let (mut target, mut out, mut components) = (None, None, Vec::new());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--target" => target = Some(args.next().ok_or("--target needs a value")?),
            "--out" => out = Some(PathBuf::from(args.next().ok_or("--out needs a value")?)),
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            _ => components.push(PathBuf::from(arg)),
        }
    }
    if components.is_empty() {
        return Err("no component given".into());
    }
    Ok(Request {
        target: target.ok_or("--target is required")?,
        out: out.ok_or("--out is required")?,
        components,
    })
}
