#!/usr/bin/env python3
"""trace-check.py TRACE.json PID RENDER_TID LOOP_TID: read a Chrome trace
event file the way Perfetto's JSON importer does and check what hookscope
promises.  Every event: ph, pid, tid (integers), ts (number, us) except
metadata; X events have dur >= 0; B/E pairs nest per thread; C events carry
numeric args.  Expected from the demo run (--render 60 --loop MS, UI thread
demo-loop): a process_name and thread names, frame slices on the render
thread that never overlap, at least one block slice of 270-330 ms on the
loop thread, counters "FPS demo" and "threads".  Prints the figures."""
import json
import sys

path, pid, render_tid, loop_tid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
doc = json.load(open(path))
events = doc["traceEvents"] if isinstance(doc, dict) else doc
assert isinstance(events, list) and events, "no traceEvents"
open_slices = {}
frames, blocks, counters, names = [], [], {}, {}
for e in events:
    ph = e.get("ph")
    assert ph in ("X", "B", "E", "C", "M", "i", "I"), "unknown ph %r" % ph
    assert isinstance(e.get("pid"), int) and isinstance(e.get("tid"), int), e
    if ph != "M":
        assert isinstance(e.get("ts"), (int, float)) and e["ts"] >= 0, e
    key = (e["pid"], e["tid"])
    if ph == "X":
        assert isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0, e
        if e["name"].startswith("frame"):
            frames.append(e)
        elif e["name"] == "block":
            blocks.append(e)
    elif ph == "B":
        open_slices.setdefault(key, []).append(e)
    elif ph == "E":
        assert open_slices.get(key), "E without B: %r" % e
        open_slices[key].pop()
    elif ph == "C":
        assert e.get("args") and all(isinstance(v, (int, float)) for v in e["args"].values()), e
        counters.setdefault(e["name"], []).append(e)
    elif ph == "M":
        names[(e["name"], e["tid"])] = e["args"]["name"]
assert not any(open_slices.values()), "B without E"
assert ("process_name", pid) in names, "no process_name for pid %d" % pid
assert names.get(("thread_name", loop_tid)) == "demo-loop", "loop thread not named: %r" % names

mine = sorted((f for f in frames if f["pid"] == pid and f["tid"] == render_tid), key=lambda f: f["ts"])
assert len(mine) >= 60, "only %d frame slices on the render thread" % len(mine)
for a, b in zip(mine, mine[1:]):
    assert a["ts"] + a["dur"] <= b["ts"] + 0.01, "frames overlap: %r %r" % (a, b)
durs = sorted(f["dur"] for f in mine)
med = durs[len(durs) // 2]
assert 12000 <= med <= 22000, "median frame %.0f us, expected about 16667 (60 Hz)" % med
mb = [b for b in blocks if b["tid"] == loop_tid and 270000 <= b["dur"] <= 330000]
assert mb, "no 300 ms block slice on the loop thread: %r" % blocks
assert any(set(b["args"].get("stack", [])) & {"loop_sleep_cb", "loop_spin_cb"} for b in mb), \
    "no block names its callback in args.stack: %r" % mb
assert "FPS demo" in counters and len(counters["FPS demo"]) >= 10, "no FPS counter"
assert "threads" in counters and max(c["args"]["live"] for c in counters["threads"]) >= 3, "no threads counter"
print("trace ok: %d events, %d frame slices (median %.2f ms), %d blocks on the loop thread, "
      "%d FPS counter values, %d threads counter values"
      % (len(events), len(mine), med / 1000, len(mb), len(counters["FPS demo"]), len(counters["threads"])))
