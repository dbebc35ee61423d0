/* Phase detection for one rank: symbols, online loop folding (pass A), phase occurrences
 * and their statistics (pass B).  See pas2p_analyzer.h for the method. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pas2p_analyzer.h"
#include "table.h"

void pas2p_analysis_defaults(pas2p_analysis_opts_t *o)
{
    o->size_tolerance = 0.9; /* sizes within 10x: orders of magnitude are other events */
    o->size_floor = 1024;    /* ... and sizes within 1 KiB: latency-bound either way */
    o->compute_similarity = 0.85;
    o->compute_similarity_time = 0.5;
    o->compute_floor_ns = 2000;
    o->window = 4096;
    o->inline_events = 16;
    o->variant_merge = 0.05;
    o->relevance = 0.01;
    o->global = 1;
    o->locate = -1;
    o->waits_tested = 0; /* the analysis sets it from the manifest */
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* ------------------------------------------------------------------ symbols */
/* An event's exact identity (peer, tag, peer2, tag2, comm, aux, bytes, rbytes: the event's
 * bytes [IDENT_AT, IDENT_AT + 40)) and its call: the per-call hint compares 5 words. */
#define IDENT_AT offsetof(pas2p_event_t, peer)
_Static_assert(offsetof(pas2p_event_t, peer) == 8 && offsetof(pas2p_event_t, tag) == 12 &&
               offsetof(pas2p_event_t, peer2) == 16 && offsetof(pas2p_event_t, tag2) == 20 &&
               offsetof(pas2p_event_t, comm) == 24 && offsetof(pas2p_event_t, aux) == 28 &&
               offsetof(pas2p_event_t, bytes) == 32 && offsetof(pas2p_event_t, rbytes) == 40,
               "the symbol hint reads an event's identity as 40 contiguous bytes");
typedef struct {
    uint64_t w[5];
    uint16_t call;
} ident_t;

static inline void ident_of(const pas2p_event_t *e, ident_t *id)
{
    memcpy(id->w, (const char *)e + IDENT_AT, sizeof id->w);
    id->call = e->call;
}

#define SYM_MEMO 64

typedef struct {
    pas2p_symbol_t *v;
    ident_t *ident;          /* exact identity of each symbol's first event */
    uint32_t n, cap;
    uint32_t *next;          /* next symbol with the same base key (size variants) */
    uint32_t *slots;         /* open addressing: base-key hash -> first symbol + 1 */
    uint32_t nslots;
    double tol;
    uint64_t floor_b;        /* size_alike's: bytes apart that are alike whatever the ratio */
    struct {
        ident_t id;          /* an event's exact identity as last looked up */
        uint32_t sym;        /* its symbol + 1 (0: empty) */
    } memo[SYM_MEMO];        /* direct-mapped: a loop's few distinct calls */
} symtab_t;

static uint64_t base_hash(const pas2p_event_t *e)
{
    uint64_t a = (uint64_t)e->call << 48 ^ (uint64_t)(uint32_t)e->peer << 16 ^ e->aux;
    uint64_t b = ((uint64_t)(uint32_t)e->tag << 32 | (uint32_t)e->peer2) * 0x9e3779b97f4a7c15ull;
    uint64_t c = ((uint64_t)e->comm << 32 | (uint32_t)e->tag2) * 0xc2b2ae3d27d4eb4full;
    return mix64(a ^ b ^ c);
}

static inline int same_base(const pas2p_symbol_t *s, const pas2p_event_t *e)
{
    return s->call == e->call && s->peer == e->peer && s->peer2 == e->peer2 && s->tag == e->tag &&
           s->tag2 == e->tag2 && s->comm == e->comm && s->aux == e->aux;
}

static int size_alike(uint64_t a, uint64_t b, double tol, uint64_t floor_b)
{
    uint64_t mx = a > b ? a : b, mn = a < b ? a : b;
    return mx - mn <= floor_b || (double)(mx - mn) <= tol * (double)mx;
}

static int symtab_grow_slots(symtab_t *t)
{
    uint32_t ns = t->nslots ? t->nslots * 2 : 1024;
    uint32_t *s = calloc(ns, sizeof *s);
    if (!s)
        return -1;
    for (uint32_t i = 0; i < t->nslots; i++) {
        uint32_t id = t->slots[i];
        if (!id)
            continue;
        pas2p_event_t e = {.call = t->v[id - 1].call, .peer = t->v[id - 1].peer,
                           .peer2 = t->v[id - 1].peer2, .tag = t->v[id - 1].tag,
                           .tag2 = t->v[id - 1].tag2, .comm = t->v[id - 1].comm,
                           .aux = t->v[id - 1].aux};
        uint32_t j = (uint32_t)base_hash(&e) & (ns - 1);
        while (s[j])
            j = (j + 1) & (ns - 1);
        s[j] = id;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = ns;
    return 0;
}

static uint32_t symbol_lookup(symtab_t *t, const pas2p_event_t *e);

/* symbol id of e, a new one if needed; UINT32_MAX when out of memory */
static uint32_t symbol_of(symtab_t *t, const pas2p_event_t *e)
{
    /* loops repeat their calls: the common case.  The memo holds exact identities and the
     * symbol their lookup gave, so its answer is the lookup's (emptied whenever a size
     * variant is added, which can change a lookup) */
    ident_t x;
    ident_of(e, &x);
    uint64_t h = (x.w[0] ^ x.call) * 0x9e3779b97f4a7c15ull ^
                 (x.w[1] + x.w[2] + x.w[3] + x.w[4]) * 0xc2b2ae3d27d4eb4full;
    uint32_t slot = (uint32_t)(h >> 58) % SYM_MEMO;
    const ident_t *k = &t->memo[slot].id;
    if (t->memo[slot].sym &&
        !((x.w[0] ^ k->w[0]) | (x.w[1] ^ k->w[1]) | (x.w[2] ^ k->w[2]) | (x.w[3] ^ k->w[3]) |
          (x.w[4] ^ k->w[4])) && x.call == k->call)
        return t->memo[slot].sym - 1;
    uint32_t id = symbol_lookup(t, e);
    if (id != UINT32_MAX) {
        t->memo[slot].id = x;
        t->memo[slot].sym = id + 1;
    }
    return id;
}

/* symbol_of without the memo */
static uint32_t symbol_lookup(symtab_t *t, const pas2p_event_t *e)
{
    if ((t->n + 1) * 2 > t->nslots && symtab_grow_slots(t))
        return UINT32_MAX;
    uint32_t mask = t->nslots - 1, j = (uint32_t)base_hash(e) & mask;
    uint64_t size = e->bytes + e->rbytes;
    for (; t->slots[j]; j = (j + 1) & mask) {
        uint32_t id = t->slots[j] - 1;
        if (!same_base(&t->v[id], e))
            continue;
        /* the closest variant whose size is alike, a small one first for a small size
         * (both counts within the floor; global.c's gsym_lookup says why) */
        uint32_t best = UINT32_MAX;
        double bd = 0;
        int small = e->bytes <= t->floor_b && e->rbytes <= t->floor_b;
        for (; id != UINT32_MAX; id = t->next[id]) {
            uint64_t vs = t->v[id].bytes + t->v[id].rbytes;
            if (size_alike(vs, size, t->tol, t->floor_b)) {
                /* difference over the larger, or the floor (global.c: size_distance) */
                uint64_t mx = vs > size ? vs : size, mn = vs < size ? vs : size;
                double d = mx ? (double)(mx - mn) / (double)(mx > t->floor_b ? mx : t->floor_b) : 0;
                if (small && !(t->v[id].bytes <= t->floor_b && t->v[id].rbytes <= t->floor_b))
                    d += 4;
                if (best == UINT32_MAX || d < bd) {
                    best = id;
                    bd = d;
                }
            }
        }
        if (best != UINT32_MAX)
            return best;
        break; /* same base, no size variant close enough: add one to this chain */
    }
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 256;
        pas2p_symbol_t *v = realloc(t->v, cap * sizeof *v);
        uint32_t *nx = v ? realloc(t->next, cap * sizeof *nx) : NULL;
        ident_t *ix = nx ? realloc(t->ident, cap * sizeof *ix) : NULL;
        if (!v || !nx || !ix) {
            if (v)
                t->v = v;
            if (nx)
                t->next = nx;
            return UINT32_MAX;
        }
        t->v = v;
        t->next = nx;
        t->ident = ix;
        t->cap = cap;
    }
    uint32_t id = t->n++;
    t->v[id] = (pas2p_symbol_t){.call = e->call, .peer = e->peer, .peer2 = e->peer2, .tag = e->tag,
                                .tag2 = e->tag2, .comm = e->comm, .aux = e->aux, .bytes = e->bytes,
                                .rbytes = e->rbytes};
    ident_of(e, &t->ident[id]);
    t->next[id] = UINT32_MAX;
    if (t->slots[j]) { /* append to the chain of size variants */
        uint32_t k = t->slots[j] - 1;
        while (t->next[k] != UINT32_MAX)
            k = t->next[k];
        t->next[k] = id;
        memset(t->memo, 0, sizeof t->memo); /* (the closest can now be the new one) */
    } else {
        t->slots[j] = id + 1;
    }
    return id;
}

/* ------------------------------------------------------------------ loop tree */
typedef struct node {
    uint64_t hash;           /* structure: symbol, or body hashes and count */
    uint64_t count;          /* 0: a leaf (one event); else iterations of body */
    uint64_t nev;            /* events in all */
    uint64_t per;            /* events per iteration */
    uint64_t bhash;          /* hash of the body (fixed once the loop exists) */
    uint64_t mhash;          /* mix64(hash): where the folder's last-position table looks */
    uint32_t sym;
    uint32_t nbody;
    struct node **body;
} node_t;

static void node_free(node_t *n)
{
    if (!n || !n->count)
        return; /* leaves are shared, owned by the leaf table */
    for (uint32_t i = 0; i < n->nbody; i++)
        node_free(n->body[i]);
    free(n->body);
    free(n);
}

static uint64_t body_hash(node_t *const *b, uint32_t n)
{
    uint64_t h = 0x51afd7ed558ccd1dull ^ n;
    for (uint32_t i = 0; i < n; i++)
        h = mix64(h ^ b[i]->hash) + i;
    return h;
}

/* sets nev and hash from the body (created) or the new count (one more iteration) */
static inline void loop_rehash(node_t *l, int created)
{
    if (created) {
        l->per = 0;
        for (uint32_t i = 0; i < l->nbody; i++)
            l->per += l->body[i]->nev;
        l->bhash = body_hash(l->body, l->nbody);
    }
    l->nev = l->per * l->count;
    l->hash = mix64(l->bhash ^ mix64(l->count + 0x9e3779b97f4a7c15ull));
    l->mhash = mix64(l->hash);
}

/* a loop element on the stack: where it is, and the stack top at which the elements after
 * it are exactly one body long (the only top where case 1 of fold_once can extend it) */
typedef struct {
    uint64_t pos, target;
} loop_ref_t;

/* the folding stack: elements at absolute positions [base, top); position `base` is at
 * e[off] (emitting the oldest element only moves base and off; compact() moves memory) */
typedef struct {
    node_t **e;
    uint64_t base, top;      /* absolute positions */
    size_t off, cap;
    uint64_t *last_key;      /* hash -> last absolute position (open addressing, lossy) */
    uint64_t *last_pos;
    uint32_t nlast;
    loop_ref_t *loops;       /* loop elements, oldest first */
    size_t nloops, loopcap;
    uint32_t window;
    uint64_t credit;         /* comparisons a body longer than FOLD_SHORT may still cost */
    node_t **leaves;         /* interned leaf per symbol */
    uint32_t nleaves;
} folder_t;

#define AT(f, pos) ((f)->e[(f)->off + ((pos) - (f)->base)])

/* moves the live elements to the front of e and forgets emitted loop positions */
static void compact(folder_t *f)
{
    memmove(f->e, f->e + f->off, (f->top - f->base) * sizeof *f->e);
    f->off = 0;
    size_t k = 0;
    while (k < f->nloops && f->loops[k].pos < f->base)
        k++;
    if (k) /* (loops is NULL until the first loop: memmove's arguments must not be) */
        memmove(f->loops, f->loops + k, (f->nloops - k) * sizeof *f->loops);
    f->nloops -= k;
}

static int folder_push(folder_t *f, node_t *x)
{
    if (f->off + (f->top - f->base) == f->cap) {
        if (f->off > f->cap / 2) {
            compact(f);
        } else {
            size_t cap = f->cap ? f->cap * 2 : 1024;
            node_t **e = realloc(f->e, cap * sizeof *e);
            if (!e)
                return -1;
            f->e = e;
            f->cap = cap;
        }
    }
    f->e[f->off + (f->top - f->base)] = x;
    f->top++;
    if (x->count) {
        if (f->nloops == f->loopcap) {
            size_t c = f->loopcap ? f->loopcap * 2 : 64;
            loop_ref_t *l = realloc(f->loops, c * sizeof *l);
            if (!l)
                return -1;
            f->loops = l;
            f->loopcap = c;
        }
        f->loops[f->nloops++] = (loop_ref_t){f->top - 1, f->top + x->nbody};
    }
    return 0;
}

/* folder_push for a leaf (never a loop to register): the common case inline */
static inline int folder_push_leaf(folder_t *f, node_t *x)
{
    size_t at = f->off + (f->top - f->base);
    if (at == f->cap)
        return folder_push(f, x);
    f->e[at] = x;
    f->top++;
    return 0;
}

/* drops the elements from absolute position `from` to the top (already moved or freed) */
static void folder_cut(folder_t *f, uint64_t from)
{
    f->top = from;
    while (f->nloops && f->loops[f->nloops - 1].pos >= from)
        f->nloops--;
}

/* how many of the len elements from a and from b are alike before the first that is not */
static uint64_t same_run(folder_t *f, uint64_t a, uint64_t b, uint64_t len)
{
    uint64_t k = 0;
    while (k < len && AT(f, a + k)->hash == AT(f, b + k)->hash)
        k++;
    return k;
}

/* Bodies up to FOLD_SHORT elements are tried whenever a candidate comes; a longer one (up
 * to the window) costs its comparisons out of a credit that each element pushed adds
 * FOLD_CREDIT to (at most twice the window).  Without it a stream that almost repeats with
 * a long period (one call of a 4000-call iteration that differs each time) costs half the
 * period per element; with it at most FOLD_CREDIT more, while a body that does repeat is
 * found as soon as its third iteration starts.  The window was 256 with no credit: LANL
 * SNAP's 288-768-call iterations were never folded, and its run came out one phase of
 * weight 1 (a 60 MB signature, predict running the whole run). */
#define FOLD_SHORT 256
#define FOLD_CREDIT 64

/* One folding step at the tail; 1 if something folded, 0 if not, -1 out of memory. */
static int fold_once(folder_t *f)
{
    /* the folder's fields in locals: the stores below (counts, hashes) could alias them */
    const uint64_t n = f->top, base = f->base;
    node_t **const e = f->e;
    const size_t off = f->off;
#define ATL(pos) e[off + ((pos) - base)] /* AT(f, pos) */
    node_t *x = ATL(n - 1);
    const uint64_t xh = x->hash;
    uint32_t j = (uint32_t)x->mhash & (f->nlast - 1);
    if (n - base < 2) { /* nothing to fold yet, but remember where x is */
        f->last_key[j] = xh;
        f->last_pos[j] = n - 1;
        return 0;
    }
    /* case 1: the tail repeats the body of a recent loop element -> one more iteration.
     * Only the 4 most recent loops are tried, and only one whose body exactly fills the
     * top (target == n) can match; such a loop is within the window (bodies are at most
     * `window` long), so no window test is needed here. */
    const loop_ref_t *lp = f->loops;
    const size_t nl = f->nloops, lo = nl > 4 ? nl - 4 : 0;
    for (size_t i = nl; i-- > lo;) {
        if (lp[i].target != n)
            continue;
        uint64_t p = lp[i].pos, len = n - 1 - p;
        node_t *l = ATL(p);
        node_t *const *tail = &ATL(p + 1);
        node_t *const *body = l->body;
        uint64_t k = 0;
        while (k < len && body[k]->hash == tail[k]->hash)
            k++;
        if (k < len)
            continue;
        for (k = 0; k < len; k++)
            if (tail[k]->count) /* leaves are shared: nothing to free */
                node_free(tail[k]);
        folder_cut(f, p + 1);
        l->count++;
        loop_rehash(l, 0);
        return 1;
    }
    /* case 2: the last L elements repeat the L before them -> a new loop of 2 iterations */
    uint64_t p = f->last_key[j] == xh ? f->last_pos[j] : UINT64_MAX;
    f->last_key[j] = xh;
    f->last_pos[j] = n - 1;
    if (p == UINT64_MAX || p < base || p >= n - 1 || ATL(p)->hash != xh)
        return 0;
#undef ATL
    uint64_t len = n - 1 - p;
    if (len > f->window || p + 1 < f->base + len)
        return 0;
    if (len > FOLD_SHORT && f->credit < len)
        return 0;
    uint64_t k = same_run(f, p + 1 - len, p + 1, len);
    if (len > FOLD_SHORT)
        f->credit -= k < len ? k + 1 : len;
    if (k < len)
        return 0;
    node_t *l = malloc(sizeof *l);
    node_t **body = malloc(len * sizeof *body);
    if (!l || !body) {
        free(l);
        free(body);
        return -1;
    }
    uint64_t start = p + 1 - len;
    for (uint64_t k = 0; k < len; k++) {
        body[k] = AT(f, start + k);
        node_free(AT(f, p + 1 + k));
    }
    *l = (node_t){.count = 2, .nbody = (uint32_t)len, .body = body};
    loop_rehash(l, 1);
    folder_cut(f, start);
    return folder_push(f, l) ? -1 : 1;
}

/* What pass B needs of an event (its identity is known from pass A) */
typedef struct {
    uint64_t compute_ns, time_ns, instr;
} times_t;

/* ------------------------------------------------------------------ pass B: phases */
#define RESERVOIR 255
#define BATCH PAS2P_READ_BATCH /* events per call on a source */

/* up to max events from s into out: n >= 1 read, 0 = end, -1 = error */
static int src_fill(const pas2p_event_source_t *s, pas2p_event_view_t *out, int max)
{
    return s->next_batch ? s->next_batch(s->ctx, out, max) : s->next(s->ctx, out);
}

typedef struct {
    pas2p_phase_t p;
    uint64_t key;            /* symbol-sequence hash */
    double sumsq, compute_sum, instr_sum, ref;  /* ref: mean compute measure */
    double mmin, mmax;       /* the range of its occurrences' measures */
    double *pos_c, *pos_i;   /* per call: compute and instruction sums */
    double samples[RESERVOIR];
    uint32_t nsamples;
} phase_acc_t;

typedef struct {
    pas2p_event_source_t src;
    const pas2p_analysis_opts_t *o;
    int use_instr;
    /* current occurrence */
    uint32_t *syms;
    double *cs;              /* per event of the occurrence: compute (s) */
    uint64_t *is;            /* and instructions (converted only when some were counted) */
    uint64_t instr_or;       /* OR of the occurrence's instruction counts: 0 = none counted */
    double sim_floor, sim_thr; /* similar_compute's floor and threshold, from the options */
    uint32_t nsyms, capsyms;
    pas2p_comm_info_t *comms;
    uint32_t ncomms, capcomms;
    uint64_t key, start;
    uint64_t time_ns, compute_ns, instr; /* sums over the current occurrence (exact) */
    /* phases */
    phase_acc_t *ph;
    uint32_t nph, capph;
    uint32_t *slots;         /* key hash -> first phase + 1, chained by nextv */
    uint32_t *nextv;
    uint32_t nslots;
    uint32_t last_phase;     /* the phase of the previous occurrence: tried first */
    uint64_t *bounds;        /* o->global: every occurrence's first ordinal */
    uint64_t nbounds, capbounds;
    uint64_t rng;
    uint64_t elapsed_ns;
    uint64_t events;
    const symtab_t *symtab;
    char *err;
    size_t errlen;
    int bi, bn;              /* pass B events tb[bi, bn) read, not consumed yet */
    pas2p_event_times_t tb[BATCH];
    unsigned last_call;      /* o->global: pass B's pas2p_number_event state */
    times_t skipped;         /* o->global: failed polls and run continuations, carried to
                                the next call */
} walker_t;

static inline int similar_compute(const walker_t *w, double a, double b)
{
    double mx = a > b ? a : b, mn = a < b ? a : b;
    return mx - mn <= w->sim_floor || mn >= w->sim_thr * mx;
}

/* the key (symbol-sequence hash) of the current occurrence */
static uint64_t occurrence_key(const walker_t *w)
{
    uint64_t key = 0x2545f4914f6cdd1dull;
    for (uint32_t k = 0; k < w->nsyms; k++)
        key = mix64(key ^ w->syms[k]) + 0x9e37;
    return key;
}

static int phase_slot_grow(walker_t *w)
{
    uint32_t ns = w->nslots ? w->nslots * 2 : 256;
    uint32_t *s = calloc(ns, sizeof *s);
    if (!s)
        return -1;
    /* rebuild the chains: the first variant of each key goes into the slot */
    for (uint32_t i = 0; i < w->nph; i++)
        w->nextv[i] = UINT32_MAX;
    for (uint32_t i = 0; i < w->nph; i++) {
        uint32_t j = (uint32_t)mix64(w->ph[i].key) & (ns - 1);
        while (s[j] && w->ph[s[j] - 1].key != w->ph[i].key)
            j = (j + 1) & (ns - 1);
        if (!s[j]) {
            s[j] = i + 1;
        } else {
            uint32_t k = s[j] - 1;
            while (w->nextv[k] != UINT32_MAX)
                k = w->nextv[k];
            w->nextv[k] = i;
        }
    }
    free(w->slots);
    w->slots = s;
    w->nslots = ns;
    return 0;
}

/* the current occurrence is an occurrence of phase k (same symbols, hence the same key,
 * and similar computation) */
static inline int phase_matches(const walker_t *w, uint32_t k, double measure)
{
    const phase_acc_t *a = &w->ph[k];
    if (a->p.nsym != w->nsyms || !similar_compute(w, a->ref, measure))
        return 0;
    for (uint32_t i = 0; i < w->nsyms; i++) /* short: an inline loop beats memcmp's call */
        if (a->p.syms[i] != w->syms[i])
            return 0;
    return 1;
}

static int occurrence_end(walker_t *w)
{
    if (!w->nsyms)
        return 0;
    double compute = (double)w->compute_ns * 1e-9;
    double instr = w->instr_or ? (double)w->instr : 0; /* no counts: 0 exactly, no conversion */
    double measure = w->use_instr ? instr : compute;
    uint32_t id = UINT32_MAX, last = UINT32_MAX;
    if (w->last_phase < w->nph && phase_matches(w, w->last_phase, measure)) {
        id = w->last_phase; /* loops repeat the same occurrence: try it first */
        goto found;
    }
    if ((w->nph + 1) * 2 > w->nslots && phase_slot_grow(w))
        return -1;
    w->key = occurrence_key(w);
    uint32_t mask = w->nslots - 1, j = (uint32_t)mix64(w->key) & mask;
    while (w->slots[j] && w->ph[w->slots[j] - 1].key != w->key)
        j = (j + 1) & mask;
    for (uint32_t k = w->slots[j] ? w->slots[j] - 1 : UINT32_MAX; k != UINT32_MAX; k = w->nextv[k]) {
        last = k;
        if (phase_matches(w, k, measure)) {
            id = k;
            break;
        }
    }
    if (id == UINT32_MAX) { /* a new phase (or a new variant of a known structure) */
        if (w->nph == w->capph) {
            uint32_t cap = w->capph ? w->capph * 2 : 64;
            phase_acc_t *ph = realloc(w->ph, cap * sizeof *ph);
            uint32_t *nx = ph ? realloc(w->nextv, cap * sizeof *nx) : NULL;
            if (!ph || !nx) {
                if (ph)
                    w->ph = ph;
                return -1;
            }
            w->ph = ph;
            w->nextv = nx;
            w->capph = cap;
        }
        id = w->nph++;
        phase_acc_t *a = &w->ph[id];
        memset(a, 0, sizeof *a);
        a->key = w->key;
        a->p.id = id + 1;
        a->p.nsym = w->nsyms;
        a->p.syms = malloc(w->nsyms * sizeof *a->p.syms);
        a->pos_c = calloc(w->nsyms, sizeof *a->pos_c);
        a->pos_i = calloc(w->nsyms, sizeof *a->pos_i);
        if (!a->p.syms || !a->pos_c || !a->pos_i)
            return -1;
        memcpy(a->p.syms, w->syms, w->nsyms * sizeof *w->syms);
        a->p.time_min_s = INFINITY;
        a->mmin = INFINITY;
        a->mmax = -INFINITY;
        w->nextv[id] = UINT32_MAX;
        if (last != UINT32_MAX)
            w->nextv[last] = id;
        else
            w->slots[j] = id + 1;
    }
found:;
    if (w->o->global) {
        if (w->nbounds == w->capbounds) {
            uint64_t cap = w->capbounds ? w->capbounds * 2 : 1024;
            uint64_t *b = realloc(w->bounds, cap * sizeof *b);
            if (!b)
                return -1;
            w->bounds = b;
            w->capbounds = cap;
        }
        w->bounds[w->nbounds++] = w->start;
    }
    phase_acc_t *a = &w->ph[id];
    pas2p_phase_t *p = &a->p;
    double t = (double)w->time_ns * 1e-9;
    w->last_phase = id;
    if (p->nfirst < PAS2P_PHASE_SAMPLE_OCC) {
        p->first_start[p->nfirst] = w->start;
        p->first_end[p->nfirst] = w->events; /* the occurrence's last event + 1 */
        p->first_time_s[p->nfirst] = t;
        p->nfirst++;
    }
    p->weight++;
    for (uint32_t k = 0; k < w->nsyms; k++)
        a->pos_c[k] += w->cs[k];
    if (w->instr_or) /* else every w->is[k] is 0: adding +0.0 changes no sum */
        for (uint32_t k = 0; k < w->nsyms; k++)
            a->pos_i[k] += (double)w->is[k];
    p->time_sum_s += t;
    a->sumsq += t * t;
    a->compute_sum += compute;
    if (w->instr_or) /* else adding +0.0 changes no sum */
        a->instr_sum += instr;
    a->ref += (measure - a->ref) / (double)p->weight; /* running mean of the measure */
    if (measure < a->mmin) /* (not fmin/fmax: libm calls, per occurrence) */
        a->mmin = measure;
    if (measure > a->mmax)
        a->mmax = measure;
    if (t < p->time_min_s)
        p->time_min_s = t;
    if (t > p->time_max_s)
        p->time_max_s = t;
    if (a->nsamples < RESERVOIR) {
        a->samples[a->nsamples++] = t;
    } else { /* reservoir sampling, deterministic */
        w->rng = w->rng * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = (uint64_t)(((unsigned __int128)(w->rng >> 11) * p->weight) >> 53); /* < weight */
        if (r < RESERVOIR)
            a->samples[r] = t;
    }
    w->nsyms = 0;
    w->elapsed_ns += w->time_ns;
    w->time_ns = w->compute_ns = w->instr = w->instr_or = 0;
    return 0;
}

/* a communicator-creating event with its definition: keep it for the signature */
static int add_comm(walker_t *w, const pas2p_event_view_t *v)
{
    pas2p_comm_view_t cv;
    if (!pas2p_event_comm_def(v, &cv))
        return 0; /* not a member, or a malformed payload: nothing to keep */
    /* a reused id (a copy made and freed in a loop: tracer/FORMAT.md, "Communicator ids")
     * is kept once: the signature takes an id's first definition, and a loop of 10^5 copies
     * would keep 10^5.  The last few suffice (a loop's copies alternate among a few ids);
     * global.c checks that the definitions agree */
    for (uint32_t k = w->ncomms, n = 0; k > 0 && n < 16; k--, n++)
        if (w->comms[k - 1].id == cv.id && w->comms[k - 1].size == cv.size)
            return 0;
    if (w->ncomms == w->capcomms) {
        uint32_t cap = w->capcomms ? w->capcomms * 2 : 16;
        pas2p_comm_info_t *c = realloc(w->comms, cap * sizeof *c);
        if (!c)
            return -1;
        w->comms = c;
        w->capcomms = cap;
    }
    pas2p_comm_info_t *c = &w->comms[w->ncomms];
    *c = (pas2p_comm_info_t){.id = cv.id, .parent = v->ev.comm, .call = v->ev.call,
                             .size = cv.size, .ndims = cv.ndims};
    c->members = malloc(sizeof(int32_t) * (cv.size ? cv.size : 1));
    if (!c->members)
        return -1;
    memcpy(c->members, cv.members, sizeof(int32_t) * cv.size);
    if (cv.ndims) {
        c->dims = malloc(sizeof(int32_t) * cv.ndims);
        c->periods = malloc(sizeof(int32_t) * cv.ndims);
        if (!c->dims || !c->periods) {
            free(c->dims);
            free(c->members);
            return -1;
        }
        memcpy(c->dims, cv.dims, sizeof(int32_t) * cv.ndims);
        memcpy(c->periods, cv.periods, sizeof(int32_t) * cv.ndims);
    }
    w->ncomms++;
    return 0;
}

/* the next batch of pass B events (all of the last one consumed) */
static int times_fill(const pas2p_event_source_t *s, pas2p_event_times_t *out, int max)
{
    if (s->next_times)
        return s->next_times(s->ctx, out, max);
    pas2p_event_view_t v[BATCH];
    int rc = src_fill(s, v, max);
    for (int i = 0; i < rc; i++)
        out[i] = (pas2p_event_times_t){.ordinal = v[i].ordinal, .compute_ns = v[i].ev.compute_ns,
                                       .t_start = v[i].ev.t_start, .t_end = v[i].ev.t_end,
                                       .counter0 = v[i].counters ? v[i].counters[0] : 0,
                                       .call = v[i].ev.call, .flags = (uint16_t)v[i].ev.flags,
                                       .aux = v[i].ev.aux};
    return rc;
}

static int refill(walker_t *w)
{
    int rc = times_fill(&w->src, w->tb, BATCH);
    if (rc < 1) {
        snprintf(w->err, w->errlen, "%s", rc < 0 && w->src.error ? w->src.error(w->src.ctx)
                                                                  : "event stream ended early in pass B");
        return -1;
    }
    w->bi = 0;
    w->bn = rc;
    return 0;
}

/* global phases: pass A leaves out the events a global signature does not number (failed
 * polls, the continuations of a Waitsome/Testsome run: pas2p_number_event), so that a loop
 * whose iterations poll or wait a varying number of times is found as a loop and its
 * iterations proposed as cuts; pass B skips the same events, their time carried to the
 * next call.  1: v is skipped (w->events still counts it: ordinals stay the trace's) */
static inline int skip_times(walker_t *w, const pas2p_event_times_t *v)
{
    if (!w->o->global)
        return 0;
    pas2p_event_t e = {.call = v->call, .flags = v->flags, .aux = v->aux};
    if (pas2p_number_event(&w->last_call, &e, pas2p_analysis_rules(w->o)) == PAS2P_NUM_CALL)
        return 0;
    w->skipped.compute_ns += v->compute_ns;
    w->skipped.time_ns += v->compute_ns + (v->t_end - v->t_start);
    w->skipped.instr += v->counter0;
    w->events++;
    return 1;
}

/* the next event's times from the pass B reader (its call checked against `sym`) */
static inline __attribute__((always_inline)) int read_times(walker_t *w, uint32_t sym, times_t *out)
{
    const pas2p_event_times_t *v;
    for (;;) {
        if (w->bi == w->bn && refill(w))
            return -1;
        v = &w->tb[w->bi++];
        if (!skip_times(w, v))
            break;
    }
    if (v->call != w->symtab->v[sym].call || v->ordinal != w->events) {
        snprintf(w->err, w->errlen, "event %llu: pass B read %s where pass A had %s",
                 (unsigned long long)v->ordinal, pas2p_call_name(v->call),
                 pas2p_call_name(w->symtab->v[sym].call));
        return -1;
    }
    int init = v->call == PAS2P_CALL_Init || v->call == PAS2P_CALL_Init_thread;
    *out = (times_t){.compute_ns = v->compute_ns + w->skipped.compute_ns,
                     .time_ns = v->compute_ns + (init ? 0 : v->t_end - v->t_start) + w->skipped.time_ns,
                     .instr = v->counter0 + w->skipped.instr};
    w->skipped = (times_t){0};
    return 0;
}

/* consumes the next event for leaf symbol `sym` */
static inline __attribute__((always_inline)) int walk_leaf(walker_t *w, uint32_t sym)
{
    times_t t;
    if (read_times(w, sym, &t))
        return -1;
    if (!w->nsyms)
        w->start = w->events;
    if (w->nsyms == w->capsyms) {
        uint32_t cap = w->capsyms ? w->capsyms * 2 : 64;
        uint32_t *s = realloc(w->syms, cap * sizeof *s);
        if (s)
            w->syms = s;
        double *cs = s ? realloc(w->cs, cap * sizeof *cs) : NULL;
        if (cs)
            w->cs = cs;
        uint64_t *is = cs ? realloc(w->is, cap * sizeof *is) : NULL;
        if (!is)
            return -1;
        w->is = is;
        w->capsyms = cap;
    }
    w->cs[w->nsyms] = (double)t.compute_ns * 1e-9;
    w->is[w->nsyms] = t.instr;
    w->syms[w->nsyms++] = sym;
    w->time_ns += t.time_ns; /* into elapsed_ns at the occurrence's end */
    w->compute_ns += t.compute_ns;
    w->instr += t.instr;
    w->instr_or |= t.instr;
    w->events++;
    return 0;
}

/* all events of n as part of the current occurrence */
static int walk_inline(walker_t *w, const node_t *n)
{
    if (!n->count)
        return walk_leaf(w, n->sym);
    for (uint64_t it = 0; it < n->count; it++)
        for (uint32_t i = 0; i < n->nbody; i++)
            if (walk_inline(w, n->body[i]))
                return -1;
    return 0;
}

static int walk(walker_t *w, const node_t *n)
{
    if (!n->count)
        return walk_leaf(w, n->sym);
    if (occurrence_end(w)) /* a loop starts: the plain events before it are one occurrence */
        return -1;
    for (uint64_t it = 0; it < n->count; it++) {
        for (uint32_t i = 0; i < n->nbody; i++) {
            const node_t *c = n->body[i];
            if (!c->count) { /* a plain event: no recursion */
                if (walk_leaf(w, c->sym))
                    return -1;
                continue;
            }
            if (c->nev <= w->o->inline_events) { /* short inner loop */
                if (walk_inline(w, c))
                    return -1;
                continue;
            }
            if (occurrence_end(w))
                return -1;
            if (walk(w, c))
                return -1;
        }
        if (occurrence_end(w)) /* an iteration ends */
            return -1;
    }
    return 0;
}

/* phase b takes phase a's occurrences (the same calls); a is emptied (weight 0).  Sums
 * (weight x mean time) are unchanged. */
static void acc_absorb(phase_acc_t *b, phase_acc_t *a)
{
    double wa = (double)a->p.weight, wb = (double)b->p.weight;
    b->ref = (b->ref * wb + a->ref * wa) / (wa + wb);
    b->mmin = fmin(b->mmin, a->mmin);
    b->mmax = fmax(b->mmax, a->mmax);
    b->p.weight += a->p.weight;
    b->p.time_sum_s += a->p.time_sum_s;
    b->sumsq += a->sumsq;
    b->compute_sum += a->compute_sum;
    b->instr_sum += a->instr_sum;
    for (uint32_t k = 0; k < a->p.nsym; k++) {
        b->pos_c[k] += a->pos_c[k];
        b->pos_i[k] += a->pos_i[k];
    }
    if (a->p.time_min_s < b->p.time_min_s)
        b->p.time_min_s = a->p.time_min_s;
    if (a->p.time_max_s > b->p.time_max_s)
        b->p.time_max_s = a->p.time_max_s;
    for (uint32_t s = 0; s < a->nsamples && b->nsamples < RESERVOIR; s++)
        b->samples[b->nsamples++] = a->samples[s];
    for (uint32_t s = 0; s < a->p.nfirst; s++) { /* keep the earliest occurrences */
        uint32_t at = b->p.nfirst;
        if (at == PAS2P_PHASE_SAMPLE_OCC) {
            if (a->p.first_start[s] >= b->p.first_start[at - 1])
                continue;
            at--;
        } else {
            b->p.nfirst++;
        }
        while (at > 0 && b->p.first_start[at - 1] > a->p.first_start[s]) {
            b->p.first_start[at] = b->p.first_start[at - 1];
            b->p.first_end[at] = b->p.first_end[at - 1];
            b->p.first_time_s[at] = b->p.first_time_s[at - 1];
            at--;
        }
        b->p.first_start[at] = a->p.first_start[s];
        b->p.first_end[at] = a->p.first_end[s];
        b->p.first_time_s[at] = a->p.first_time_s[s];
    }
    free(a->p.syms);
    free(a->pos_c);
    free(a->pos_i);
    a->p.syms = NULL;
    a->pos_c = a->pos_i = NULL;
    a->p.weight = 0; /* removed by merge_variants */
}

static int same_calls(const phase_acc_t *a, const phase_acc_t *b)
{
    return a->key == b->key && a->p.nsym == b->p.nsym &&
           !memcmp(a->p.syms, b->p.syms, a->p.nsym * sizeof *a->p.syms);
}

static int by_mmin(const void *x, const void *y)
{
    const phase_acc_t *a = *(const phase_acc_t *const *)x, *b = *(const phase_acc_t *const *)y;
    if (a->mmin != b->mmin)
        return a->mmin < b->mmin ? -1 : 1;
    return (a->p.first_start[0] > b->p.first_start[0]) - (a->p.first_start[0] < b->p.first_start[0]);
}

/* Variants of the same calls whose ranges of measures overlap or come within the
 * similarity of each other are one phase (global.c, merge_linked, says why): time variants
 * are groups of occurrences separated by more than the similarity, not bands of one
 * spread.  0, or -1 out of memory. */
static int merge_linked(walker_t *w)
{
    phase_acc_t **v = malloc(sizeof *v * (w->nph ? w->nph : 1));
    uint8_t *done = calloc(w->nph ? w->nph : 1, 1);
    if (!v || !done) {
        free(v);
        free(done);
        return -1;
    }
    for (uint32_t i = 0; i < w->nph; i++) {
        if (done[i] || !w->ph[i].p.weight)
            continue;
        uint32_t n = 0;
        for (uint32_t k = i; k < w->nph; k++)
            if (!done[k] && w->ph[k].p.weight && same_calls(&w->ph[i], &w->ph[k])) {
                v[n++] = &w->ph[k];
                done[k] = 1;
            }
        if (n < 2)
            continue;
        qsort(v, n, sizeof *v, by_mmin);
        phase_acc_t *cur = v[0];
        for (uint32_t k = 1; k < n; k++) {
            phase_acc_t *x = v[k];
            if (x->mmin <= cur->mmax || similar_compute(w, cur->mmax, x->mmin))
                acc_absorb(cur, x); /* (numbered by first occurrence below) */
            else
                cur = x;
        }
    }
    free(v);
    free(done);
    return 0;
}

/* Merges linked variants (merge_linked), then rare variants (share > 0: fewer than that
 * share of their calls' occurrences) into the closest frequent variant of the same calls,
 * then numbers the phases by first occurrence.  0, or -1 out of memory. */
static int merge_variants(walker_t *w, double share)
{
    if (merge_linked(w))
        return -1;
    for (uint32_t i = 0; share > 0 && i < w->nph; i++) {
        phase_acc_t *a = &w->ph[i];
        if (!a->p.weight)
            continue;
        uint64_t total = 0;
        for (uint32_t k = 0; k < w->nph; k++)
            if (w->ph[k].key == a->key && w->ph[k].p.nsym == a->p.nsym)
                total += w->ph[k].p.weight;
        if ((double)a->p.weight >= share * (double)total)
            continue;
        uint32_t best = UINT32_MAX;
        for (uint32_t k = 0; k < w->nph; k++) {
            phase_acc_t *b = &w->ph[k];
            if (k == i || b->key != a->key || b->p.nsym != a->p.nsym ||
                (double)b->p.weight < share * (double)total)
                continue;
            if (best == UINT32_MAX || fabs(b->ref - a->ref) < fabs(w->ph[best].ref - a->ref))
                best = k;
        }
        if (best != UINT32_MAX)
            acc_absorb(&w->ph[best], a);
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->nph; i++)
        if (w->ph[i].p.weight)
            w->ph[n++] = w->ph[i];
    w->nph = n;
    /* number by first occurrence */
    for (uint32_t x = 1; x < n; x++) {
        phase_acc_t key = w->ph[x];
        uint32_t y = x;
        for (; y > 0 && w->ph[y - 1].p.first_start[0] > key.p.first_start[0]; y--)
            w->ph[y] = w->ph[y - 1];
        w->ph[y] = key;
    }
    for (uint32_t i = 0; i < n; i++)
        w->ph[i].p.id = i + 1;
    return 0;
}

/* ------------------------------------------------------------------ driver */
/* hands the elements before absolute position `upto` (final: too far from the tail to
 * fold again) to pass B, oldest first */
static int emit(folder_t *f, walker_t *w, uint64_t upto)
{
    while (f->base < upto) {
        node_t *n = AT(f, f->base);
        /* a short loop is part of the surrounding occurrence, at top level as in bodies;
         * for global phases a top-level loop of 4 or more iterations is the program's own and
         * its iterations are proposed as cuts however few events they hold (NAS FT: 6
         * iterations of 2 calls and 100 ms of computation each); a start-up repeat
         * ([Barrier, Barrier]) stays part of its occurrence */
        int whole = n->count && n->nev <= w->o->inline_events && !(w->o->global && n->count >= 4);
        int rc = whole ? walk_inline(w, n) : walk(w, n);
        node_free(n);
        f->base++;
        f->off++;
        if (rc)
            return -1;
    }
    return 0;
}

/* Where this rank's wildcard receives came from: per communicator, the source of the
 * first + 1 (table `from`, key (comm, 0)); `posted` maps a wildcard Irecv's ordinal to its
 * communicator until its completion says the source. */
typedef struct {
    table_t from, posted;
} wild_t;

/* a wildcard receive on `comm` resolved to `src` (a world rank; negative: unresolved):
 * 0, or -1 out of memory */
static int wildcard_from(wild_t *W, pas2p_rank_phases_t *out, uint32_t comm, int32_t src)
{
    if (src < 0 || out->wildcard_source < 0)
        return 0;
    slot_t *f = tfind(&W->from, comm, 0);
    if (!f) {
        if (!(f = tput(&W->from, comm, 0)))
            return -1;
        f->v = (uint64_t)src + 1;
    }
    out->wildcard_source = f->v == (uint64_t)src + 1 ? src + 1 : -1;
    return 0;
}

/* the event's part in it: 0, or -1 out of memory */
static int wildcard_event(wild_t *W, pas2p_rank_phases_t *out, const pas2p_event_view_t *v)
{
    int klass = pas2p_call_class(v->ev.call);
    if ((v->ev.flags & PAS2P_EV_ANY_SOURCE) && v->ev.call == PAS2P_CALL_Irecv) {
        slot_t *p = tput(&W->posted, v->ordinal, 0);
        if (!p)
            return -1;
        p->v = v->ev.comm;
        return 0;
    }
    if ((v->ev.flags & PAS2P_EV_ANY_SOURCE) && klass == PAS2P_CLASS_RECV) {
        /* (MPI_Improbe is recorded as an MPI_Iprobe) */
        out->probed_wildcards += v->ev.call == PAS2P_CALL_Iprobe && (v->ev.flags & PAS2P_EV_FLAG_TRUE);
        return wildcard_from(W, out, v->ev.comm, v->ev.peer);
    }
    if ((v->ev.flags & PAS2P_EV_ANY_SOURCE) && klass == PAS2P_CLASS_SENDRECV)
        return wildcard_from(W, out, v->ev.comm, v->ev.peer2);
    uint32_t nd = 0;
    const pas2p_completion_t *d =
        klass == PAS2P_CLASS_COMPLETION ? pas2p_event_completions(v, &nd) : NULL;
    int test = v->ev.call == PAS2P_CALL_Test || v->ev.call == PAS2P_CALL_Testany ||
               v->ev.call == PAS2P_CALL_Testsome || v->ev.call == PAS2P_CALL_Testall;
    for (uint32_t i = 0; d && i < nd; i++) {
        slot_t *p = d[i].flags & PAS2P_EV_ANY_SOURCE ? tfind(&W->posted, d[i].post, 0) : NULL;
        if (!p)
            continue;
        out->polled_wildcards += (uint64_t)test;
        uint32_t comm = (uint32_t)p->v;
        tdel(&W->posted, p);
        if (wildcard_from(W, out, comm, d[i].source))
            return -1;
    }
    return 0;
}

int pas2p_find_phases(pas2p_event_source_t a, pas2p_event_source_t b,
                      const pas2p_analysis_opts_t *o, int ncounters_is_instructions,
                      pas2p_rank_phases_t *out)
{
    memset(out, 0, sizeof *out);
    symtab_t st = {.tol = o->size_tolerance, .floor_b = o->size_floor};
    folder_t f = {.window = o->window ? o->window : 4096, .nlast = 4096};
    while (f.nlast < 2 * f.window) /* (lossy: a long body keeps some of its positions) */
        f.nlast *= 2;
    wild_t wild = {{0}, {0}};
    pas2p_tagc_t tagc = {0};
    walker_t w = {.src = b, .o = o, .use_instr = ncounters_is_instructions, .symtab = &st,
                  .last_phase = UINT32_MAX,
                  .rng = 88172645463325252ull, .err = out->error,
                  .errlen = sizeof out->error};
    w.sim_floor = w.use_instr ? 0 : (double)o->compute_floor_ns * 1e-9;
    w.sim_thr = w.use_instr ? o->compute_similarity : o->compute_similarity_time;
    int rc = -1;
    f.last_key = calloc(f.nlast, sizeof *f.last_key);
    f.last_pos = calloc(f.nlast, sizeof *f.last_pos);
    if (!f.last_key || !f.last_pos)
        goto oom;
    pas2p_event_view_t va[BATCH];
    int r;
    uint64_t keep = 2 * (uint64_t)f.window + 16;
    /* global phases: events a global signature does not number are left out of the loop
     * tree (skip_times), and a Waitsome/Testsome is held until its run is over, so that its
     * symbol is what the whole run completes */
    unsigned last_a = 0;
    pas2p_event_t held;
    int have_held = 0;
    for (;;) {
        r = src_fill(&a, va, BATCH);
        int nv = r > 0 ? r : 0;
        /* up to two events per step: a held run's call once the run is over, then v */
        for (int vi = 0; vi < nv || (vi == nv && have_held && r <= 0); vi++) {
            const pas2p_event_view_t *v = vi < nv ? &va[vi] : NULL;
            const pas2p_event_t *todo[2];
            const pas2p_event_view_t *tv[2];
            int nt = 0;
            if (v && wildcard_event(&wild, out, v))
                goto oom;
            if (v) { /* identified by PAS2P_TAG_COUNTING where tags count (global.c does too) */
                int32_t t1, t2;
                pas2p_tag_count(&tagc, &v->ev, &t1, &t2);
                /* written back only when counted: symbol_of reads the identity 16 bytes at
                 * a time, and a load over two fresh 4-byte stores waits for both to retire
                 * (a store-forwarding stall: a tenth of this loop's time) */
                if (t1 != v->ev.tag)
                    va[vi].ev.tag = t1;
                if (t2 != v->ev.tag2)
                    va[vi].ev.tag2 = t2;
            }
            if (!v) { /* the end of the stream */
                todo[nt] = &held, tv[nt++] = NULL;
                have_held = 0;
            } else if (o->global) {
                int kind = pas2p_number_event(&last_a, &v->ev, pas2p_analysis_rules(o));
                if (kind == PAS2P_NUM_POLL)
                    continue;
                if (kind == PAS2P_NUM_RUN) { /* held is the run's first call */
                    held.aux += v->ev.aux;
                    held.bytes += v->ev.bytes;
                    held.rbytes += v->ev.rbytes;
                    continue;
                }
                if (have_held) { /* the run is over: its call first */
                    todo[nt] = &held, tv[nt++] = NULL;
                    have_held = 0;
                }
                if (v->ev.call == PAS2P_CALL_Waitsome || v->ev.call == PAS2P_CALL_Testsome) {
                    held = v->ev;
                    held.payload = 0;
                    have_held = 1;
                } else {
                    todo[nt] = &v->ev, tv[nt++] = v;
                }
            } else {
                todo[nt] = &v->ev, tv[nt++] = v;
            }
            for (int k = 0; k < nt; k++) {
                const pas2p_event_t *ev = todo[k];
                uint32_t s = symbol_of(&st, ev);
                if (s == UINT32_MAX)
                    goto oom;
                if (s >= f.nleaves) {
                    uint32_t nl = st.cap;
                    node_t **lv = realloc(f.leaves, nl * sizeof *lv);
                    if (!lv)
                        goto oom;
                    for (uint32_t i = f.nleaves; i < nl; i++)
                        lv[i] = NULL;
                    f.leaves = lv;
                    f.nleaves = nl;
                }
                if (!f.leaves[s]) {
                    node_t *l = calloc(1, sizeof *l);
                    if (!l)
                        goto oom;
                    l->sym = s;
                    l->nev = 1;
                    l->hash = mix64(0xfeed0000ull + s);
                    l->mhash = mix64(l->hash);
                    f.leaves[s] = l;
                }
                if (folder_push_leaf(&f, f.leaves[s]))
                    goto oom;
                if (f.credit < 2 * (uint64_t)f.window)
                    f.credit += FOLD_CREDIT;
                if (tv[k] && tv[k]->payload && add_comm(&w, tv[k]))
                    goto oom;
                out->numbered++;
                int klass = pas2p_call_class(ev->call);
                if ((klass == PAS2P_CLASS_RECV || klass == PAS2P_CLASS_SENDRECV) &&
                    ((ev->flags & PAS2P_EV_ANY_SOURCE) ||
                     (klass == PAS2P_CLASS_RECV && ev->peer == PAS2P_PEER_ANY)))
                    out->wildcard_recvs++;
                int fr;
                while ((fr = fold_once(&f)) == 1)
                    ;
                if (fr < 0)
                    goto oom;
                if (f.top - f.base > 2 * keep) {
                    out->folded_elements += f.top - keep - f.base;
                    if (emit(&f, &w, f.top - keep))
                        goto fail;
                }
            }
        }
        if (r <= 0)
            break;
    }
    if (r < 0) {
        snprintf(out->error, sizeof out->error, "%s", a.error ? a.error(a.ctx) : "read error");
        goto fail;
    }
    out->folded_elements += f.top - f.base;
    if (emit(&f, &w, f.top) || occurrence_end(&w))
        goto fail;
    for (;;) { /* pass B: what pass A left out after its last call (a cut trace's polls) */
        while (w.bi < w.bn && skip_times(&w, &w.tb[w.bi]))
            w.bi++;
        if (w.bi < w.bn || (w.bn = times_fill(&b, w.tb, BATCH)) < 1)
            break;
        w.bi = 0;
    }
    if (w.bi < w.bn) {
        snprintf(out->error, sizeof out->error, "pass B has events left after the loop tree");
        goto fail;
    }
    if (merge_variants(&w, o->variant_merge))
        goto oom;
    /* results */
    out->events = w.events;
    out->elapsed_s = (double)w.elapsed_ns * 1e-9;
    out->nphases = w.nph;
    out->phases = calloc(w.nph ? w.nph : 1, sizeof *out->phases);
    out->symbols = malloc((st.n ? st.n : 1) * sizeof *out->symbols);
    if (!out->phases || !out->symbols)
        goto oom;
    out->nsymbols = st.n;
    memcpy(out->symbols, st.v, st.n * sizeof *st.v);
    out->comms = w.comms;
    out->ncomms = w.ncomms;
    out->bounds = w.bounds;
    out->nbounds = w.nbounds;
    w.bounds = NULL;
    w.comms = NULL;
    w.ncomms = 0;
    for (uint32_t i = 0; i < w.nph; i++) {
        phase_acc_t *acc = &w.ph[i];
        pas2p_phase_t *p = &out->phases[i];
        *p = acc->p;
        acc->p.syms = NULL; /* moved */
        double n = (double)p->weight;
        for (uint32_t k = 0; k < p->nsym; k++) { /* sums -> means, in place */
            acc->pos_c[k] /= n;
            acc->pos_i[k] /= n;
        }
        p->pos_compute_s = acc->pos_c;
        p->pos_instructions = acc->pos_i;
        acc->pos_c = acc->pos_i = NULL;
        p->time_mean_s = p->time_sum_s / n;
        double var = acc->sumsq / n - p->time_mean_s * p->time_mean_s;
        p->time_sd_s = var > 0 ? sqrt(var) : 0;
        p->compute_mean_s = acc->compute_sum / n;
        p->instructions_mean = acc->instr_sum / n;
        /* median of the samples (all of them when the phase occurred <= RESERVOIR times) */
        uint32_t m = acc->nsamples;
        for (uint32_t x = 1; x < m; x++) { /* insertion sort: m <= 255 */
            double key = acc->samples[x];
            uint32_t y = x;
            for (; y > 0 && acc->samples[y - 1] > key; y--)
                acc->samples[y] = acc->samples[y - 1];
            acc->samples[y] = key;
        }
        p->time_median_s = m % 2 ? acc->samples[m / 2] : 0.5 * (acc->samples[m / 2 - 1] + acc->samples[m / 2]);
        uint32_t slow = 0;
        for (uint32_t x = 0; x < m; x++)
            slow += acc->samples[x] > 3 * p->time_median_s;
        p->time_slow_share = m ? (double)slow / m : 0;
    }
    rc = 0;
    goto done;
oom:
    snprintf(out->error, sizeof out->error, "out of memory");
fail:
    for (uint64_t i = f.base; i < f.top; i++)
        node_free(AT(&f, i));
done:
    for (uint32_t i = 0; i < w.nph; i++) {
        free(w.ph[i].p.syms);
        free(w.ph[i].pos_c);
        free(w.ph[i].pos_i);
    }
    free(w.ph);
    free(w.cs);
    free(w.is);
    for (uint32_t i = 0; i < w.ncomms; i++) {
        free(w.comms[i].members);
        free(w.comms[i].dims);
        free(w.comms[i].periods);
    }
    free(w.comms);
    free(w.bounds);
    free(w.nextv);
    free(w.slots);
    free(w.syms);
    for (uint32_t i = 0; i < f.nleaves; i++)
        free(f.leaves[i]);
    free(f.leaves);
    free(f.e);
    free(f.loops);
    free(f.last_key);
    free(f.last_pos);
    free(st.v);
    free(st.next);
    free(st.ident);
    free(st.slots);
    free(wild.from.s);
    free(wild.posted.s);
    if (rc)
        pas2p_rank_phases_free(out);
    return rc;
}

void pas2p_rank_phases_free(pas2p_rank_phases_t *p)
{
    if (p->phases)
        for (uint32_t i = 0; i < p->nphases; i++) {
            free(p->phases[i].syms);
            free(p->phases[i].pos_compute_s);
            free(p->phases[i].pos_instructions);
            free(p->phases[i].pos_bytes);
            free(p->phases[i].pos_rbytes);
            free(p->phases[i].pos_size_min);
            free(p->phases[i].pos_size_max);
            free(p->phases[i].pos_wait_s);
            free(p->phases[i].pos_pdone);
            free(p->phases[i].pos_wdist);
            free(p->phases[i].pos_pwdist);
            free(p->phases[i].pos_occ_start);
        }
    for (uint32_t i = 0; i < p->ncomms; i++) {
        free(p->comms[i].members);
        free(p->comms[i].dims);
        free(p->comms[i].periods);
    }
    free(p->comms);
    p->comms = NULL;
    p->ncomms = 0;
    free(p->bounds);
    p->bounds = NULL;
    p->nbounds = 0;
    for (uint32_t i = 0; p->sym_starts && i < p->nsymbols; i++)
        free(p->sym_starts[i]);
    free(p->sym_starts);
    free(p->sym_nstarts);
    p->sym_starts = NULL;
    p->sym_nstarts = NULL;
    free(p->phases);
    free(p->symbols);
    p->phases = NULL;
    p->symbols = NULL;
    p->nphases = p->nsymbols = 0;
}
