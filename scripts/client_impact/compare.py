#!/usr/bin/env python3
"""Compares two client-impact data files row by row (fixture x client): the stability check of
issue 32 item 4. A row is stable when both runs saw the same outcome at the same step; a row
that differs is accounted for when either file marks it flaky.

Rows where either side skipped the client are left out.

Usage: python3 scripts/client_impact/compare.py A.json B.json [--union OUT.json]
Exit status 0 when every differing row is marked flaky in one of the files, else 1.
With --union, OUT.json is B with every row that differs from A (or is flaky in either) marked
flaky, its outcomes and steps those of both, and `runs` the sum: the data of both invocations,
nothing hidden."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from client_impact.data import union, write  # noqa: E402


def rows(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    out = {}
    for fixture in doc["fixtures"]:
        for o in fixture["observations"]:
            out[(fixture["fixture"], o["client"])] = (o["outcome"], o.get("step"), o.get("flaky", False))
    return doc, out


def write_union(da, db, out):
    by = {(f["fixture"], o["client"]): o for f in da["fixtures"] for o in f["observations"]}
    doc = json.loads(json.dumps(db))
    for fixture in doc["fixtures"]:
        fixture["observations"] = [
            union(by[(fixture["fixture"], o["client"])], o) if (fixture["fixture"], o["client"]) in by else o
            for o in fixture["observations"]
        ]
    doc["runs"] = da["runs"] + db["runs"]
    write(Path(out), doc)  # the format every data file has (data.write)


def main(argv):
    out = None
    if len(argv) == 5 and argv[3] == "--union":
        out = argv[4]
        argv = argv[:3]
    if len(argv) != 3:
        print("usage: compare.py A.json B.json [--union OUT.json]", file=sys.stderr)
        return 2
    (da, a), (db, b) = rows(argv[1]), rows(argv[2])
    # A client skipped on one side (not driven on that transport then) has nothing to compare.
    both = sorted(k for k in set(a) & set(b) if "skipped" not in (a[k][0], b[k][0]))
    differ, unmarked = [], []
    for key in both:
        (oa, sa, fa), (ob, sb, fb) = a[key], b[key]
        if (oa, sa) != (ob, sb):
            differ.append(key)
            if not (fa or fb):
                unmarked.append(key)
    flaky = sum(1 for k in both if a[k][2] or b[k][2])
    print(f"{argv[1]}: run of {da['generated']}, {da['runs']} runs per pair; {argv[2]}: run of {db['generated']}, {db['runs']} runs per pair")
    print(f"rows in both: {len(both)} (only in the first: {len(set(a) - set(b))}, only in the second: {len(set(b) - set(a))})")
    print(f"same outcome and step: {len(both) - len(differ)}; differ: {len(differ)}; marked flaky in either: {flaky}")
    for key in differ:
        (oa, sa, fa), (ob, sb, fb) = a[key], b[key]
        mark = "flaky" if fa or fb else "NOT MARKED FLAKY"
        print(f"  {key[0]} / {key[1]}: {oa} at {sa} vs {ob} at {sb} ({mark})")
    print(f"differing rows not marked flaky: {len(unmarked)}")
    if out:
        write_union(da, db, out)
        print(f"wrote {out}: {argv[2]} with the rows that differ from {argv[1]} marked flaky")
    return 0 if not unmarked else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
