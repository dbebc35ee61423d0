/* An exact-key hash table (two 64-bit words -> a 64-bit value), open addressing with
 * backward-shift deletion: the analyzer's private map for message channels, pending
 * requests and communicators (logical.c, global.c).  Header-only, static inline. */
#ifndef PAS2P_ANALYZER_TABLE_H
#define PAS2P_ANALYZER_TABLE_H

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    uint64_t a, b, v;
    int used;
} slot_t;

typedef struct {
    slot_t *s;
    size_t n, cap;
} table_t;

static inline size_t th(uint64_t a, uint64_t b, size_t cap)
{
    uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
    x ^= x >> 31;
    return (size_t)(x * 0x94d049bb133111ebull >> 20) & (cap - 1);
}

static inline slot_t *tfind(table_t *t, uint64_t a, uint64_t b)
{
    if (!t->cap)
        return NULL;
    for (size_t i = th(a, b, t->cap);; i = (i + 1) & (t->cap - 1)) {
        if (!t->s[i].used)
            return NULL;
        if (t->s[i].a == a && t->s[i].b == b)
            return &t->s[i];
    }
}

static inline slot_t *tput(table_t *t, uint64_t a, uint64_t b)
{
    if ((t->n + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        slot_t *s = calloc(cap, sizeof *s);
        if (!s)
            return NULL;
        for (size_t i = 0; i < t->cap; i++)
            if (t->s[i].used) {
                size_t j = th(t->s[i].a, t->s[i].b, cap);
                while (s[j].used)
                    j = (j + 1) & (cap - 1);
                s[j] = t->s[i];
            }
        free(t->s);
        t->s = s;
        t->cap = cap;
    }
    size_t i = th(a, b, t->cap);
    while (t->s[i].used && !(t->s[i].a == a && t->s[i].b == b))
        i = (i + 1) & (t->cap - 1);
    if (!t->s[i].used) {
        t->s[i] = (slot_t){.a = a, .b = b, .used = 1};
        t->n++;
    }
    return &t->s[i];
}

static inline void tdel(table_t *t, slot_t *e)
{
    size_t mask = t->cap - 1, i = (size_t)(e - t->s);
    t->s[i].used = 0;
    t->n--;
    for (size_t j = (i + 1) & mask; t->s[j].used; j = (j + 1) & mask) {
        size_t home = th(t->s[j].a, t->s[j].b, t->cap);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            t->s[i] = t->s[j];
            t->s[j].used = 0;
            i = j;
        }
    }
}

#endif
