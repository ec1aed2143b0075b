# engine-toggle-counted.sh - tests/arm64/engine-toggle.sh with every site on
# the counted path (HOOKSCOPE_MODE=counted): the blocks' own count under
# 1000 live toggles with 4 threads, then exact counts, marked counted.
HOOKSCOPE_MODE=counted exec bash tests/arm64/engine-toggle.sh
