# The agentplex container image, built from a clone of this repository in one command:
#
#   docker build -t agentplex .
#   docker run -e AGENTPLEX_TOKEN=change-me -p 127.0.0.1:2468:2468 agentplex
#
# The first stage compiles the static binary (the musl target and the release profile
# `dist`, as scripts/release.sh does; Debian's musl-gcc compiles the C of SQLite, zstd and
# mimalloc); the second is Alpine with that binary, its second name sandbox-agent, tini and
# a user `agent`. The build needs the network (crates.io) and takes a while: about 20
# minutes on 2 cores. Another architecture: docker build --platform linux/arm64 -t agentplex .
# The commit shown by `agentplex --version`:
#   docker build --build-arg AGENTPLEX_COMMIT="$(git rev-parse --short=12 HEAD)" -t agentplex .
#
# The daemon needs a token, AGENTPLEX_TOKEN (clients send `Authorization: Bearer TOKEN`),
# unless it is started with `--no-token`. Sessions are kept in
# /home/agent/.local/share/agentplex: mount a volume there to keep them. Every setting
# is a flag or an AGENTPLEX_* variable (docs/cli.md).
#
# Agents that are Node CLIs need Node: add it in an image of your own, e.g.
#   FROM agentplex
#   USER root
#   RUN apk add --no-cache nodejs npm git
#   USER agent

FROM rust:1.95-slim-bookworm AS build
# musl-gcc, and the targets: the binary's and the builtin adapters' (wasm32-wasip2, compiled
# and embedded by the daemon's build script).
RUN apt-get update \
    && apt-get install -y --no-install-recommends musl-tools \
    && rm -rf /var/lib/apt/lists/* \
    && rustup target add "$(uname -m)-unknown-linux-musl" wasm32-wasip2
WORKDIR /src
COPY . .
ARG AGENTPLEX_COMMIT=unknown
RUN triple="$(uname -m)-unknown-linux-musl" \
    && export "CC_$(echo "$triple" | tr - _)=musl-gcc" AGENTPLEX_COMMIT="$AGENTPLEX_COMMIT" \
    && cargo build --locked --profile dist --target "$triple" -p agentplex --bin agentplex \
    && mkdir -p /out \
    && cp "target/$triple/dist/agentplex" /out/agentplex \
    && /out/agentplex --version

FROM alpine:3.23
# ca-certificates: agents and installs reach HTTPS APIs. tini: PID 1 that forwards
# signals and reaps the agents' orphaned child processes.
RUN apk add --no-cache ca-certificates tini \
    && adduser -D -h /home/agent -s /bin/sh agent
COPY --from=build /out/agentplex /usr/local/bin/agentplex
COPY LICENSE /usr/share/licenses/agentplex/LICENSE
# The second name, for scripts written for 0.1.x.
RUN ln -s agentplex /usr/local/bin/sandbox-agent
USER agent
ENV HOME=/home/agent
WORKDIR /home/agent
# The data dir exists and belongs to `agent`, so a volume mounted there does too.
RUN mkdir -p /home/agent/.local/share/agentplex
ENV AGENTPLEX_HOST=0.0.0.0 \
    AGENTPLEX_PORT=2468
EXPOSE 2468
ENTRYPOINT ["/sbin/tini", "--", "agentplex"]
CMD ["server"]
