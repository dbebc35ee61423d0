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

#include "action_table.h"
#include "pas2p_calls.h"
#include "pas2p_sim.h"

#define EV(c, p, t, b, rb) {.call = PAS2P_CALL_##c, .peer = (p), .tag = (t), .peer2 = -1, .tag2 = -1, \
                             .comm = 0, .bytes = (b), .rbytes = (rb)}
/* a completion that completed n requests (one that completed none writes no action) */
#define EVW(c, n) {.call = PAS2P_CALL_##c, .peer = -1, .tag = -1, .peer2 = -1, .tag2 = -1, \
                   .comm = 0, .aux = (n)}

/* rank 0 and rank 1 mirror each other: every message sent is received in the phase */
static pas2p_sig_event_t ev0[] = {
    EV(Send, 1, 5, 100, 0), EV(Isend, 1, 6, 200, 0), EVW(Wait, 1),
    {.call = PAS2P_CALL_Sendrecv, .peer = 1, .tag = 7, .peer2 = 1, .tag2 = 8, .bytes = 300, .rbytes = 301},
    EV(Barrier, -1, -1, 0, 0), EV(Bcast, 0, -1, 64, 64), EV(Reduce, 0, -1, 16, 16),
    EV(Allreduce, -1, -1, 8, 8), EV(Gather, 0, -1, 32, 64), EV(Scatter, 0, -1, 32, 40),
    EV(Allgather, -1, -1, 24, 48), EV(Alltoall, -1, -1, 12, 12), EV(Scan, -1, -1, 8, 8),
    EV(Exscan, -1, -1, 8, 8), EV(Reduce_scatter_block, -1, -1, 16, 16),
    EV(Ibarrier, -1, -1, 0, 0), EV(Iallreduce, -1, -1, 8, 8), EVW(Waitall, 2),
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
    EV(Ibarrier, -1, -1, 0, 0), EV(Iallreduce, -1, -1, 8, 8), EVW(Waitall, 2),
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
    int rc = pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err);
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
 * most its weight, the same count on every rank (the representative's), and a burst under
 * 2 ms at least 6 times; a phase of weight 1 once, without a warm-up */
static void test_burst(void **state)
{
    (void)state;
    static const struct {
        double mean;
        uint64_t weight;
        const char *line;
    } cases[] = {{1, 5, "phase 3 1\n"},
                 {3e-3, 100, "phase 3 1\n"},
                 {2e-4, 1000, "phase 3 5 reps 6\n"},
                 {1e-6, 1000, "phase 3 64 reps 6\n"},
                 {1e-6, 5, "phase 3 5 reps 6\n"},
                 {0, 1000, "phase 3 64 reps 6\n"},
                 {1, 1, "phase 3 1 once\n"},
                 {1e-6, 1, "phase 3 1 once\n"}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        fix_t f;
        make(&f);
        f.p[0].time_mean_s = cases[c].mean;
        f.p[0].weight = cases[c].weight;
        f.p[1].time_mean_s = 1; /* not the representative (rank 0): ignored */
        char err[512] = "";
        if (pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err))
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
    if (pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err))
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
    assert_int_equal(pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err), -1);
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
    if (pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err))
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
    assert_int_equal(pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err), -1);
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
    assert_int_equal(pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "phase 3 cannot be replayed alone"));
    assert_non_null(strstr(err, "tag 9"));
    /* the export refuses it as replay and simulate do (their exit code 2, not 1) */
    err[0] = 0;
    assert_int_equal(pas2p_actions_export_ti(&f.s, f.dir, 1e9, err, sizeof err), -2);
    assert_non_null(strstr(err, "phase 3 cannot be replayed alone"));
    ev1[0].tag = 5;
    cleanup(&f);
}

/* A message sent and never received (Ray leaves one it sent to itself in flight when it
 * ends: the analyzer puts it in the last occurrence and says so).  In a global signature
 * the send is not replayed; in a per-rank one the phase is refused as not closed. */
static void test_unreceived_send_left_out(void **state)
{
    (void)state;
    static pas2p_sig_event_t a0[] = {EV(Send, 1, 5, 100, 0), EV(Send, 0, 7, 8, 0), EV(Send, 0, 7, 8, 0)};
    static pas2p_sig_event_t a1[] = {EV(Recv, 0, 5, 0, 100)};
    fix_t f;
    make(&f);
    f.p[0].events = a0;
    f.p[0].nevents = 3;
    f.p[1].events = a1;
    f.p[1].nevents = 1;
    f.s.global = 1;
    char err[512] = "";
    if (pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err))
        fail_msg("%s", err);
    char *x0 = slurp(f.dir, 0), *x1 = slurp(f.dir, 1);
    assert_string_equal(x0, "pas2p-actions 1 rank 0 np 2\nphase 3 1\nsend 1 5 100 0\nend\n");
    assert_string_equal(x1, "pas2p-actions 1 rank 1 np 2\nphase 3 1\nrecv 0 5 100 0\nend\n");
    free(x0);
    free(x1);
    /* one of the two received: only the last one is left out */
    static pas2p_sig_event_t b0[] = {EV(Send, 1, 5, 100, 0), EV(Send, 0, 7, 8, 0),
                                     EV(Recv, 0, 7, 0, 8), EV(Send, 0, 7, 8, 0)};
    f.p[0].events = b0;
    f.p[0].nevents = 4;
    if (pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err))
        fail_msg("%s", err);
    x0 = slurp(f.dir, 0);
    assert_string_equal(x0, "pas2p-actions 1 rank 0 np 2\nphase 3 1\nsend 1 5 100 0\n"
                            "send 0 7 8 0\nrecv 0 7 8 0\nend\n");
    free(x0);
    f.s.global = 0;
    assert_int_equal(pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "is sent 1 message(s) more than it receives"));
    cleanup(&f);
}

/* Two rounds in one phase, each ending with a wildcard receive the run cancelled: the ones
 * the signature marks `cancelled` are not posted, wherever they stand (without the marks,
 * the last two posted were left out: round 2's real receive, and round 1's cancelled one
 * was posted, so its waitall waited for ever) */
static void test_cancelled_receives_left_out(void **state)
{
    (void)state;
#define WILD(c) {.call = PAS2P_CALL_Irecv, .peer = -2, .tag = -2, .peer2 = -1, .tag2 = -1, .rbytes = 64, .cancelled = (c)}
    /* (and a receive from rank 1 that the run never completed, which rank 1 never sends:
     * mplrs's; not posted, and no reason to refuse the phase) */
    static pas2p_sig_event_t a0[] = {{.call = PAS2P_CALL_Irecv, .peer = 1, .tag = 9, .peer2 = -1, .tag2 = -1,
                                      .rbytes = 4, .cancelled = 1},
                                     WILD(0), EVW(Wait, 1), WILD(1), EVW(Waitall, 2),
                                     EV(Barrier, -1, -1, 0, 0), WILD(0), EVW(Wait, 1), WILD(1),
                                     EVW(Waitall, 2), EV(Barrier, -1, -1, 0, 0)};
#undef WILD
    static pas2p_sig_event_t a1[] = {EV(Send, 0, 3, 64, 0), EV(Barrier, -1, -1, 0, 0),
                                     EV(Send, 0, 3, 64, 0), EV(Barrier, -1, -1, 0, 0)};
    fix_t f;
    make(&f);
    f.p[0].events = a0;
    f.p[0].nevents = sizeof a0 / sizeof *a0;
    f.p[1].events = a1;
    f.p[1].nevents = sizeof a1 / sizeof *a1;
    f.s.global = 1;
    char err[512] = "";
    if (pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err))
        fail_msg("%s", err);
    char *x0 = slurp(f.dir, 0);
    static const char round[] = "irecv -2 -2 64 0\nwait 1\nwaitall\nbarrier 0\n";
    char want[256];
    snprintf(want, sizeof want, "pas2p-actions 1 rank 0 np 2\nphase 3 1\n%s%send\n", round, round);
    assert_string_equal(x0, want);
    free(x0);
    cleanup(&f);
}

static void test_mismatched_collective_is_refused(void **state)
{
    (void)state;
    fix_t f;
    make(&f);
    ev1[6].peer = 1; /* rank 1 thinks the Bcast's root is 1 */
    char err[512] = "";
    assert_int_equal(pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err), -1);
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
    ev0[11].call = PAS2P_CALL_Startall; /* (no `starts`) */
    char err[512] = "";
    assert_int_equal(pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err), -1);
    ev0[11].call = keep;
    assert_non_null(strstr(err, "phase 3, rank 0: MPI_Startall cannot be replayed"));
    cleanup(&f);
}


/* Every MPI call of the call table is in exactly one place of the action table (a row,
 * the silent list or a refusal), and every name the table lists is a call. */
static void test_table_covers_every_call(void **state)
{
    (void)state;
#define REF_(calls, why) calls " "
    static const char refused[] = PAS2P_ACTIONS_REFUSED(REF_);
#undef REF_
    for (unsigned c = 0; c < 256; c++) {
        const char *n = pas2p_call_name(c);
        if (!n)
            continue;
        n += 4;
        int places = pas2p_action_lists(PAS2P_ACTIONS_SILENT, n) + pas2p_action_lists(refused, n);
        for (int k = 0; k < PAS2P_NACTIONS; k++)
            places += pas2p_action_lists(pas2p_action_rows[k].calls, n);
        if (places != 1)
            fail_msg("MPI_%s is in %d places of the action table", n, places);
    }
    char all[4096] = PAS2P_ACTIONS_SILENT " ";
    strcat(all, refused);
    for (int k = 0; k < PAS2P_NACTIONS; k++)
        strcat(strcat(all, pas2p_action_rows[k].calls), " ");
    for (char *t = strtok(all, " "); t; t = strtok(NULL, " ")) {
        unsigned c = 0;
        while (c < 256 && (!pas2p_call_name(c) || strcmp(pas2p_call_name(c) + 4, t)))
            c++;
        if (c == 256)
            fail_msg("the action table lists MPI_%s, which is not a call", t);
    }
    for (int k = 0; k < PAS2P_NACTIONS; k++) /* names are unique */
        assert_int_equal(pas2p_action_find(pas2p_action_rows[k].name), k);
}

/* the calls added with the table, on 2 ranks: v-collectives (blocking and not, their
 * per-peer counts from the other rank's event), non-blocking scans, a wildcard receive */
#define VEV(c, root, b, rb) {.call = PAS2P_CALL_##c, .peer = (root), .tag = -1, .peer2 = -1, \
                             .tag2 = -1, .comm = 0, .bytes = (b), .rbytes = (rb)}
static pas2p_sig_event_t nv0[] = {
    EV(Recv, -2, -2, 0, 8),
    VEV(Gatherv, 0, 8, 24), VEV(Scatterv, 1, 0, 4), VEV(Allgatherv, -1, 8, 24),
    VEV(Alltoallv, -1, 30, 10), VEV(Reduce_scatter, -1, 24, 8),
    VEV(Igatherv, 0, 8, 24), VEV(Iscatterv, 1, 0, 4), VEV(Iallgatherv, -1, 8, 24),
    VEV(Ialltoallv, -1, 30, 10), VEV(Ireduce_scatter, -1, 24, 8),
    VEV(Iscan, -1, 16, 16), VEV(Iexscan, -1, 8, 8), EVW(Waitall, 7),
};
static pas2p_sig_event_t nv1[] = {
    EV(Send, 0, 3, 8, 0),
    VEV(Gatherv, 0, 16, 0), VEV(Scatterv, 1, 12, 8), VEV(Allgatherv, -1, 16, 24),
    VEV(Alltoallv, -1, 10, 30), VEV(Reduce_scatter, -1, 24, 16),
    VEV(Igatherv, 0, 16, 0), VEV(Iscatterv, 1, 12, 8), VEV(Iallgatherv, -1, 16, 24),
    VEV(Ialltoallv, -1, 10, 30), VEV(Ireduce_scatter, -1, 24, 16),
    VEV(Iscan, -1, 16, 16), VEV(Iexscan, -1, 8, 8), EVW(Waitall, 7),
};
/* alltoallv: totals sent 30 and 10, received 10 and 30, spread in proportion: rank 0 sends
 * 30 x 10/40 = 7 (7.5) to itself and 30 x 30/40 = 22 (22.5) to rank 1, rank 1 10 x 10/40 = 2
 * to rank 0 and 10 x 30/40 = 7 to itself */
static const char nv_want0[] =
    "pas2p-actions 1 rank 0 np 2\nphase 3 1\n"
    "recv -2 -2 8 0\n"
    "gatherv 8 0 0 8,16\nscatterv 4 1 0 -\nallgatherv 8 0 8,16\nalltoallv 0 7,22 7,2\n"
    "reduce_scatterv 0 8,16\n"
    "igatherv 8 0 0 8,16\niscatterv 4 1 0 -\niallgatherv 8 0 8,16\nialltoallv 0 7,22 7,2\n"
    "ireduce_scatterv 0 8,16\niscan 16 0\niexscan 8 0\nwaitall\nend\n";
static const char nv_want1[] =
    "pas2p-actions 1 rank 1 np 2\nphase 3 1\n"
    "send 0 3 8 0\n"
    "gatherv 16 0 0 -\nscatterv 8 1 0 4,8\nallgatherv 16 0 8,16\nalltoallv 0 2,7 22,7\n"
    "reduce_scatterv 0 8,16\n"
    "igatherv 16 0 0 -\niscatterv 8 1 0 4,8\niallgatherv 16 0 8,16\nialltoallv 0 2,7 22,7\n"
    "ireduce_scatterv 0 8,16\niscan 16 0\niexscan 8 0\nwaitall\nend\n";

static void make_new(fix_t *f, size_t n)
{
    make(f);
    f->p[0].events = nv0;
    f->p[1].events = nv1;
    f->p[0].nevents = f->p[1].nevents = (uint32_t)n;
}

static void test_new_actions(void **state)
{
    (void)state;
    fix_t f;
    make_new(&f, sizeof nv0 / sizeof *nv0);
    char err[512] = "";
    if (pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err))
        fail_msg("%s", err);
    char *a0 = slurp(f.dir, 0), *a1 = slurp(f.dir, 1);
    assert_string_equal(a0, nv_want0);
    assert_string_equal(a1, nv_want1);
    /* every line parses back with the table's parser */
    for (char *line = strtok(a1, "\n"); line; line = strtok(NULL, "\n")) {
        char word[32];
        int off = 0;
        if (sscanf(line, "%31s%n", word, &off) != 1 || !strcmp(word, "pas2p-actions"))
            continue;
        int k = pas2p_action_find(word);
        if (k < 0)
            fail_msg("'%s' is not an action", word);
        pas2p_action_t a;
        if (!pas2p_action_parse(k, line + off, &a))
            fail_msg("'%s' does not parse back", line);
        if (k == PAS2P_ACT_SCATTERV) {
            assert_int_equal(a.bytes, 8);
            assert_int_equal(a.peer, 1);
            assert_int_equal(a.ncounts[0], 2);
            assert_int_equal(a.counts[0][0], 4);
            assert_int_equal(a.counts[0][1], 8);
        }
        if (k == PAS2P_ACT_GATHERV)
            assert_int_equal(a.ncounts[0], 0); /* `-`: not the root */
        if (k == PAS2P_ACT_ALLTOALLV) {
            assert_int_equal(a.ncounts[1], 2);
            assert_int_equal(a.counts[1][0], 22);
        }
        if (k == PAS2P_ACT_RECV || k == PAS2P_ACT_SEND)
            assert_int_equal(a.peer, 0);
        pas2p_action_clear(&a);
    }
    free(a0);
    free(a1);
    /* the wildcard stays a wildcard: rank 0's any-source receive */
    pas2p_action_t w;
    assert_true(pas2p_action_parse(PAS2P_ACT_RECV, " -2 -2 8 0\n", &w));
    assert_int_equal(w.peer, -2);
    assert_int_equal(w.tag, -2);
    /* malformed counts are refused by the parser */
    assert_false(pas2p_action_parse(PAS2P_ACT_ALLGATHERV, " 8 0 8,x\n", &w));
    assert_false(pas2p_action_parse(PAS2P_ACT_ALLTOALLV, " 0 1,2\n", &w));
    assert_false(pas2p_action_parse(PAS2P_ACT_ALLGATHERV, " 8 0 -\n", &w));
    /* `wait N [P]`: N requests from position P among the pending ones (0: the oldest) */
    assert_true(pas2p_action_parse(PAS2P_ACT_WAIT, " 1\n", &w));
    assert_int_equal(w.bytes, 1);
    assert_int_equal(w.pos, 0);
    assert_true(pas2p_action_parse(PAS2P_ACT_WAIT, " 1 3\n", &w));
    assert_int_equal(w.bytes, 1);
    assert_int_equal(w.pos, 3);
    assert_false(pas2p_action_parse(PAS2P_ACT_WAIT, " 1 -3\n", &w));
    assert_false(pas2p_action_parse(PAS2P_ACT_WAIT, " 1 3 4\n", &w));
    cleanup(&f);
}

/* the stock TI export: the blocking v-collectives in SimGrid's own syntax; a non-blocking
 * collective or a scan refused by name.  With PAS2P_KEEP_EXPORT=DIR the export is kept
 * there (the ctest then replays it with SimGrid's smpireplaymain). */
static void test_export_new_actions(void **state)
{
    (void)state;
    fix_t f;
    make_new(&f, 6); /* the wildcard receive and the blocking v-collectives */
    const char *keep = getenv("PAS2P_KEEP_EXPORT");
    char dir[512], cmd[1200], err[512] = "";
    snprintf(dir, sizeof dir, "%s", keep ? keep : f.dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, dir);
    assert_int_equal(system(cmd), 0);
    if (pas2p_actions_export_ti(&f.s, dir, 1e9, err, sizeof err))
        fail_msg("%s", err);
    char path[600], buf[2048] = "";
    snprintf(path, sizeof path, "%s/phase-3/rank-00001.txt", dir);
    FILE *x = fopen(path, "r");
    assert_non_null(x);
    buf[fread(buf, 1, sizeof buf - 1, x)] = 0;
    fclose(x);
    assert_string_equal(buf, "1 init\n1 send 0 3 8\n1 gatherv 16 0 0 0\n1 scatterv 4 8 8 1\n"
                             "1 allgatherv 16 8 16\n1 alltoallv 9 2 7 29 22 7\n"
                             "1 reducescatter 8 16 0\n1 finalize\n");
    snprintf(path, sizeof path, "%s/phase-3/rank-00000.txt", dir);
    x = fopen(path, "r");
    assert_non_null(x);
    buf[fread(buf, 1, sizeof buf - 1, x)] = 0;
    fclose(x);
    assert_non_null(strstr(buf, "0 recv -555 -444 8\n"));
    assert_non_null(strstr(buf, "0 gatherv 8 8 16 0\n"));
    /* a non-blocking collective, a non-blocking scan: refused by name */
    static const struct {
        size_t n;
        const char *why;
    } refused[] = {{7, "'igatherv' has no SimGrid time-independent action"},
                   {12, "'iscan' has no SimGrid time-independent action"}};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        pas2p_sig_event_t k0 = nv0[refused[i].n - 1], k1 = nv1[refused[i].n - 1];
        nv0[6] = k0, nv1[6] = k1;
        make_new(&f, 7);
        snprintf(cmd, sizeof cmd, "rm -rf %s/x && mkdir -p %s/x", f.dir, f.dir);
        assert_int_equal(system(cmd), 0);
        snprintf(dir, sizeof dir, "%s/x", f.dir);
        assert_int_equal(pas2p_actions_export_ti(&f.s, dir, 1e9, err, sizeof err), -1);
        if (!strstr(err, refused[i].why))
            fail_msg("expected \"%s\" in: %s", refused[i].why, err);
        assert_null(strchr(err, '\n'));
        nv0[6] = (pas2p_sig_event_t)VEV(Igatherv, 0, 8, 24);
        nv1[6] = (pas2p_sig_event_t)VEV(Igatherv, 0, 16, 0);
    }
    cleanup(&f);
}

/* a Start that does not say what it starts (per-rank phases, an older signature) is
 * refused, by name and with the reason */
static void test_refused_calls_are_named(void **state)
{
    (void)state;
    static const struct {
        uint32_t call;
        const char *msg;
    } cases[] = {{PAS2P_CALL_Startall, "MPI_Startall cannot be replayed: the signature does not "
                                       "say which persistent requests it starts"},
                 {PAS2P_CALL_Start, "MPI_Start cannot be replayed: the signature does not "
                                    "say which persistent requests it starts"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fix_t f;
        make(&f);
        uint32_t keep = ev0[11].call;
        ev0[11].call = cases[i].call;
        char err[512] = "";
        assert_int_equal(pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err), -1);
        ev0[11].call = keep;
        if (!strstr(err, cases[i].msg))
            fail_msg("expected \"%s\" in: %s", cases[i].msg, err);
        cleanup(&f);
    }
}

/* a signature's Start/Startall is the isend or irecv of each request it starts, its
 * computation before the first; a persistent request's init is nothing (no message: the
 * phase still closes) */
static void test_started_requests(void **state)
{
    (void)state;
    fix_t f;
    make(&f);
    pas2p_sig_start_t s0[2] = {{.call = PAS2P_CALL_Send_init, .peer = 1, .tag = 9, .bytes = 64},
                               {.call = PAS2P_CALL_Recv_init, .peer = 1, .tag = 10, .bytes = 32}};
    pas2p_sig_start_t s1[2] = {{.call = PAS2P_CALL_Recv_init, .peer = -2, .tag = 9, .bytes = 64},
                               {.call = PAS2P_CALL_Ssend_init, .peer = 0, .tag = 10, .bytes = 32}};
    pas2p_sig_event_t k0 = ev0[11], k1 = ev1[12], d0 = ev0[19]; /* their Alltoall */
    ev0[11] = (pas2p_sig_event_t){.call = PAS2P_CALL_Startall, .peer = -1, .tag = -1, .peer2 = -1,
                                  .tag2 = -1, .aux = 2, .compute_s = 0.5, .nstarts = 2, .starts = s0};
    ev1[12] = (pas2p_sig_event_t){.call = PAS2P_CALL_Startall, .peer = -1, .tag = -1, .peer2 = -1,
                                  .tag2 = -1, .aux = 2, .nstarts = 2, .starts = s1};
    ev0[19] = (pas2p_sig_event_t)EV(Send_init, 1, 11, 8, 0); /* never started in the phase */
    char err[512] = "";
    int rc = pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err);
    ev0[11] = k0;
    ev1[12] = k1;
    ev0[19] = d0;
    if (rc)
        fail_msg("%s", err);
    char *a0 = slurp(f.dir, 0), *a1 = slurp(f.dir, 1);
    assert_non_null(strstr(a0, "allgather 24 0\ncompute 0.5\nisend 1 9 64 0\nirecv 1 10 32 0\nscan"));
    assert_non_null(strstr(a1, "allgather 24 0\nirecv -2 9 64 0\nisend 0 10 32 0\nscan"));
    assert_null(strstr(a0, " 11 8 0"));
    free(a0);
    free(a1);
    cleanup(&f);
}

/* a Waitall of fewer requests than the block has pending is `wait K` (the K oldest), so
 * the computation after it overlaps the later ones as in the run (adi: four receives each
 * awaited alone, all four awaited at the first as `waitall`, replay +10 %); one of every
 * pending request stays `waitall` */
static void test_partial_waitall(void **state)
{
    (void)state;
    fix_t f;
    make(&f);
    pas2p_sig_event_t w0[] = {EV(Irecv, 1, 20, 0, 8), EV(Irecv, 1, 21, 0, 8), EVW(Waitall, 1),
                              EVW(Waitall, 1)};
    pas2p_sig_event_t w1[] = {EV(Send, 0, 20, 8, 0), EV(Send, 0, 21, 8, 0)};
    w0[3].compute_s = 0.5;
    f.p[0].events = w0;
    f.p[0].nevents = 4;
    f.p[1].events = w1;
    f.p[1].nevents = 2;
    char err[512] = "";
    if (pas2p_actions_from_signature(&f.s, PAS2P_ACTIONS_FOR_REPLAY, f.dir, err, sizeof err))
        fail_msg("%s", err);
    char *a0 = slurp(f.dir, 0);
    assert_string_equal(a0, "pas2p-actions 1 rank 0 np 2\nphase 3 1\nirecv 1 20 8 0\n"
                            "irecv 1 21 8 0\nwait 1\ncompute 0.5\nwaitall\nend\n");
    free(a0);
    cleanup(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_started_requests), cmocka_unit_test(test_partial_waitall),
        cmocka_unit_test(test_every_call_kind),
        cmocka_unit_test(test_burst), cmocka_unit_test(test_aligned_to_representative),
        cmocka_unit_test(test_variants_merged), cmocka_unit_test(test_unbalanced_phase_is_refused),
        cmocka_unit_test(test_mismatched_collective_is_refused),
        cmocka_unit_test(test_unreceived_send_left_out),
        cmocka_unit_test(test_cancelled_receives_left_out),
        cmocka_unit_test(test_inexpressible_call_is_named),
        cmocka_unit_test(test_table_covers_every_call), cmocka_unit_test(test_new_actions),
        cmocka_unit_test(test_export_new_actions), cmocka_unit_test(test_refused_calls_are_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
