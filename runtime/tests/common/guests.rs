//! The test-only adapter components of `testing/guests/` (`probe`, `mock-dropin`),
//! built once per test process with cargo (whose lock makes concurrent builds safe).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The folder of the built components.
fn build() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let manifest = root.join("testing/guests/Cargo.toml");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut command = Command::new(cargo);
        command.args(["build", "--release", "--target", "wasm32-wasip2", "--manifest-path"]).arg(&manifest);
        // The outer build's settings are for the host, not for the guests.
        for var in ["CARGO_ENCODED_RUSTFLAGS", "RUSTFLAGS", "CARGO_TARGET_DIR", "CARGO_BUILD_TARGET", "RUSTC_WORKSPACE_WRAPPER"]
        {
            command.env_remove(var);
        }
        let output = command.output().expect("running cargo to build testing/guests");
        assert!(
            output.status.success(),
            "building testing/guests failed (is the wasm32-wasip2 target installed?):\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        root.join("testing/guests/target/wasm32-wasip2/release")
    })
}

/// Path of a built guest component, by file name without `.wasm` (`probe`, `mock_dropin`).
pub fn component(name: &str) -> PathBuf {
    let path = build().join(format!("{name}.wasm"));
    assert!(path.is_file(), "{} was not built", path.display());
    path
}

/// A fresh adapters folder holding copies of the named components.
pub fn adapters_dir(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp adapters folder");
    for name in names {
        std::fs::copy(component(name), dir.path().join(format!("{name}.wasm"))).expect("copying a component");
    }
    dir
}
