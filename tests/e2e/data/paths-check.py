#!/usr/bin/env python3
"""paths-check.py - compare hookscope's call paths with uftrace's graph.

    paths-check.py FUNCS u:UFTRACE_GRAPH_TXT... h:REPORT_JSON...

Both are calling-context trees of identical runs of one program: `uftrace
graph`'s text and the "paths" of hookscope's JSON report.  Each is reduced
to caller->callee edges between the functions named in FUNCS (comma
separated): calls and inclusive time summed over every path where the edge
occurs.  Several runs of a tool must agree on the calls; their inclusive
time is the least of the runs (wall-clock time: the run least disturbed by
other programs on the machine).  Every edge must have the same calls in
both tools, and an inclusive time within 10% of uftrace's.  Prints the
edges side by side; exits 1 on any difference."""
import json
import re
import sys

UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
LINE = re.compile(r"^\s*([0-9.]+)\s+(ns|us|ms|s)\s+:\s(.*)$")
NODE = re.compile(r"^(.*?)(\+-)?\((\d+)\)\s+(\S+)")


def uftrace_edges(path, names):
    """Edges of `uftrace graph`: a child's "+-" is one column right of its
    parent's "(", except a sole child, printed under its parent as is."""
    edges, nodes, body = {}, [], False
    for line in open(path):
        if line.startswith("# TOTAL TIME"):
            body = True
            continue
        m = LINE.match(line.rstrip("\n"))
        if not body or not m:
            continue
        ns = float(m.group(1)) * UNITS[m.group(2)]
        n = NODE.match(m.group(3))
        if not n:
            continue
        pos, func = m.group(3).index("(", len(n.group(1))), n.group(4)
        parent = None
        if n.group(2):
            plus = len(n.group(1))
            parent = next((f for p, f in reversed(nodes) if p == plus - 1), None)
        elif nodes:
            parent = nodes[-1][1]
        nodes.append((pos, func))
        if parent in names and func in names:
            e = edges.setdefault((parent, func), [0, 0.0])
            e[0] += int(n.group(3))
            e[1] += ns
    return edges


def hookscope_edges(path, names):
    paths = json.load(open(path))["sessions"][0]["functions"]["paths"]
    byid = {p["id"]: p for p in paths}
    edges = {}
    for p in paths:
        if p["parent"] is None or p["parent"] not in byid:
            continue
        caller = byid[p["parent"]]["func"]
        if caller in names and p["func"] in names:
            e = edges.setdefault((caller, p["func"]), [0, 0.0])
            e[0] += p["calls"]
            e[1] += p["incl_ns"]
    return edges


def merge(runs):
    """One tool's runs: calls must agree, the least inclusive time."""
    out, bad = {}, 0
    for edges in runs:
        for edge, (calls, ns) in edges.items():
            if edge in out and out[edge][0] != calls:
                print("runs disagree on %s->%s: %d and %d calls" % (edge + (out[edge][0], calls)))
                bad += 1
            out[edge] = [calls, min(ns, out[edge][1]) if edge in out else ns]
    return out, bad


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    names = set(sys.argv[1].split(","))
    want, b1 = merge(uftrace_edges(a[2:], names) for a in sys.argv[2:] if a.startswith("u:"))
    got, b2 = merge(hookscope_edges(a[2:], names) for a in sys.argv[2:] if a.startswith("h:"))
    bad = b1 + b2
    if not want:
        print("no edges between %s in uftrace's graph" % sorted(names))
        return 1
    for edge in sorted(set(want) | set(got)):
        w, g = want.get(edge, [0, 0.0]), got.get(edge, [0, 0.0])
        dev = (g[1] - w[1]) / w[1] if w[1] else float("inf")
        ok = w[0] == g[0] and abs(dev) <= 0.10
        bad += not ok
        print("%-5s %-22s calls %7d uftrace %7d   incl %10.3f ms uftrace %10.3f ms (%+.1f%%)" % (
            "ok" if ok else "DIFF", "%s->%s" % edge, g[0], w[0], g[1] / 1e6, w[1] / 1e6, dev * 100))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
