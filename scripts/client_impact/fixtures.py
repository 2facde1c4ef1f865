"""The fault fixtures of the guard's tests, how each server is started, and what mcpcheck's guard
says about it."""

import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

# Modules the fixtures import, not servers of their own (toolset.py serves only the tool set
# named by its argument, for the toxic-flow tests).
HELPERS = {"mcpfixture.py", "httpfixture.py", "httplegacy.py", "toolset.py"}

# Arguments a fixture cannot start without (the first variant its tests use).
HTTP_ARGS = {
    "http_requires_token.py": ["client-impact-token"],
    "http_legacy_endpoint.py": ["not-a-uri"],
    "http_legacy_no_endpoint.py": ["refused"],
    "http_legacy_no_response.py": ["stall"],
    "http_legacy_stream_open.py": ["{marker}"],
}

START_LIMIT = 30.0
GUARD_LIMIT = 120.0


@dataclass
class Fixture:
    name: str  # as it appears in the data: the file name, or reference/cases.mjs:SCENARIO
    transport: str  # stdio, http (Streamable HTTP) or sse (legacy HTTP+SSE only)
    command: list  # the server's command line; {marker} is a fresh path per start
    path: str = "/mcp"  # the HTTP endpoint's path
    scheme: str = "http"
    skip: str = None  # why clients cannot be driven against it
    env: dict = field(default_factory=dict)

    def server_command(self, scratch):
        (scratch / "markers").mkdir(parents=True, exist_ok=True)
        marker = str(scratch / "markers" / uuid.uuid4().hex)
        return [part.replace("{marker}", marker) for part in self.command]


def discover(root, scratch, python="python3"):
    servers = root / "tests" / "fixtures" / "servers"
    fixtures = []
    for path in sorted(servers.glob("*.py")):
        name = path.name
        if name in HELPERS:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if name.startswith(("http_", "https_")):
            fixture = Fixture(name, "http", [python, str(path), *HTTP_ARGS.get(name, [])])
            if "import httplegacy" in text:
                fixture.transport = "sse"
                fixture.path = "/sse"
                fixture.skip = "legacy HTTP+SSE only: the clients' Streamable HTTP transport cannot address it"
            if name == "https_self_signed.py":
                cert = self_signed_certificate(scratch)
                if cert is None:
                    fixture.skip = "needs openssl to make its self-signed certificate"
                else:
                    fixture.command += cert
                fixture.scheme = "https"
            fixtures.append(fixture)
        else:
            fixtures.append(Fixture(name, "stdio", [python, str(path)]))
    cases = servers / "reference" / "cases.mjs"
    if cases.exists():
        for scenario in re.findall(r"^  case '([^']+)':", cases.read_text(), re.M):
            fixtures.append(Fixture(f"reference/cases.mjs:{scenario}", "stdio",
                                    ["node", str(cases), scenario, "{marker}"]))
    return fixtures


def self_signed_certificate(scratch):
    cert, key = scratch / "tls" / "cert.pem", scratch / "tls" / "key.pem"
    if cert.exists() and key.exists():
        return [str(cert), str(key)]
    if not shutil.which("openssl"):
        return None
    cert.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3650", "-subj", "/CN=127.0.0.1",
         "-keyout", str(key), "-out", str(cert)], capture_output=True)
    return [str(cert), str(key)] if done.returncode == 0 else None


def kill_group(process, grace=1.0):
    """SIGTERM to the process's group, then SIGKILL once the grace has passed."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


class HttpServer:
    """A fixture that prints its port on stdout, in its own process group."""

    def __init__(self, fixture, scratch, env):
        self.process = subprocess.Popen(fixture.server_command(scratch), stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        start_new_session=True, env=env)
        line = []
        reader = threading.Thread(target=lambda: line.append(self.process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(START_LIMIT)
        port = line[0].decode().strip() if line else ""
        if not port.isdigit():
            self.stop()
            raise RuntimeError(f"{fixture.name} printed no port")
        self.url = f"{fixture.scheme}://127.0.0.1:{port}{fixture.path}"

    def stop(self):
        kill_group(self.process)


def guard_codes(fixture, mcpcheck, scratch, env):
    """The sorted, unique codes of the issues mcpcheck's guard reports for the fixture."""
    server = None
    if fixture.transport == "stdio":
        cmd = [str(mcpcheck), "guard", "--json", "--", *fixture.server_command(scratch)]
    else:
        server = HttpServer(fixture, scratch, env)
        cmd = [str(mcpcheck), "guard", "--json", "--url", server.url]
    try:
        process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, start_new_session=True, env=env)
        try:
            out, _ = process.communicate(timeout=GUARD_LIMIT)
        except subprocess.TimeoutExpired:
            kill_group(process)
            raise RuntimeError(f"mcpcheck guard on {fixture.name} ran past {GUARD_LIMIT:.0f} s")
        try:
            report = json.loads(out)
        except ValueError:
            raise RuntimeError(f"mcpcheck guard on {fixture.name} (exit {process.returncode}) printed no JSON")
        return sorted({issue["code"] for issue in report.get("issues", [])})
    finally:
        if server:
            server.stop()
