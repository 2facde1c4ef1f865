#!/usr/bin/env python3
"""Writes fuzz/corpus/<target>/ from the test fixtures (run from the repository root).

Each seed is the target's control byte (where the target has one) and a fixture's bytes,
cut to a few KiB: the fuzzer grows what it needs from there. The baseline and lock seeds
come from the binary (`mcpcheck baseline`, `mcpcheck pin`) run on the config fixtures.
"""
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
CORPUS = ROOT / "fuzz" / "corpus"
MAX_SEED = 4096
LANGS = ["javascript", "typescript", "tsx", "python", "go", "rust", "java", "kotlin", "csharp"]
EXTS = {".js": 0, ".mjs": 0, ".cjs": 0, ".jsx": 0, ".ts": 1, ".mts": 1, ".tsx": 2, ".py": 3,
        ".go": 4, ".rs": 5, ".java": 6, ".kt": 7, ".kts": 7, ".cs": 8}
JVM = {"logback": 0, "log4j2.xml": 1, "log4j2.properties": 2, "properties": 3, "yml": 4, "yaml": 4}


def put(target, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    data = data[:MAX_SEED]
    (d / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def server_output(script):
    """The first few KiB a fixture server writes for a short session."""
    session = (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        b'"capabilities":{},"clientInfo":{"name":"seed","version":"0"}}}\n'
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
        b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
        b'{"jsonrpc":"2.0","id":3,"method":"ping"}\n'
    )
    try:
        p = subprocess.run([sys.executable, str(script)], input=session, capture_output=True,
                           timeout=3, start_new_session=True)
        return p.stdout
    except subprocess.TimeoutExpired as e:
        return e.stdout or b""


def main():
    for script in sorted((FIX / "servers").glob("*.py")):
        if script.name == "mcpfixture.py":
            continue
        out = server_output(script)
        if out:
            put("stdout_lines", bytes([0xC6]) + out)
            put("stdout_lines", bytes([0x41]) + out[:600])

    configs = sorted((FIX / "configs").glob("*.json"))
    for i, c in enumerate(configs):
        text = c.read_bytes()
        put("client_config", bytes([i % 8]) + text)
        put("urls", text)
        put("secrets", text)
    put("secrets", b"node s.js --k ghp_u8jEQ7sinUFIabcdefgh AKIABBR4QM\0W2WXFOGO4M")
    put("secrets", b"https://user:hunter2hunter2@db.internal/x?api_key=abcdefgh12345678")

    for f in sorted((FIX / "listings").rglob("*.json")):
        put("surface_listing", f.read_bytes())
        put("renderers", bytes([0xC7]) + f.read_bytes()[:1500].replace(b",", b"\x1e"))
    for f in sorted((FIX / "servers").glob("hostile_output.py")) + sorted(
            (FIX / "servers").glob("poisoned_*.py")):
        put("renderers", bytes([0x87]) + f.read_bytes()[:2000].replace(b"\n", b"\x1e"))
    put("renderers", bytes([0xFF]) + "\x1e".join([
        "<img src=x onerror=alert(1)>", "`a|b` ``c`` |", "@octocat #12 www.evil.com",
        "[x](https://e.example) ![i](http://x/y.png)", "line\nbreak\r|cell|", "</details><script>",
        "\\|\\\\|", "**b** _i_ ~s~", "a" * 300]).encode())

    for f in sorted((FIX / "source").rglob("*")):
        if f.is_file() and f.suffix in EXTS:
            put("source_scan", bytes([EXTS[f.suffix]]) + f.read_bytes())
        name = f.name
        if f.is_file() and "jvm-config" in f.parts:
            kind = next((v for k, v in JVM.items() if name.startswith(k) or name.endswith("." + k)
                         or k in name), None)
            if kind is not None:
                put("jvm_config", bytes([kind]) + f.read_bytes())

    guard = [
        b'{"command": ["python3", "server.py"], "cwd": ".", "env": {"API_KEY": "${API_KEY}"},'
        b' "profile": "registry", "safeToolCalls": [{"name": "add", "arguments": {"a": 1, "b": 2}}]}',
        b'{"requests": ["ping", {"method": "tools/list", "params": {}}], "command": "node s.js"}',
        b'{"probes": "all", "timeout": 2500, "env": {"A": "${env:A}"}}',
    ]
    for g in guard:
        put("guard_config", g)

    weather = (b'{"name":"io.github.example/weather","version":"0.5.0","packages":[{"registryType":'
               b'"pypi","identifier":"weather-mcp","version":"0.5.0","runtimeHint":"uvx","transport":'
               b'{"type":"stdio"},"environmentVariables":[{"name":"WEATHER_API_KEY","isRequired":true,'
               b'"isSecret":true},{"name":"UNITS","default":"celsius"}]}]}')
    oci = (b'{"name":"x/y","version":"1.0.0","packages":[{"registryType":"oci","identifier":"ghcr.io/x/y",'
           b'"version":"1.0.0","transport":{"type":"stdio"},"runtimeArguments":[{"type":"named","name":'
           b'"--mount","value":"{src}","variables":{"src":{"isRequired":true}}}],"packageArguments":'
           b'[{"type":"positional","valueHint":"dir","default":"/data"}]}],"x-supplied":{"src":"/tmp"}}')
    remote = b'{"name":"r/s","version":"2","remotes":[{"type":"streamable-http","url":"https://x.example/mcp"}]}'
    for s in (weather, oci, remote):
        put("server_json", s)
    manifest = [
        b'{"id": "time", "command": ["uvx", "mcp-server-time==0.6.2"], "cwd": "servers/time",'
        b' "env": {"TZ": "UTC", "API_TOKEN": null}, "setup": ["npm", "ci"]}\n'
        b'{"id": "b", "command": "node", "args": ["s.js"]}\n',
        b'{"id": "w", "server": ' + weather + b', "env": {"WEATHER_API_KEY": "k"}}\n' + weather + b"\n",
    ]
    put("sweep_manifest", b"\x01" + manifest[0])
    put("sweep_manifest", b"\x01" + manifest[1])
    put("sweep_manifest", b"\x00[" + b",".join(m.split(b"\n")[0] for m in manifest) + b"]")

    binary = ROOT / "target" / "debug" / "mcpcheck"
    with tempfile.TemporaryDirectory() as tmp:
        for c in configs[:12]:
            for cmd, name, control in (("baseline", "baseline.json", 0), ("pin", "mcpcheck.lock", 1)):
                out = Path(tmp) / name
                subprocess.run([str(binary), cmd, str(c), "--output", str(out), "--force"],
                               capture_output=True, cwd=tmp, env={**os.environ, "HOME": tmp})
                if out.exists():
                    put("baseline_lock", bytes([control]) + out.read_bytes())
                    out.unlink()


if __name__ == "__main__":
    main()
