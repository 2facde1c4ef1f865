"""The clients of the run: how each is installed into the scratch directory, which version it is,
and the command that runs its driver."""

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


class InstallError(Exception):
    pass


@dataclass
class Client:
    id: str
    name: str
    package: str
    language: str
    version: str = ""
    # Why the installed client cannot drive a legacy HTTP+SSE server (None: it can); set by install.
    no_sse: str = None

    def cannot_drive(self, fixture):
        """Why this client cannot be driven against the fixture at all, or None."""
        if fixture.transport == "sse":
            return self.no_sse
        return None

    def record(self):
        return {"id": self.id, "name": self.name, "package": self.package, "version": self.version,
                "language": self.language}


def _run(cmd, what, cwd=None, env=None, log=None):
    """Runs an install step; its output goes to the log, and a failure names the step."""
    with open(log, "ab") if log else open(os.devnull, "wb") as out:
        done = subprocess.run(cmd, cwd=cwd, env=env, stdout=out, stderr=out, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise InstallError(f"{what} failed (exit {done.returncode}); see {log}")


class TsSdk1(Client):
    def __init__(self):
        super().__init__("ts-sdk-1", "TypeScript SDK", "@modelcontextprotocol/sdk", "TypeScript")

    def install(self, scratch, log):
        home = scratch / "ts-sdk-1"
        manifest = home / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
        if not manifest.exists():
            for tool in ("node", "npm"):
                if not shutil.which(tool):
                    raise InstallError(f"{tool} not found on PATH")
            home.mkdir(parents=True, exist_ok=True)
            (home / "package.json").write_text('{"private": true}\n')
            _run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "@modelcontextprotocol/sdk@1"],
                 "npm install @modelcontextprotocol/sdk@1", cwd=home, log=log)
        self.version = json.loads(manifest.read_text())["version"]
        self.home = home
        # SSEClientTransport (deprecated in 1.x, still shipped): the legacy HTTP+SSE client.
        if not (manifest.parent / "dist" / "cjs" / "client" / "sse.js").exists():
            self.no_sse = f"@modelcontextprotocol/sdk {self.version} has no client/sse.js (SSEClientTransport)"

    def command(self, target):
        return ["node", str(HERE / "drivers" / "ts_driver.mjs"), *target]

    def env(self):
        return {"CLIENT_IMPACT_TS_DIR": str(self.home)}


class PySdk(Client):
    def __init__(self, id, spec):
        super().__init__(id, "Python SDK", "mcp", "Python")
        self.spec = spec

    def install(self, scratch, log):
        venv = scratch / self.id
        python = venv / "bin" / "python"
        probe = [str(python), "-c", "import importlib.metadata as m; print(m.version('mcp'))"]
        if python.exists():
            found = subprocess.run(probe, capture_output=True, text=True)
        if not python.exists() or found.returncode != 0:
            _run([os.environ.get("PYTHON", "python3"), "-m", "venv", "--clear", str(venv)], f"venv {venv}", log=log)
            _run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "--quiet", self.spec],
                 f"pip install {self.spec}", log=log)
            found = subprocess.run(probe, capture_output=True, text=True)
        if found.returncode != 0:
            raise InstallError(f"{self.id}: mcp is not importable from {venv}")
        self.version = found.stdout.strip()
        self.python = python
        sse = subprocess.run([str(python), "-c", "from mcp.client.sse import sse_client"], capture_output=True)
        if sse.returncode != 0:
            self.no_sse = f"mcp {self.version} has no mcp.client.sse.sse_client (the legacy HTTP+SSE client)"

    def command(self, target):
        return [str(self.python), str(HERE / "drivers" / "py_driver.py"), *target]

    def env(self):
        return {}


class RustRmcp(Client):
    def __init__(self):
        super().__init__("rust-rmcp", "Rust SDK", "rmcp", "Rust")

    def install(self, scratch, log):
        if not shutil.which("cargo"):
            raise InstallError("cargo not found on PATH")
        project = scratch / "rust-rmcp"
        (project / "src").mkdir(parents=True, exist_ok=True)
        for name in ("Cargo.toml", "src/main.rs"):
            source = (HERE / "rmcp" / name).read_bytes()
            dest = project / name
            if not dest.exists() or dest.read_bytes() != source:
                dest.write_bytes(source)
        env = dict(os.environ, CARGO_BUILD_JOBS="1", CARGO_TARGET_DIR=str(scratch / "rust-rmcp-target"))
        _run(["cargo", "build", "--quiet"], "cargo build (rmcp driver)", cwd=project, env=env, log=log)
        lock = (project / "Cargo.lock").read_text()
        found = re.search(r'name = "rmcp"\nversion = "([^"]+)"', lock)
        if not found:
            raise InstallError(f"no rmcp in {project / 'Cargo.lock'}")
        self.version = found.group(1)
        self.binary = scratch / "rust-rmcp-target" / "debug" / "client-impact-rmcp"
        self.no_sse = rmcp_sse_reason(self.version)

    def command(self, target):
        return [str(self.binary), *target]

    def env(self):
        return {}


def rmcp_sse_reason(version):
    """Why the rmcp driver cannot drive a legacy HTTP+SSE server. rmcp's SSE client transport
    (feature transport-sse-client) was removed in 0.11.0 (modelcontextprotocol/rust-sdk#562); the
    installed crate's manifest in cargo's registry says whether this version still has it."""
    home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    manifests = sorted(home.glob(f"registry/src/*/rmcp-{version}/Cargo.toml"))
    if manifests and "transport-sse-client" not in manifests[0].read_text(errors="replace"):
        return (f"rmcp {version} has no legacy HTTP+SSE client transport (transport-sse-client was "
                f"removed in rmcp 0.11.0)")
    return f"the rmcp driver drives stdio and Streamable HTTP only (rmcp {version}'s SSE client is not wired in)"


def all_clients():
    return [TsSdk1(), PySdk("py-sdk-1", "mcp>=1,<2"), PySdk("py-sdk-2", "mcp>=2,<3"), RustRmcp()]


def install(clients, scratch):
    """Installs (or reuses) every client; returns the seconds it took."""
    log = scratch / "install.log"
    for client in clients:
        print(f"client-impact: installing {client.id}", file=sys.stderr)
        client.install(scratch, log)
        print(f"client-impact: {client.id} {client.package} {client.version}", file=sys.stderr)
