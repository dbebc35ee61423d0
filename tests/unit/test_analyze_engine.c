/* Unit tests of the analysis engine's decisions (analyzer/analyze.c) on small synthetic
 * phase tables: the automatic granularity (skew, smallest relevant loop weight, coarsen and
 * keep), the representative rank and the SPMD verdict, and the signature built from every
 * rank's phases (relevance, global relevance, PET, coverage, communicators); and the one
 * option table of `pas2p analyze`. */
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

/* ---- synthetic phase tables: one symbol per call, phases of up to 4 events */
#define MAXP 4
#define MAXS 4

typedef struct {
    pas2p_rank_phases_t r;
    pas2p_phase_t ph[MAXP];
    pas2p_symbol_t sym[MAXP * MAXS];
    uint32_t syms[MAXP][MAXS];
    double compute[MAXP][MAXS], instr[MAXP][MAXS];
} table_t;

static void table_init(table_t *t, int rank, double elapsed_s)
{
    memset(t, 0, sizeof *t);
    t->r.rank = rank;
    t->r.elapsed_s = elapsed_s;
    t->r.phases = t->ph;
    t->r.symbols = t->sym;
}

/* a phase of the given calls (peer: the symbol's peer), weight and mean time; median =
 * mean and no slow occurrences unless set afterwards */
static pas2p_phase_t *phase(table_t *t, uint32_t id, uint64_t weight, double mean_s,
                            const unsigned *calls, uint32_t n, int peer)
{
    uint32_t i = t->r.nphases++;
    pas2p_phase_t *p = &t->ph[i];
    memset(p, 0, sizeof *p);
    p->id = id;
    p->nsym = n;
    p->syms = t->syms[i];
    p->pos_compute_s = t->compute[i];
    p->pos_instructions = t->instr[i];
    for (uint32_t k = 0; k < n; k++) {
        uint32_t s = t->r.nsymbols++;
        t->sym[s] = (pas2p_symbol_t){.call = (uint16_t)calls[k], .peer = peer, .peer2 = -1,
                                     .tag = 7, .tag2 = -1, .bytes = 1000 + k};
        t->syms[i][k] = s;
        t->compute[i][k] = 1e-6 * (k + 1);
    }
    p->weight = weight;
    p->time_mean_s = p->time_median_s = p->time_min_s = p->time_max_s = mean_s;
    p->time_sum_s = mean_s * (double)weight;
    t->r.events += weight * n;
    return p;
}

static const unsigned HALO[] = {PAS2P_CALL_Irecv, PAS2P_CALL_Isend, PAS2P_CALL_Waitall};
static const unsigned REDUCE[] = {PAS2P_CALL_Allreduce};

/* ---- automatic granularity */
static void test_skew(void **state)
{
    (void)state;
    table_t t[2];
    pas2p_rank_phases_t res[2];
    table_init(&t[0], 0, 100);
    table_init(&t[1], 1, 100);
    /* rank 0: a heavy loop phase whose mean is twice its median, slow occurrences recurring */
    pas2p_phase_t *p = phase(&t[0], 1, 10, 2.0, HALO, 3, 1);
    p->time_median_s = 1.0;
    p->time_slow_share = 0.1;
    res[0] = t[0].r;
    res[1] = t[1].r;
    assert_true(fabs(pas2p_phase_skew(res, 2) - 0.5) < 1e-12);
    /* each condition alone removes it from the skew */
    p->weight = 7; /* repeats too little (< 8) */
    res[0] = t[0].r;
    assert_true(pas2p_phase_skew(res, 2) == 0);
    p->weight = 10;
    p->time_slow_share = 0.02; /* slowness that does not recur (< 3 %): noise */
    res[0] = t[0].r;
    assert_true(pas2p_phase_skew(res, 2) == 0);
    p->time_slow_share = 0.1;
    t[0].r.elapsed_s = 1000; /* 10 x 2 s < 5 % of the rank's time */
    res[0] = t[0].r;
    assert_true(pas2p_phase_skew(res, 2) == 0);
    t[0].r.elapsed_s = 100;
    /* the largest over every rank: rank 1's phase, (4 - 1) / 4 */
    pas2p_phase_t *q = phase(&t[1], 1, 20, 4.0, HALO, 3, 0);
    q->time_median_s = 1.0;
    q->time_slow_share = 0.05;
    res[0] = t[0].r;
    res[1] = t[1].r;
    assert_true(fabs(pas2p_phase_skew(res, 2) - 0.75) < 1e-12);
    assert_true(fabs(pas2p_phase_skew(res, 1) - 0.5) < 1e-12); /* rank 0 alone */
}

static void test_min_loop_weight(void **state)
{
    (void)state;
    table_t t[2];
    pas2p_rank_phases_t res[2];
    table_init(&t[0], 0, 10);
    table_init(&t[1], 1, 10);
    phase(&t[0], 1, 1, 5.0, REDUCE, 1, -1);  /* weight 1: not a loop, ignored */
    phase(&t[0], 2, 50, 0.1, HALO, 3, 1);    /* 5 s: relevant */
    phase(&t[1], 3, 6, 0.5, HALO, 3, 0);     /* 3 s: relevant, the smallest */
    phase(&t[1], 4, 2, 0.001, REDUCE, 1, -1); /* 0.002 s: not relevant */
    res[0] = t[0].r;
    res[1] = t[1].r;
    assert_int_equal(pas2p_min_loop_weight(res, 2, 0.1), 6);
    assert_int_equal(pas2p_min_loop_weight(res, 1, 0.1), 50);
    assert_int_equal(pas2p_min_loop_weight(res, 2, 0.001), 2);
    assert_true(pas2p_min_loop_weight(res, 2, 100) == UINT64_MAX); /* none relevant */
}

static void test_granularity_decision(void **state)
{
    (void)state;
    /* coarsen: skewed beyond the limit, and below 4096 events inlined */
    assert_true(pas2p_granularity_coarsen(0.3, 0.2, 16));
    assert_true(pas2p_granularity_coarsen(0.3, 0.2, 1024));
    assert_false(pas2p_granularity_coarsen(0.2, 0.2, 16)); /* at the limit: even enough */
    assert_false(pas2p_granularity_coarsen(0.1, 0.2, 16));
    assert_false(pas2p_granularity_coarsen(0.9, 0.2, 4096)); /* the ceiling */
    assert_false(pas2p_granularity_coarsen(1.0, 1.0, 16));   /* --skew 1: never */
    /* keep: more even, and every relevant loop phase still occurs >= 4 times */
    assert_true(pas2p_granularity_keep(0.4, 0.02, 10));
    assert_true(pas2p_granularity_keep(0.4, 0.39, 4));
    assert_true(pas2p_granularity_keep(0.4, 0.02, (double)UINT64_MAX)); /* no relevant loop */
    assert_false(pas2p_granularity_keep(0.4, 0.4, 10)); /* not more even */
    assert_false(pas2p_granularity_keep(0.4, 0.5, 10));
    assert_false(pas2p_granularity_keep(0.4, 0.02, 3)); /* too few occurrences to time */
}

/* ---- representative rank and SPMD */
static void test_representative(void **state)
{
    (void)state;
    table_t t[4];
    pas2p_rank_phases_t res[4];
    const double el[4] = {1.0, 1.75, 2.25, 1.5};
    for (int r = 0; r < 4; r++) {
        table_init(&t[r], r, el[r]);
        res[r] = t[r].r;
    }
    /* 1.75 and 2.25 are both 0.25 from AET 2: the lowest rank */
    assert_int_equal(pas2p_representative_rank(res, 4, 2.0), 1);
    assert_int_equal(pas2p_representative_rank(res, 4, 2.2), 2);
    assert_int_equal(pas2p_representative_rank(res, 4, 0.0), 0);
    assert_int_equal(pas2p_representative_rank(res, 4, 1.55), 3);
    assert_int_equal(pas2p_representative_rank(res, 1, 2.0), 0);
}

static void test_spmd(void **state)
{
    (void)state;
    table_t t[3];
    pas2p_rank_phases_t res[3];
    for (int r = 0; r < 3; r++) {
        table_init(&t[r], r, 1);
        /* the same calls and weights, other peers and times: SPMD */
        phase(&t[r], 1, 1, 0.1 * (r + 1), REDUCE, 1, -1);
        phase(&t[r], 2, 100, 0.01 * (r + 1), HALO, 3, (r + 1) % 3);
        res[r] = t[r].r;
    }
    assert_true(pas2p_ranks_spmd(res, 3, 0));
    assert_true(pas2p_ranks_spmd(res, 3, 2));
    /* phases listed in another order: still the same structure */
    pas2p_phase_t tmp = t[1].ph[0];
    t[1].ph[0] = t[1].ph[1];
    t[1].ph[1] = tmp;
    assert_true(pas2p_ranks_spmd(res, 3, 0));
    /* one rank's loop runs once more: the ranks differ */
    t[2].ph[1].weight = 101;
    assert_false(pas2p_ranks_spmd(res, 3, 0));
    assert_false(pas2p_ranks_spmd(res, 3, 2));
    t[2].ph[1].weight = 100;
    /* another call in one rank's loop body */
    t[2].sym[t[2].syms[1][2]].call = PAS2P_CALL_Wait;
    assert_false(pas2p_ranks_spmd(res, 3, 1));
    assert_true(pas2p_ranks_spmd(res, 2, 0)); /* ranks 0 and 1 alone */
}

/* ---- the signature */
typedef struct {
    table_t t[2];
    pas2p_rank_phases_t res[2];
    pas2p_manifest_t m;
    char *hosts[2];
    int32_t members[2];
    pas2p_comm_info_t comm[2];
    double pos_bytes[MAXS], pos_rbytes[MAXS];
    uint64_t smin[MAXS], smax[MAXS];
} run_t;

/* two ranks, AET 10 s: phase 1 (a halo loop) carries 5 s on rank 0 but 0.05 s on rank 1
 * (below 1 % of AET: relevant there only as a global phase); phase 2 (an Allreduce)
 * 0.02 s on both (never relevant).  Both ranks created communicator 5. */
static void run_init(run_t *x)
{
    memset(x, 0, sizeof *x);
    table_init(&x->t[0], 0, 5.02);
    table_init(&x->t[1], 1, 0.07);
    pas2p_phase_t *p = phase(&x->t[0], 1, 100, 0.05, HALO, 3, 1);
    for (int k = 0; k < 3; k++) { /* rank 0's halo sizes: statistics of the phase */
        x->pos_bytes[k] = 4095.6 + k;
        x->pos_rbytes[k] = 10.4;
        x->smin[k] = 4000;
        x->smax[k] = 4200;
    }
    p->pos_bytes = x->pos_bytes;
    p->pos_rbytes = x->pos_rbytes;
    p->pos_size_min = x->smin;
    p->pos_size_max = x->smax;
    p->nfirst = 2;
    p->first_start[0] = 1;
    p->first_end[0] = 4;
    p->first_start[1] = 4;
    p->first_end[1] = 7;
    phase(&x->t[0], 2, 2, 0.01, REDUCE, 1, -1);
    phase(&x->t[1], 1, 100, 0.0005, HALO, 3, 0);
    phase(&x->t[1], 2, 2, 0.01, REDUCE, 1, -1);
    x->members[0] = 0;
    x->members[1] = 1;
    for (int r = 0; r < 2; r++) {
        x->comm[r] = (pas2p_comm_info_t){.id = 5, .parent = 0, .call = PAS2P_CALL_Comm_split,
                                         .size = 2, .members = x->members};
        x->t[r].r.ncomms = 1;
        x->t[r].r.comms = &x->comm[r];
        x->res[r] = x->t[r].r;
    }
    x->m.np = 2;
    snprintf(x->m.command, sizeof x->m.command, "mpirun -np 2 ./halo");
    snprintf(x->m.tracer, sizeof x->m.tracer, "pas2p test");
    x->hosts[0] = "nodeA";
    x->hosts[1] = "nodeB";
    x->m.hosts = x->hosts;
    x->m.aet_s = 10;
}

static const pas2p_sig_phase_t *sig_phase(const pas2p_signature_t *s, int rank, uint32_t id)
{
    for (uint32_t i = 0; i < s->ranks[rank].nphases; i++)
        if (s->ranks[rank].phases[i].id == id)
            return &s->ranks[rank].phases[i];
    return NULL;
}

static void test_build_signature_global(void **state)
{
    (void)state;
    run_t x;
    run_init(&x);
    pas2p_analysis_opts_t o;
    pas2p_analysis_defaults(&o); /* global, relevance 0.01 */
    pas2p_signature_t s;
    assert_int_equal(pas2p_build_signature(x.res, &x.m, &o, 0, 1, &s), 0);
    assert_int_equal(s.np, 2);
    assert_int_equal(s.nranks, 2);
    assert_int_equal(s.representative, 0);
    assert_int_equal(s.spmd, 1);
    assert_int_equal(s.global, 1);
    assert_string_equal(s.hosts, "nodeA,nodeB");
    assert_string_equal(s.counters, "none"); /* the manifest names none */
    assert_string_equal(s.command, "mpirun -np 2 ./halo");
    assert_int_equal(s.events, 2 * (100 * 3 + 2));
    assert_true(s.characteristic_comm == UINT32_MAX); /* the engine sets it */
    /* phase 1 is relevant on rank 0, hence on rank 1 too (one global phase) */
    assert_true(sig_phase(&s, 0, 1)->relevant);
    assert_true(sig_phase(&s, 1, 1)->relevant);
    assert_false(sig_phase(&s, 0, 2)->relevant);
    assert_false(sig_phase(&s, 1, 2)->relevant);
    assert_int_equal(pas2p_signature_relevant_count(&s, 1, 0), 1);
    /* the representative's relevant time, remainder, PET and coverage */
    assert_true(fabs(s.relevant_s - 5.0) < 1e-12);
    assert_true(fabs(s.remainder_s - 0.02) < 1e-12);
    assert_true(fabs(s.pet_s - 5.02) < 1e-12);
    assert_true(fabs(s.coverage - 0.5) < 1e-12);
    /* the skeleton: rank 0's halo with the phase's mean sizes, rank 1's with its symbols' */
    const pas2p_sig_phase_t *h = sig_phase(&s, 0, 1);
    assert_int_equal(h->nevents, 3);
    assert_int_equal(h->weight, 100);
    assert_int_equal(h->events[0].call, PAS2P_CALL_Irecv);
    assert_int_equal(h->events[0].peer, 1);
    assert_int_equal(h->events[0].bytes, 4096);  /* 4095.6 rounded */
    assert_int_equal(h->events[2].bytes, 4098);
    assert_int_equal(h->events[1].rbytes, 10);
    assert_int_equal(h->events[1].size_min, 4000);
    assert_int_equal(h->events[1].size_max, 4200);
    assert_true(fabs(h->events[2].compute_s - 3e-6) < 1e-15);
    assert_int_equal(h->nocc, 2);
    assert_int_equal(h->occ_start[1], 4);
    assert_int_equal(h->occ_end[1], 7);
    assert_int_equal(sig_phase(&s, 1, 1)->events[1].bytes, 1001);
    /* communicator 5, created on both ranks, once */
    assert_int_equal(s.ncomms, 1);
    assert_int_equal(s.comms[0].id, 5);
    assert_int_equal(s.comms[0].size, 2);
    assert_int_equal(s.comms[0].members[1], 1);
    pas2p_signature_free(&s);

    /* rank 1 as the representative: its own phase 1 is relevant (global), 0.05 s */
    assert_int_equal(pas2p_build_signature(x.res, &x.m, &o, 1, 0, &s), 0);
    assert_true(fabs(s.relevant_s - 0.05) < 1e-12);
    assert_true(fabs(s.remainder_s - 0.02) < 1e-12);
    assert_true(fabs(s.coverage - 0.005) < 1e-12);
    pas2p_signature_free(&s);
}

static void test_build_signature_local(void **state)
{
    (void)state;
    run_t x;
    run_init(&x);
    pas2p_analysis_opts_t o;
    pas2p_analysis_defaults(&o);
    o.global = 0; /* per rank: relevance is each rank's own */
    pas2p_signature_t s;
    assert_int_equal(pas2p_build_signature(x.res, &x.m, &o, 1, 1, &s), 0);
    assert_int_equal(s.global, 0);
    assert_true(sig_phase(&s, 0, 1)->relevant);
    assert_false(sig_phase(&s, 1, 1)->relevant); /* 0.05 s < 1 % of 10 s */
    assert_int_equal(pas2p_signature_relevant_count(&s, 0, 1), 0);
    assert_int_equal(pas2p_signature_relevant_count(&s, 0, 0), 1);
    assert_true(s.relevant_s == 0);
    assert_true(fabs(s.remainder_s - 0.07) < 1e-12);
    assert_true(fabs(s.pet_s - 0.07) < 1e-12);
    assert_true(s.coverage == 0);
    pas2p_signature_free(&s);
    /* relevance 0: everything relevant, the coverage is the representative's share */
    o.relevance = 0;
    assert_int_equal(pas2p_build_signature(x.res, &x.m, &o, 0, 1, &s), 0);
    assert_true(sig_phase(&s, 0, 2)->relevant);
    assert_true(fabs(s.coverage - 0.502) < 1e-12);
    assert_true(s.remainder_s == 0);
    pas2p_signature_free(&s);
}

/* ---- the engine's front door and the option table */
static void test_analyze_bad_input(void **state)
{
    (void)state;
    pas2p_analyze_opts_t o;
    pas2p_analyze_defaults(&o);
    o.trace = "/nonexistent/pas2p-trace";
    pas2p_analyze_result_t res;
    char err[512];
    assert_int_equal(pas2p_analyze(&o, NULL, &res, err, sizeof err), PAS2P_ANALYZE_BAD_INPUT);
    assert_non_null(strstr(err, "manifest"));
    assert_false(res.done);
    pas2p_analyze_result_free(&res);
}

static void test_parse(void **state)
{
    (void)state;
    pas2p_analyze_opts_t o;
    long k = -1;
    int dash = -1;
    char *a1[] = {"analyze", "T", "--compute-similarity", "0.7", "--phases", "local",
                  "--inline-events", "64", "--logical", "global", "-o", "s.xml", "--jobs", "3",
                  "--mpi", "2", "--", "mpirun", "--oversubscribe"};
    assert_int_equal(pas2p_analyze_parse(19, a1, 1, &o, &k, &dash), 0);
    assert_string_equal(o.trace, "T");
    assert_string_equal(o.signature, "s.xml");
    assert_true(o.analysis.compute_similarity == 0.7 && o.analysis.compute_similarity_time == 0.7);
    assert_int_equal(o.analysis.global, 0);
    assert_int_equal(o.analysis.inline_events, 64);
    assert_int_equal(o.inline_auto, 0);
    assert_int_equal(o.logical, 1);
    assert_int_equal(o.jobs, 3);
    assert_int_equal(k, 2);
    assert_int_equal(dash, 16);
    assert_int_equal(o.size_tolerance_given, 0);
    /* the defaults */
    char *a2[] = {"analyze", "T", "--size-tolerance", "0.2"};
    assert_int_equal(pas2p_analyze_parse(4, a2, 1, &o, &k, &dash), 0);
    assert_int_equal(k, 0);
    assert_int_equal(dash, 4);
    assert_int_equal(o.analysis.global, 1);
    assert_int_equal(o.inline_auto, 1);
    assert_int_equal(o.analysis.inline_events, 16);
    assert_int_equal(o.logical, -1);
    assert_true(o.skew == 0.2);
    assert_true(o.analysis.compute_similarity == 0.85 && o.analysis.compute_similarity_time == 0.5);
    assert_int_equal(o.size_tolerance_given, 1);
    assert_true(o.analysis.size_tolerance == 0.2);
    /* bin/pas2p-analyze (mpi NULL) takes neither --mpi nor a launcher; bad values: 2 */
    char *a3[] = {"pas2p-analyze", "T", "--mpi", "2"};
    assert_int_equal(pas2p_analyze_parse(4, a3, 1, &o, NULL, NULL), 2);
    char *a4[] = {"analyze", "T", "--inline-events", "x"};
    assert_int_equal(pas2p_analyze_parse(4, a4, 1, &o, &k, &dash), 2);
    char *a5[] = {"analyze", "--strict"};
    assert_int_equal(pas2p_analyze_parse(2, a5, 1, &o, &k, &dash), 2); /* no trace */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skew),
        cmocka_unit_test(test_min_loop_weight),
        cmocka_unit_test(test_granularity_decision),
        cmocka_unit_test(test_representative),
        cmocka_unit_test(test_spmd),
        cmocka_unit_test(test_build_signature_global),
        cmocka_unit_test(test_build_signature_local),
        cmocka_unit_test(test_analyze_bad_input),
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
