/* big-bss.h - included into a test program (gcc -include) to make its
 * module span more than an arm64 B's +/-128 MB: a 200 MB zeroed array
 * (no file space), after the code. */
char hs_big_bss[200u << 20];
