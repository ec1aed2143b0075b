# engine-far.sh - tests/arm64/engine-toggle.sh with every relocated site
# given the 16-byte far entry (HOOKSCOPE_A64_FAR=1: ldr x16, #8; br x16;
# .quad block, four instructions relocated), as a function out of a B's
# reach of its block gets: written with the world stopped, then 1000 live
# toggles through the blocks' switches while 4 threads call, exact counts.
HOOKSCOPE_A64_FAR=1 exec bash tests/arm64/engine-toggle.sh
