"""Observations made stable (no pids, ports, paths, times or addresses), runs folded into one row
per (fixture, client) with flakiness marked, and the data file written."""

import json
import re
from collections import Counter

# Least severe first: among equally frequent outcomes of a flaky row the first wins.
ORDER = ["ok", "drops", "error", "closed", "hang", "skipped"]


def stabilise(detail, root, scratch):
    if detail is None:
        return None
    text = detail.replace(str(scratch), "<scratch>").replace(str(root), "<repo>")
    rules = [
        (r"(127\.0\.0\.1|localhost|\[::1\]):\d+", r"\1:<port>"),
        (r"\b(pid|PID|process) ?:? ?\d+", r"\1 <pid>"),
        (r"/tmp/[^\s'\",)\]]+", "<tmp>"),
        (r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?", "<time>"),
        (r"\b0x[0-9a-fA-F]{6,}\b", "<address>"),
        (r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b", "<uuid>"),
        (r"\b[0-9a-fA-F]{16,}\b", "<hex>"),
        (r"\b\d+(\.\d+)?(ms|s|µs)\b(?! ?ago)", "<duration>"),
    ]
    for pattern, replacement in rules:
        text = re.sub(pattern, replacement, text)
    return text[:200]


def fold(client_id, observations):
    """One row from the observations of every run."""
    outcomes = [o.outcome for o in observations]
    counts = Counter(outcomes)
    chosen = min(counts, key=lambda o: (-counts[o], ORDER.index(o)))
    # Among the runs with the chosen outcome, the smallest (step, detail) keeps rows stable.
    picked = min((o for o in observations if o.outcome == chosen), key=lambda o: (o.step or "", o.detail or ""))
    row = {"client": client_id, "outcome": chosen, "step": picked.step, "detail": picked.detail,
           "flaky": len(counts) > 1}
    if row["flaky"]:
        row["outcomes"] = sorted(counts, key=ORDER.index)
    return row


def document(generated, bound_ms, runs, clients, fixtures, codes, rows):
    """The data file's object; fixtures sorted by name, observations by client id."""
    entries = []
    for fixture in sorted(fixtures, key=lambda f: f.name):
        observations = sorted(rows[fixture.name], key=lambda r: r["client"])
        entry = {"fixture": fixture.name, "transport": fixture.transport}
        if fixture.guard_args:  # only where the guard needs flags to see the fault
            entry["guardArgs"] = list(fixture.guard_args)
        entry["codes"] = codes.get(fixture.name, [])
        entry["observations"] = observations
        entries.append(entry)
    return {
        "generated": generated,
        "boundMs": bound_ms,
        "runs": runs,
        "clients": [client.record() for client in clients],
        "fixtures": entries,
    }


def write(path, doc):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
