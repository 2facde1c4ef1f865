#!/usr/bin/env python3
"""A registry's consumer of the mcp-stdio-guard v1 JSON contract, written only from that
contract's documentation (its README's "JSON Contract" section and the fields of its
published results), never from mcpcheck's code or extra fields.

Reads one guard JSON result on stdin and prints what a registry would show, as JSON:
  badge     from summary.badge (label, message, color) and summary.status
  bucket    from issueClasses, in the README's display order and guidance
  surface   from checks.capabilities: is each advertised list really served?
  drift     from drift (repeat mode): advisories, never failures
Exits 2 with one line on stderr when the input does not follow the contract.
"""
import json
import sys

CLASS_GUIDANCE = {
    "installRuntime": "runtime/install issue",
    "stdioTransport": "stdio hygiene failure",
    "mcpProtocol": "MCP/JSON-RPC conformance issue",
}
STATUSES = {"pass", "fail", "warning", "skipped"}


def fail(message):
    sys.stderr.write(f"registry_consumer: {message}\n")
    sys.exit(2)


def badge(result):
    summary = result["summary"]
    b = summary["badge"]
    return {"label": b["label"], "message": b["message"], "color": b["color"], "status": summary["status"]}


def bucket(result):
    """The README: show issueClasses first, so install/runtime, stdio transport and MCP
    protocol failures stay distinct; a runtime issue is never shown as a protocol violation."""
    classes = result["issueClasses"]
    failing = [name for name in ("stdioTransport", "mcpProtocol") if classes[name]["status"] == "fail"]
    if failing:
        return {"bucket": CLASS_GUIDANCE[failing[0]], "classes": failing}
    if classes["installRuntime"]["status"] == "fail":
        return {"bucket": "needs inspection", "classes": ["installRuntime"]}
    warned = [name for name in CLASS_GUIDANCE if classes[name]["status"] == "warning"]
    if warned:
        return {"bucket": "verified with warnings", "classes": warned}
    return {"bucket": "verified", "classes": []}


def surface(result):
    """checks.capabilities.<cap>: advertised, method, responded, itemCount."""
    out = {}
    caps = result["checks"]["capabilities"]
    for name in ("tools", "resources", "prompts"):
        entry = caps[name]
        if entry["status"] not in STATUSES:
            fail(f"checks.capabilities.{name}.status is {entry['status']!r}")
        if entry["advertised"] and entry["responded"]:
            out[name] = f"served ({entry['itemCount']} via {entry['method']})"
        elif entry["advertised"]:
            out[name] = "advertised but not served"
        elif entry["responded"]:
            out[name] = "served without being advertised"
        else:
            out[name] = "not offered"
    return out


def drift(result):
    """Repeat mode only: drift is advisory (the README's warning level), with the runs
    that changed."""
    d = result.get("drift")
    if d is None:
        return {"checked": False, "advisories": []}
    advisories = []
    for aspect in ("tools", "capabilities"):
        for change in d[aspect]["changedRuns"]:
            advisories.append(
                f"{aspect} changed in run {change['run']} against run {d['baselineRun']}: "
                f"+{sorted(change['added'])} -{sorted(change['removed'])}"
            )
    return {"checked": d["checked"], "status": d["status"], "compared": d["comparedRuns"], "advisories": advisories}


def main():
    try:
        result = json.load(sys.stdin)
    except json.JSONDecodeError as e:
        fail(f"stdin is not JSON ({e}); pipe a guard --json result")
    if result.get("schemaVersion") != 1:
        fail(f"schemaVersion is {result.get('schemaVersion')!r}; this consumer reads version 1")
    try:
        shown = {"badge": badge(result), "bucket": bucket(result), "surface": surface(result), "drift": drift(result)}
    except (KeyError, TypeError) as e:
        fail(f"a documented field is missing or of another type: {e}")
    json.dump(shown, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
