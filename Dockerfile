# The sandbox-agent container image: the static release binary on Alpine.
#
# It packages a binary already built by scripts/release.sh (no Rust build in here):
#
#   scripts/release.sh                      # writes dist/sandbox-agent-<target>.tar.gz
#   docker build -t sandbox-agent .
#   docker run -e SANDBOX_AGENT_TOKEN=secret -p 2468:2468 sandbox-agent
#
# For arm64: docker build --platform linux/arm64 --build-arg TARGET=aarch64-unknown-linux-musl .
#
# The daemon needs a token, `--token TOKEN` or the env SANDBOX_AGENT_TOKEN (clients send
# `Authorization: Bearer TOKEN`), unless it is started with `--no-token`. Other settings
# as env: SANDBOX_AGENT_DATA_DIR (default ~/.local/share/sandbox-agent, here
# /home/agent/.local/share/sandbox-agent: mount a volume there to keep sessions),
# SANDBOX_AGENT_ADAPTERS_DIR, SANDBOX_AGENT_INSTALL_DIR (where agent binaries go),
# SANDBOX_AGENT_CACHE_DIR, SANDBOX_AGENT_EPHEMERAL, SANDBOX_AGENT_RETENTION; --host and
# --port are SANDBOX_AGENT_HOST and SANDBOX_AGENT_PORT. See docs/cli.md.
#
# Agents that are Node CLIs need Node: add it in an image of your own, e.g.
#   FROM sandbox-agent
#   USER root
#   RUN apk add --no-cache nodejs npm git
#   USER agent

ARG TARGET=x86_64-unknown-linux-musl

# Check the archive against its published SHA-256 and unpack the binary.
FROM alpine:3.20 AS unpack
ARG TARGET
COPY dist/sandbox-agent-${TARGET}.tar.gz dist/sandbox-agent-${TARGET}.tar.gz.sha256 /tmp/release/
RUN cd /tmp/release \
    && sha256sum -c "sandbox-agent-${TARGET}.tar.gz.sha256" \
    && mkdir /out \
    && tar -xzf "sandbox-agent-${TARGET}.tar.gz" -C /out \
    && chmod 755 /out/sandbox-agent

FROM alpine:3.20
# ca-certificates: agents and installs reach HTTPS APIs. tini: PID 1 that forwards
# signals and reaps the agents' orphaned child processes.
RUN apk add --no-cache ca-certificates tini \
    && adduser -D -h /home/agent -s /bin/sh agent
COPY --from=unpack /out/sandbox-agent /usr/local/bin/sandbox-agent
COPY --from=unpack /out/LICENSE /usr/share/licenses/sandbox-agent/LICENSE
USER agent
ENV HOME=/home/agent
WORKDIR /home/agent
EXPOSE 2468
ENTRYPOINT ["/sbin/tini", "--", "sandbox-agent"]
CMD ["server", "--host", "0.0.0.0", "--port", "2468"]
