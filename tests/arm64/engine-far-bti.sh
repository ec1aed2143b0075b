# engine-far-bti.sh - tests/arm64/engine-far.sh on a target built with
# -mbranch-protection=standard (bti c and paciasp among the four relocated
# instructions).
HOOKSCOPE_A64_FAR=1 HS_CFLAGS=-mbranch-protection=standard exec bash tests/arm64/engine-toggle.sh
