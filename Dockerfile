# syntax=docker/dockerfile:1
# The mcpcheck GitHub Action: a Rust builder stage, then a Debian slim runtime carrying
# the runtimes MCP servers are launched with (Node.js LTS with npm/npx and corepack,
# Python 3 with pip, uv/uvx) and nothing else: no git, compilers or docs. The runner mounts
# the workspace and sets the working directory, so this file sets no WORKDIR, and it runs
# as root as container actions do. release.yml publishes it as ghcr.io/<owner>/mcpcheck.

# Builder and runtime share the Debian release, so the binary's glibc matches.
FROM rust:1.95-slim-trixie AS builder
# The shipped binary carries no symbols (35 MB unstripped); set for both builds below so the
# dependency layer's artefacts stay fresh for the second.
ENV CARGO_PROFILE_RELEASE_STRIP=symbols
# Dependencies first, in their own layer: a dummy crate with the real manifests builds
# them, and the layer is reused until Cargo.toml or Cargo.lock changes.
COPY Cargo.toml Cargo.lock build.rs /build/
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
COPY data /build/data
COPY bench /build/bench
# The release's tag (release.yml passes v<version>), so reports link the rule pages at it;
# without it (no .git here) they link main.
ARG MCPCHECK_RELEASE_TAG=""
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
# No documentation, manual pages or translations from any package installed here.
RUN printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
        'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*' \
        'path-exclude=/usr/share/locale/*' 'path-exclude=/usr/share/lintian/*' \
        >/etc/dpkg/dpkg.cfg.d/01-nodoc
# Distribution packages track the release's security updates, so they are not pinned.
# No git: with perl it would be a quarter of the image; a setup that needs it installs it
# (`apt-get update && apt-get install -y --no-install-recommends git`).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        ca-certificates python3 python3-pip python3-venv \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log \
    && find /usr/lib/python3* -depth -name __pycache__ -exec rm -rf {} +
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules /usr/local/lib/node_modules
# npm and npx, corepack with its pnpm and yarn shims (they fetch the package manager a
# project pins on first use); uv and uvx as their two binaries, without the venv pip
# installed them into.
RUN rm -rf /usr/local/lib/node_modules/npm/docs /usr/local/lib/node_modules/npm/man \
    && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
    && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
    && ln -s ../lib/node_modules/corepack/dist/corepack.js /usr/local/bin/corepack \
    && corepack enable --install-directory /usr/local/bin \
    && python3 -m venv /tmp/uv \
    && /tmp/uv/bin/pip install --no-cache-dir "uv==${UV_VERSION}" \
    && install -m 0755 /tmp/uv/bin/uv /tmp/uv/bin/uvx /usr/local/bin/ \
    && rm -rf /tmp/uv \
    && node --version && npm --version && npx --version && corepack --version \
    && uv --version && python3 --version
# The container is thrown away after the step: let `pip install` in setup use the system
# Python; corepack fetches pnpm/yarn without asking.
ENV PIP_BREAK_SYSTEM_PACKAGES=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    COREPACK_ENABLE_DOWNLOAD_PROMPT=0
COPY --from=builder /usr/local/bin/mcpcheck /usr/local/bin/mcpcheck
ENTRYPOINT ["mcpcheck", "action"]
