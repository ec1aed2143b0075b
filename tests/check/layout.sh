#!/bin/sh
# layout.sh - the agent's layout rules, checked on the source tree:
#   1. no file of the hook engine's core (collectors/engine/*, not its
#      back-end folders collectors/engine/ARCH/) holds x86-64 code: inline assembly,
#      register names, ucontext register slots, x86 opcode bytes or an
#      __x86_64__ test, not even in a comment (the core speaks of branches,
#      traps and the PC; the back-end names its instructions);
#   2. a module includes only public headers (collectors/include/) and its
#      own folder's headers, never another module's internal header, and
#      never a path with a directory in it (which would get round the
#      per-module include paths of the Makefile);
#   3. the engine's arch-neutral core includes nothing of a back-end's.
# Run from the top of the tree (tests/run.sh does).  HS_LAYOUT_ROOT=DIR
# checks another tree (the self-test below uses that).
#   sh tests/check/layout.sh
root=${HS_LAYOUT_ROOT:-.}
col=$root/collectors
[ -d "$col/engine" ] && [ -d "$col/include" ] ||
	{ echo "layout: $col/engine or $col/include is missing (run from the top of the tree)" >&2; exit 2; }

# Words that name x86-64 registers or are x86-only code.
X86_WORDS='([re](ax|bx|cx|dx|si|di|sp|bp|ip)|r(8|9|1[0-5])[dwb]?|[xyz]mm[0-9]+|REG_R[A-Z0-9]+|REG_E[A-Z0-9]+|gregs|R_X86_64_[A-Z0-9_]+|__x86_64__|__amd64__|__asm__|asm|rdtsc|endbr64|int3|cpuid)'
# Opcode bytes the engine writes: jmp rel32, call rel32, int3, nop, the
# first byte of jmp/call indirect.
X86_BYTES='0x(e9|e8|cc|90|ff)\b'

fails=0
bad() { echo "layout: $*"; fails=$((fails + 1)); }


# 1 and 3: the engine's core.
for f in $(find "$col/engine" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \) -print | sort); do
	hits=$(grep -n -E "(^|[^A-Za-z0-9_])$X86_WORDS([^A-Za-z0-9_]|$)|$X86_BYTES" "$f" | head -5)
	[ -n "$hits" ] && bad "${f#$root/}: x86-64 code outside collectors/engine/x86_64/ (move it behind the back-end ops, engine/backend.h):
$(echo "$hits" | sed 's/^/    /')"
	inc=$(grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"x86_64/' "$f")
	[ -n "$inc" ] && bad "${f#$root/}: the engine's core includes a back-end header ($inc): use engine/backend.h"
done

# 2: includes across modules.
for d in "$col"/*/; do
	mod=$(basename "$d")
	[ "$mod" = include ] && continue
	for f in $(find "$d" -type f \( -name '*.c' -o -name '*.h' \) | sort); do
		grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		sed 's/^\([0-9]*\):.*"\(.*\)".*/\1 \2/' | while read -r line h; do
			case $h in */*)
				echo "layout: ${f#$root/}:$line: #include \"$h\" names a directory: include public headers by name (collectors/include/)"
				continue ;;
			esac
			[ -f "$col/include/$h" ] && continue
			[ -f "$d$h" ] && continue
			# The back-end is part of the engine and sees its headers;
			# the engine sees the back-end's block layout by name.
			[ "$mod" = engine ] && [ -f "$col/engine/$h" ] && continue
			[ "$mod" = engine ] && [ "$h" = hook_layout.h ] && continue
			owner=$(cd "$col" && ls -d */"$h" 2>/dev/null | head -1)
			if [ -n "$owner" ]; then
				echo "layout: ${f#$root/}:$line: #include \"$h\" is internal to collectors/${owner%/*}/ (use its public header in collectors/include/)"
			fi
			# Not in collectors/: protocol.h and system headers are fine.
		done
	done
done >"${TMPDIR:-/tmp}/layout.$$"
if [ -s "${TMPDIR:-/tmp}/layout.$$" ]; then
	cat "${TMPDIR:-/tmp}/layout.$$"
	fails=$((fails + $(wc -l <"${TMPDIR:-/tmp}/layout.$$")))
fi
rm -f "${TMPDIR:-/tmp}/layout.$$"

# Self-test (on the real tree only): each rule must fire on a copy of the
# tree that breaks it once.
if [ -z "${HS_LAYOUT_ROOT:-}" ]; then
	{
		tmp=$(mktemp -d /tmp/hookscope-layout.XXXXXX) || exit 2
		trap 'rm -rf "$tmp"' EXIT INT TERM
		for case in reg asm byte cross dir; do
			rm -rf "$tmp/t"; mkdir -p "$tmp/t"; cp -R "$col" "$tmp/t/"
			case $case in
			reg)   printf 'static unsigned long f(void *u) { return ((unsigned long *)u)[REG_RIP]; }\n' >>"$tmp/t/collectors/engine/hook_site.c" ;;
			asm)   printf 'static void g(void) { __asm__ volatile("nop"); }\n' >>"$tmp/t/collectors/engine/hook_patch.c" ;;
			byte)  printf 'static const unsigned char jmp_op = 0xe9;\n' >>"$tmp/t/collectors/engine/hook_site.c" ;;
			cross) printf '#include "block_int.h"\n' >>"$tmp/t/collectors/ipc/ipc.c" ;;
			dir)   printf '#include "../engine/hook_int.h"\n' >>"$tmp/t/collectors/power/power.c" ;;
			esac
			if HS_LAYOUT_ROOT="$tmp/t" sh "$0" >"$tmp/out" 2>&1; then
				echo "layout: self-test: a tree with a '$case' violation passed the check"
				fails=$((fails + 1))
			fi
		done
	}
fi

[ $fails -eq 0 ] && { [ -n "${HS_LAYOUT_ROOT:-}" ] || echo "layout: ok"; exit 0; }
echo "layout: $fails problem(s)"
exit 1
