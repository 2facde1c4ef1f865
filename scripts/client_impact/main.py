"""scripts/client-impact: drives real MCP clients against every fault fixture of the guard's tests
and writes what each client did to data/client-impact.json (see README.md beside this file)."""

import argparse
import datetime
import fnmatch
import json
import os
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from . import clients as client_table
from . import data
from .fixtures import discover, guard_codes
from .session import Observation, observe

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Settings:
    scratch: Path
    bound: float
    env: dict


def parse(argv):
    parser = argparse.ArgumentParser(prog="scripts/client-impact", description=__doc__)
    parser.add_argument("--scratch", type=Path, default=ROOT / "target" / "client-impact",
                        help="where the clients are installed (reused when present)")
    parser.add_argument("--bound-ms", type=int, default=10000, help="the bound of one whole session")
    parser.add_argument("--jobs", type=int, default=4, help="sessions run at once")
    parser.add_argument("--runs", type=int, default=2, help="how often every session is run")
    parser.add_argument("--only", action="append", metavar="GLOB", help="run only the fixtures matching GLOB")
    parser.add_argument("--clients", help="comma-separated client ids (default: all)")
    parser.add_argument("--mcpcheck", type=Path, default=ROOT / "target" / "debug" / "mcpcheck",
                        help="the mcpcheck binary whose guard names each fixture's codes")
    parser.add_argument("--out", type=Path,
                        help="the data file (default data/client-impact.json; with --only or --clients, "
                             "SCRATCH/subset.json, so a partial run never replaces the committed data)")
    parser.add_argument("--merge", action="store_true",
                        help="merge the run's rows into the data file (--out, default data/client-impact.json): "
                             "its fixtures' rows replaced (only the run's clients' observations with --clients), "
                             "new fixtures added; refused when a client's version, the bound or the runs differ")
    parser.add_argument("--install-only", action="store_true", help="install the clients and stop")
    args = parser.parse_args(argv)
    if args.bound_ms <= 0 or args.jobs <= 0 or args.runs <= 0:
        parser.error("--bound-ms, --jobs and --runs must be positive")
    return args


def fail(message):
    print(f"client-impact: {message}", file=sys.stderr)
    sys.exit(2)


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    scratch = args.scratch.resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    clients = client_table.all_clients()
    if args.clients:
        wanted = args.clients.split(",")
        unknown = sorted(set(wanted) - {c.id for c in clients})
        if unknown:
            fail(f"unknown client {', '.join(unknown)} (known: {', '.join(c.id for c in clients)})")
        clients = [c for c in clients if c.id in wanted]

    started = time.monotonic()
    try:
        client_table.install(clients, scratch)
    except client_table.InstallError as error:
        fail(f"installing the clients: {error}")
    installed = time.monotonic() - started
    print(f"client-impact: install took {installed:.0f} s", file=sys.stderr)
    if args.install_only:
        return 0
    if not args.mcpcheck.exists():
        fail(f"{args.mcpcheck} not found: build it (cargo build) or pass --mcpcheck")

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE")}
    settings = Settings(scratch, args.bound_ms / 1000, env)
    try:
        fixtures = discover(ROOT, scratch)
    except ValueError as error:
        fail(str(error))
    if args.only:
        fixtures = [f for f in fixtures if any(fnmatch.fnmatch(f.name, glob) for glob in args.only)]
        if not fixtures:
            fail(f"no fixture matches {' '.join(args.only)}")
    if args.merge:
        out = args.out or ROOT / "data" / "client-impact.json"
        try:
            old = json.loads(out.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            fail(f"--merge: cannot read {out}: {error}")
        try:
            data.mergeable(old, clients, args.bound_ms, args.runs)
        except data.MergeRefused as error:
            fail(f"--merge into {out} refused: {error}")
    else:
        out = args.out or (scratch / "subset.json" if args.only or args.clients
                           else ROOT / "data" / "client-impact.json")

    run_started = time.monotonic()
    codes = {}
    observed = defaultdict(list)
    tasks = [("guard", f, None, 0) for f in fixtures]
    for run in range(1, args.runs + 1):
        tasks += [("session", f, c, run) for f in fixtures for c in clients]
    failures = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {}
        for kind, fixture, client, run in tasks:
            if kind == "guard":
                future = pool.submit(guard_codes, fixture, args.mcpcheck, ROOT, scratch, env)
            else:
                future = pool.submit(observe, fixture, client, settings, run)
            futures[future] = (kind, fixture, client, run)
        for done, future in enumerate(as_completed(futures), 1):
            kind, fixture, client, run = futures[future]
            try:
                result = future.result()
            except Exception as error:  # a fixture that would not start: say which, go on
                failures.append(f"{fixture.name} {client.id if client else 'guard'}: {error}")
                continue
            if kind == "guard":
                codes[fixture.name] = result
            else:
                result.detail = data.stabilise(result.detail, ROOT, scratch)
                observed[(fixture.name, client.id)].append(result)
            if done % 50 == 0 or done == len(futures):
                print(f"client-impact: {done}/{len(futures)} done, {time.monotonic() - run_started:.0f} s",
                      file=sys.stderr)
    rows = defaultdict(list)
    for fixture in fixtures:
        for client in clients:
            observations = observed[(fixture.name, client.id)]
            if not observations:  # the server never started for this client: say so in the row
                observations = [Observation("skipped", None, "the runner could not start the server")]
            rows[fixture.name].append(data.fold(client.id, observations))
    generated = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    doc = data.document(generated, args.bound_ms, args.runs, clients, fixtures, codes, rows)
    if args.merge and failures:
        # A failed guard or server would replace a good row with an empty one: merge nothing.
        subset = scratch / "subset.json"
        data.write(subset, doc)
        summarise(doc, installed, time.monotonic() - run_started, subset)
        print("client-impact: could not run: " + "; ".join(failures), file=sys.stderr)
        print(f"client-impact: nothing merged into {out}; the run's rows are in {subset}", file=sys.stderr)
        return 1
    if args.merge:
        merged = data.merge(old, doc, generated, {c.id for c in clients})
        data.write(out, merged)
        summarise(doc, installed, time.monotonic() - run_started, out, merged)
        return 0
    data.write(out, doc)
    summarise(doc, installed, time.monotonic() - run_started, out)
    if failures:
        print("client-impact: could not run: " + "; ".join(failures), file=sys.stderr)
        return 1
    return 0


def summarise(doc, installed, ran, out, merged=None):
    counts = defaultdict(lambda: defaultdict(int))
    flaky = 0
    for fixture in doc["fixtures"]:
        for row in fixture["observations"]:
            counts[row["client"]][row["outcome"]] += 1
            flaky += row["flaky"]
    wrote = f"merged into {out} ({len(merged['fixtures'])} fixtures now)" if merged else f"wrote {out}"
    print(f"client-impact: {wrote}: {len(doc['fixtures'])} fixtures x {len(doc['clients'])} clients, "
          f"{flaky} flaky; install {installed:.0f} s, run {ran:.0f} s", file=sys.stderr)
    for client in doc["clients"]:
        line = ", ".join(f"{k} {counts[client['id']][k]}" for k in data.ORDER if counts[client["id"]][k])
        print(f"client-impact:   {client['id']} {client['version']}: {line}", file=sys.stderr)
