"""The py-sdk-1 and py-sdk-2 driver of scripts/client-impact, run with each client's own venv.

Drives one session with the Python SDK's ClientSession as a host does (connect, tools/list,
prompts/list and resources/list where advertised, call the first tool, close) and prints one
JSON object on stdout, after progress lines.

Usage: python py_driver.py --stdio PROGRAM ARGS... | --url URL | --sse URL
(--url: Streamable HTTP; --sse: the legacy HTTP+SSE transport, URL the stream's GET)
"""

import json
import logging
import os
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

try:  # 1.x spells it streamablehttp_client (and, late in 1.x, also streamable_http_client)
    from mcp.client.streamable_http import streamable_http_client as http_client
except ImportError:  # pragma: no cover - older 1.x
    from mcp.client.streamable_http import streamablehttp_client as http_client

CONNECTION_CLOSED = -32000

steps = []
reported = []


def excerpt(text):
    line = "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in str(text))
    return line[:200]


def leaf(error):
    """The first exception inside nested exception groups (anyio's task groups raise them)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def describe(error):
    error = leaf(error)
    return excerpt(f"{type(error).__name__}: {error}")


def is_closed(error):
    error = leaf(error)
    data = getattr(error, "error", None)
    code = getattr(data, "code", getattr(error, "code", None))
    if code == CONNECTION_CLOSED:
        return True
    return type(error).__name__ in ("ClosedResourceError", "BrokenResourceError", "EndOfStream")


class Reported(logging.Handler):
    """Every log record at WARNING or above: what the client reported without failing."""

    def emit(self, record):
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text = f"{text}: {describe(record.exc_info[1])}"
        reported.append(excerpt(f"{record.levelname} {record.name}: {text}"))


async def on_message(message):
    if isinstance(message, Exception):
        reported.append(excerpt(f"message_handler: {describe(message)}"))


def progress(step):
    print(json.dumps({"progress": step}), flush=True)


def arguments_for(schema):
    """A value of each required property's type, as a host filling a form would."""
    schema = schema if isinstance(schema, dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    values = {"number": 1, "integer": 1, "boolean": True, "object": {}, "array": []}
    args = {}
    for name in required:
        if not isinstance(name, str):
            continue
        kind = (properties.get(name) or {}).get("type") if isinstance(properties.get(name), dict) else None
        if isinstance(kind, list):
            kind = kind[0] if kind else None
        args[name] = values.get(kind, "x") if isinstance(kind, str) else "x"
    return args


class StepFailed(Exception):
    pass


class Session:
    def __init__(self):
        self.current = None
        self.closed = False

    async def step(self, name, action):
        if self.current != name:
            progress(name)
        self.current = name
        try:
            value = await action()
        except Exception as error:  # every failure of a step is the observation
            steps.append({"step": name, "ok": False, "error": describe(error)})
            self.closed = is_closed(error)
            raise StepFailed() from error
        steps.append({"step": name, "ok": True})
        self.current = None
        return value

    async def run(self, transport):
        progress("connect")
        self.current = "connect"
        async with transport as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write, message_handler=on_message) as session:
                result = await self.step("connect", session.initialize)
                capabilities = result.capabilities
                tools = await self.step("tools/list", session.list_tools)
                if capabilities.prompts is not None:
                    await self.step("prompts/list", session.list_prompts)
                if capabilities.resources is not None:
                    await self.step("resources/list", session.list_resources)
                if tools.tools:
                    first = tools.tools[0]
                    # 1.x names the field inputSchema, 2.x input_schema
                    schema = getattr(first, "input_schema", None) or getattr(first, "inputSchema", None)
                    await self.step("tools/call", lambda: session.call_tool(first.name, arguments_for(schema)))
                progress("close")
                self.current = "close"


def transport_for(argv):
    if len(argv) > 1 and argv[0] == "--stdio":
        env = {}
        if os.environ.get("MCPCHECK_CLIENT_IMPACT_TAG"):
            env["MCPCHECK_CLIENT_IMPACT_TAG"] = os.environ["MCPCHECK_CLIENT_IMPACT_TAG"]
        params = StdioServerParameters(command=argv[1], args=argv[2:], env=env)
        return stdio_client(params, errlog=open(os.devnull, "w"))
    if len(argv) == 2 and argv[0] == "--url":
        return http_client(argv[1])
    if len(argv) == 2 and argv[0] == "--sse":
        from mcp.client.sse import sse_client  # 1.x and 2.x both keep it

        return sse_client(argv[1])
    print("usage: py_driver.py --stdio PROGRAM ARGS... | --url URL | --sse URL", file=sys.stderr)
    sys.exit(2)


async def main():
    handler = Reported(level=logging.WARNING)
    logging.getLogger().addHandler(handler)
    logging.getLogger().setLevel(logging.WARNING)
    session = Session()
    transport = transport_for(sys.argv[1:])
    try:
        await session.run(transport)
        steps.append({"step": "close", "ok": True})
    except StepFailed:
        pass
    except BaseException as error:  # an error outside a step: in the transport, or on close
        failed = leaf(error)
        if isinstance(failed, StepFailed) or any(not step["ok"] for step in steps):
            pass
        elif session.current is not None:
            steps.append({"step": session.current, "ok": False, "error": describe(error)})
            session.closed = session.closed or is_closed(error)
        else:
            steps.append({"step": "close", "ok": False, "error": describe(error)})
    sys.stdout.write(json.dumps({"steps": steps, "reported": reported, "closed": session.closed}) + "\n")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    anyio.run(main)
