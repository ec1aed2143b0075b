# engine-bti.sh - tests/e2e/engine.sh on a target built with
# -mbranch-protection=standard (BTI landing pads at entries, PACIASP-signed
# return addresses in non-leaf functions).
HS_CFLAGS=-mbranch-protection=standard exec bash tests/e2e/engine.sh
