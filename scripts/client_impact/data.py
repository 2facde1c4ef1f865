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
    # The same outcome at different steps (a session lost at connect in one run, at tools/list
    # in another) is a race too: flaky, with the steps seen.
    steps = sorted({o.step for o in observations if o.outcome == chosen and o.step})
    row = {"client": client_id, "outcome": chosen, "step": picked.step, "detail": picked.detail,
           "flaky": len(counts) > 1 or len(steps) > 1}
    if len(counts) > 1:
        row["outcomes"] = sorted(counts, key=ORDER.index)
    if len(steps) > 1:
        row["steps"] = steps
    return row


def union(first, second):
    """One row from the rows of two invocations of the same pair: the second's, marked flaky
    with every outcome and step either saw when they differ."""
    seen = lambda r: r.get("outcomes") or [r["outcome"]]
    steps = lambda r: r.get("steps") or ([r["step"]] if r.get("step") else [])
    if "skipped" in (first["outcome"], second["outcome"]):
        return dict(second)
    row = dict(second)
    outcomes = sorted(set(seen(first)) | set(seen(second)), key=ORDER.index)
    # Steps of the row's own outcome only, as fold keeps them.
    both = sorted(set(steps(second)) | (set(steps(first)) if first["outcome"] == second["outcome"] else set()))
    row["flaky"] = first.get("flaky", False) or second.get("flaky", False) or len(outcomes) > 1 or len(both) > 1
    row.pop("outcomes", None)
    row.pop("steps", None)
    if len(outcomes) > 1:
        row["outcomes"] = outcomes
    if len(both) > 1:
        row["steps"] = both
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


class MergeRefused(Exception):
    pass


def mergeable(old, clients, bound_ms, runs):
    """Refuses (MergeRefused) a merge whose rows would not be comparable with the data's: an
    installed client whose version differs from the data's for the same id, a client the data
    does not have, or another bound or number of runs."""
    known = {c["id"]: c for c in old.get("clients", [])}
    problems = []
    for client in clients:
        recorded = known.get(client.id)
        if recorded is None:
            problems.append(f"client {client.id} is not in the data (a new client needs a full run)")
        elif recorded.get("version") != client.version:
            problems.append(f"{client.id} is {client.package} {client.version} here, "
                            f"{recorded.get('version')} in the data")
    if old.get("boundMs") != bound_ms:
        problems.append(f"--bound-ms is {bound_ms}, the data's boundMs {old.get('boundMs')}")
    if old.get("runs") != runs:
        problems.append(f"--runs is {runs}, the data's runs {old.get('runs')}")
    if problems:
        raise MergeRefused("; ".join(problems))


def merge(old, new, generated, client_ids):
    """The data file `old` with the rows of the run `new` merged in: each fixture of the run
    replaces the data's row of that name (when the run was restricted to some clients, only those
    clients' observations; the others' are kept), new fixtures are added, fixtures stay sorted by
    name; the top-level fields are the data's, with `generated` set to the run's day."""
    fixtures = {f["fixture"]: f for f in old.get("fixtures", [])}
    for entry in new["fixtures"]:
        kept = fixtures.get(entry["fixture"])
        observations = list(entry["observations"])
        if kept is not None:
            observations += [o for o in kept["observations"] if o["client"] not in client_ids]
        merged = dict(entry, observations=sorted(observations, key=lambda r: r["client"]))
        fixtures[entry["fixture"]] = merged
    doc = dict(old)
    doc["generated"] = generated
    doc["fixtures"] = [fixtures[name] for name in sorted(fixtures)]
    return doc


def write(path, doc):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
