/* Signature phases -> replay actions (simbackend/pas2p_sim.h): every call kind to its
 * action line, and the checks that refuse what cannot be replayed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pas2p_calls.h"
#include "pas2p_sim.h"

#define EV(c, p, t, b, rb) {.call = PAS2P_CALL_##c, .peer = (p), .tag = (t), .peer2 = -1, .tag2 = -1, \
                             .comm = 0, .bytes = (b), .rbytes = (rb)}

/* rank 0 and rank 1 mirror each other: every message sent is received in the phase */
static pas2p_sig_event_t ev0[] = {
    EV(Send, 1, 5, 100, 0), EV(Isend, 1, 6, 200, 0), EV(Wait, -1, -1, 0, 0),
    {.call = PAS2P_CALL_Sendrecv, .peer = 1, .tag = 7, .peer2 = 1, .tag2 = 8, .bytes = 300, .rbytes = 301},
    EV(Barrier, -1, -1, 0, 0), EV(Bcast, 0, -1, 64, 64), EV(Reduce, 0, -1, 16, 16),
    EV(Allreduce, -1, -1, 8, 8), EV(Gather, 0, -1, 32, 64), EV(Scatter, 0, -1, 32, 40),
    EV(Allgather, -1, -1, 24, 48), EV(Alltoall, -1, -1, 12, 12), EV(Scan, -1, -1, 8, 8),
    EV(Exscan, -1, -1, 8, 8), EV(Reduce_scatter_block, -1, -1, 16, 16),
    EV(Ibarrier, -1, -1, 0, 0), EV(Iallreduce, -1, -1, 8, 8), EV(Waitall, -1, -1, 0, 0),
    EV(Iprobe, -1, -1, 0, 0), EV(Comm_dup, -1, -1, 0, 0), EV(Test, -1, -1, 0, 0),
};
static pas2p_sig_event_t ev1[] = {
    EV(Recv, 0, 5, 0, 100), EV(Probe, 0, 6, 0, 0), EV(Irecv, -2, -2, 0, 200),
    {.call = PAS2P_CALL_Waitsome, .peer = -1, .tag = -1, .peer2 = -1, .tag2 = -1, .aux = 2},
    {.call = PAS2P_CALL_Sendrecv, .peer = 0, .tag = 8, .peer2 = 0, .tag2 = 7, .bytes = 301, .rbytes = 300},
    EV(Barrier, -1, -1, 0, 0), EV(Bcast, 0, -1, 64, 64), EV(Reduce, 0, -1, 16, 16),
    EV(Allreduce, -1, -1, 8, 8), EV(Gather, 0, -1, 32, 0), EV(Scatter, 0, -1, 0, 40),
    EV(Allgather, -1, -1, 24, 48), EV(Alltoall, -1, -1, 12, 12), EV(Scan, -1, -1, 8, 8),
    EV(Exscan, -1, -1, 8, 8), EV(Reduce_scatter_block, -1, -1, 16, 16),
    EV(Ibarrier, -1, -1, 0, 0), EV(Iallreduce, -1, -1, 8, 8), EV(Waitall, -1, -1, 0, 0),
};

static const char want0[] =
    "pas2p-actions 1 rank 0 np 2\n"
    "phase 3 1\n"
    "compute 0.25\n"
    "send 1 5 100 0\nisend 1 6 200 0\nwait 1\nsendrecv 1 7 300 1 8 301 0\nbarrier 0\n"
    "bcast 64 0 0\nreduce 16 0 0\nallreduce 8 0\ngather 32 0 0\nscatter 40 0 0\n"
    "allgather 24 0\nalltoall 12 0\nscan 8 0\nexscan 8 0\nreduce_scatter 16 0\nibarrier 0\n"
    "iallreduce 8 0\nwaitall\ntest\n"
    "end\n";
static const char want1_start[] =
    "pas2p-actions 1 rank 1 np 2\n"
    "phase 3 1\n"
    "recv 0 5 100 0\nprobe 0 6 0\nirecv -2 -2 200 0\nwait 2\nsendrecv 0 8 301 0 7 300 0\n";

typedef struct {
    pas2p_signature_t s;
    pas2p_sig_rank_t r[2];
    pas2p_sig_phase_t p[2];
    char dir[64];
} fix_t;

static void make(fix_t *f)
{
    memset(f, 0, sizeof *f);
    ev0[0].compute_s = 0.25;
    for (int r = 0; r < 2; r++) {
        f->p[r] = (pas2p_sig_phase_t){.id = 3, .weight = 5, .relevant = 1, .time_mean_s = 1,
                                      .nevents = r ? sizeof ev1 / sizeof *ev1 : sizeof ev0 / sizeof *ev0,
                                      .events = r ? ev1 : ev0};
        f->r[r] = (pas2p_sig_rank_t){.rank = (uint32_t)r, .nphases = 1, .phases = &f->p[r]};
    }
    f->s.np = f->s.nranks = 2;
    f->s.ranks = f->r;
    f->s.spmd = 1;
    snprintf(f->dir, sizeof f->dir, "/tmp/pas2p-test-actions-%d", (int)getpid());
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", f->dir, f->dir);
    assert_int_equal(system(cmd), 0);
}

static void cleanup(fix_t *f)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    assert_int_equal(system(cmd), 0);
}

static char *slurp(const char *dir, int rank)
{
    char path[128];
    snprintf(path, sizeof path, "%s/rank-%05d.act", dir, rank);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 16);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void test_every_call_kind(void **state)
{
    (void)state;
    fix_t f;
    make(&f);
    char err[512] = "";
    int rc = pas2p_actions_from_signature(&f.s, f.dir, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    char *a0 = slurp(f.dir, 0), *a1 = slurp(f.dir, 1);
    assert_string_equal(a0, want0);
    assert_memory_equal(a1, want1_start, strlen(want1_start));
    free(a0);
    free(a1);
    cleanup(&f);
}

/* a phase of microseconds is replayed in bursts of ~1 ms of base time, at most 64 and at
 * most its weight, the same count on every rank (the representative's); a phase of weight 1
 * once, without a warm-up */
static void test_burst(void **state)
{
    (void)state;
    static const struct {
        double mean;
        uint64_t weight;
        const char *line;
    } cases[] = {{1, 5, "phase 3 1\n"},          {2e-4, 1000, "phase 3 5\n"},
                 {1e-6, 1000, "phase 3 64\n"},   {1e-6, 5, "phase 3 5\n"},
                 {0, 1000, "phase 3 64\n"},     {1, 1, "phase 3 1 once\n"},
                 {1e-6, 1, "phase 3 1 once\n"}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        fix_t f;
        make(&f);
        f.p[0].time_mean_s = cases[c].mean;
        f.p[0].weight = cases[c].weight;
        f.p[1].time_mean_s = 1; /* not the representative (rank 0): ignored */
        char err[512] = "";
        if (pas2p_actions_from_signature(&f.s, f.dir, err, sizeof err))
            fail_msg("%s", err);
        for (int r = 0; r < 2; r++) {
            char *a = slurp(f.dir, r);
            assert_non_null(strstr(a, cases[c].line));
            free(a);
        }
        cleanup(&f);
    }
}

/* SPMD ranks that number the same code differently (time variants split differently):
 * rank 1 has the representative's phase 3 as its phase 4 (same calls), and a variant 3
 * with a receive from elsewhere.  Replayed aligned: both ranks' blocks are the
 * representative's phase 3, rank 1's being its counterpart with the same calls at the
 * same ordinal; a note says so. */
static void test_aligned_to_representative(void **state)
{
    (void)state;
    static pas2p_sig_event_t a0[] = {EV(Send, 1, 5, 100, 0), EV(Recv, 1, 6, 0, 100)};
    static pas2p_sig_event_t a1[] = {EV(Send, 0, 6, 100, 0), EV(Recv, 0, 5, 0, 100)};
    static pas2p_sig_event_t b1[] = {EV(Send, 0, 6, 100, 0), EV(Recv, 0, 9, 0, 100)};
    fix_t f;
    make(&f);
    pas2p_sig_phase_t r1[2] = {
        {.id = 3, .weight = 2, .relevant = 1, .time_mean_s = 1, .nevents = 2, .events = b1,
         .nocc = 1, .occ_start = {50}},
        {.id = 4, .weight = 3, .relevant = 1, .time_mean_s = 1, .nevents = 2, .events = a1,
         .nocc = 2, .occ_start = {10, 12}}};
    f.p[0] = (pas2p_sig_phase_t){.id = 3, .weight = 5, .relevant = 1, .time_mean_s = 1,
                                 .nevents = 2, .events = a0, .nocc = 1, .occ_start = {12}};
    f.r[1].phases = r1;
    f.r[1].nphases = 2;
    char err[512] = "";
    if (pas2p_actions_from_signature(&f.s, f.dir, err, sizeof err))
        fail_msg("%s", err);
    assert_non_null(strstr(err, "number their phases differently"));
    char *x0 = slurp(f.dir, 0), *x1 = slurp(f.dir, 1);
    assert_string_equal(x0, "pas2p-actions 1 rank 0 np 2\nphase 3 1\nsend 1 5 100 0\n"
                            "recv 1 6 100 0\nend\n");
    assert_string_equal(x1, "pas2p-actions 1 rank 1 np 2\nphase 3 1\nsend 0 6 100 0\n"
                            "recv 0 5 100 0\nend\n");
    free(x0);
    free(x1);
    /* not SPMD: the phases as numbered, refused */
    f.s.spmd = 0;
    assert_int_equal(pas2p_actions_from_signature(&f.s, f.dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot be replayed alone"));
    cleanup(&f);
}

/* A pipeline (rank 0 sends, rank 1 receives: no counterpart by calls) whose rank 0 split
 * its loop into two time variants, 2 (x89) and 3 (x11), where rank 1 has one phase 2 (x100)
 * and its end phase is 3: phase 3 names different code on the two ranks.  Replayed merged:
 * one block per rank standing for its phases with the same calls, the computation weighted
 * by the occurrences, the times reported under every id it stands for. */
static void test_variants_merged(void **state)
{
    (void)state;
    static pas2p_sig_event_t s2[] = {EV(Send, 1, 5, 100, 0)}, s3[] = {EV(Send, 1, 5, 100, 0)};
    static pas2p_sig_event_t r2[] = {EV(Recv, 0, 5, 0, 100)}, end[] = {EV(Barrier, -1, -1, 0, 0)};
    s2[0].compute_s = 0.01;
    s3[0].compute_s = 0.03;
    r2[0].compute_s = 0.02;
    fix_t f;
    make(&f);
    f.s.spmd = 0;
    pas2p_sig_phase_t p0[3] = {
        {.id = 3, .weight = 11, .relevant = 1, .time_mean_s = 1, .nevents = 1, .events = s3},
        {.id = 2, .weight = 89, .relevant = 1, .time_mean_s = 1, .nevents = 1, .events = s2},
        {.id = 4, .weight = 1, .relevant = 0, .time_mean_s = 1, .nevents = 1, .events = end}};
    pas2p_sig_phase_t p1[2] = {
        {.id = 2, .weight = 100, .relevant = 1, .time_mean_s = 1, .nevents = 1, .events = r2},
        {.id = 3, .weight = 1, .relevant = 0, .time_mean_s = 1, .nevents = 1, .events = end}};
    f.r[0].phases = p0;
    f.r[0].nphases = 3;
    f.r[1].phases = p1;
    f.r[1].nphases = 2;
    char err[512] = "";
    if (pas2p_actions_from_signature(&f.s, f.dir, err, sizeof err))
        fail_msg("%s", err);
    assert_non_null(strstr(err, "with the same calls as one"));
    char *x0 = slurp(f.dir, 0), *x1 = slurp(f.dir, 1);
    assert_string_equal(x0, "pas2p-actions 1 rank 0 np 2\nphase 1 1 as 2,3\ncompute 0.0122\n"
                            "send 1 5 100 0\nend\n");
    assert_string_equal(x1, "pas2p-actions 1 rank 1 np 2\nphase 1 1 as 2\ncompute 0.02\n"
                            "recv 0 5 100 0\nend\n");
    free(x0);
    free(x1);
    /* variants that differ in their calls are not merged: refused as before */
    s3[0].tag = 6;
    assert_int_equal(pas2p_actions_from_signature(&f.s, f.dir, err, sizeof err), -1);
    s3[0].tag = 5;
    assert_non_null(strstr(err, "cannot be replayed alone"));
    cleanup(&f);
}

static void test_unbalanced_phase_is_refused(void **state)
{
    (void)state;
    fix_t f;
    make(&f);
    ev1[0].tag = 9; /* rank 1 now receives tag 9, which rank 0 never sends */
    char err[512] = "";
    assert_int_equal(pas2p_actions_from_signature(&f.s, f.dir, err, sizeof err), -1);
    ev1[0].tag = 5;
    assert_non_null(strstr(err, "phase 3 cannot be replayed alone"));
    assert_non_null(strstr(err, "tag 9"));
    cleanup(&f);
}

static void test_mismatched_collective_is_refused(void **state)
{
    (void)state;
    fix_t f;
    make(&f);
    ev1[6].peer = 1; /* rank 1 thinks the Bcast's root is 1 */
    char err[512] = "";
    assert_int_equal(pas2p_actions_from_signature(&f.s, f.dir, err, sizeof err), -1);
    ev1[6].peer = 0;
    assert_non_null(strstr(err, "MPI_Bcast"));
    cleanup(&f);
}

static void test_inexpressible_call_is_named(void **state)
{
    (void)state;
    fix_t f;
    make(&f);
    uint32_t keep = ev0[11].call;
    ev0[11].call = PAS2P_CALL_Alltoallw;
    char err[512] = "";
    assert_int_equal(pas2p_actions_from_signature(&f.s, f.dir, err, sizeof err), -1);
    ev0[11].call = keep;
    assert_non_null(strstr(err, "phase 3, rank 0: MPI_Alltoallw cannot be replayed"));
    cleanup(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_call_kind),
        cmocka_unit_test(test_burst), cmocka_unit_test(test_aligned_to_representative),
        cmocka_unit_test(test_variants_merged), cmocka_unit_test(test_unbalanced_phase_is_refused),
        cmocka_unit_test(test_mismatched_collective_is_refused),
        cmocka_unit_test(test_inexpressible_call_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
