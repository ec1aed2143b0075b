# tui-themes.sh - every shipped theme loads (--check-theme, --theme at
# start, :theme while running); a malformed theme file gets an error that
# names its line, and the TUI goes on with the default theme; colours are
# mapped to what the terminal has: with TERM=xterm (8 colours) the light
# theme's #rrggbb colours come out as the 8 basic colours, with
# xterm-256color as 256-colour indexes, and NO_COLOR leaves no colour at all
# (tmux capture-pane -e shows the attributes the TUI really sent).
. tests/e2e/lib.sh

command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
TM_SOCK="hookscope-tui-themes-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

themes=$(cd themes && ls *.theme | sed 's/\.theme$//')
for t in default mono light high-contrast; do
	echo "$themes" | grep -qx "$t" || fail "theme $t is not shipped in themes/"
done

# --check-theme: each shipped theme, by name (found next to the binary).
for t in $themes; do
	out=$("$O/hookscope" --check-theme "$t" 2>&1) || fail "--check-theme $t: $out"
	echo "$out" | grep -q "theme .*/$t.theme: ok" || fail "--check-theme $t said: $out"
done

# A malformed file: the error names the file and the line.
printf 'row = default default\n# fine\nheader = black greenish\n' >"$HS_TMP/bad.theme"
out=$("$O/hookscope" --check-theme "$HS_TMP/bad.theme" 2>&1) && fail "a bad theme passed --check-theme"
echo "$out" | grep -q "bad.theme:3: unknown colour 'greenish'" || fail "bad theme: $out"

start_daemon run -- "$O/apps/demo"
wait_for 20 jq_once '.funcs[] | select(.name == "slow_work")'

# tui NAME TERM [ENV...] THEME-ARGS...: a TUI in window NAME.
tui() {
	local name=$1 term=$2
	shift 2
	if tm has-session -t hs 2>/dev/null; then
		tm new-window -t hs -n "$name" "env LANG=C.UTF-8 LC_ALL= TERM=$term $* \
			ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/$name.err'; exec sleep 600"
	else
		tm new-session -d -s hs -n "$name" -x 100 -y 30 "env LANG=C.UTF-8 LC_ALL= TERM=$term $* \
			ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/$name.err'; exec sleep 600"
	fi
	wait_screen 20 "$name" grep -q '^slow_work '
}

# Each theme at start, and :theme to each while running.
for t in $themes; do
	tui "t-$t" xterm-256color "'$O/hookscope'" --theme "$t"
	screen "t-$t" | grep -qi 'theme\|error' && { screen "t-$t" >&2; fail "--theme $t: a message"; }
done
for t in $themes; do
	tm send-keys -t t-default ":theme $t" Enter
	wait_screen 10 t-default grep -q "theme .*/$t.theme"
done

# The bad theme at start: the error with its line, the default theme, data.
tui bad xterm-256color "'$O/hookscope'" --theme "'$HS_TMP/bad.theme'"
wait_screen 5 bad grep -q "^using the built-in theme: .*bad.theme:3: unknown colour 'greenish'"
# ... and with :theme, the theme in use stays.
tm send-keys -t t-light ":theme $HS_TMP/bad.theme" Enter
wait_screen 10 t-light grep -q "bad.theme:3: unknown colour"

# Colours as the terminal has them: SGR parameters of the whole screen.
sgr() { tm capture-pane -p -e -t "$1" | grep -o $'\033\\[[0-9;]*m' | tr -d '\033[m' | tr ';' '\n' | sort -u; }
tui c8 xterm "'$O/hookscope'" --theme light
p8=$(sgr c8)
echo "$p8" | grep -Eq '^3[0-7]$' || fail "8 colours: no basic foreground colour: $(echo $p8)"
tm capture-pane -p -e -t c8 | grep -q $'\033\\[[0-9;]*[34]8;[25];' &&
	fail "8 colours: the light theme sent 256 or RGB colours to an 8-colour terminal"
tui c256 xterm-256color "'$O/hookscope'" --theme light
tm capture-pane -p -e -t c256 | grep -q $'\033\\[[0-9;]*38;5;[0-9]' ||
	fail "256 colours: the light theme's #rrggbb are not 256-colour indexes"
tui nc xterm-256color NO_COLOR=1 "'$O/hookscope'" --theme light
tm capture-pane -p -e -t nc | grep -Eq $'\033\\[[0-9;]*(3[0-7]|4[0-7]|[34]8;)' &&
	fail "NO_COLOR: colours sent anyway"
sgr nc | grep -qx 7 || fail "NO_COLOR: the bars are not in reverse video"
echo "ok: $(echo $themes) load (--check-theme, --theme, :theme); bad theme reported with its line; 8/256 colours and NO_COLOR"
