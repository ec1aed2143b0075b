# engine-toggle-nop.sh - tests/arm64/engine-toggle.sh on a target built with
# -fpatchable-function-entry=2 (the compiler-assisted sites: each entry NOP
# swapped with a B and back at every toggle, while 4 threads call).
HS_CFLAGS=-fpatchable-function-entry=2 exec bash tests/arm64/engine-toggle.sh
