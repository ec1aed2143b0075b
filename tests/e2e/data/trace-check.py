#!/usr/bin/env python3
"""trace-check.py TRACE.json PID RENDER_TID LOOP_TID: read a Chrome trace
event file the way Perfetto's JSON importer does and check what hookscope
promises.  Every event: ph, pid, tid (integers), ts (number, us) except
metadata; X events have dur >= 0; B/E pairs nest per thread; C events carry
numeric args.  Expected from the demo run (--render 60 --loop MS, UI thread
demo-loop, --power 2 --ipc: tests/e2e/data/report-demo.sh): a process_name
and thread names, frame slices on the render thread that never overlap, at
least one block slice of 270-330 ms on the loop thread, counters "FPS demo"
and "threads"; slow IPC slices ("ipc recv", 250 ms answers) on the main
thread (tid = PID) with demo_ipc_fetch_settings innermost in args.stack,
that never overlap; the "held resources" counter: 2 wakelocks, then 1
about a second later, the sensor 1 from then on.  Prints the figures."""
import json
import sys

path, pid, render_tid, loop_tid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
doc = json.load(open(path))
events = doc["traceEvents"] if isinstance(doc, dict) else doc
assert isinstance(events, list) and events, "no traceEvents"
open_slices = {}
frames, blocks, ipc, counters, names = [], [], [], {}, {}
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
        elif e.get("cat") == "ipc":
            ipc.append(e)
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

# Slow IPC calls: on the thread that called, as long as the helper made them wait.
slow = sorted((e for e in ipc if e["pid"] == pid), key=lambda e: e["ts"])
assert len(slow) >= 2, "fewer than 2 slow IPC slices: %r" % ipc
for e in slow:
    assert e["name"] == "ipc recv" and e["tid"] == pid, "slow IPC call not a recv on the main thread: %r" % e
    assert 240000 <= e["dur"] <= 400000, "slow IPC call of %.0f us, expected about 250 ms: %r" % (e["dur"], e)
    assert e["args"]["stack"][0] == "demo_ipc_fetch_settings", "wrong innermost frame: %r" % e
    assert e["args"]["endpoint"].startswith("@hookscope-demo-") and e["args"]["kind"] == "unix", e
for a, b in zip(slow, slow[1:]):
    assert a["ts"] + a["dur"] <= b["ts"], "slow IPC calls of one thread overlap: %r %r" % (a, b)

# Held power resources: demo-wakelock held about 1 s beside demo-leaked, the
# sensor held on.
held = sorted(counters.get("held resources", []), key=lambda c: c["ts"])
assert len(held) >= 3, "no held resources counter: %r" % held
assert all(c["pid"] == pid for c in held), held
on = [c["ts"] for c in held if c["args"].get("wakelock") == 2]
off = [c["ts"] for c in held if c["args"].get("wakelock") == 1 and on and c["ts"] > on[0]]
assert on and off, "the wakelocks never went 2 then 1: %r" % held
wl = (off[0] - on[0]) / 1e6
assert 0.7 <= wl <= 1.6, "demo-wakelock held %.2f s in the counter, expected about 1 s" % wl
assert held[-1]["args"].get("sensor") == 1 and held[-1]["args"].get("wakelock") == 1, \
    "not the sensor and one wakelock held at the end: %r" % held[-1]
print("trace ok: %d events, %d frame slices (median %.2f ms), %d blocks on the loop thread, "
      "%d FPS counter values, %d threads counter values, %d slow IPC slices (longest %.1f ms), "
      "%d held-resources values (wakelock held %.2f s)"
      % (len(events), len(mine), med / 1000, len(mb), len(counters["FPS demo"]), len(counters["threads"]),
         len(slow), max(e["dur"] for e in slow) / 1000, len(held), wl))
