/*
 * block_stacks.c - the distinct stacks of one block and their sample
 * counts.  Two samples have the same stack when they are in the same
 * functions frame by frame (the pc inside a function moves while it spins;
 * the function does not), so the keys are function start addresses.  Pure:
 * tests/unit/test-block-stacks.c.
 */
#include <string.h>

#include "block_int.h"

/* See block.h. */
int block_stacks_add(struct block_stacks *a, const uintptr_t *pc, const uintptr_t *key,
    uint32_t n)
{
	struct block_stack *s;

	if (n > BLOCK_FRAMES)
		n = BLOCK_FRAMES;
	for (uint32_t i = 0; i < a->n; i++) {
		s = &a->s[i];
		if (s->n == n && memcmp(s->key, key, n * sizeof *key) == 0) {
			s->samples++;
			return (int)i;
		}
	}
	if (a->n == BLOCK_STACKS) {
		a->other++;
		return -1;
	}
	s = &a->s[a->n];
	s->samples = 1;
	s->n = n;
	memcpy(s->key, key, n * sizeof *key);
	memcpy(s->pc, pc, n * sizeof *pc);
	return (int)a->n++;
}

/* See block.h: an insertion sort of at most BLOCK_STACKS indices. */
void block_stacks_order(const struct block_stacks *a, uint32_t *idx)
{
	for (uint32_t i = 0; i < a->n; i++) {
		uint32_t j = i;

		while (j > 0 && a->s[idx[j - 1]].samples < a->s[i].samples) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
}
