/* Unit tests of phase detection on synthetic event streams with known loop structure. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pas2p_analyzer.h"

/* ---- a synthetic stream: events appended with their computation and call time */
typedef struct {
    pas2p_event_t *ev;
    size_t n, cap;
    uint64_t clock;
} stream_t;

static void add(stream_t *s, unsigned call, int peer, int tag, uint64_t bytes, uint64_t compute_ns,
                uint64_t call_ns)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->ev = realloc(s->ev, s->cap * sizeof *s->ev);
    }
    pas2p_event_t *e = &s->ev[s->n++];
    memset(e, 0, sizeof *e);
    e->call = (uint16_t)call;
    e->peer = peer;
    e->tag = tag;
    e->peer2 = e->tag2 = -1;
    e->comm = PAS2P_COMM_WORLD;
    e->bytes = bytes;
    e->compute_ns = compute_ns;
    e->t_start = s->clock + compute_ns;
    e->t_end = e->t_start + call_ns;
    s->clock = e->t_end;
}

typedef struct {
    const stream_t *s;
    size_t i;
} cursor_t;

static int cur_next(void *ctx, pas2p_event_view_t *out)
{
    cursor_t *c = ctx;
    if (c->i == c->s->n)
        return 0;
    out->ev = c->s->ev[c->i];
    out->ordinal = c->i++;
    out->counters = NULL;
    out->payload = NULL;
    return 1;
}

static int analyze(const stream_t *s, const pas2p_analysis_opts_t *o, pas2p_rank_phases_t *out)
{
    cursor_t a = {s, 0}, b = {s, 0};
    pas2p_event_source_t sa = {.next = cur_next, .ctx = &a}, sb = {.next = cur_next, .ctx = &b};
    pas2p_analysis_opts_t def;
    pas2p_analysis_defaults(&def);
    return pas2p_find_phases(sa, sb, o ? o : &def, 0, out);
}

/* the phase whose occurrences have `nsym` events starting with `call`, or NULL */
static const pas2p_phase_t *find(const pas2p_rank_phases_t *r, unsigned call, uint32_t nsym)
{
    for (uint32_t i = 0; i < r->nphases; i++)
        if (r->phases[i].nsym == nsym && r->symbols[r->phases[i].syms[0]].call == call)
            return &r->phases[i];
    return NULL;
}

/* every event in exactly one occurrence; sum(W x mean) = the stream's time */
static void check_partition(const stream_t *s, const pas2p_rank_phases_t *r)
{
    uint64_t events = 0;
    double total = 0, expect = 0;
    for (uint32_t i = 0; i < r->nphases; i++) {
        events += r->phases[i].weight * r->phases[i].nsym;
        total += (double)r->phases[i].weight * r->phases[i].time_mean_s;
    }
    for (size_t i = 0; i < s->n; i++)
        expect += (double)(s->ev[i].compute_ns + (s->ev[i].call == PAS2P_CALL_Init ? 0 : s->ev[i].t_end - s->ev[i].t_start)) * 1e-9;
    assert_int_equal(events, s->n);
    assert_int_equal(r->events, s->n);
    assert_true(fabs(total - expect) <= 1e-9 * expect + 1e-12);
    assert_true(fabs(r->elapsed_s - expect) <= 1e-9 * expect + 1e-12);
}

static void halo(stream_t *s, uint64_t compute)
{
    add(s, PAS2P_CALL_Irecv, 1, 11, 0, compute, 200);
    add(s, PAS2P_CALL_Irecv, 3, 13, 0, 100, 200);
    add(s, PAS2P_CALL_Isend, 1, 12, 4096, 100, 300);
    add(s, PAS2P_CALL_Isend, 3, 14, 4096, 100, 300);
    add(s, PAS2P_CALL_Waitall, -1, -1, 8192, 100, 5000);
}

static void test_simple_loop(void **state)
{
    (void)state;
    stream_t s = {0};
    add(&s, PAS2P_CALL_Init, -1, -1, 0, 0, 300000000);
    for (int i = 0; i < 100; i++)
        halo(&s, 50000);
    add(&s, PAS2P_CALL_Finalize, -1, -1, 0, 1000, 0);
    pas2p_rank_phases_t r;
    assert_int_equal(analyze(&s, NULL, &r), 0);
    check_partition(&s, &r);
    assert_int_equal(r.nphases, 3); /* [Init], the halo body, [Finalize] */
    const pas2p_phase_t *h = find(&r, PAS2P_CALL_Irecv, 5);
    assert_non_null(h);
    assert_int_equal(h->weight, 100);
    assert_int_equal(h->first_start[0], 1);
    assert_int_equal(h->first_end[0], 6);
    assert_int_equal(h->first_start[1], 6);
    assert_true(fabs(h->time_mean_s - 56.4e-6) < 1e-9); /* 50400 ns compute + 6000 ns calls */
    assert_true(fabs(h->time_median_s - 56.4e-6) < 1e-9);
    assert_true(h->time_sd_s < 1e-9);
    pas2p_rank_phases_free(&r);
    free(s.ev);
}

/* a stencil: 15 x (10 halos, then an Allreduce): 2 phases, not hundreds */
static void test_nested_loops(void **state)
{
    (void)state;
    stream_t s = {0};
    add(&s, PAS2P_CALL_Init, -1, -1, 0, 0, 1000);
    add(&s, PAS2P_CALL_Barrier, -1, -1, 0, 5000, 1000);
    for (int o = 0; o < 15; o++) {
        for (int i = 0; i < 10; i++)
            halo(&s, 80000);
        add(&s, PAS2P_CALL_Allreduce, -1, -1, 8, 2000, 40000);
    }
    add(&s, PAS2P_CALL_Finalize, -1, -1, 0, 1000, 0);
    pas2p_rank_phases_t r;
    assert_int_equal(analyze(&s, NULL, &r), 0);
    check_partition(&s, &r);
    const pas2p_phase_t *h = find(&r, PAS2P_CALL_Irecv, 5), *a = find(&r, PAS2P_CALL_Allreduce, 1);
    assert_non_null(h);
    assert_non_null(a);
    assert_int_equal(h->weight, 150);
    assert_int_equal(a->weight, 15);
    assert_int_equal(r.nphases, 4); /* + [Init, Barrier] and [Finalize] */
    assert_true(r.folded_elements <= 4);
    pas2p_rank_phases_free(&r);
    free(s.ev);
}

/* a body of several calls with a repeat inside ([a a b]) is one phase */
static void test_multicall_body(void **state)
{
    (void)state;
    stream_t s = {0};
    for (int i = 0; i < 50; i++) {
        add(&s, PAS2P_CALL_Send, 1, 0, 100, 3000, 500);
        add(&s, PAS2P_CALL_Send, 1, 0, 100, 3000, 500);
        add(&s, PAS2P_CALL_Recv, 2, 0, 0, 1000, 2000);
        add(&s, PAS2P_CALL_Bcast, 0, -1, 64, 1000, 2000);
    }
    pas2p_rank_phases_t r;
    assert_int_equal(analyze(&s, NULL, &r), 0);
    check_partition(&s, &r);
    assert_int_equal(r.nphases, 1);
    assert_int_equal(r.phases[0].nsym, 4);
    assert_int_equal(r.phases[0].weight, 50);
    pas2p_rank_phases_free(&r);
    free(s.ev);
}

/* computation decides between phases of the same calls: within 85 % alike, else not */
static void test_compute_similarity(void **state)
{
    (void)state;
    stream_t s = {0};
    for (int i = 0; i < 40; i++) /* 100 us +-5 %: one phase */
        add(&s, PAS2P_CALL_Allreduce, -1, -1, 8, 100000 + (uint64_t)((i * 37) % 11) * 1000, 1000);
    for (int i = 0; i < 40; i++) /* 400 us: another */
        add(&s, PAS2P_CALL_Allreduce, -1, -1, 8, 400000, 1000);
    pas2p_rank_phases_t r;
    assert_int_equal(analyze(&s, NULL, &r), 0); /* time: 50 % band */
    check_partition(&s, &r);
    assert_int_equal(r.nphases, 2);
    assert_int_equal(r.phases[0].weight + r.phases[1].weight, 80);
    assert_true(r.phases[0].weight >= 39 && r.phases[1].weight >= 39);
    assert_true(r.phases[0].time_max_s / r.phases[0].time_min_s < 1.2);
    /* a stricter threshold does not split the noisy half: its occurrences are 1 us apart
     * from 100 to 110 us, each within 99 % of the next (one group, not bands of it) */
    pas2p_analysis_opts_t o;
    pas2p_analysis_defaults(&o);
    o.compute_similarity_time = 0.99;
    o.compute_floor_ns = 0;
    o.variant_merge = 0;
    pas2p_rank_phases_t strict;
    assert_int_equal(analyze(&s, &o, &strict), 0);
    check_partition(&s, &strict);
    assert_int_equal(strict.nphases, 2);
    pas2p_rank_phases_free(&strict);
    pas2p_rank_phases_free(&r);
    free(s.ev);
    /* but it separates levels 10 % apart with nothing between them: 100 and 110 us */
    stream_t t = {0};
    for (int i = 0; i < 40; i++)
        add(&t, PAS2P_CALL_Allreduce, -1, -1, 8, i % 2 ? 100000 : 110000, 1000);
    assert_int_equal(analyze(&t, &o, &strict), 0);
    check_partition(&t, &strict);
    assert_int_equal(strict.nphases, 2);
    assert_int_equal(strict.phases[0].weight, 20);
    pas2p_rank_phases_free(&strict);
    assert_int_equal(analyze(&t, NULL, &r), 0); /* at 50 %: one */
    assert_int_equal(r.nphases, 1);
    pas2p_rank_phases_free(&r);
    free(t.ev);
}

/* Time variants are groups, not bands of one spread.  Computation spread over 20-160 us
 * in steps of 1.4x (a noisy machine) is cut by the running means into two bands, 20-56
 * and 80-160 us; each band is within 50 % of the next, so they are one phase.  Steps of
 * 20 us with one in five at 200 us, nothing in between, stay two. */
static void test_time_variants_linked(void **state)
{
    (void)state;
    static const uint64_t spread[] = {20000, 28000, 40000, 56000, 80000, 113000, 160000};
    stream_t s = {0};
    for (int i = 0; i < 70; i++)
        add(&s, PAS2P_CALL_Allreduce, -1, -1, 8, spread[i % 7], 1000);
    pas2p_rank_phases_t r;
    assert_int_equal(analyze(&s, NULL, &r), 0);
    check_partition(&s, &r);
    assert_int_equal(r.nphases, 1);
    assert_int_equal(r.phases[0].weight, 70);
    pas2p_rank_phases_free(&r);
    free(s.ev);

    stream_t t = {0};
    for (int i = 0; i < 50; i++)
        add(&t, PAS2P_CALL_Allreduce, -1, -1, 8, i % 5 == 4 ? 200000 : 20000 + (uint64_t)(i % 3) * 1000,
            1000);
    assert_int_equal(analyze(&t, NULL, &r), 0);
    check_partition(&t, &r);
    assert_int_equal(r.nphases, 2);
    assert_true((r.phases[0].weight == 40 && r.phases[1].weight == 10) ||
                (r.phases[0].weight == 10 && r.phases[1].weight == 40));
    pas2p_rank_phases_free(&r);
    free(t.ev);
}

/* message sizes within the tolerance (here 5 %, the per-rank analysis's, with no size
 * floor, as the engine sets them for --phases local) are the same event; beyond, they are
 * not */
static void test_size_tolerance(void **state)
{
    (void)state;
    pas2p_analysis_opts_t o;
    pas2p_analysis_defaults(&o);
    o.global = 0;
    o.size_tolerance = 0.05;
    o.size_floor = 0;
    stream_t s = {0};
    for (int i = 0; i < 30; i++)
        add(&s, PAS2P_CALL_Send, 1, 5, i % 2 ? 1000 : 1030, 10000, 1000);
    pas2p_rank_phases_t r;
    assert_int_equal(analyze(&s, &o, &r), 0);
    assert_int_equal(r.nsymbols, 1);
    assert_int_equal(r.nphases, 1);
    assert_int_equal(r.phases[0].weight, 30);
    pas2p_rank_phases_free(&r);
    free(s.ev);

    stream_t t = {0};
    for (int i = 0; i < 30; i++)
        add(&t, PAS2P_CALL_Send, 1, 5, i % 2 ? 1000 : 1200, 10000, 1000);
    assert_int_equal(analyze(&t, &o, &r), 0);
    check_partition(&t, &r);
    assert_int_equal(r.nsymbols, 2);
    assert_int_equal(r.nphases, 1); /* the alternation is a 2-event body */
    assert_int_equal(r.phases[0].nsym, 2);
    assert_int_equal(r.phases[0].weight, 15);
    pas2p_rank_phases_free(&r);
    /* the default: sizes within 10x are one event (a halo that changes every step), sizes
     * orders of magnitude apart are not */
    assert_int_equal(analyze(&t, NULL, &r), 0);
    assert_int_equal(r.nsymbols, 1);
    assert_int_equal(r.nphases, 1);
    pas2p_rank_phases_free(&r);
    free(t.ev);
    stream_t u = {0};
    for (int i = 0; i < 30; i++)
        add(&u, PAS2P_CALL_Send, 1, 5, i % 2 ? 1000 : 1000000, 10000, 1000);
    assert_int_equal(analyze(&u, NULL, &r), 0);
    assert_int_equal(r.nsymbols, 2);
    pas2p_rank_phases_free(&r);
    free(u.ev);
}

/* the size floor (default 1 KiB): sizes that close are one event whatever their ratio (0
 * and 240 bytes of migrating atoms), not with a floor of 0; sizes further apart than the
 * floor and 10x still are not */
static void test_size_floor(void **state)
{
    (void)state;
    pas2p_rank_phases_t r;
    stream_t t = {0};
    for (int i = 0; i < 30; i++)
        add(&t, PAS2P_CALL_Send, 1, 5, (uint64_t)(i % 3) * 120, 10000, 1000);
    assert_int_equal(analyze(&t, NULL, &r), 0);
    check_partition(&t, &r);
    assert_int_equal(r.nsymbols, 1);
    assert_int_equal(r.nphases, 1);
    assert_int_equal(r.phases[0].weight, 30);
    pas2p_rank_phases_free(&r);
    pas2p_analysis_opts_t o;
    pas2p_analysis_defaults(&o);
    o.size_floor = 0;
    assert_int_equal(analyze(&t, &o, &r), 0);
    assert_int_equal(r.nsymbols, 2); /* 0 is within 10x of no other size; 120 and 240 are */
    pas2p_rank_phases_free(&r);
    free(t.ev);
    stream_t u = {0};
    for (int i = 0; i < 30; i++)
        add(&u, PAS2P_CALL_Send, 1, 5, i % 2 ? 100 : 20000, 10000, 1000);
    assert_int_equal(analyze(&u, NULL, &r), 0);
    assert_int_equal(r.nsymbols, 2);
    pas2p_rank_phases_free(&r);
    free(u.ev);
}

/* a size alike to two variants takes the closer one, not the first: 2880 bytes once, then
 * 185 and 360 alternating; 360 is within 10x of both 2880 and 185, and goes with 185 (with
 * the first alike, 360 took 2880's variant and every step made two calls of two symbols) */
static void test_size_closest_variant(void **state)
{
    (void)state;
    pas2p_rank_phases_t r;
    pas2p_analysis_opts_t o;
    pas2p_analysis_defaults(&o);
    o.size_floor = 0;
    stream_t t = {0};
    add(&t, PAS2P_CALL_Send, 1, 5, 2880, 10000, 1000);
    for (int i = 0; i < 40; i++)
        add(&t, PAS2P_CALL_Send, 1, 5, i % 2 ? 360 : 185, 10000, 1000);
    assert_int_equal(analyze(&t, &o, &r), 0);
    check_partition(&t, &r);
    assert_int_equal(r.nsymbols, 2);
    uint64_t most = 0; /* the loop: one call of one symbol, 40 times */
    for (uint32_t i = 0; i < r.nphases; i++)
        if (r.phases[i].nsym == 1 && r.phases[i].weight > most)
            most = r.phases[i].weight;
    assert_int_equal(most, 40);
    pas2p_rank_phases_free(&r);
    free(t.ev);
}

/* a phase recurring in separate loops gets one id and both loops' weights */
static void test_recurring_phase(void **state)
{
    (void)state;
    stream_t s = {0};
    for (int i = 0; i < 20; i++)
        halo(&s, 30000);
    add(&s, PAS2P_CALL_Barrier, -1, -1, 0, 900000, 1000);
    for (int i = 0; i < 30; i++)
        halo(&s, 30000);
    pas2p_rank_phases_t r;
    assert_int_equal(analyze(&s, NULL, &r), 0);
    check_partition(&s, &r);
    const pas2p_phase_t *h = find(&r, PAS2P_CALL_Irecv, 5);
    assert_non_null(h);
    assert_int_equal(h->weight, 50);
    assert_int_equal(r.nphases, 2);
    pas2p_rank_phases_free(&r);
    free(s.ev);
}

/* streaming: a million events of a loop stay a few elements and phases */
static void test_long_stream(void **state)
{
    (void)state;
    stream_t s = {0};
    for (int i = 0; i < 200000; i++)
        halo(&s, 1000);
    add(&s, PAS2P_CALL_Finalize, -1, -1, 0, 1000, 0);
    pas2p_rank_phases_t r;
    assert_int_equal(analyze(&s, NULL, &r), 0);
    check_partition(&s, &r);
    assert_int_equal(r.nphases, 2);
    assert_int_equal(find(&r, PAS2P_CALL_Irecv, 5)->weight, 200000);
    assert_true(r.folded_elements <= 3);
    pas2p_rank_phases_free(&r);
    free(s.ev);
}

/* no repetition at all: every event still belongs to one occurrence */
static void test_no_repetition(void **state)
{
    (void)state;
    stream_t s = {0};
    for (int i = 0; i < 100; i++)
        add(&s, PAS2P_CALL_Send, i, i, (uint64_t)i * 1000 + 1, 1000, 100);
    pas2p_rank_phases_t r;
    assert_int_equal(analyze(&s, NULL, &r), 0);
    check_partition(&s, &r);
    assert_int_equal(r.nphases, 1);
    assert_int_equal(r.phases[0].weight, 1);
    assert_int_equal(r.phases[0].nsym, 100);
    pas2p_rank_phases_free(&r);
    free(s.ev);
}

/* one early loop, then far more than the folding window of events that never repeat: the
 * early loop is emitted long before the end, and must not be looked at again */
static void test_early_loop_then_noise(void **state)
{
    (void)state;
    stream_t s = {0};
    for (int i = 0; i < 10; i++)
        halo(&s, 1000);
    for (int i = 0; i < 5000; i++)
        add(&s, PAS2P_CALL_Send, i % 997, i, (uint64_t)i + 1, 100, 100);
    pas2p_rank_phases_t r;
    assert_int_equal(analyze(&s, NULL, &r), 0);
    check_partition(&s, &r);
    assert_int_equal(find(&r, PAS2P_CALL_Irecv, 5)->weight, 10);
    pas2p_rank_phases_free(&r);
    free(s.ev);
}

/* an iteration of 600 calls, 6 times (LANL SNAP's sweeps make 288-768 per rank): one phase
 * of weight 6 with the default window (4096), none with --window 256; the same stream with
 * one call differing in each iteration repeats nothing (the long-period candidates it
 * proposes at every element are paid from the credit, phases.c) */
static void test_long_body(void **state)
{
    (void)state;
    for (int variant = 0; variant < 3; variant++) {
        stream_t s = {0};
        add(&s, PAS2P_CALL_Init, -1, -1, 0, 0, 1000);
        for (int it = 0; it < 6; it++)
            for (int i = 0; i < 600; i++)
                add(&s, PAS2P_CALL_Send, 1, variant == 2 && i == 599 ? 1000 + it : i * 37 % 600,
                    100, 2000, 500); /* (tags that do not count up: tracer/pas2p_trace.h) */
        add(&s, PAS2P_CALL_Finalize, -1, -1, 0, 1000, 0);
        pas2p_analysis_opts_t o;
        pas2p_analysis_defaults(&o);
        if (variant == 1)
            o.window = 256;
        pas2p_rank_phases_t r;
        assert_int_equal(analyze(&s, &o, &r), 0);
        check_partition(&s, &r);
        const pas2p_phase_t *b = find(&r, PAS2P_CALL_Send, 600);
        if (variant == 0) {
            assert_non_null(b);
            assert_int_equal(b->weight, 6);
        } else {
            assert_null(b);
            for (uint32_t i = 0; i < r.nphases; i++)
                assert_true(r.phases[i].weight == 1 || r.phases[i].nsym < 300);
        }
        pas2p_rank_phases_free(&r);
        free(s.ev);
    }
}

/* start-up with a short repeat ([Init, Barrier, Barrier, Bcast]) stays one occurrence */
static void test_short_loop_top_level(void **state)
{
    (void)state;
    stream_t s = {0};
    add(&s, PAS2P_CALL_Init, -1, -1, 0, 0, 1000);
    add(&s, PAS2P_CALL_Barrier, -1, -1, 0, 1000, 1000);
    add(&s, PAS2P_CALL_Barrier, -1, -1, 0, 1000, 1000);
    add(&s, PAS2P_CALL_Bcast, 0, -1, 8, 1000, 1000);
    for (int i = 0; i < 50; i++)
        halo(&s, 20000);
    pas2p_rank_phases_t r;
    assert_int_equal(analyze(&s, NULL, &r), 0);
    check_partition(&s, &r);
    assert_int_equal(r.nphases, 2);
    assert_int_equal(r.phases[0].nsym, 4);
    assert_int_equal(r.phases[0].weight, 1);
    pas2p_rank_phases_free(&r);
    free(s.ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_loop),      cmocka_unit_test(test_nested_loops),
        cmocka_unit_test(test_multicall_body),   cmocka_unit_test(test_compute_similarity),
        cmocka_unit_test(test_time_variants_linked),
        cmocka_unit_test(test_size_tolerance),   cmocka_unit_test(test_size_floor),
        cmocka_unit_test(test_size_closest_variant),   cmocka_unit_test(test_recurring_phase),
        cmocka_unit_test(test_long_stream),      cmocka_unit_test(test_no_repetition),
        cmocka_unit_test(test_early_loop_then_noise),
        cmocka_unit_test(test_long_body), cmocka_unit_test(test_short_loop_top_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
