#!/usr/bin/env python3
"""A minimal, correct MCP server over stdio, using only Python's standard library.

It is the server the README checks with mcpcheck; run alone, it waits for JSON on stdin.

The protocol: one JSON-RPC 2.0 message per line on stdin and stdout. stdout carries
protocol messages only; anything meant for a human goes to stderr.
"""
import json
import sys

PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

HELLO_TOOL = {
    "name": "hello",
    "description": "Greets someone by name.",
    "inputSchema": {
        "type": "object",
        "properties": {"name": {"type": "string", "description": "Who to greet."}},
        "required": ["name"],
    },
}


class RpcError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


def initialize(params):
    # Use the client's protocol version if we speak it; otherwise offer our latest.
    version = params.get("protocolVersion")
    return {
        "protocolVersion": version if version in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1],
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "hello", "version": "1.0.0"},
    }


def call_tool(params):
    if params.get("name") != "hello":
        raise RpcError(-32602, "Unknown tool: %s" % params.get("name"))
    name = (params.get("arguments") or {}).get("name")
    if not isinstance(name, str):
        raise RpcError(-32602, "Argument 'name' must be a string")
    return {"content": [{"type": "text", "text": "Hello, %s!" % name}]}


METHODS = {
    "initialize": initialize,
    "ping": lambda params: {},
    "tools/list": lambda params: {"tools": [HELLO_TOOL]},
    "tools/call": call_tool,
}


def send(message):
    # Write bytes and flush at once: the client waits for each whole line.
    sys.stdout.buffer.write(json.dumps(message).encode("utf-8") + b"\n")
    sys.stdout.buffer.flush()


def main():
    for line in sys.stdin.buffer:  # Ends when the client closes stdin.
        if not line.strip():
            continue  # Tolerate blank lines.
        try:
            message = json.loads(line)
        except ValueError:
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            continue
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            continue  # Notifications and answers to us need no reply.
        reply = {"jsonrpc": "2.0", "id": message["id"]}
        try:
            method = METHODS.get(message["method"])
            if method is None:
                raise RpcError(-32601, "Method not found")
            reply["result"] = method(message.get("params") or {})
        except RpcError as error:
            reply["error"] = {"code": error.code, "message": error.message}
        send(reply)


if __name__ == "__main__":
    main()
