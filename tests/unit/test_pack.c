/* Unit tests of the phase table's packing (analyzer/pack.c), which carries every rank's
 * phases to process 0 in the analyzer's MPI mode: a round trip keeps every field, and cut,
 * padded, foreign or damaged bytes are refused without a crash or a huge allocation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pas2p_analyzer.h"

/* two symbols, two phases (one with all sample occurrences), one Cartesian communicator */
static void make(pas2p_rank_phases_t *r)
{
    memset(r, 0, sizeof *r);
    r->rank = 3;
    r->events = 123456;
    r->elapsed_s = 4.25;
    r->folded_elements = 17;
    r->wildcard_recvs = 5;
    r->wildcard_source = -1;
    r->numbered = 77;
    r->polled_wildcards = 9;
    r->probed_wildcards = 10;
    strcpy(r->error, "");
    r->nsymbols = 2;
    r->symbols = calloc(2, sizeof *r->symbols);
    r->symbols[0] = (pas2p_symbol_t){.call = 7, .peer = 1, .peer2 = -1, .tag = 5, .tag2 = -1,
                                     .comm = 0, .aux = 0, .bytes = 800, .rbytes = 0};
    r->symbols[1] = (pas2p_symbol_t){.call = 9, .peer = -1, .peer2 = 2, .tag = -1, .tag2 = 6,
                                     .comm = 2, .aux = 1, .bytes = 0, .rbytes = 1600};
    r->nphases = 2;
    r->phases = calloc(2, sizeof *r->phases);
    for (uint32_t i = 0; i < 2; i++) {
        pas2p_phase_t *p = &r->phases[i];
        p->id = i + 1;
        p->nsym = i + 1;
        p->syms = calloc(p->nsym, sizeof *p->syms);
        p->pos_compute_s = calloc(p->nsym, sizeof *p->pos_compute_s);
        p->pos_instructions = calloc(p->nsym, sizeof *p->pos_instructions);
        for (uint32_t k = 0; k < p->nsym; k++) {
            p->syms[k] = k;
            p->pos_compute_s[k] = 0.001 * (k + 1);
            p->pos_instructions[k] = 1000.0 * (k + 1);
        }
        p->weight = 100 * (i + 1);
        p->time_sum_s = 1.5;
        p->time_mean_s = 0.015;
        p->time_median_s = 0.014;
        p->time_min_s = 0.01;
        p->time_max_s = 0.03;
        p->time_sd_s = 0.002;
        p->time_slow_share = 0.04;
        p->compute_mean_s = 0.012;
        p->instructions_mean = 2000;
        p->nfirst = i ? PAS2P_PHASE_SAMPLE_OCC : 3;
        for (uint32_t k = 0; k < p->nfirst; k++) {
            p->first_start[k] = 10 * k;
            p->first_end[k] = 10 * k + p->nsym;
            p->first_time_s[k] = 0.015 + k * 1e-4;
        }
    }
    r->ncomms = 1;
    r->comms = calloc(1, sizeof *r->comms);
    r->comms[0] = (pas2p_comm_info_t){.id = 2, .parent = 0, .call = 11, .size = 4, .ndims = 2};
    r->comms[0].members = calloc(4, sizeof(int32_t));
    r->comms[0].dims = calloc(2, sizeof(int32_t));
    r->comms[0].periods = calloc(2, sizeof(int32_t));
    for (int k = 0; k < 4; k++)
        r->comms[0].members[k] = 3 - k;
    r->comms[0].dims[0] = r->comms[0].dims[1] = 2;
    r->comms[0].periods[1] = 1;
}

static void test_round_trip(void **state)
{
    (void)state;
    pas2p_rank_phases_t a, b;
    make(&a);
    strcpy(a.error, "kept too");
    unsigned char *buf;
    size_t len;
    assert_int_equal(pas2p_rank_phases_pack(&a, &buf, &len), 0);
    char err[256];
    assert_int_equal(pas2p_rank_phases_unpack(buf, len, &b, err, sizeof err), 0);
    assert_int_equal(b.rank, 3);
    assert_int_equal(b.events, 123456);
    assert_true(b.elapsed_s == 4.25);
    assert_int_equal(b.folded_elements, 17);
    assert_int_equal(b.wildcard_recvs, 5);
    assert_int_equal(b.wildcard_source, -1);
    assert_int_equal(b.numbered, 77);
    assert_int_equal(b.polled_wildcards, 9);
    assert_int_equal(b.probed_wildcards, 10);
    assert_string_equal(b.error, "kept too");
    assert_int_equal(b.nsymbols, 2);
    for (uint32_t i = 0; i < 2; i++) {
        const pas2p_symbol_t *x = &a.symbols[i], *y = &b.symbols[i];
        assert_int_equal(x->call, y->call);
        assert_int_equal(x->peer, y->peer);
        assert_int_equal(x->peer2, y->peer2);
        assert_int_equal(x->tag, y->tag);
        assert_int_equal(x->tag2, y->tag2);
        assert_int_equal(x->comm, y->comm);
        assert_int_equal(x->aux, y->aux);
        assert_int_equal(x->bytes, y->bytes);
        assert_int_equal(x->rbytes, y->rbytes);
    }
    assert_int_equal(b.nphases, 2);
    for (uint32_t i = 0; i < 2; i++) {
        const pas2p_phase_t *p = &a.phases[i], *q = &b.phases[i];
        assert_int_equal(p->id, q->id);
        assert_int_equal(p->nsym, q->nsym);
        assert_memory_equal(p->syms, q->syms, p->nsym * sizeof *p->syms);
        assert_memory_equal(p->pos_compute_s, q->pos_compute_s, p->nsym * sizeof(double));
        assert_memory_equal(p->pos_instructions, q->pos_instructions, p->nsym * sizeof(double));
        assert_int_equal(p->weight, q->weight);
        assert_true(p->time_sum_s == q->time_sum_s && p->time_mean_s == q->time_mean_s &&
                    p->time_median_s == q->time_median_s && p->time_min_s == q->time_min_s &&
                    p->time_max_s == q->time_max_s && p->time_sd_s == q->time_sd_s &&
                    p->time_slow_share == q->time_slow_share &&
                    p->compute_mean_s == q->compute_mean_s &&
                    p->instructions_mean == q->instructions_mean);
        assert_int_equal(p->nfirst, q->nfirst);
        assert_memory_equal(p->first_start, q->first_start, sizeof p->first_start);
        assert_memory_equal(p->first_end, q->first_end, sizeof p->first_end);
        assert_memory_equal(p->first_time_s, q->first_time_s, sizeof p->first_time_s);
    }
    assert_int_equal(b.ncomms, 1);
    assert_int_equal(b.comms[0].id, 2);
    assert_int_equal(b.comms[0].parent, 0);
    assert_int_equal(b.comms[0].call, 11);
    assert_int_equal(b.comms[0].size, 4);
    assert_int_equal(b.comms[0].ndims, 2);
    assert_memory_equal(a.comms[0].members, b.comms[0].members, 4 * sizeof(int32_t));
    assert_memory_equal(a.comms[0].dims, b.comms[0].dims, 2 * sizeof(int32_t));
    assert_memory_equal(a.comms[0].periods, b.comms[0].periods, 2 * sizeof(int32_t));
    free(buf);
    pas2p_rank_phases_free(&a);
    pas2p_rank_phases_free(&b);
}

static void test_empty_table(void **state)
{
    (void)state;
    pas2p_rank_phases_t a, b;
    memset(&a, 0, sizeof a);
    a.rank = 0;
    unsigned char *buf;
    size_t len;
    char err[256];
    assert_int_equal(pas2p_rank_phases_pack(&a, &buf, &len), 0);
    assert_int_equal(pas2p_rank_phases_unpack(buf, len, &b, err, sizeof err), 0);
    assert_int_equal(b.nphases, 0);
    assert_int_equal(b.nsymbols, 0);
    assert_int_equal(b.ncomms, 0);
    free(buf);
    pas2p_rank_phases_free(&b);
}

/* make()'s table, packed: the buffer (free it) and its length */
static unsigned char *packed(size_t *len)
{
    pas2p_rank_phases_t a;
    make(&a);
    unsigned char *buf;
    assert_int_equal(pas2p_rank_phases_pack(&a, &buf, len), 0);
    pas2p_rank_phases_free(&a);
    return buf;
}

static void test_cut_and_padded(void **state)
{
    (void)state;
    pas2p_rank_phases_t b;
    size_t len;
    unsigned char *buf = packed(&len);
    char err[256];
    for (size_t n = 0; n < len; n++) { /* every cut is refused */
        err[0] = 0;
        assert_int_equal(pas2p_rank_phases_unpack(buf, n, &b, err, sizeof err), -1);
        assert_true(err[0] != 0);
        assert_null(b.phases);
        assert_null(b.symbols);
        assert_null(b.comms);
    }
    unsigned char *pad = malloc(len + 1);
    memcpy(pad, buf, len);
    pad[len] = 0;
    assert_int_equal(pas2p_rank_phases_unpack(pad, len + 1, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "damaged or cut"));
    free(pad);
    buf[0] ^= 0xff; /* another magic: another program's bytes, or another byte order */
    assert_int_equal(pas2p_rank_phases_unpack(buf, len, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a packed phase table"));
    free(buf);
}

/* damaged counts and indices: refused, never a huge allocation or an out-of-range symbol */
static void test_damaged(void **state)
{
    (void)state;
    pas2p_rank_phases_t b;
    size_t len;
    unsigned char *buf = packed(&len);
    char err[256];
    /* the symbol count sits after magic, version, rank, events, elapsed, folded, wildcard
     * receives and their source, numbered calls, polled and probed wildcards, error */
    size_t at = 4 + 4 + 4 + 8 + 8 + 8 + 8 + 4 + 8 + 8 + 8 + sizeof b.error;
    uint32_t huge = 0xfffffff0u, keep;
    memcpy(&keep, buf + at, 4);
    memcpy(buf + at, &huge, 4);
    assert_int_equal(pas2p_rank_phases_unpack(buf, len, &b, err, sizeof err), -1);
    memcpy(buf + at, &keep, 4);
    /* the first phase's first symbol index beyond the symbol table */
    size_t sym0 = at + 4 + 2 * sizeof(pas2p_symbol_t) + 4 + 4 + 4;
    uint32_t idx = 2;
    memcpy(buf + sym0, &idx, 4);
    assert_int_equal(pas2p_rank_phases_unpack(buf, len, &b, err, sizeof err), -1);
    idx = 0;
    memcpy(buf + sym0, &idx, 4);
    assert_int_equal(pas2p_rank_phases_unpack(buf, len, &b, err, sizeof err), 0);
    pas2p_rank_phases_free(&b);
    /* every single-byte change: refused or accepted, never a crash (ASan watches) */
    for (size_t k = 0; k < len; k++) {
        unsigned char old = buf[k];
        buf[k] ^= 0x5a;
        if (!pas2p_rank_phases_unpack(buf, len, &b, err, sizeof err))
            pas2p_rank_phases_free(&b);
        buf[k] = old;
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_empty_table),
        cmocka_unit_test(test_cut_and_padded),
        cmocka_unit_test(test_damaged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
