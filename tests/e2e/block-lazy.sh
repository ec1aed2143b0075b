# block-lazy.sh - the UI thread's stack sampled while the dynamic loader
# binds symbols lazily (tests/e2e/data/lazybind.c: every message, for
# 150 ms, dlopens a library of 900 functions that call each other through
# its PLT, calls them all and dlcloses it).  On arm64 glibc's unwind
# information for the resolver is 16 bytes off, and an unwinder that
# trusts it walks into a garbage return address (block_signal.c): the
# agent must never crash its target there.  Checked (a stack every 2 ms
# during a block): the program finishes all 20 messages, they are blocks with samples, and a sampled stack passes
# through the resolver.  (Frames in the library itself may have no name:
# it is unloaded before the reporter names them.)
# HS_CC: the target's compiler (the arm64 suite's cross compiler).
. tests/e2e/lib.sh

CC=${HS_CC:-cc}
D=tests/e2e/data
$CC -O2 -g -fPIC -shared -Wl,-z,lazy -DLAZY_LIB -o "$HS_TMP/liblazy.so" $D/lazybind.c ||
	fail "cannot build liblazy.so"
$CC -O2 -g -Wl,-z,lazy -o "$HS_TMP/lazybind" $D/lazybind.c -ldl || fail "cannot build lazybind"

start_daemon run --level 0 -- "$HS_TMP/lazybind" "$HS_TMP/liblazy.so" 20
log=$HS_TMP/daemon.log
# a stack every 2 ms during a block (10 ms by default): more samples land in the resolver
wait_for 20 jq_once '.targets | length > 0' >/dev/null
"$O/hookscope" --cmd "threshold block_sample 2" "ws://127.0.0.1:$HS_PORT" >/dev/null ||
	fail "threshold block_sample refused"
wait_for 120 sh -c "grep -q 'lazybind: done 20' '$log' || grep -q 'ended: killed by signal' '$log'"
grep 'ended: killed by signal' "$log" && fail "the target was killed while its stacks were sampled"
wait_for 10 jq_once '.blocks.count >= 20'
once_json >"$HS_TMP/f.json" || fail "no frame"
jq -c '[.blocks.list[] | {ms: (.dur_ns / 1e6 | floor), samples, lost}]' "$HS_TMP/f.json"
jq -e '[.blocks.list[] | select(.ended)] | length >= 8 and all(.samples > 0)' "$HS_TMP/f.json" \
	>/dev/null || fail "blocks without samples"
# Samples inside lazy binding: a stack through the loader's resolver
# (_dl_runtime_resolve, _dl_runtime_resolve_xsavec, ...).
jq -e '[.blocks.list[].stacks[].frames[] | select(.func | startswith("_dl_runtime_resolve"))] |
	length > 0' "$HS_TMP/f.json" >/dev/null || {
	jq -c '[.blocks.list[].stacks[].frames | map("\(.func) (\(.module))")] | .[:6]' "$HS_TMP/f.json" >&2
	fail "no sampled stack passes through the loader's lazy-binding resolver"
}
jq -c '[.blocks.list[].stacks[].frames | map(.func) | select(any(startswith("_dl_runtime_resolve")))] |
	.[0]' "$HS_TMP/f.json"
echo "ok: stacks sampled inside lazy binding, the target unharmed"
