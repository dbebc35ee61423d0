/* One rank's phases as bytes, and back (pas2p_analyzer.h): how the analyzer's MPI mode
 * (mpi_analyze.c) brings every rank's result to the process that writes the signature.
 *
 * Layout: "P2PH" magic, u32 layout version, then the fields of pas2p_rank_phases_t in
 * declaration order, arrays preceded by their counts, everything in the host's byte order
 * (the processes of one MPI job run the same binary; the magic refuses anything else). */
#include <stdlib.h>
#include <string.h>

#include "pas2p_analyzer.h"

#define PACK_MAGIC 0x48503250u /* "P2PH" in little-endian byte order */
#define PACK_VERSION 6u /* 2: the occurrence bounds (global phases); 3: wildcard receives;
                            4: their source; 5: numbered calls, polled wildcards; 6: probed
                            wildcards */

typedef struct {
    unsigned char *p;
    size_t len, cap;
    int oom;
} wbuf_t;

static void put(wbuf_t *b, const void *v, size_t n)
{
    if (b->oom || !n)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, v, n);
    b->len += n;
}

#define PUT(b, x) put((b), &(x), sizeof(x))

int pas2p_rank_phases_pack(const pas2p_rank_phases_t *r, unsigned char **out, size_t *len)
{
    wbuf_t b = {0};
    uint32_t magic = PACK_MAGIC, version = PACK_VERSION;
    int32_t rank = r->rank;
    PUT(&b, magic);
    PUT(&b, version);
    PUT(&b, rank);
    PUT(&b, r->events);
    PUT(&b, r->elapsed_s);
    PUT(&b, r->folded_elements);
    PUT(&b, r->wildcard_recvs);
    PUT(&b, r->wildcard_source);
    PUT(&b, r->numbered);
    PUT(&b, r->polled_wildcards);
    PUT(&b, r->probed_wildcards);
    put(&b, r->error, sizeof r->error);
    PUT(&b, r->nsymbols);
    put(&b, r->symbols, (size_t)r->nsymbols * sizeof *r->symbols);
    PUT(&b, r->nphases);
    for (uint32_t i = 0; i < r->nphases; i++) {
        const pas2p_phase_t *p = &r->phases[i];
        PUT(&b, p->id);
        PUT(&b, p->nsym);
        put(&b, p->syms, (size_t)p->nsym * sizeof *p->syms);
        put(&b, p->pos_compute_s, (size_t)p->nsym * sizeof *p->pos_compute_s);
        put(&b, p->pos_instructions, (size_t)p->nsym * sizeof *p->pos_instructions);
        PUT(&b, p->weight);
        double d[] = {p->time_sum_s, p->time_mean_s, p->time_median_s, p->time_min_s,
                      p->time_max_s, p->time_sd_s, p->time_slow_share, p->compute_mean_s,
                      p->instructions_mean};
        put(&b, d, sizeof d);
        PUT(&b, p->nfirst);
        put(&b, p->first_start, sizeof p->first_start);
        put(&b, p->first_end, sizeof p->first_end);
        put(&b, p->first_time_s, sizeof p->first_time_s);
    }
    PUT(&b, r->ncomms);
    for (uint32_t i = 0; i < r->ncomms; i++) {
        const pas2p_comm_info_t *c = &r->comms[i];
        PUT(&b, c->id);
        PUT(&b, c->parent);
        PUT(&b, c->call);
        PUT(&b, c->size);
        PUT(&b, c->ndims);
        put(&b, c->members, (size_t)c->size * sizeof *c->members);
        put(&b, c->dims, (size_t)c->ndims * sizeof *c->dims);
        put(&b, c->periods, (size_t)c->ndims * sizeof *c->periods);
    }
    PUT(&b, r->nbounds);
    put(&b, r->bounds, (size_t)r->nbounds * sizeof *r->bounds);
    if (b.oom) {
        free(b.p);
        return -1;
    }
    *out = b.p;
    *len = b.len;
    return 0;
}

typedef struct {
    const unsigned char *p;
    size_t len, at;
    int bad;
} rbuf_t;

static void get(rbuf_t *b, void *v, size_t n)
{
    if (b->bad || n > b->len - b->at) {
        b->bad = 1;
        memset(v, 0, n);
        return;
    }
    memcpy(v, b->p + b->at, n);
    b->at += n;
}

#define GET(b, x) get((b), &(x), sizeof(x))

/* an array of n elements of size sz read into fresh memory; NULL for n == 0 unless
 * `always` (free() accepts either) */
static void *get_array(rbuf_t *b, size_t n, size_t sz, int always)
{
    if (b->bad || n > (b->len - b->at) / sz) {
        b->bad = 1;
        return NULL;
    }
    void *v = malloc(n ? n * sz : (always ? sz : 1));
    if (!v) {
        b->bad = 1;
        return NULL;
    }
    get(b, v, n * sz);
    return v;
}

/* a count, then room for that many zeroed records of `elem` bytes each; the count is
 * damage, not a request for memory, when the bytes left cannot hold that many packed
 * records of at least `packed` bytes */
static void *get_table(rbuf_t *b, uint32_t *n, size_t packed, size_t elem)
{
    *n = 0;
    GET(b, *n);
    if (!b->bad && *n > (b->len - b->at) / packed)
        b->bad = 1;
    void *t = b->bad ? NULL : calloc(*n ? *n : 1, elem);
    if (!t)
        b->bad = 1;
    return t;
}

int pas2p_rank_phases_unpack(const unsigned char *in, size_t len, pas2p_rank_phases_t *r,
                             char *err, size_t errlen)
{
    rbuf_t b = {in, len, 0, 0};
    uint32_t magic = 0, version = 0;
    int32_t rank = 0;
    memset(r, 0, sizeof *r);
    GET(&b, magic);
    GET(&b, version);
    if (b.bad || magic != PACK_MAGIC || version != PACK_VERSION) {
        snprintf(err, errlen, "not a packed phase table of this version (magic %08x, version %u)",
                 magic, version);
        return -1;
    }
    GET(&b, rank);
    r->rank = rank;
    GET(&b, r->events);
    GET(&b, r->elapsed_s);
    GET(&b, r->folded_elements);
    GET(&b, r->wildcard_recvs);
    GET(&b, r->wildcard_source);
    GET(&b, r->numbered);
    GET(&b, r->polled_wildcards);
    GET(&b, r->probed_wildcards);
    get(&b, r->error, sizeof r->error);
    r->error[sizeof r->error - 1] = 0;
    uint32_t n = 0;
    GET(&b, n);
    r->symbols = get_array(&b, n, sizeof *r->symbols, 0);
    r->nsymbols = b.bad ? 0 : n;
    r->phases = get_table(&b, &n, 100, sizeof *r->phases); /* a packed phase: > 100 bytes */
    for (uint32_t i = 0; !b.bad && i < n; i++) {
        pas2p_phase_t *p = &r->phases[i];
        r->nphases = i + 1; /* so that a failure frees what was read */
        GET(&b, p->id);
        GET(&b, p->nsym);
        p->syms = get_array(&b, p->nsym, sizeof *p->syms, 1);
        p->pos_compute_s = get_array(&b, p->nsym, sizeof *p->pos_compute_s, 1);
        p->pos_instructions = get_array(&b, p->nsym, sizeof *p->pos_instructions, 1);
        GET(&b, p->weight);
        double d[9];
        get(&b, d, sizeof d);
        p->time_sum_s = d[0];
        p->time_mean_s = d[1];
        p->time_median_s = d[2];
        p->time_min_s = d[3];
        p->time_max_s = d[4];
        p->time_sd_s = d[5];
        p->time_slow_share = d[6];
        p->compute_mean_s = d[7];
        p->instructions_mean = d[8];
        GET(&b, p->nfirst);
        get(&b, p->first_start, sizeof p->first_start);
        get(&b, p->first_end, sizeof p->first_end);
        get(&b, p->first_time_s, sizeof p->first_time_s);
        if (p->nfirst > PAS2P_PHASE_SAMPLE_OCC)
            b.bad = 1;
        for (uint32_t k = 0; !b.bad && k < p->nsym; k++)
            if (p->syms[k] >= r->nsymbols)
                b.bad = 1;
    }
    r->comms = get_table(&b, &n, 18, sizeof *r->comms); /* a packed communicator: >= 18 */
    for (uint32_t i = 0; !b.bad && i < n; i++) {
        pas2p_comm_info_t *c = &r->comms[i];
        r->ncomms = i + 1;
        GET(&b, c->id);
        GET(&b, c->parent);
        GET(&b, c->call);
        GET(&b, c->size);
        GET(&b, c->ndims);
        c->members = get_array(&b, c->size, sizeof *c->members, 1);
        c->dims = c->ndims ? get_array(&b, c->ndims, sizeof *c->dims, 0) : NULL;
        c->periods = c->ndims ? get_array(&b, c->ndims, sizeof *c->periods, 0) : NULL;
    }
    uint64_t nb = 0;
    GET(&b, nb);
    r->bounds = b.bad ? NULL : get_array(&b, (size_t)nb, sizeof *r->bounds, 0);
    r->nbounds = b.bad ? 0 : nb;
    for (uint64_t i = 1; !b.bad && i < r->nbounds; i++)
        if (r->bounds[i] <= r->bounds[i - 1] || r->bounds[i] >= r->events)
            b.bad = 1;
    if (!b.bad && b.at != len)
        b.bad = 1;
    if (b.bad) {
        pas2p_rank_phases_free(r);
        snprintf(err, errlen, "packed phase table damaged or cut (%zu bytes)", len);
        return -1;
    }
    return 0;
}
