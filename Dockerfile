# syntax=docker/dockerfile:1
# The mcpcheck GitHub Action: a Rust builder stage, then a Debian slim runtime carrying
# the runtimes MCP servers are launched with (Node.js LTS with npm/npx, Python 3 with pip,
# uv/uvx, git). The runner mounts the workspace and sets the working directory, so this
# file sets no WORKDIR, and it runs as root as container actions do.

# Builder and runtime share the Debian release, so the binary's glibc matches.
FROM rust:1.95-slim-trixie AS builder
# Dependencies first, in their own layer: a dummy crate with the real manifests builds
# them, and the layer is reused until Cargo.toml or Cargo.lock changes.
COPY Cargo.toml Cargo.lock /build/
# hadolint ignore=DL3003
RUN mkdir -p /build/src /build/bench \
    && echo 'fn main() {}' > /build/src/main.rs \
    && touch /build/src/lib.rs \
    && echo 'fn main() {}' > /build/bench/fast_server.rs \
    && echo 'fn main() {}' > /build/bench/minimal_client.rs \
    && cd /build \
    && cargo build --release --locked --bin mcpcheck \
    && rm -rf /build/src /build/bench
COPY src /build/src
COPY schemas /build/schemas
COPY bench /build/bench
# COPY keeps old mtimes; touch so cargo rebuilds the crate itself over the dummy.
# hadolint ignore=DL3003
RUN touch /build/src/main.rs /build/src/lib.rs \
    && cd /build \
    && cargo build --release --locked --bin mcpcheck \
    && install -m 0755 /build/target/release/mcpcheck /usr/local/bin/mcpcheck

# Node.js LTS, copied from the official image of the same Debian release.
FROM node:24-trixie-slim AS node

FROM debian:trixie-slim
ARG UV_VERSION=0.13.8
# Distribution packages track the release's security updates, so they are not pinned.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        ca-certificates git python3 python3-pip python3-venv \
    && rm -rf /var/lib/apt/lists/*
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules /usr/local/lib/node_modules
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
    && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
    && python3 -m venv /opt/uv \
    && /opt/uv/bin/pip install --no-cache-dir "uv==${UV_VERSION}" \
    && ln -s /opt/uv/bin/uv /opt/uv/bin/uvx /usr/local/bin/ \
    # The workspace belongs to the runner's user; git must still work in it as root.
    && git config --system --add safe.directory '*' \
    && node --version && npm --version && npx --version && uv --version && python3 --version
# The container is thrown away after the step: let `pip install` in setup use the system Python.
ENV PIP_BREAK_SYSTEM_PACKAGES=1 \
    PYTHONDONTWRITEBYTECODE=1
COPY --from=builder /usr/local/bin/mcpcheck /usr/local/bin/mcpcheck
ENTRYPOINT ["mcpcheck", "action"]
