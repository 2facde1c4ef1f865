"""One (fixture, client) session: the driver run under the bound in its own process group, and the
outcome the runner reads from what it printed."""

import itertools
import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .fixtures import HttpServer, kill_group

TAG = "MCPCHECK_CLIENT_IMPACT_TAG"
_tags = itertools.count(1)


@dataclass
class Observation:
    outcome: str  # ok, drops, error, closed, hang, skipped
    step: str = None
    detail: str = None


def excerpt(text):
    line = "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in str(text))
    return line[:200]


def kill_tagged(tag):
    """Kills every process still carrying the session's tag in its environment: servers the client
    started in a session of their own (the Python SDK does), and servers that daemonized."""
    needle = f"{TAG}={tag}\0".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in environ:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass


def run_driver(cmd, env, bound, stderr_path):
    """Runs the driver; returns (final JSON object or None, last progress step, exit code)."""
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr,
                                   start_new_session=True, env=env)
    state = {"progress": None, "result": None}
    done = threading.Event()

    def read():
        for raw in process.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if isinstance(message, dict) and "progress" in message:
                state["progress"] = message["progress"]
            elif isinstance(message, dict) and "steps" in message:
                state["result"] = message
                break
        done.set()

    threading.Thread(target=read, daemon=True).start()
    done.wait(bound)
    kill_group(process)
    done.wait(1.0)
    return state["result"], state["progress"], process.returncode


def outcome(result, progress, code, stderr_path):
    if result is None:
        if code is not None and code > 0 and not _killed(code):
            last = _last_line(stderr_path)
            return Observation("error", progress, excerpt(f"driver exited with {code} without a result: {last}"))
        return Observation("hang", progress, None)
    steps = result.get("steps", [])
    failed = next((step for step in steps if not step.get("ok")), None)
    if failed is not None:
        kind = "closed" if result.get("closed") else "error"
        return Observation(kind, failed.get("step"), excerpt(failed.get("error", "")))
    reported = result.get("reported") or []
    if reported:
        return Observation("drops", None, excerpt(reported[0]))
    return Observation("ok")


def _killed(code):
    return code in (128 + signal.SIGTERM, 128 + signal.SIGKILL)


def _last_line(path):
    try:
        lines = [line for line in Path(path).read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""


def observe(fixture, client, settings, run):
    """Drives one session of the client against a fresh server of the fixture."""
    if fixture.skip:
        return Observation("skipped", None, fixture.skip)
    reason = client.cannot_drive(fixture)
    if reason:
        return Observation("skipped", None, reason)
    tag = f"{os.getpid()}-{next(_tags)}"
    env = dict(settings.env, **client.env())
    env[TAG] = tag
    logs = settings.scratch / "logs" / f"run{run}" / client.id
    logs.mkdir(parents=True, exist_ok=True)
    stderr_path = logs / (fixture.name.replace("/", "_") + ".log")
    server = None
    try:
        if fixture.transport == "stdio":
            target = ["--stdio", *fixture.server_command(settings.scratch)]
        else:
            server = HttpServer(fixture, settings.scratch, env)
            # Streamable HTTP (--url) or the legacy HTTP+SSE transport (--sse: the stream's GET).
            target = ["--sse" if fixture.transport == "sse" else "--url", server.url]
        result, progress, code = run_driver(client.command(target), env, settings.bound, stderr_path)
        return outcome(result, progress, code, stderr_path)
    finally:
        if server:
            server.stop()
        time.sleep(0.05)
        kill_tagged(tag)
