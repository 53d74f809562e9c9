# Common tasks. `just` is optional: every recipe is a script in scripts/ or a
# plain cargo command.

# Build and run the daemon on 127.0.0.1:2468 with the embedded adapters.
run *ARGS:
    scripts/run.sh {{ARGS}}

# Run every test.
test:
    scripts/test.sh

# Regenerate the committed OpenAPI document after an API change.
openapi:
    cargo run -q -p agentplex -- openapi > docs/openapi.json

# Build the adapter components (wasm32-wasip2).
adapters:
    scripts/setup.sh
    cargo build --release --target wasm32-wasip2 --manifest-path adapters/Cargo.toml

# Build the adapter template (examples/adapter-template) and validate the component.
adapter-template:
    cd examples/adapter-template && cargo build --release --target wasm32-wasip2
    cargo run -q -p agentplex -- adapters validate examples/adapter-template/target/wasm32-wasip2/release/adapter_template.wasm

# Print the daemon's performance numbers.
bench:
    cargo bench -p agentplex --bench daemon
