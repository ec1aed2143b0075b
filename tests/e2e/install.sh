# install.sh - `make install DESTDIR=...` puts every promised file in place
# (binaries, agent, hookscope.h, themes, man pages hookscope.1 and
# hookscoped.8, hookscope.pc, hookscoped.service), `man -l` renders both
# pages without warnings, and a second install under a real PREFIX is used
# by real consumers: pkg-config compiles a program against hookscope.h that
# sees the installed agent when preloaded, systemd-analyze verifies the unit
# (its ExecStart and its man page), and the installed programs run.
. tests/e2e/lib.sh
command -v man >/dev/null || fail "man is not installed (man-db; run 'make deps')"
command -v pkg-config >/dev/null || fail "pkg-config is not installed (run 'make deps')"
command -v systemd-analyze >/dev/null || fail "systemd-analyze is not installed (systemd)"
mk() { make -s --no-print-directory O="$O" ${SAN:+SAN=$SAN} "$@" >>"$HS_TMP/make.log" 2>&1 ||
	fail "make $*: $(tail -5 "$HS_TMP/make.log")"; }

D=$HS_TMP/x
mk install DESTDIR="$D"
P=$D/usr/local
for f in bin/hookscoped bin/hookscope lib/hookscope/libhookscope.so; do
	[ -x "$P/$f" ] || fail "not installed (executable): $f"
done
for f in include/hookscope.h share/hookscope/themes/default.theme share/hookscope/themes/mono.theme \
	share/man/man1/hookscope.1 share/man/man8/hookscoped.8 lib/pkgconfig/hookscope.pc \
	lib/systemd/system/hookscoped.service; do
	[ -f "$P/$f" ] || fail "not installed: $f"
done
# Data files the Makefile lists (INSTALL_DATA: power's API table and sample profile).
data=$(printf 'show-install-data:\n\t@echo $(INSTALL_DATA)\n' |
	make -s --no-print-directory -f Makefile -f - show-install-data) || fail "cannot read INSTALL_DATA"
for f in $data; do
	[ -f "$P/share/hookscope/$(basename "$f")" ] || fail "not installed: $f"
done
[ ! -e "$P/share/man/man1/hookscoped.1" ] || fail "the daemon's page is in section 1"
for page in man1/hookscope.1 man8/hookscoped.8; do
	MANWIDTH=80 man --warnings -l "$P/share/man/$page" >"$HS_TMP/page.txt" 2>"$HS_TMP/warn.txt" ||
		fail "man -l $page failed: $(cat "$HS_TMP/warn.txt")"
	[ -s "$HS_TMP/warn.txt" ] && fail "man -l $page warns: $(cat "$HS_TMP/warn.txt")"
	grep -q '^NAME' "$HS_TMP/page.txt" && grep -q '^SYNOPSIS' "$HS_TMP/page.txt" ||
		fail "$page renders without NAME/SYNOPSIS"
done
MANWIDTH=80 man -l "$P/share/man/man8/hookscoped.8" | grep -q 'hookscoped(8)\|HOOKSCOPED(8)' ||
	fail "hookscoped.8 is not a section 8 page"
MANWIDTH=80 man -l "$P/share/man/man1/hookscope.1" | grep -q 'hookscoped(8)' ||
	fail "hookscope.1 does not refer to hookscoped(8)"
n=$(find "$D" -type f | wc -l)

# A real prefix: the paths inside the .pc file and the unit are the installed ones.
R=$HS_TMP/prefix
mk install PREFIX="$R"
export PKG_CONFIG_PATH=$R/lib/pkgconfig
pkg-config --exists hookscope || fail "pkg-config does not find hookscope.pc"
[ "$(pkg-config --modversion hookscope)" = "$(sed -n 's/^VERSION *:= *//p' Makefile)" ] ||
	fail "hookscope.pc has the wrong version"
[ "$(pkg-config --variable=agent hookscope)" = "$R/lib/hookscope/libhookscope.so" ] ||
	fail "agent variable: $(pkg-config --variable=agent hookscope)"
cat >"$HS_TMP/annot.c" <<'C'
#include <stdio.h>
#include <hookscope.h>
int main(void) { puts(hookscope_is_active() ? "monitored" : "alone"); return 0; }
C
cc $(pkg-config --cflags hookscope) -o "$HS_TMP/annot" "$HS_TMP/annot.c" $(pkg-config --libs hookscope) ||
	fail "cannot build against the installed hookscope.h"
[ "$("$HS_TMP/annot")" = alone ] || fail "the program sees an agent it does not have"
# (a sanitized agent needs its runtime first: HS_SAN_RT, tests/e2e/lib.sh)
out=$(HOOKSCOPE_SOCKET=$HS_TMP/none.sock LD_PRELOAD=${HS_SAN_RT:+$HS_SAN_RT:}$(pkg-config --variable=agent hookscope) \
	"$HS_TMP/annot" 2>/dev/null)
[ "$out" = monitored ] || fail "with the installed agent preloaded the program says '$out'"
"$R/bin/hookscoped" --version | grep -q hookscope || fail "installed hookscoped does not run"
"$R/bin/hookscope" --version | grep -q hookscope || fail "installed hookscope does not run"
grep -q "^ExecStart=$R/bin/hookscoped " "$R/lib/systemd/system/hookscoped.service" || fail "unit ExecStart"
MANPATH=$R/share/man systemd-analyze verify "$R/lib/systemd/system/hookscoped.service" \
	>"$HS_TMP/verify.txt" 2>&1 || fail "systemd-analyze verify: $(cat "$HS_TMP/verify.txt")"
echo "ok: $n files installed under DESTDIR; both man pages render cleanly; pkg-config build sees the agent; unit verified"
