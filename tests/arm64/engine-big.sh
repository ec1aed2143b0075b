# engine-big.sh - tests/arm64/engine-toggle.sh on a program whose module
# spans more than a B's +/-128 MB (a 200 MB .bss array after its code, as a
# big game engine or browser library spans): no region is within reach of
# all of it, so the engine maps one in reach of the part of it that holds
# the functions; every relocated site keeps the near entry.
HS_CFLAGS="-include $(pwd)/tests/arm64/data/big-bss.h" exec bash tests/arm64/engine-toggle.sh
