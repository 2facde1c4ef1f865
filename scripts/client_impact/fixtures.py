"""The fault fixtures of the guard's tests, how each server is started, and what mcpcheck's guard
says about it."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
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

# Further variants of an HTTP fixture (its first argument), each a row of its own named
# FILE:VARIANT, for a fault the variant above (or the default) does not have.
HTTP_VARIANTS = {
    # guard_http.rs each_authorization_metadata_fault_gets_its_detail (the default variant,
    # "good", is the bare 401)
    "http_auth.py": ["no-pkce"],
}

# Environment a stdio fixture cannot start without, set with env(1) on its command line ({marker}
# is a fresh path per start, as in the command). drifting_tools.py counts its starts in the file:
# the guard's --repeat starts one command line twice and sees the drift; each client session is a
# fresh first start, since a host's session is one start and never compares two.
FIXTURE_ENV = {
    "drifting_tools.py": {"FIXTURE_STATE_FILE": "{marker}"},
}

# The guard flags under which the Rust tests see a fixture's fault, where the default flags do
# not (the test that uses them is named). guard_codes runs the guard with them, so the fixture's
# codes name its fault; the clients' sessions are the same as for every fixture. Recorded in the
# data as the fixture's guardArgs. Paths are relative to the checkout (the guard runs there).
GUARD_ARGS = {
    # guard_transport.rs huge_line_stops_the_run
    "huge_line.py": ["--max-stdout-line-bytes", "262144"],
    # guard_sdk.rs typescript_sdk_does_not_speak_the_stateless_revision
    "sdk/ts/clean.mjs": ["--protocol", "2026-07-28", "--timeout", "30000"],
    # guard_protocol.rs discover_result_without_supported_versions
    "discover_without_versions.py": ["--protocol", "2026-07-28"],
    # guard_depth.rs config_file_supplies_command_cwd_and_safe_tool_calls (the config's command
    # is this fixture; its safeToolCalls call bad_sum and no_structured, the faulty tools)
    "structured_output.py": ["--config", "tests/fixtures/configs/tool_calls.json"],
    # guard_depth.rs protocol_matrix_catches_a_supported_version_answered_with_another
    "downgrades_supported_version.py": ["--protocol-matrix"],
    # guard_depth.rs protocol_matrix_catches_a_version_not_honoured
    "not_honouring_version.py": ["--protocol-matrix"],
    # guard_probes.rs unknown_notification_answered
    "answers_unknown_notifications.py": ["--timeout", "3000", "--adversarial-probes", "notification"],
    # guard_probes.rs cancellation_of_an_unknown_request_answered
    "answers_unknown_cancel.py": ["--timeout", "3000", "--adversarial-probes", "unknown-cancel"],
    # guard_probes.rs malformed_json_crashes_the_server
    "crash_on_malformed_json.py": ["--timeout", "3000", "--adversarial-probes", "malformed-json"],
    # guard_probes.rs bogus_version_that_crashes_is_an_error
    "crash_on_unknown_version.py": ["--timeout", "3000", "--adversarial-probes", "bogus-version"],
    # guard_probes.rs unknown_method_never_answered
    "ignores_unknown_methods.py": ["--timeout", "3000", "--adversarial-probes", "invalid-method"],
    # guard_probes.rs malformed_json_prints_a_traceback_on_stdout
    "traceback_on_malformed_json.py": ["--timeout", "3000", "--adversarial-probes", "malformed-json"],
    # guard_probes.rs text_after_a_probe_is_blamed_on_it_even_after_a_banner
    "banner_then_text_on_unknown_version.py": ["--timeout", "3000", "--adversarial-probes", "bogus-version"],
    # guard_http.rs notifications_answered_with_a_body_over_http_fail_the_notification_probes
    "http_notification_200.py": ["--adversarial-probes", "notification,unknown-cancel"],
    # guard_http.rs a_request_refused_over_http_without_a_json_rpc_answer_is_left_unanswered
    "http_refuses_unknown_method.py": ["--adversarial-probes", "invalid-method"],
    # guard_http.rs an_answer_to_a_probe_that_is_not_json_rpc_is_reported_over_http
    "http_probe_traceback.py": ["--adversarial-probes", "invalid-method"],
    # guard_probes.rs unknown_method_answered_with_a_result
    "unknown_method_returns_result.py": ["--timeout", "3000", "--adversarial-probes", "invalid-method"],
    # guard_probes.rs invalid_params_accepted and adversarial_tool_call_that_succeeds (the
    # config's command is this fixture; its adversarialToolCalls call echo with a number)
    "accepts_invalid_params.py": ["--config", "tests/fixtures/configs/adversarial_tool_call.json",
                                  "--adversarial-probes", "invalid-params"],
    # guard_probes.rs malformed_json_answered_with_a_result
    "answers_malformed_json_with_result.py": ["--timeout", "3000", "--adversarial-probes", "malformed-json"],
    # guard_http.rs a_body_that_is_not_json_answered_with_a_result_over_http_is_reported
    "http_malformed_result.py": ["--adversarial-probes", "malformed-json"],
    # guard_probes.rs bogus_version_refused_with_an_error_is_a_warning and guard_depth.rs
    # protocol_matrix_warns_on_a_refused_bogus_version
    "rejects_unknown_version.py": ["--timeout", "3000", "--protocol-matrix", "--adversarial-probes", "bogus-version"],
    # guard_depth.rs protocol_matrix_catches_an_echoed_bogus_version
    "echoes_any_version.py": ["--protocol-matrix"],
    # guard_depth.rs repeat_runs_report_drift_against_the_first (FIXTURE_ENV gives the state file)
    "drifting_tools.py": ["--repeat", "2"],
    # guard_runtime.rs explicit_request_answered_with_an_error_is_a_warning; the two probes that
    # only report (guard_probes.rs clean_server_passes_every_probe_and_two_are_reported_only)
    "ping_error.py": ["--timeout", "3000", "--request", "ping",
                      "--adversarial-probes", "ping-before-initialize,duplicate-id"],
    # guard_runtime.rs explicit_request_never_answered
    "ping_never_answered.py": ["--timeout", "3000", "--request", "ping"],
    # guard_runtime.rs crash_on_an_explicit_request
    "crash_on_ping.py": ["--request", "ping"],
    # guard_runtime.rs stderr_past_the_flood_threshold_is_a_warning (5 MiB of stderr; the
    # default threshold is 64 MiB)
    "chatty_stderr_logging.py": ["--stderr-flood-bytes", "4194304"],
}

# The official-SDK fixtures (tests/fixtures/sdk/) the run includes: only the one a guard code has
# no stdlib fixture for (discover-error, see GUARD_ARGS). Its pinned dependencies are installed
# by scripts/install-fixtures; without them the run uses a copy beside the ts-sdk-1 client when
# that client's packages are the fixture's pins (the only packages the fixture imports).
SDK_TS_FIXTURES = ["clean.mjs"]
SDK_TS_SOURCES = ["common.mjs"]
SDK_TS_IMPORTS = ["@modelcontextprotocol/sdk", "zod"]

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
    env: dict = field(default_factory=dict)  # set with env(1) before the command (FIXTURE_ENV)
    guard_args: list = field(default_factory=list)  # the guard's flags for it (GUARD_ARGS)

    def server_command(self, scratch):
        (scratch / "markers").mkdir(parents=True, exist_ok=True)
        marker = str(scratch / "markers" / uuid.uuid4().hex)
        env = [f"{key}={value}" for key, value in sorted(self.env.items())]
        command = (["env", *env] if env else []) + self.command
        return [part.replace("{marker}", marker) for part in command]


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
            if "import httplegacy" in text:  # legacy HTTP+SSE: the stream is a GET on any path
                fixture.transport = "sse"
                fixture.path = "/sse"
            if name == "https_self_signed.py":
                cert = self_signed_certificate(scratch)
                if cert is None:
                    fixture.skip = "needs openssl to make its self-signed certificate"
                else:
                    fixture.command += cert
                fixture.scheme = "https"
            fixtures.append(fixture)
            for variant in HTTP_VARIANTS.get(name, []):
                fixtures.append(Fixture(f"{name}:{variant}", fixture.transport, [python, str(path), variant],
                                        path=fixture.path, scheme=fixture.scheme))
        else:
            fixtures.append(Fixture(name, "stdio", [python, str(path)], env=dict(FIXTURE_ENV.get(name, {}))))
    cases = servers / "reference" / "cases.mjs"
    if cases.exists():
        for scenario in re.findall(r"^  case '([^']+)':", cases.read_text(), re.M):
            fixtures.append(Fixture(f"reference/cases.mjs:{scenario}", "stdio",
                                    ["node", str(cases), scenario, "{marker}"]))
    fixtures += sdk_ts_fixtures(root, scratch)
    for fixture in fixtures:
        fixture.guard_args = list(GUARD_ARGS.get(fixture.name, []))
    unknown = sorted((set(GUARD_ARGS) | set(FIXTURE_ENV)) - {f.name for f in fixtures} - {f"sdk/ts/{n}" for n in SDK_TS_FIXTURES})
    if unknown:
        raise ValueError(f"GUARD_ARGS or FIXTURE_ENV names no fixture: {', '.join(unknown)}")
    return fixtures


def sdk_ts_fixtures(root, scratch):
    """The TypeScript SDK fixtures of SDK_TS_FIXTURES, run in place when scripts/install-fixtures
    installed their dependencies, else from a copy under the ts-sdk-1 client's directory when its
    packages are the fixture's pins. Neither: left out (the guard could not run them either),
    with a note on stderr."""
    home = root / "tests" / "fixtures" / "sdk" / "ts"
    if not (home / "package.json").exists():
        return []
    where = home
    if not (home / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pins = json.loads((home / "package.json").read_text()).get("dependencies", {})
        client = scratch / "ts-sdk-1" / "node_modules"
        found = {}
        for package in SDK_TS_IMPORTS:
            try:
                found[package] = json.loads((client / package / "package.json").read_text())["version"]
            except (OSError, ValueError, KeyError):
                found[package] = None
        if any(found[p] != pins.get(p) for p in SDK_TS_IMPORTS):
            wanted = ", ".join(f"{p} {pins.get(p)}" for p in SDK_TS_IMPORTS)
            have = ", ".join(f"{p} {found[p] or 'absent'}" for p in SDK_TS_IMPORTS)
            print(f"client-impact: leaving out sdk/ts/: its dependencies are not installed "
                  f"(scripts/install-fixtures) and the ts-sdk-1 client's ({have}) are not its pins "
                  f"({wanted})", file=sys.stderr)
            return []
        where = scratch / "ts-sdk-1" / "sdk-fixtures"  # resolves against the client's node_modules
        where.mkdir(parents=True, exist_ok=True)
        for name in SDK_TS_FIXTURES + SDK_TS_SOURCES:
            shutil.copyfile(home / name, where / name)
    return [Fixture(f"sdk/ts/{name}", "stdio", ["node", str(where / name)]) for name in SDK_TS_FIXTURES]


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


def guard_codes(fixture, mcpcheck, root, scratch, env):
    """The sorted, unique codes of the issues mcpcheck's guard reports for the fixture, run with
    the fixture's guard flags in the checkout (their paths are relative to it)."""
    server = None
    guard = [str(mcpcheck), "guard", "--json", *fixture.guard_args]
    if fixture.transport == "stdio":
        cmd = [*guard, "--", *fixture.server_command(scratch)]
    else:
        server = HttpServer(fixture, scratch, env)
        cmd = [*guard, "--url", server.url]
    try:
        process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, start_new_session=True, env=env, cwd=root)
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
