# engine-toggle-bti.sh - tests/arm64/engine-toggle.sh on a target built with
# -mbranch-protection=standard.
HS_CFLAGS=-mbranch-protection=standard exec bash tests/arm64/engine-toggle.sh
