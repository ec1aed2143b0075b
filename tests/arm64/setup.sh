# setup.sh - the arm64 suite's environment (sourced by tests/run.sh when
# ARCH=aarch64): arm64 programs run under qemu-aarch64 through binfmt_misc,
# registered here if it is not (root; it does not survive a reboot), so the
# tests start build-aarch64/'s daemon, TUI, tools and targets as they start
# native ones.  Targets are built with HS_CC.  Fails loudly if it cannot.
arm64_fail() { echo "arm64 suite: $*" >&2; exit 1; }
command -v qemu-aarch64-static >/dev/null ||
	arm64_fail "qemu-aarch64-static is missing: run make deps ARCH=aarch64"
command -v aarch64-linux-gnu-gcc >/dev/null ||
	arm64_fail "aarch64-linux-gnu-gcc is missing: run make deps ARCH=aarch64"
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
	[ -e /proc/sys/fs/binfmt_misc/register ] ||
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
		arm64_fail "cannot mount binfmt_misc (needs root)"
	grep -v '^#' /usr/lib/binfmt.d/qemu-aarch64.conf >/proc/sys/fs/binfmt_misc/register ||
		arm64_fail "cannot register qemu-aarch64 with binfmt_misc"
fi
export HS_CC=aarch64-linux-gnu-gcc
# Tests that rewrite ELF files of their own (objcopy) get the arm64 one.
ARM64_BIN=$(mktemp -d /tmp/hookscope-arm64-bin.XXXXXX) || arm64_fail "mktemp failed"
ln -s "$(command -v aarch64-linux-gnu-objcopy)" "$ARM64_BIN/objcopy" ||
	arm64_fail "aarch64-linux-gnu-objcopy is missing: run make deps ARCH=aarch64"
export PATH="$ARM64_BIN:$PATH"
# The e2e tests of the arm64 suite: the engine's (levels, BTI/PAC, live
# toggles, entry NOPs, the far entry, a module larger than a B's reach), the demo's collectors and TUI views, and the
# forwarded-port pipeline (tests/arm64/forward.sh: it needs the native build
# too).  None needs ptrace (qemu user mode has none); tests whose figures
# depend on timing at native speed (tui-ipc's 250 ms rows; pipeline, whose
# exact counts assume the overhead budget keeps every call timed) stay native.
ARM64_E2E="tests/e2e/engine.sh tests/arm64/engine-bti.sh tests/arm64/engine-toggle.sh
tests/arm64/engine-toggle-bti.sh tests/arm64/engine-toggle-nop.sh tests/arm64/engine-toggle-counted.sh tests/arm64/engine-far.sh
tests/arm64/engine-far-bti.sh tests/arm64/engine-big.sh tests/arm64/forward.sh
tests/e2e/demo-scenarios.sh tests/e2e/tui-blocks.sh tests/e2e/tui-fps.sh
tests/e2e/tui-threads.sh tests/e2e/tui-power.sh tests/e2e/block-lazy.sh"
