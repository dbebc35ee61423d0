/* Unit tests of the global phases (analyzer/global.c) on synthetic multi-rank traces:
 * every occurrence is checked against the matched message graph (what each rank sends to
 * and receives from each peer inside the slice), Σ W x time is each rank's time, the
 * result is deterministic, and a receive with no send is an error naming rank and event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pas2p_analyzer.h"

#define MAXR 4
#define DONE 4

typedef struct {
    pas2p_event_t *ev;
    pas2p_completion_t *done; /* DONE per event (a completion's entries; most complete one) */
    size_t n, cap;
    uint64_t clock;
} stream_t;

static pas2p_event_t *add(stream_t *s, unsigned call, int peer, int tag, uint64_t bytes,
                          uint64_t compute_ns)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->ev = realloc(s->ev, s->cap * sizeof *s->ev);
        s->done = realloc(s->done, s->cap * DONE * sizeof *s->done);
    }
    pas2p_event_t *e = &s->ev[s->n];
    memset(e, 0, sizeof *e);
    memset(&s->done[s->n * DONE], 0, DONE * sizeof *s->done);
    s->n++;
    e->call = (uint16_t)call;
    e->peer = peer;
    e->tag = tag;
    e->peer2 = e->tag2 = -1;
    e->comm = PAS2P_COMM_WORLD;
    if (call == PAS2P_CALL_Recv || call == PAS2P_CALL_Irecv)
        e->rbytes = bytes;
    else
        e->bytes = bytes;
    e->compute_ns = compute_ns;
    e->t_start = s->clock + compute_ns;
    e->t_end = e->t_start + 1000;
    s->clock = e->t_end;
    return e;
}

/* a Wait completing the receive posted at ordinal `post`, from `source` */
static void add_wait(stream_t *s, uint64_t post, int source, int tag, uint64_t compute_ns)
{
    pas2p_event_t *e = add(s, PAS2P_CALL_Wait, -1, -1, 0, compute_ns);
    e->aux = 1;
    e->payload = sizeof(pas2p_completion_t);
    e->flags = PAS2P_EV_FLAG_TRUE;
    s->done[(s->n - 1) * DONE] = (pas2p_completion_t){.post = post, .call = PAS2P_CALL_Irecv,
                                             .source = source, .tag = tag, .bytes = 8};
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
    out->counters = NULL;
    out->payload = out->ev.payload ? &c->s->done[c->i * DONE] : NULL;
    out->ordinal = c->i++;
    return 1;
}

/* per-rank analysis, then the global pass: 0 or -1 with err; its summary in *info */
static int analyze_info(stream_t *s, int np, pas2p_rank_phases_t *res, pas2p_global_info_t *info,
                        char *err, size_t errlen)
{
    pas2p_analysis_opts_t o;
    pas2p_analysis_defaults(&o);
    cursor_t a[MAXR], b[MAXR], c[MAXR];
    pas2p_event_source_t src[MAXR];
    for (int r = 0; r < np; r++) {
        a[r] = (cursor_t){&s[r], 0};
        b[r] = (cursor_t){&s[r], 0};
        c[r] = (cursor_t){&s[r], 0};
        pas2p_event_source_t sa = {.next = cur_next, .ctx = &a[r]}, sb = {.next = cur_next, .ctx = &b[r]};
        assert_int_equal(pas2p_find_phases(sa, sb, &o, 0, &res[r]), 0);
        src[r] = (pas2p_event_source_t){.next = cur_next, .ctx = &c[r]};
    }
    int rc = pas2p_global_phases(src, np, &o, 0, 0, res, NULL, info, err, errlen);
    if (rc)
        for (int r = 0; r < np; r++)
            pas2p_rank_phases_free(&res[r]);
    return rc;
}

static int analyze(stream_t *s, int np, pas2p_rank_phases_t *res, char *err, size_t errlen)
{
    pas2p_global_info_t info;
    return analyze_info(s, np, res, &info, err, errlen);
}

/* every recorded occurrence of every phase: what each rank sends to / receives from each
 * peer inside it balances (the slices of one occurrence index are the same cut) */
static void check_closed(stream_t *s, int np, const pas2p_rank_phases_t *res)
{
    uint32_t maxid = 0;
    for (int r = 0; r < np; r++)
        for (uint32_t i = 0; i < res[r].nphases; i++)
            if (res[r].phases[i].id > maxid)
                maxid = res[r].phases[i].id;
    for (uint32_t id = 1; id <= maxid; id++) {
        uint64_t weight = 0;
        for (int r = 0; r < np; r++)
            for (uint32_t i = 0; i < res[r].nphases; i++)
                if (res[r].phases[i].id == id) {
                    if (weight)
                        assert_int_equal(res[r].phases[i].weight, weight); /* one weight */
                    weight = res[r].phases[i].weight;
                }
        for (uint32_t k = 0; k < PAS2P_PHASE_SAMPLE_OCC && k < weight; k++) {
            long sent[MAXR][MAXR] = {{0}}, recvd[MAXR][MAXR] = {{0}};
            for (int r = 0; r < np; r++)
                for (uint32_t i = 0; i < res[r].nphases; i++) {
                    const pas2p_phase_t *p = &res[r].phases[i];
                    if (p->id != id || k >= p->nfirst)
                        continue;
                    for (uint64_t e = p->first_start[k]; e < p->first_end[k]; e++) {
                        const pas2p_event_t *x = &s[r].ev[e];
                        if (x->call == PAS2P_CALL_Send || x->call == PAS2P_CALL_Isend)
                            sent[r][x->peer]++;
                        else if (x->call == PAS2P_CALL_Recv)
                            recvd[x->peer][r]++;
                        else if (x->call == PAS2P_CALL_Wait && s[r].done[e * DONE].source >= 0)
                            recvd[s[r].done[e * DONE].source][r]++; /* (not a cancelled one) */
                    }
                }
            for (int a = 0; a < np; a++)
                for (int b = 0; b < np; b++)
                    if (sent[a][b] != recvd[a][b]) {
                        print_error("phase %u occurrence %u: rank %d sends %ld to rank %d, which "
                                    "receives %ld\n", id, k, a, sent[a][b], b, recvd[a][b]);
                        fail();
                    }
        }
    }
    /* every event in one occurrence: sum W x mean = the rank's time */
    for (int r = 0; r < np; r++) {
        double sum = 0;
        uint64_t events = 0;
        int variable = 0; /* (a variable phase's skeleton is its first occurrence's calls) */
        for (uint32_t i = 0; i < res[r].nphases; i++) {
            sum += (double)res[r].phases[i].weight * res[r].phases[i].time_mean_s;
            events += res[r].phases[i].weight * res[r].phases[i].nsym;
            variable |= res[r].phases[i].variable;
        }
        if (!variable)
            assert_int_equal(events, s[r].n);
        assert_true(sum > 0.999 * res[r].elapsed_s && sum < 1.001 * res[r].elapsed_s);
    }
}

/* every rank calls MPI_Finalize; the streams are analysed (which must succeed) into res and
 * every phase is checked closed */
static void finish(stream_t *s, int np, pas2p_rank_phases_t *res)
{
    for (int r = 0; r < np; r++)
        add(&s[r], PAS2P_CALL_Finalize, -1, -1, 0, 0);
    char err[512];
    assert_int_equal(analyze(s, np, res, err, sizeof err), 0);
    check_closed(s, np, res);
}

static uint32_t nphases(const pas2p_rank_phases_t *res, int np)
{
    uint32_t maxid = 0;
    for (int r = 0; r < np; r++)
        for (uint32_t i = 0; i < res[r].nphases; i++)
            if (res[r].phases[i].id > maxid)
                maxid = res[r].phases[i].id;
    return maxid;
}

static void free_all(stream_t *s, pas2p_rank_phases_t *res, int np)
{
    for (int r = 0; r < np; r++) {
        pas2p_rank_phases_free(&res[r]);
        free(s[r].ev);
        free(s[r].done);
    }
}

/* rank 1's loop body is rank 0's rotated: [Send Recv] against Recv [Send Recv] ... Send.
 * Rank 1's own loop boundaries cut between a message and its answer; the global cut must
 * still close every occurrence, with one weight per phase. */
static void test_rotated_bodies(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    const int n = 20;
    add(&s[0], PAS2P_CALL_Init, -1, -1, 0, 0);
    add(&s[1], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int i = 0; i < n; i++) {
        add(&s[0], PAS2P_CALL_Send, 1, 1, 4096, 50000);
        add(&s[0], PAS2P_CALL_Recv, 1, 2, 4096, 1000);
    }
    add(&s[1], PAS2P_CALL_Recv, 0, 1, 4096, 1000);
    for (int i = 0; i < n - 1; i++) {
        add(&s[1], PAS2P_CALL_Send, 0, 2, 4096, 50000);
        add(&s[1], PAS2P_CALL_Recv, 0, 1, 4096, 1000);
    }
    add(&s[1], PAS2P_CALL_Send, 0, 2, 4096, 50000);
    pas2p_rank_phases_t res[2];
    finish(s, 2, res);
    assert_true(nphases(res, 2) <= 4);
    /* the loop is one phase that repeats, not one occurrence for the whole run */
    uint64_t wmax = 0;
    for (uint32_t i = 0; i < res[0].nphases; i++)
        if (res[0].phases[i].weight > wmax)
            wmax = res[0].phases[i].weight;
    assert_true(wmax >= (uint64_t)n - 2);
    free_all(s, res, 2);
}

/* the heaviest phase of rank r */
static const pas2p_phase_t *heaviest(const pas2p_rank_phases_t *R)
{
    const pas2p_phase_t *best = NULL;
    for (uint32_t i = 0; i < R->nphases; i++)
        if (!best || R->phases[i].weight > best->weight)
            best = &R->phases[i];
    return best;
}

static double wait_sum(const pas2p_phase_t *p)
{
    double w = 0;
    for (uint32_t i = 0; p->pos_wait_s && i < p->nsym; i++)
        w += p->pos_wait_s[i];
    return w;
}

/* Two ranks exchange every step (a ring at np 2: rank 0 sends then receives, rank 1 the
 * reverse), and take turns being slow: 3 ms and 1 ms of computation, then 1 ms and 3 ms.
 * Each rank's mean is 2 ms, but every step lasts as long as its slower rank, 3 ms: the
 * phase's critical path is 1.5x its mean occurrence's, a wait of 1 ms per step spread over
 * both ranks' computation.  The same computation in a one-way pipeline (rank 1 only
 * receives) holds nobody back: a step takes 2 ms on average, as the mean one does (what is
 * left is the pipeline's fill and drain, 2.5 % of it). */
static void test_wait_for_slowest(void **state)
{
    (void)state;
    for (int pipeline = 0; pipeline < 2; pipeline++) {
        stream_t s[2] = {{0}};
        const int n = 40;
        add(&s[0], PAS2P_CALL_Init, -1, -1, 0, 0);
        add(&s[1], PAS2P_CALL_Init, -1, -1, 0, 0);
        for (int i = 0; i < n; i++) {
            uint64_t c0 = i % 2 ? 1000000 : 3000000, c1 = i % 2 ? 3000000 : 1000000;
            add(&s[0], PAS2P_CALL_Send, 1, 1, 4096, c0);
            if (!pipeline)
                add(&s[0], PAS2P_CALL_Recv, 1, 2, 4096, 1000);
            add(&s[1], PAS2P_CALL_Recv, 0, 1, 4096, c1);
            if (!pipeline)
                add(&s[1], PAS2P_CALL_Send, 0, 2, 4096, 1000);
        }
        pas2p_rank_phases_t res[2];
        finish(s, 2, res);
        for (int r = 0; r < 2; r++) {
            const pas2p_phase_t *p = heaviest(&res[r]);
            assert_non_null(p);
            assert_true(p->weight >= (uint64_t)n / 4);
            double per_step = wait_sum(p) / ((double)p->nsym / (pipeline ? 1 : 2));
            if (pipeline)
                assert_true(fabs(per_step) < 0.1e-3);
            else
                assert_true(per_step > 0.95e-3 && per_step < 1.05e-3);
        }
        free_all(s, res, 2);
    }
}

/* The step's slowest rank sets the pace wherever the ranks join, not only where every rank
 * waits for every other: ranks 0 and 2 take turns computing 3 ms and 1 ms and send to rank
 * 1, which receives from both (the join: it waits for the later one) and answers both.
 * Each rank's mean is 2 ms, every step lasts 3 ms: 1 ms of wait per step on ranks 0 and 2
 * (their computation x 1.5), though rank 1 waits twice in a step and its calls are not the
 * others'.  (Before the critical path, the wait was taken only where every rank made the
 * same calls or waited once: none here.) */
static void test_wait_at_a_join(void **state)
{
    (void)state;
    stream_t s[3] = {{0}};
    const int n = 40;
    for (int r = 0; r < 3; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int i = 0; i < n; i++) {
        uint64_t c0 = i % 2 ? 1000000 : 3000000, c2 = i % 2 ? 3000000 : 1000000;
        add(&s[0], PAS2P_CALL_Send, 1, 1, 4096, c0);
        add(&s[0], PAS2P_CALL_Recv, 1, 2, 4096, 1000);
        add(&s[2], PAS2P_CALL_Send, 1, 1, 4096, c2);
        add(&s[2], PAS2P_CALL_Recv, 1, 2, 4096, 1000);
        add(&s[1], PAS2P_CALL_Recv, 0, 1, 4096, 1000);
        add(&s[1], PAS2P_CALL_Recv, 2, 1, 4096, 1000);
        add(&s[1], PAS2P_CALL_Send, 0, 2, 4096, 1000);
        add(&s[1], PAS2P_CALL_Send, 2, 2, 4096, 1000);
    }
    pas2p_rank_phases_t res[3];
    finish(s, 3, res);
    for (int r = 0; r < 3; r += 2) {
        const pas2p_phase_t *p = heaviest(&res[r]);
        assert_non_null(p);
        assert_true(p->weight >= (uint64_t)n / 4);
        double per_step = wait_sum(p) / ((double)p->nsym / 2);
        assert_true(per_step > 0.95e-3 && per_step < 1.05e-3);
    }
    free_all(s, res, 3);
}

/* Counting tags (tracer/pas2p_trace.h, pas2p_tag_count): rank 1 sends rank 0 a message a
 * step, tagged with the step's number (mpi4py's pickled reductions): after the counter has
 * counted PAS2P_TAGC_STEPS times, the sends and receives are identified by
 * PAS2P_TAG_COUNTING and the steps repeat -- one phase of nearly every step.  A halo whose
 * tags name 26 directions, 0 to 25 in every step, keeps its tags. */
static void test_counting_tags(void **state)
{
    (void)state;
    for (int halo = 0; halo < 2; halo++) {
        stream_t s[2] = {{0}};
        const int n = 200, dirs = halo ? 26 : 1;
        add(&s[0], PAS2P_CALL_Init, -1, -1, 0, 0);
        add(&s[1], PAS2P_CALL_Init, -1, -1, 0, 0);
        for (int i = 0; i < n; i++)
            for (int d = 0; d < dirs; d++) {
                int tag = halo ? d : i;
                add(&s[1], PAS2P_CALL_Send, 0, tag, 64, 100000);
                add(&s[0], PAS2P_CALL_Recv, 1, tag, 64, 100000);
            }
        pas2p_rank_phases_t res[2];
        finish(s, 2, res);
        for (int r = 0; r < 2; r++) {
            int counting = 0;
            for (uint32_t k = 0; k < res[r].nsymbols; k++)
                counting |= res[r].symbols[k].tag == PAS2P_TAG_COUNTING;
            assert_int_equal(counting, !halo);
            const pas2p_phase_t *p = heaviest(&res[r]);
            assert_non_null(p);
            if (!halo) /* (the first PAS2P_TAGC_STEPS steps: a set-up of their own) */
                assert_true(p->weight * p->nsym >= (uint64_t)(n - PAS2P_TAGC_STEPS - 2));
        }
        free_all(s, res, 2);
    }
}

/* Both ends of a channel get the counting tag (global.c, counting_both_ends): rank 1
 * sends two messages a step tagged 0, 1, 2, 3, ... (counting), rank 0 receives each step's
 * second one first (1, 0, 3, 2, ...: never counting).  Rank 0's receives are written with
 * the counting tag too, or a replay would send with one tag and receive with another. */
static void test_counting_tags_both_ends(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    const int n = 100;
    add(&s[0], PAS2P_CALL_Init, -1, -1, 0, 0);
    add(&s[1], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int i = 0; i < n; i++) {
        add(&s[1], PAS2P_CALL_Send, 0, 2 * i, 64, 100000);
        add(&s[1], PAS2P_CALL_Send, 0, 2 * i + 1, 64, 1000);
        add(&s[0], PAS2P_CALL_Recv, 1, 2 * i + 1, 64, 100000);
        add(&s[0], PAS2P_CALL_Recv, 1, 2 * i, 64, 1000);
    }
    pas2p_rank_phases_t res[2];
    finish(s, 2, res);
    int counted[2] = {0, 0}, plain[2] = {0, 0};
    for (int r = 0; r < 2; r++)
        for (uint32_t k = 0; k < res[r].nsymbols; k++) {
            const pas2p_symbol_t *y = &res[r].symbols[k];
            if (y->call != PAS2P_CALL_Send && y->call != PAS2P_CALL_Recv)
                continue;
            counted[r] += y->tag == PAS2P_TAG_COUNTING;
            plain[r] += y->tag >= 0 && y->tag >= 2 * PAS2P_TAGC_STEPS + 2;
        }
    assert_true(counted[1] > 0);
    assert_true(counted[0] > 0);
    assert_int_equal(plain[0], 0); /* (its first steps' receives, before rank 1 counted, keep theirs) */
    assert_int_equal(plain[1], 0);
    free_all(s, res, 2);
}

/* Time variants are groups, not bands of one spread (global.c, merge_linked): two ranks
 * exchange every step, their computation spread over 20-160 us in steps of 1.4x (a noisy
 * machine), which running means cut into bands; each band is within 50 % of the next:
 * one phase.  With one step in five at 200 us and the others at 20-22 us, nothing in
 * between: two phases, 40 and 10 steps. */
static void test_time_variants_linked(void **state)
{
    (void)state;
    static const uint64_t spread[] = {20000, 28000, 40000, 56000, 80000, 113000, 160000};
    for (int gap = 0; gap < 2; gap++) {
        stream_t s[2] = {{0}};
        const int n = gap ? 50 : 70;
        add(&s[0], PAS2P_CALL_Init, -1, -1, 0, 0);
        add(&s[1], PAS2P_CALL_Init, -1, -1, 0, 0);
        for (int i = 0; i < n; i++) {
            uint64_t c = gap ? (i % 5 == 4 ? 200000 : 20000 + (uint64_t)(i % 3) * 1000) : spread[i % 7];
            add(&s[0], PAS2P_CALL_Send, 1, 1, 4096, c);
            add(&s[0], PAS2P_CALL_Recv, 1, 2, 4096, 1000);
            add(&s[1], PAS2P_CALL_Recv, 0, 1, 4096, c);
            add(&s[1], PAS2P_CALL_Send, 0, 2, 4096, 1000);
        }
        pas2p_rank_phases_t res[2];
        finish(s, 2, res);
        /* the steps' phases: those of two calls on rank 0 */
        uint64_t w[4] = {0};
        int k = 0;
        for (uint32_t i = 0; i < res[0].nphases; i++)
            if (res[0].phases[i].nsym == 2 && k < 4)
                w[k++] = res[0].phases[i].weight;
        if (!gap) {
            assert_int_equal(k, 1);
            assert_true(w[0] >= (uint64_t)n - 1);
        } else {
            assert_int_equal(k, 2);
            assert_true(w[0] + w[1] >= (uint64_t)n - 1);
            assert_true((w[0] >= 39 && w[1] == 10) || (w[0] == 10 && w[1] >= 39));
        }
        free_all(s, res, 2);
    }
}

/* a software-pipelined receive: posted in iteration i, completed in i + 2.  No iteration
 * boundary is closed; the occurrence widens until the requests complete (handled, not
 * refused), and the result is still closed and conserves time. */
static void test_lag2_pipeline(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    const int n = 12;
    uint64_t post[64];
    add(&s[0], PAS2P_CALL_Init, -1, -1, 0, 0);
    add(&s[1], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int i = 0; i < n; i++)
        add(&s[0], PAS2P_CALL_Send, 1, 7, 8, 20000);
    for (int i = 0; i < n + 2; i++) {
        if (i < n) {
            post[i] = s[1].n;
            add(&s[1], PAS2P_CALL_Irecv, 0, 7, 8, 20000);
        }
        if (i >= 2)
            add_wait(&s[1], post[i - 2], 0, 7, 1000);
    }
    pas2p_rank_phases_t res[2];
    finish(s, 2, res);
    free_all(s, res, 2);
}

/* How a global signature numbers calls (pas2p_number_event): failed polls are not calls;
 * with completion runs, neither is an empty Testsome (the tracer marks every Testsome
 * 'flag true') nor a Waitsome (Testsome) right after a numbered one; without (an older
 * signature), every call whose flag is true is numbered. */
static void test_number_event(void **state)
{
    (void)state;
    const pas2p_event_t isend = {.call = PAS2P_CALL_Isend},
                        ws = {.call = PAS2P_CALL_Waitsome, .flags = PAS2P_EV_FLAG_TRUE, .aux = 2},
                        ts = {.call = PAS2P_CALL_Testsome, .flags = PAS2P_EV_FLAG_TRUE, .aux = 1},
                        ts0 = {.call = PAS2P_CALL_Testsome, .flags = PAS2P_EV_FLAG_TRUE},
                        test0 = {.call = PAS2P_CALL_Test},
                        ip = {.call = PAS2P_CALL_Iprobe, .flags = PAS2P_EV_FLAG_TRUE},
                        wany = {.call = PAS2P_CALL_Waitany, .flags = PAS2P_EV_FLAG_TRUE, .aux = 1};
    unsigned last = 0;
    assert_int_equal(pas2p_number_event(&last, &isend, 1), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &ws, 1), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &ws, 1), PAS2P_NUM_RUN);
    assert_int_equal(pas2p_number_event(&last, &test0, 1), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &ws, 1), PAS2P_NUM_RUN); /* polls between */
    assert_int_equal(pas2p_number_event(&last, &ts, 1), PAS2P_NUM_CALL); /* another call */
    assert_int_equal(pas2p_number_event(&last, &ts0, 1), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &ts, 1), PAS2P_NUM_RUN);
    assert_int_equal(pas2p_number_event(&last, &ws, 1), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &ip, 1), PAS2P_NUM_CALL); /* found something */
    assert_int_equal(pas2p_number_event(&last, &wany, 1), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &wany, 1), PAS2P_NUM_CALL); /* one each */
    /* older signatures: only flag-false polls are folded */
    last = 0;
    assert_int_equal(pas2p_number_event(&last, &ws, 0), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &ws, 0), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &ts0, 0), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &test0, 0), PAS2P_NUM_POLL);
    /* completion tests (what analyze writes now): no Test* is a call, whatever it completed
     * (BLACS tests its sends again only while they are not done: how many tests, and where,
     * changes from run to run); a Waitsome run is as before; with probes (what analyze
     * writes now) a found Iprobe is a poll too (MUMPS's, under getdp: timing), a call
     * without */
    const pas2p_event_t tall = {.call = PAS2P_CALL_Testall, .flags = PAS2P_EV_FLAG_TRUE, .aux = 2},
                        t1 = {.call = PAS2P_CALL_Test, .flags = PAS2P_EV_FLAG_TRUE, .aux = 1};
    const int both = PAS2P_NUMBER_GLOBAL;
    last = 0;
    assert_int_equal(pas2p_number_event(&last, &isend, both), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &tall, both), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &t1, both), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &ts, both), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &ws, both), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &ts, both), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &ws, both), PAS2P_NUM_RUN);
    assert_int_equal(pas2p_number_event(&last, &ip, both), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &ip, PAS2P_NUMBER_RUNS | PAS2P_NUMBER_TESTS),
                     PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &tall, PAS2P_NUMBER_RUNS), PAS2P_NUM_CALL);
    /* completion waits (what analyze writes now): a Wait, Waitany or Waitall after a Test*
     * with no numbered call between is a poll (Boost.MPI's wait_all: tests, then a Waitall
     * only for what they did not find done); one after a numbered call is a call; a
     * Waitsome there is the runs rule's; without the rule, a call */
    const pas2p_event_t w1 = {.call = PAS2P_CALL_Wait, .aux = 1},
                        wall = {.call = PAS2P_CALL_Waitall, .aux = 2};
    last = 0;
    assert_int_equal(pas2p_number_event(&last, &isend, both), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &test0, both), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &wall, both), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &w1, both), PAS2P_NUM_POLL); /* (still after) */
    assert_int_equal(pas2p_number_event(&last, &isend, both), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &wall, both), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &t1, both), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &wany, both), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &ws, both), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &ts, both), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &ws, both), PAS2P_NUM_RUN);
    last = 0;
    assert_int_equal(pas2p_number_event(&last, &isend, both & ~PAS2P_NUMBER_WAITS), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &test0, both & ~PAS2P_NUMBER_WAITS), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &wall, both & ~PAS2P_NUMBER_WAITS), PAS2P_NUM_CALL);
    /* tested waits (a trace whose tracer flags them): a Wait, Waitany or Waitall flagged
     * PAS2P_EV_TESTED is a poll after other numbered calls too (SuperLU_DIST: a test,
     * other calls, then a wait only for what the test did not find done); unflagged, or
     * without the rule (an older trace), a call; a flagged Waitsome is not this rule's */
    const pas2p_event_t w1t = {.call = PAS2P_CALL_Wait, .aux = 1, .flags = PAS2P_EV_TESTED},
                        wallt = {.call = PAS2P_CALL_Waitall, .aux = 2, .flags = PAS2P_EV_TESTED},
                        wst = {.call = PAS2P_CALL_Waitsome, .aux = 1, .flags = PAS2P_EV_TESTED};
    const int tested = both | PAS2P_NUMBER_TESTED;
    last = 0;
    assert_int_equal(pas2p_number_event(&last, &isend, tested), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &test0, tested), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &isend, tested), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &w1t, tested), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &wallt, tested), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &w1, tested), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &wst, tested), PAS2P_NUM_CALL);
    const pas2p_event_t wnull = {.call = PAS2P_CALL_Wait, .aux = 0}; /* MPI_REQUEST_NULL */
    assert_int_equal(pas2p_number_event(&last, &wnull, tested), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &wnull, both), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &isend, both), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &w1t, both), PAS2P_NUM_CALL);
    /* flagged (what analyze writes from such a trace now): the flag alone, no after-tests
     * guess -- a wait for a send no test looked at, right after a failed test of another
     * request, is a call (SuperLU_DIST: it was a poll while its look-ahead receive was
     * pending and a call after, so the receive's arrival decided the rank's calls); what
     * the flag or MPI_REQUEST_NULL says is still a poll; the analyzer's rules are these */
    pas2p_analysis_opts_t o;
    pas2p_analysis_defaults(&o);
    o.global = 1;
    o.waits_tested = 1;
    const int flagged = pas2p_analysis_rules(&o);
    assert_int_equal(flagged, (both & ~PAS2P_NUMBER_WAITS) | PAS2P_NUMBER_TESTED);
    last = 0;
    assert_int_equal(pas2p_number_event(&last, &isend, flagged), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &test0, flagged), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &w1, flagged), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &test0, flagged), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &wall, flagged), PAS2P_NUM_CALL);
    assert_int_equal(pas2p_number_event(&last, &test0, flagged), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &wallt, flagged), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &wnull, flagged), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &ts, flagged), PAS2P_NUM_POLL);
    assert_int_equal(pas2p_number_event(&last, &ws, flagged), PAS2P_NUM_CALL);
    o.waits_tested = 0; /* an older trace: the after-tests rule */
    assert_int_equal(pas2p_analysis_rules(&o), both);
}

/* a Waitsome completing the requests posted at post[0..n), in one call */
static void add_waitsome(stream_t *s, unsigned call, const uint64_t *post, int n, int source,
                         const int *tag, uint64_t compute_ns)
{
    pas2p_event_t *e = add(s, call, -1, -1, 0, compute_ns);
    e->aux = (uint32_t)n;
    e->payload = (uint32_t)(n * sizeof(pas2p_completion_t));
    e->flags = PAS2P_EV_FLAG_TRUE;
    for (int k = 0; k < n; k++)
        s->done[(s->n - 1) * DONE + k] = (pas2p_completion_t){
            .post = post[k], .call = PAS2P_CALL_Irecv, .source = source, .tag = tag[k], .bytes = 8};
}

/* A ring step whose four receives are completed by MPI_Waitsome (or Testsome polling) in
 * 1, 2 or 3 calls, in a pattern that differs by iteration and by rank (when the messages
 * arrive), empty Testsomes between: one phase, whose skeleton has one Waitsome completing
 * all four, its occurrences numbered in calls (the run and the polls not counted), and
 * every rank's time in it.  Testsomes are all polls (completion_tests): no completion in
 * the skeleton, the requests still closed by them. */
static void test_waitsome_runs(void **state)
{
    (void)state;
    for (unsigned call = PAS2P_CALL_Waitsome; call <= PAS2P_CALL_Testsome; call += PAS2P_CALL_Testsome - PAS2P_CALL_Waitsome) {
        stream_t s[2] = {{0}};
        const int n = 30;
        static const int parts[3][4] = {{4}, {1, 3}, {2, 1, 1}};
        add(&s[0], PAS2P_CALL_Init, -1, -1, 0, 0);
        add(&s[1], PAS2P_CALL_Init, -1, -1, 0, 0);
        for (int i = 0; i < n; i++)
            for (int r = 0; r < 2; r++) {
                uint64_t post[4];
                int tag[4];
                for (int k = 0; k < 4; k++) {
                    post[k] = s[r].n;
                    tag[k] = k;
                    add(&s[r], PAS2P_CALL_Irecv, 1 - r, k, 8, 2000);
                }
                for (int k = 0; k < 4; k++)
                    add(&s[r], PAS2P_CALL_Send, 1 - r, k, 8, 2000);
                const int *pt = parts[(i + r) % 3];
                for (int j = 0, done = 0; done < 4; done += pt[j++]) {
                    if (call == PAS2P_CALL_Testsome && j) {
                        pas2p_event_t *e = add(&s[r], PAS2P_CALL_Testsome, -1, -1, 0, 3000);
                        e->flags = PAS2P_EV_FLAG_TRUE; /* as the tracer marks an empty one */
                    }
                    add_waitsome(&s[r], call, post + done, pt[j], 1 - r, tag + done, 5000);
                }
            }
        add(&s[0], PAS2P_CALL_Finalize, -1, -1, 0, 0);
        add(&s[1], PAS2P_CALL_Finalize, -1, -1, 0, 0);
        pas2p_rank_phases_t res[2];
        char err[512];
        assert_int_equal(analyze(s, 2, res, err, sizeof err), 0);
        assert_true(nphases(res, 2) <= 3);
        for (int r = 0; r < 2; r++) {
            const pas2p_phase_t *p = heaviest(&res[r]);
            assert_true(p->weight >= (uint64_t)n - 1);
            /* 4 Irecv, 4 Send, one Waitsome; no Testsome: every Test* is a poll */
            const uint32_t nsym = call == PAS2P_CALL_Testsome ? 8 : 9;
            assert_int_equal(p->nsym, nsym);
            int runs = 0;
            for (uint32_t k = 0; k < p->nsym; k++)
                if (res[r].symbols[p->syms[k]].call == call) {
                    runs++;
                    assert_int_equal(res[r].symbols[p->syms[k]].aux, 4);
                }
            assert_int_equal(runs, call == PAS2P_CALL_Testsome ? 0 : 1);
            for (uint32_t k = 0; k < p->nfirst; k++)
                assert_int_equal(p->first_end[k] - p->first_start[k], nsym);
            double sum = 0;
            uint64_t calls = 0;
            for (uint32_t i = 0; i < res[r].nphases; i++) {
                sum += (double)res[r].phases[i].weight * res[r].phases[i].time_mean_s;
                calls += res[r].phases[i].weight * res[r].phases[i].nsym;
            }
            assert_int_equal(calls, 2 + nsym * (uint64_t)n);
            assert_true(sum > 0.999 * res[r].elapsed_s && sum < 1.001 * res[r].elapsed_s);
        }
        free_all(s, res, 2);
    }
}

/* wildcard receives that all come from one rank (CP2K's at np 2 and 4: 10 % of a rank's
 * calls) are receives from that rank: the order of the calls cannot depend on which sender
 * is first, so the signature is located by ordinals (not anchored, which put every round
 * between two all-rank collectives in a phase of its own: 1931 phases, no wait_s) and the
 * loop is one phase; from two ranks (a farm) it is anchored */
static void test_wildcard_one_source(void **state)
{
    (void)state;
    for (int np = 2; np <= 3; np++) {
        stream_t s[3] = {{0}};
        for (int r = 0; r < np; r++)
            add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
        for (int i = 0; i < 30; i++) {
            for (int w = 1; w < np; w++) {
                add(&s[w], PAS2P_CALL_Send, 0, 3, 64, 20000 + 1000 * (uint64_t)(i % 3));
                pas2p_event_t *e = add(&s[0], PAS2P_CALL_Recv, w, 3, 64, 1000);
                e->flags |= PAS2P_EV_ANY_SOURCE;
            }
            for (int r = 0; r < np; r++)
                add(&s[r], PAS2P_CALL_Allreduce, -1, -1, 8, 5000);
        }
        for (int r = 0; r < np; r++)
            add(&s[r], PAS2P_CALL_Finalize, -1, -1, 0, 0);
        pas2p_rank_phases_t res[3];
        pas2p_global_info_t info;
        char err[512];
        assert_int_equal(analyze_info(s, np, res, &info, err, sizeof err), 0);
        check_closed(s, np, res);
        assert_int_equal(res[0].wildcard_source, np == 2 ? 2 : -1);
        assert_int_equal(info.anchored, np == 3);
        if (np == 2) {
            assert_true(nphases(res, np) <= 3);
            assert_true(heaviest(&res[0])->weight >= 29);
        }
        free_all(s, res, np);
    }
}

/* a master/worker farm: the master receives with MPI_ANY_SOURCE from whichever worker is
 * done first (the order changes) and answers it.  Wildcard receives are one event kind;
 * every occurrence is closed. */
static void test_farm_any_source(void **state)
{
    (void)state;
    stream_t s[3] = {{0}};
    for (int r = 0; r < 3; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int round = 0; round < 15; round++) {
        for (int k = 0; k < 2; k++) {
            int w = (round % 3 == 0) ? 2 - k : 1 + k; /* arrival order varies */
            pas2p_event_t *e = add(&s[0], PAS2P_CALL_Recv, w, 3, 64, 1000);
            e->flags |= PAS2P_EV_ANY_SOURCE;
            add(&s[0], PAS2P_CALL_Send, w, 4, 64, 1000);
        }
        for (int w = 1; w <= 2; w++) {
            add(&s[w], PAS2P_CALL_Send, 0, 3, 64, 30000);
            add(&s[w], PAS2P_CALL_Recv, 0, 4, 64, 1000);
        }
    }
    pas2p_rank_phases_t res[3];
    finish(s, 3, res);
    /* the master's receives are wildcards in the skeleton */
    int any = 0;
    for (uint32_t i = 0; i < res[0].nsymbols; i++)
        any |= res[0].symbols[i].call == PAS2P_CALL_Recv && res[0].symbols[i].peer == PAS2P_PEER_ANY;
    assert_true(any);
    free_all(s, res, 3);
}

/* A farm in rounds: the master answers whichever worker's result comes first
 * (MPI_ANY_SOURCE), so how many tasks each worker gets changes from round to round (1, 2, 3
 * of 5), and every round ends with an MPI_Bcast.  The rounds are one phase (anchored: cut
 * at the all-rank collectives, the same calls in any order and number), marked variable,
 * its occurrences located by anchor positions that each end at an anchor. */
static void test_farm_rounds(void **state)
{
    (void)state;
    stream_t s[3] = {{0}};
    const int rounds = 12;
    for (int r = 0; r < 3; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int round = 0; round < rounds; round++) {
        int a = 1 + round % 3; /* worker 1's tasks; worker 2 gets 5 - a */
        for (int t = 0; t < 5; t++) {
            int w = t < a ? 1 : 2;
            add(&s[w], PAS2P_CALL_Send, 0, 3, 64, 30000);
            add(&s[w], PAS2P_CALL_Recv, 0, 4, 64, 1000);
            pas2p_event_t *e = add(&s[0], PAS2P_CALL_Recv, w, 3, 64, 1000);
            e->flags |= PAS2P_EV_ANY_SOURCE;
            add(&s[0], PAS2P_CALL_Send, w, 4, 64, 1000);
        }
        for (int r = 0; r < 3; r++)
            add(&s[r], PAS2P_CALL_Bcast, 0, -1, 8, 1000);
    }
    pas2p_rank_phases_t res[3];
    finish(s, 3, res);
    for (int r = 0; r < 3; r++) {
        const pas2p_phase_t *p = heaviest(&res[r]);
        assert_non_null(p);
        assert_int_equal(p->weight, rounds - 1); /* (the first round holds MPI_Init too) */
        assert_true(p->variable);
        for (uint32_t k = 0; k < p->nfirst; k++) {
            assert_int_equal(p->first_aend[k] & 0xffffffffu, 0); /* ends at an anchor */
            assert_int_equal(p->first_aend[k] >> 32, (p->first_astart[k] >> 32) + 1);
        }
    }
    free_all(s, res, 3);
}

/* The farm's rounds again: a variable phase's skeleton is its first 16 occurrences in a row
 * (rounds 1-16 of 19: worker 1 takes 2, 3, 1, 2, ... of the 5 tasks), each call with its
 * own computation, scaled so that the skeleton holds 16 mean occurrences' computation; a
 * replay divides its time by 16 (skel_occ).  One occurrence replayed for many whose calls
 * differ did not average them (Graph500's BFS on two hosts: +11 to +14 % against the full
 * trace). */
static void test_variable_skeleton_first_occurrences(void **state)
{
    (void)state;
    stream_t s[3] = {{0}};
    const int rounds = 20;
    uint32_t calls[3] = {0, 0, 0}; /* rounds 1-16's, per rank */
    for (int r = 0; r < 3; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int round = 0; round < rounds; round++) {
        int a = 1 + round % 3;
        for (int t = 0; t < 5; t++) {
            int w = t < a ? 1 : 2;
            add(&s[w], PAS2P_CALL_Send, 0, 3, 64, 30000 + 1000 * (uint64_t)round);
            add(&s[w], PAS2P_CALL_Recv, 0, 4, 64, 1000);
            pas2p_event_t *e = add(&s[0], PAS2P_CALL_Recv, w, 3, 64, 1000);
            e->flags |= PAS2P_EV_ANY_SOURCE;
            add(&s[0], PAS2P_CALL_Send, w, 4, 64, 1000);
            if (round >= 1 && round <= 16)
                calls[w] += 2, calls[0] += 2;
        }
        for (int r = 0; r < 3; r++) {
            add(&s[r], PAS2P_CALL_Bcast, 0, -1, 8, 1000);
            calls[r] += round >= 1 && round <= 16;
        }
    }
    pas2p_rank_phases_t res[3];
    finish(s, 3, res);
    for (int r = 0; r < 3; r++) {
        const pas2p_phase_t *p = heaviest(&res[r]);
        assert_non_null(p);
        assert_int_equal(p->weight, rounds - 1);
        assert_true(p->variable);
        assert_int_equal(p->skel_occ, 16);
        assert_int_equal(p->nsym, calls[r]);
        double c = 0;
        for (uint32_t k = 0; k < p->nsym; k++)
            c += p->pos_compute_s[k];
        assert_true(fabs(c - 16 * p->compute_mean_s) <= 1e-9 * c);
        /* each call keeps its own share: worker 1's first send of round 2 (the skeleton's
         * 6th call, after round 1's 2 tasks and Bcast) computed 32 us against round 1's 31 */
        if (r == 1)
            assert_true(p->pos_compute_s[5] > p->pos_compute_s[0]);
    }
    free_all(s, res, 3);
}

/* halo sizes that drift every step (ghost atoms) are one phase with their mean and range,
 * not a phase per size; a size 1000x larger is another event */
static void test_drifting_sizes(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int i = 0; i < 30; i++) {
        uint64_t sz = 1000 + (uint64_t)((i * 37) % 300);
        for (int r = 0; r < 2; r++) {
            add(&s[r], PAS2P_CALL_Send, 1 - r, 9, sz, 40000);
            add(&s[r], PAS2P_CALL_Recv, 1 - r, 9, sz, 1000);
        }
    }
    pas2p_rank_phases_t res[2];
    char err[512];
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Finalize, -1, -1, 0, 0);
    assert_int_equal(analyze(s, 2, res, err, sizeof err), 0);
    check_closed(s, 2, res);
    const pas2p_phase_t *main_phase = NULL;
    for (uint32_t i = 0; i < res[0].nphases; i++)
        if (!main_phase || res[0].phases[i].weight > main_phase->weight)
            main_phase = &res[0].phases[i];
    assert_true(main_phase->weight >= 28);
    assert_non_null(main_phase->pos_size_min);
    assert_true(main_phase->pos_size_min[0] >= 1000 && main_phase->pos_size_max[0] <= 1299);
    assert_true(main_phase->pos_size_max[0] > main_phase->pos_size_min[0]);
    free_all(s, res, 2);
}

/* molecular dynamics' migration: every 3rd step, before its halo, each rank sends the
 * atoms that left its slab, 0 to 360 bytes, once 2880 (the first, as the lattice melts).
 * Sizes within the 1 KiB floor are one event, and a size alike to two variants takes the
 * closer one: every small migration is one phase, whatever each rank's sizes are (with
 * the first variant alike and no floor, 0 vs 120 and 360 vs the 2880 variant split the
 * migration step into a phase per combination of the ranks' sizes, more at higher np). */
static void test_migrating_sizes(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int i = 0; i < 60; i++)
        for (int r = 0; r < 2; r++) {
            if (i % 3 == 0) {
                uint64_t m = i == 0 ? 2880 : (uint64_t)((i * 7 + r * 3) % 4) * 120;
                uint64_t n = i == 0 ? 2880 : (uint64_t)((i * 7 + (1 - r) * 3) % 4) * 120;
                add(&s[r], PAS2P_CALL_Send, 1 - r, 3, m, 20000);
                add(&s[r], PAS2P_CALL_Recv, 1 - r, 3, n, 1000);
            }
            uint64_t h = 5600 + (uint64_t)(i % 5) * 40;
            add(&s[r], PAS2P_CALL_Send, 1 - r, 9, h, 40000);
            add(&s[r], PAS2P_CALL_Recv, 1 - r, 9, h, 1000);
        }
    pas2p_rank_phases_t res[2];
    finish(s, 2, res);
    /* the phases holding a small migration (a tag-3 send under 1 KiB), and their weights */
    uint32_t small = 0;
    uint64_t w = 0;
    for (uint32_t i = 0; i < res[0].nphases; i++) {
        const pas2p_phase_t *p = &res[0].phases[i];
        int has = 0;
        for (uint32_t k = 0; k < p->nsym; k++) {
            const pas2p_symbol_t *y = &res[0].symbols[p->syms[k]];
            has |= y->call == PAS2P_CALL_Send && y->tag == 3 && y->bytes < 1024;
        }
        small += (uint32_t)has;
        w += has ? p->weight : 0;
    }
    assert_int_equal(small, 1);
    assert_int_equal(w, 19); /* steps 3, 6, ..., 57 */
    free_all(s, res, 2);
}

/* GROMACS's halo (a 2652-atom water box, np 2): MPI_Sendrecv whose two sizes drift
 * between 100 and 450 bytes every step, 4 bytes at the first step, and once an odd
 * 1080/324.  Two small sizes are always within the 1 KiB floor of each other: every small
 * exchange is one event, however close it is to the odd one's variant (with the closest
 * variant taken among all alike, (445, 323) went to (1080, 324) and (333, 336) to (4, 4),
 * and each rank's step came out as a phase per combination: 63 phases, 11 relevant; here,
 * the per-rank folding that proposes the cuts saw loops of 2 and 3 steps for 34 steps
 * after the odd one, and the heaviest phase held 164 of the 200 steps). */
static void test_small_sizes_one_variant(void **state)
{
    (void)state;
    enum { STEPS = 200 };
    stream_t s[2] = {{0}};
    uint64_t sz[2][STEPS];
    for (int i = 0; i < STEPS; i++)
        for (int r = 0; r < 2; r++)
            sz[r][i] = i == 0 ? 4 : i == 50 ? (r ? 324 : 1080)
                                             : 100 + (uint64_t)((i * 37 + r * 101) % 350);
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int i = 0; i < STEPS; i++)
        for (int r = 0; r < 2; r++) {
            pas2p_event_t *e = add(&s[r], PAS2P_CALL_Sendrecv, 1 - r, 7, sz[r][i], 30000);
            e->peer2 = 1 - r;
            e->tag2 = 7;
            e->rbytes = sz[1 - r][i];
            add(&s[r], PAS2P_CALL_Allreduce, -1, -1, 8, 5000)->rbytes = 8;
        }
    pas2p_rank_phases_t res[2];
    finish(s, 2, res);
    for (int r = 0; r < 2; r++) {
        uint32_t variants = 0;
        for (uint32_t k = 0; k < res[r].nsymbols; k++) {
            const pas2p_symbol_t *y = &res[r].symbols[k];
            variants += y->call == PAS2P_CALL_Sendrecv && y->bytes < 1024 && y->rbytes < 1024;
        }
        assert_int_equal(variants, 1);
    }
    uint64_t heaviest = 0;
    for (uint32_t i = 0; i < res[0].nphases; i++)
        if (res[0].phases[i].weight > heaviest)
            heaviest = res[0].phases[i].weight;
    assert_true(heaviest >= STEPS - 3);
    free_all(s, res, 2);
}

/* the same trace twice: the same table, byte for byte */
static void test_deterministic(void **state)
{
    (void)state;
    pas2p_rank_phases_t res[2][2];
    char err[512];
    for (int t = 0; t < 2; t++) {
        stream_t s[2] = {{0}};
        for (int r = 0; r < 2; r++)
            add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
        for (int i = 0; i < 25; i++)
            for (int r = 0; r < 2; r++) {
                add(&s[r], PAS2P_CALL_Send, 1 - r, 1, 100 + (uint64_t)i, 10000 + (uint64_t)(i % 5) * 2000);
                add(&s[r], PAS2P_CALL_Recv, 1 - r, 1, 100 + (uint64_t)i, 1000);
            }
        for (int r = 0; r < 2; r++)
            add(&s[r], PAS2P_CALL_Finalize, -1, -1, 0, 0);
        assert_int_equal(analyze(s, 2, res[t], err, sizeof err), 0);
        for (int r = 0; r < 2; r++) {
            free(s[r].ev);
            free(s[r].done);
        }
    }
    for (int r = 0; r < 2; r++) {
        assert_int_equal(res[0][r].nphases, res[1][r].nphases);
        for (uint32_t i = 0; i < res[0][r].nphases; i++) {
            const pas2p_phase_t *a = &res[0][r].phases[i], *b = &res[1][r].phases[i];
            assert_int_equal(a->id, b->id);
            assert_int_equal(a->weight, b->weight);
            assert_int_equal(a->nsym, b->nsym);
            assert_memory_equal(a->first_start, b->first_start, sizeof a->first_start);
            assert_true(a->time_mean_s == b->time_mean_s);
        }
        pas2p_rank_phases_free(&res[0][r]);
        pas2p_rank_phases_free(&res[1][r]);
    }
}

/* a send request never completed (CP2K through ScaLAPACK's BLACS: an Isend, one failed
 * Testall (a poll, left out here: check_closed counts raw events), the communicator freed):
 * an error without orphans; with them the pass ends with
 * 1 and the request, and run again told of it, the loop after it still repeats (the request
 * does not hold every later cut open) and every occurrence is closed */
/* pas2p analyze's two global passes on 2 ranks' streams: the first, which must find
 * requests never completed, says which (orph), the second, told of them, succeeds into res */
static void analyze_orphans(stream_t *s, pas2p_rank_phases_t *res, pas2p_orphans_t *orph)
{
    pas2p_analysis_opts_t o;
    pas2p_analysis_defaults(&o);
    char err[512] = "";
    for (int pass = 0; pass < 2; pass++) {
        cursor_t a[2], b[2], c[2];
        pas2p_event_source_t src[2];
        for (int r = 0; r < 2; r++) {
            a[r] = (cursor_t){&s[r], 0};
            b[r] = (cursor_t){&s[r], 0};
            c[r] = (cursor_t){&s[r], 0};
            pas2p_event_source_t sa = {.next = cur_next, .ctx = &a[r]},
                                 sb = {.next = cur_next, .ctx = &b[r]};
            assert_int_equal(pas2p_find_phases(sa, sb, &o, 0, &res[r]), 0);
            src[r] = (pas2p_event_source_t){.next = cur_next, .ctx = &c[r]};
        }
        int rc = pas2p_global_phases(src, 2, &o, 0, 0, res, orph, NULL, err, sizeof err);
        assert_int_equal(rc, pass ? 0 : 1);
        for (int r = 0; !pass && r < 2; r++)
            pas2p_rank_phases_free(&res[r]);
    }
}

/* Init, then 40 ping-pong iterations between ranks 0 and 1 (100 us of computation before
 * each call); at iteration `orphan_at` (-1: none) rank 1 also makes an MPI_Isend it never
 * completes, which rank 0 receives: its event index on rank 1 is returned (0: none) */
static uint64_t ping_pong(stream_t *s, int orphan_at)
{
    uint64_t orphan = 0;
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int i = 0; i < 40; i++) {
        add(&s[0], PAS2P_CALL_Send, 1, 1, 8, 100000);
        add(&s[1], PAS2P_CALL_Recv, 0, 1, 8, 100000);
        add(&s[1], PAS2P_CALL_Send, 0, 2, 8, 100000);
        add(&s[0], PAS2P_CALL_Recv, 1, 2, 8, 100000);
        if (i == orphan_at) {
            orphan = s[1].n;
            add(&s[1], PAS2P_CALL_Isend, 0, 9, 352, 1000);
            add(&s[0], PAS2P_CALL_Recv, 1, 9, 352, 1000);
        }
    }
    return orphan;
}

/* the largest weight of a rank's phases */
static uint64_t most_weight(const pas2p_rank_phases_t *R)
{
    uint64_t most = 0;
    for (uint32_t i = 0; i < R->nphases; i++)
        if (R->phases[i].weight > most)
            most = R->phases[i].weight;
    return most;
}

static void test_orphan_request(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    uint64_t orphan = ping_pong(s, 5);
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Finalize, -1, -1, 0, 0);
    pas2p_rank_phases_t res[2];
    char err[512] = "";
    assert_int_equal(analyze(s, 2, res, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank 1 ends with 1 request(s) never completed"));

    pas2p_orphans_t orph[2] = {{0}};
    analyze_orphans(s, res, orph);
    assert_int_equal(orph[0].n, 0);
    assert_int_equal(orph[1].n, 1);
    assert_int_equal(orph[1].post[0], orphan);
    assert_int_equal(orph[1].post[1], 0);
    check_closed(s, 2, res);
    assert_true(most_weight(&res[1]) >= 30); /* the loop, before and after the orphan */
    pas2p_orphans_free(orph, 2);
    for (int r = 0; r < 2; r++) {
        pas2p_rank_phases_free(&res[r]);
        free(s[r].ev);
        free(s[r].done);
    }
}

/* Ray's end: requests never completed and, after them, a message to itself that no receive
 * takes.  The cut held open by the requests reads every rank to its end, where the unreceived
 * send is found: it is set aside as when it comes alone (it was "rank 0 sends 1 message(s)
 * to rank 0 that rank 0 never receives" on Ray's 321 M-event trace) and the requests are
 * orphans. */
static void test_orphan_then_unreceived(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    ping_pong(s, 5);
    add(&s[0], PAS2P_CALL_Send, 0, 7, 8, 1000); /* to itself, never received */
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Finalize, -1, -1, 0, 0);
    pas2p_rank_phases_t res[2];
    pas2p_orphans_t orph[2] = {{0}};
    analyze_orphans(s, res, orph);
    assert_int_equal(orph[0].n, 0);
    assert_int_equal(orph[1].n, 1);
    assert_true(most_weight(&res[1]) >= 30);
    pas2p_orphans_free(orph, 2);
    for (int r = 0; r < 2; r++) {
        pas2p_rank_phases_free(&res[r]);
        free(s[r].ev);
        free(s[r].done);
    }
}

/* a receive whose message no rank sends: one line naming the rank and the event */
static void test_unmatched_receive(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int i = 0; i < 5; i++) {
        add(&s[0], PAS2P_CALL_Send, 1, 1, 8, 1000);
        add(&s[1], PAS2P_CALL_Recv, 0, 1, 8, 1000);
    }
    add(&s[1], PAS2P_CALL_Recv, 0, 1, 8, 1000); /* never sent */
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Finalize, -1, -1, 0, 0);
    pas2p_rank_phases_t res[2];
    char err[512] = "";
    assert_int_equal(analyze(s, 2, res, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank 1, event 6"));
    assert_non_null(strstr(err, "never sends"));
    assert_null(strchr(err, '\n'));
    for (int r = 0; r < 2; r++) {
        free(s[r].ev);
        free(s[r].done);
    }
}

/* a message sent and never received (Ray leaves one it sent to itself in flight when it
 * ends): not an error; the loop before it is cut as without it, the last occurrence holds
 * the send, and the summary counts it.  A receive with no send after it is still the
 * error. */
static void test_unreceived_send(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    ping_pong(s, -1);
    add(&s[0], PAS2P_CALL_Send, 0, 7, 8, 1000); /* to itself, never received */
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Finalize, -1, -1, 0, 0);
    pas2p_rank_phases_t res[2];
    pas2p_global_info_t info;
    char err[512] = "";
    assert_int_equal(analyze_info(s, 2, res, &info, err, sizeof err), 0);
    assert_int_equal(info.unreceived, 1);
    assert_int_equal(info.unreceived_src, 0);
    assert_int_equal(info.unreceived_dst, 0);
    assert_true(most_weight(&res[0]) >= 30);
    for (int r = 0; r < 2; r++)
        pas2p_rank_phases_free(&res[r]);
    /* and a receive that no send matches, after it: the error names it */
    s[1].n--;
    add(&s[1], PAS2P_CALL_Recv, 0, 3, 8, 1000);
    add(&s[1], PAS2P_CALL_Finalize, -1, -1, 0, 0);
    assert_int_equal(analyze(s, 2, res, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank 1, event 81:"));
    assert_non_null(strstr(err, "never sends"));
    for (int r = 0; r < 2; r++) {
        free(s[r].ev);
        free(s[r].done);
    }
}

/* md's shape: a step exchange, an extra exchange every 15th step (re-neighbouring) and an
 * all-rank Allreduce every 40th (thermo output): 20 anchors, which is enough for the cuts to
 * snap to anchors, but far rarer than the step loop.  Snapped, each occurrence would be 40
 * steps, the blocks in 3 patterns (15 does not divide 40) of a few occurrences each; the
 * step must stay the phase that repeats. */
static void test_rare_anchors_keep_steps(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    const int n = 800;
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int i = 0; i < n; i++) {
        for (int r = 0; r < 2; r++) {
            int tag = 1 + (i % 15 == 14);
            if (r == 0) {
                add(&s[0], PAS2P_CALL_Send, 1, tag, 4096, 30000);
                add(&s[0], PAS2P_CALL_Recv, 1, tag, 4096, 1000);
            } else {
                add(&s[1], PAS2P_CALL_Recv, 0, tag, 4096, 30000);
                add(&s[1], PAS2P_CALL_Send, 0, tag, 4096, 1000);
            }
            if (i % 40 == 39)
                add(&s[r], PAS2P_CALL_Allreduce, -1, -1, 8, 2000)->comm = PAS2P_COMM_WORLD;
        }
    }
    pas2p_rank_phases_t res[2];
    finish(s, 2, res);
    assert_true(heaviest(&res[0])->weight >= 600);
    free_all(s, res, 2);
}

/* stencil2d's shape: [Irecv Send Wait] x 10 then an all-rank Allreduce, 40 times.  The
 * cuts snap to the Allreduce (anchors recur); each block between two of them is then cut
 * at its 10 iterations, which are closed: the iteration is the phase that repeats, not the
 * block (iterations 3 to 9; 1-2 are one slice).  With `lag`, each iteration waits for the previous one's receive (the last waits
 * for both): a request is active across every iteration, so the block stays whole. */
static void snapped_blocks(int lag, uint64_t *weight, uint32_t *nsym)
{
    stream_t s[2] = {{0}};
    for (int r = 0; r < 2; r++) {
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
        add(&s[r], PAS2P_CALL_Barrier, -1, -1, 0, 1000);
    }
    for (int b = 0; b < 40; b++) {
        for (int r = 0; r < 2; r++) {
            uint64_t prev = 0;
            for (int i = 0; i < 10; i++) {
                uint64_t post = s[r].n;
                add(&s[r], PAS2P_CALL_Irecv, 1 - r, 1, 8192, 20000);
                add(&s[r], PAS2P_CALL_Send, 1 - r, 1, 8192, 500);
                if (!lag)
                    add_wait(&s[r], post, 1 - r, 1, 500);
                else if (i)
                    add_wait(&s[r], prev, 1 - r, 1, 500);
                if (lag && i == 9)
                    add_wait(&s[r], post, 1 - r, 1, 500);
                prev = post;
            }
            add(&s[r], PAS2P_CALL_Allreduce, -1, -1, 8, 20000);
        }
    }
    pas2p_rank_phases_t res[2];
    finish(s, 2, res);
    const pas2p_phase_t *h = heaviest(&res[0]);
    *weight = h->weight;
    *nsym = h->nsym;
    free_all(s, res, 2);
}

static void test_snapped_blocks_split(void **state)
{
    (void)state;
    uint64_t w;
    uint32_t n;
    snapped_blocks(0, &w, &n);
    assert_int_equal(n, 3); /* the iteration, */
    assert_true(w >= 7 * 40); /* 3 to 9 of each block (1-2 are one slice, the 10th holds the Allreduce) */
    snapped_blocks(1, &w, &n);
    assert_true(n >= 30); /* the block */
    assert_true(w <= 40);
}

/* HPCC's RandomAccess: a rank keeps an MPI_Irecv(MPI_ANY_SOURCE) posted and polls it with
 * MPI_Test thousands of times per message; at np 2 every message comes from the one other
 * rank, but the order of its calls follows the arrivals (anchored although one source).
 * The wildcard receives are a third of the calls a signature numbers, but under 2 % of the
 * events: the failed polls are waiting, not calls, and the order of the rank's calls
 * depends on timing, so the signature must be anchored
 * (before: the share was of all events, the signature was not anchored, and every
 * prediction diverged in the polling loop). */
static void test_polled_wildcards_anchor(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int round = 0; round < 20; round++) {
        uint64_t post = s[0].n;
        pas2p_event_t *e = add(&s[0], PAS2P_CALL_Irecv, PAS2P_PEER_ANY, 3, 64, 1000);
        e->flags |= PAS2P_EV_ANY_SOURCE;
        for (int k = 0; k < 60; k++)
            add(&s[0], PAS2P_CALL_Test, -1, -1, 0, 500); /* found nothing */
        add_wait(&s[0], post, 1, 3, 500);
        s[0].ev[s[0].n - 1].call = PAS2P_CALL_Test; /* this one completed it */
        s[0].done[(s[0].n - 1) * DONE].flags = PAS2P_EV_ANY_SOURCE; /* (as the tracer says) */
        add(&s[1], PAS2P_CALL_Send, 0, 3, 64, 30000);
        for (int r = 0; r < 2; r++)
            add(&s[r], PAS2P_CALL_Barrier, -1, -1, 0, 1000);
    }
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Finalize, -1, -1, 0, 0);
    pas2p_rank_phases_t res[2];
    pas2p_global_info_t info;
    char err[512];
    assert_int_equal(analyze_info(s, 2, res, &info, err, sizeof err), 0);
    assert_true(info.anchored); /* from one source (rank 1), but polled */
    assert_true(res[0].numbered < res[0].events / 10);
    assert_int_equal(res[0].polled_wildcards, 20);
    free_all(s, res, 2);
}

/* HPCC's RandomAccess: each round keeps a wildcard receive posted, and cancels the last one
 * (its completion has no source).  The event that posted it says so (pos_pdone's top bit,
 * the signature's `cancelled`) in every phase it is in, wherever in the phase it stands:
 * simulate and replay then do not post it (a replay would wait for it for ever). */
static void test_cancelled_receive_marked(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int round = 0; round < 12; round++) {
        for (int k = 0; k < 3; k++) {
            uint64_t post = s[0].n;
            add(&s[0], PAS2P_CALL_Irecv, PAS2P_PEER_ANY, PAS2P_TAG_ANY, 64, 1000)->flags |=
                PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG;
            add_wait(&s[0], post, 1, 3, 2000);
            s[0].done[(s[0].n - 1) * DONE].flags = PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG;
            add(&s[1], PAS2P_CALL_Send, 0, 3, 64, 3000);
        }
        uint64_t post = s[0].n; /* the last one: cancelled */
        add(&s[0], PAS2P_CALL_Irecv, PAS2P_PEER_ANY, PAS2P_TAG_ANY, 64, 1000)->flags |=
            PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG;
        add_wait(&s[0], post, PAS2P_PEER_ANY, PAS2P_TAG_ANY, 500);
        s[0].done[(s[0].n - 1) * DONE].flags = PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG;
        s[0].done[(s[0].n - 1) * DONE].bytes = 0;
        for (int r = 0; r < 2; r++)
            add(&s[r], PAS2P_CALL_Barrier, -1, -1, 0, 1000);
    }
    pas2p_rank_phases_t res[2];
    finish(s, 2, res);
    uint32_t irecvs = 0, marked = 0;
    for (uint32_t i = 0; i < res[0].nphases; i++) {
        const pas2p_phase_t *p = &res[0].phases[i];
        assert_non_null(p->pos_pdone);
        for (uint32_t k = 0; k < p->nsym; k++) {
            int irecv = res[0].symbols[p->syms[k]].call == PAS2P_CALL_Irecv;
            int cancelled = (p->pos_pdone[k] >> 31) != 0;
            irecvs += (uint32_t)irecv * (uint32_t)p->weight;
            marked += (uint32_t)cancelled * (uint32_t)p->weight;
            assert_true(!cancelled || irecv);
            /* the marked one is the Irecv whose Wait is followed by the Barrier */
            if (cancelled)
                assert_true(k + 2 < p->nsym &&
                            res[0].symbols[p->syms[k + 2]].call == PAS2P_CALL_Barrier);
        }
    }
    assert_int_equal(irecvs, 12 * 4);
    assert_int_equal(marked, 12);
    free_all(s, res, 2);
}

/* finish() without check_closed, whose event ranges are raw event indices: for streams
 * with successful tests, which a global signature's ordinals do not count */
static void finish_polled(stream_t *s, int np, pas2p_rank_phases_t *res)
{
    for (int r = 0; r < np; r++)
        add(&s[r], PAS2P_CALL_Finalize, -1, -1, 0, 0);
    char err[512];
    assert_int_equal(analyze(s, np, res, err, sizeof err), 0);
}

/* a successful MPI_Test (a poll in a global signature) completing the request posted at
 * `post` by `call` (from `source`; PAS2P_PEER_NONE for a send) */
static void add_test_done(stream_t *s, uint64_t post, unsigned call, int source, int tag,
                          uint64_t compute_ns)
{
    pas2p_event_t *e = add(s, PAS2P_CALL_Test, -1, -1, 0, compute_ns);
    e->aux = 1;
    e->payload = sizeof(pas2p_completion_t);
    e->flags = PAS2P_EV_FLAG_TRUE;
    s->done[(s->n - 1) * DONE] = (pas2p_completion_t){.post = post, .call = call,
                                             .source = source, .tag = tag, .bytes = 8};
}

/* StarPU-MPI's pattern: a wildcard receive stays posted (the oldest request) while the rank
 * waits for later sends, one at a time.  Each Wait says which call posted its request (one
 * call back: pos_wdist), so a replay waits for that one, not the oldest */
static void test_wait_completes_later_request(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int round = 0; round < 12; round++) {
        uint64_t a = s[0].n;
        add(&s[0], PAS2P_CALL_Irecv, PAS2P_PEER_ANY, 42, 8, 1000)->flags |= PAS2P_EV_ANY_SOURCE;
        uint64_t b = s[0].n;
        add(&s[0], PAS2P_CALL_Isend, 1, 42, 4, 1000);
        add_wait(&s[0], b, -1, 42, 500);
        s[0].done[(s[0].n - 1) * DONE].call = PAS2P_CALL_Isend;
        uint64_t c = s[0].n;
        add(&s[0], PAS2P_CALL_Isend, 1, 43, 512, 1000);
        add_wait(&s[0], c, -1, 43, 500);
        s[0].done[(s[0].n - 1) * DONE].call = PAS2P_CALL_Isend;
        add_test_done(&s[0], a, PAS2P_CALL_Irecv, 1, 42, 800);
        s[0].done[(s[0].n - 1) * DONE].flags = PAS2P_EV_ANY_SOURCE;
        add(&s[1], PAS2P_CALL_Recv, 0, 42, 4, 1000);
        add(&s[1], PAS2P_CALL_Recv, 0, 43, 512, 1000);
        add(&s[1], PAS2P_CALL_Send, 0, 42, 8, 1000);
        for (int r = 0; r < 2; r++)
            add(&s[r], PAS2P_CALL_Barrier, -1, -1, 0, 1000);
    }
    pas2p_rank_phases_t res[2];
    finish_polled(s, 2, res);
    uint32_t waits = 0;
    for (uint32_t i = 0; i < res[0].nphases; i++) {
        const pas2p_phase_t *p = &res[0].phases[i];
        assert_non_null(p->pos_wdist);
        for (uint32_t k = 0; k < p->nsym; k++) {
            if (res[0].symbols[p->syms[k]].call != PAS2P_CALL_Wait) {
                assert_int_equal(p->pos_wdist[k], 0);
                continue;
            }
            assert_int_equal(p->pos_wdist[k], 1); /* its Isend, the call before */
            waits += (uint32_t)p->weight;
        }
    }
    assert_int_equal(waits, 12 * 2);
    free_all(s, res, 2);
}

/* murasaki-mpi's pattern: sends completed by polls, oldest first, more than the request
 * vector holds (40: the hash table's range).  The call after the polls says how many they
 * completed (pos_pdone), as for receives, so a replay waits for them there (polls at the
 * very end of an occurrence are its end's: a replay completes what is left there) */
static void test_polled_sends(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int round = 0; round < 10; round++) {
        uint64_t first = s[1].n;
        for (int k = 0; k < 40; k++)
            add(&s[1], PAS2P_CALL_Isend, 0, 5, 16, 200);
        for (int k = 0; k < 39; k++)
            add_test_done(&s[1], first + (uint64_t)k, PAS2P_CALL_Isend, PAS2P_PEER_NONE, 5, 100);
        add(&s[1], PAS2P_CALL_Send, 0, 6, 16, 200); /* (the call the polls' count goes with) */
        add_test_done(&s[1], first + 39, PAS2P_CALL_Isend, PAS2P_PEER_NONE, 5, 100);
        for (int k = 0; k < 40; k++)
            add(&s[0], PAS2P_CALL_Recv, 1, 5, 16, 300);
        add(&s[0], PAS2P_CALL_Recv, 1, 6, 16, 300);
        for (int r = 0; r < 2; r++)
            add(&s[r], PAS2P_CALL_Barrier, -1, -1, 0, 1000);
    }
    pas2p_rank_phases_t res[2];
    finish_polled(s, 2, res);
    uint64_t polled = 0;
    for (uint32_t i = 0; i < res[1].nphases; i++) {
        const pas2p_phase_t *p = &res[1].phases[i];
        assert_non_null(p->pos_pdone);
        for (uint32_t k = 0; k < p->nsym; k++)
            polled += (uint64_t)(p->pos_pdone[k] & 0x7fffffffu) * p->weight;
    }
    assert_int_equal(polled, 10 * 39); /* (the 40th is the occurrence's end's) */
    free_all(s, res, 2);
}

/* Graph500's BFS: a rank polls its receive with MPI_Test; the failed tests are waiting,
 * the next call's computation (their computation and time), but the successful test's own
 * time took the message in -- a full trace replays it as a `test`/`wait`, whose time the
 * replay models -- so it is the phase's time and not its computation (counted, the
 * signature's simulation came out 6 % above the full trace's) */
static void test_found_test_time_not_compute(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int round = 0; round < 10; round++) {
        uint64_t post = s[0].n;
        add(&s[0], PAS2P_CALL_Irecv, 1, 7, 4096, 1000);
        for (int k = 0; k < 3; k++)
            add(&s[0], PAS2P_CALL_Test, -1, -1, 0, 500); /* found nothing: 500 + 1000 ns */
        add_test_done(&s[0], post, PAS2P_CALL_Irecv, 1, 7, 700);
        pas2p_event_t *t = &s[0].ev[s[0].n - 1]; /* 40 us inside the successful test */
        t->t_end = t->t_start + 40000;
        s[0].clock = t->t_end;
        add(&s[1], PAS2P_CALL_Send, 0, 7, 4096, 30000);
        for (int r = 0; r < 2; r++)
            add(&s[r], PAS2P_CALL_Barrier, -1, -1, 0, 2000);
    }
    pas2p_rank_phases_t res[2];
    finish_polled(s, 2, res);
    double sum_t = 0;
    uint64_t barriers = 0;
    for (uint32_t i = 0; i < res[0].nphases; i++) {
        const pas2p_phase_t *p = &res[0].phases[i];
        sum_t += p->time_sum_s;
        for (uint32_t k = 0; k < p->nsym; k++) {
            if (res[0].symbols[p->syms[k]].call != PAS2P_CALL_Barrier)
                continue;
            /* its computation: 3 x (500 + 1000) of failed polls, the successful test's 700
             * and the Barrier's own 2000; not the test's 40 us */
            assert_true(fabs(p->pos_compute_s[k] - 7.2e-6) < 1e-12);
            barriers += p->weight;
        }
    }
    assert_int_equal(barriers, 10);
    /* and the time is all there, from MPI_Init's return: every event in one occurrence */
    assert_true(fabs(sum_t - (double)(s[0].ev[s[0].n - 1].t_end - s[0].ev[0].t_end) * 1e-9) < 1e-9);
    free_all(s, res, 2);
}

/* Graph500's BFS: tests complete the rank's requests out of order.  A test that completed
 * a request other than the oldest says nothing (a replay still has it pending), so when a
 * later test completes a receive that is the oldest of the run's requests, a replay's
 * oldest is that unsaid send: the next call names the receive (pos_pwdist,
 * `polled_completes`) instead of counting it (pos_pdone: a replay's `wait 1` waited for
 * the send, and for the receive one step late) */
static void test_polled_receive_named(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int round = 0; round < 10; round++) {
        uint64_t s1 = s[0].n;
        add(&s[0], PAS2P_CALL_Isend, 1, 8, 64, 1000);
        uint64_t s2 = s[0].n;
        add(&s[0], PAS2P_CALL_Isend, 1, 9, 64, 1000);
        uint64_t rv = s[0].n;
        add(&s[0], PAS2P_CALL_Irecv, 1, 7, 64, 1000);
        add_test_done(&s[0], s2, PAS2P_CALL_Isend, PAS2P_PEER_NONE, 9, 300); /* unsaid */
        add_test_done(&s[0], s1, PAS2P_CALL_Isend, PAS2P_PEER_NONE, 8, 300); /* the oldest */
        add_test_done(&s[0], rv, PAS2P_CALL_Irecv, 1, 7, 300);
        add(&s[1], PAS2P_CALL_Recv, 0, 8, 64, 1000);
        add(&s[1], PAS2P_CALL_Recv, 0, 9, 64, 1000);
        add(&s[1], PAS2P_CALL_Send, 0, 7, 64, 1000);
        for (int r = 0; r < 2; r++)
            add(&s[r], PAS2P_CALL_Barrier, -1, -1, 0, 1000);
    }
    pas2p_rank_phases_t res[2];
    finish_polled(s, 2, res);
    uint64_t named = 0;
    for (uint32_t i = 0; i < res[0].nphases; i++) {
        const pas2p_phase_t *p = &res[0].phases[i];
        assert_non_null(p->pos_pwdist);
        for (uint32_t k = 0; k < p->nsym; k++) {
            if (res[0].symbols[p->syms[k]].call != PAS2P_CALL_Barrier)
                continue;
            assert_int_equal(p->pos_pdone[k], 1);  /* the first send, the oldest */
            assert_int_equal(p->pos_pwdist[k], 1); /* and the Irecv, the call before */
            named += p->weight;
        }
    }
    assert_int_equal(named, 10);
    free_all(s, res, 2);
}

/* A receive the rank never completes (mplrs posts one per worker for a message none
 * sends): the analysis takes it as done where it starts (told of it by a first pass, as
 * pas2p analyze does), and the event says it was never completed (pos_pdone's top bit) */
static void test_never_completed_receive_marked(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    uint64_t orphan = s[0].n;
    add(&s[0], PAS2P_CALL_Irecv, 1, 9, 4, 1000);
    for (int i = 0; i < 40; i++) {
        add(&s[0], PAS2P_CALL_Send, 1, 1, 8, 100000);
        add(&s[1], PAS2P_CALL_Recv, 0, 1, 8, 100000);
        add(&s[1], PAS2P_CALL_Send, 0, 2, 8, 100000);
        add(&s[0], PAS2P_CALL_Recv, 1, 2, 8, 100000);
    }
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Finalize, -1, -1, 0, 0);
    pas2p_orphans_t orph[2] = {{0}};
    pas2p_rank_phases_t res[2];
    analyze_orphans(s, res, orph);
    assert_int_equal(orph[0].n, 1);
    assert_int_equal(orph[0].post[0], orphan);
    uint32_t marked = 0;
    for (uint32_t i = 0; i < res[0].nphases; i++) {
        const pas2p_phase_t *p = &res[0].phases[i];
        for (uint32_t k = 0; k < p->nsym; k++)
            if (p->pos_pdone[k] >> 31) {
                assert_int_equal(res[0].symbols[p->syms[k]].call, PAS2P_CALL_Irecv);
                assert_int_equal(res[0].symbols[p->syms[k]].tag, 9);
                marked += (uint32_t)p->weight;
            }
    }
    assert_int_equal(marked, 1);
    pas2p_orphans_free(orph, 2);
    free_all(s, res, 2);
}

/* Rounds that end at the same MPI_Barrier: 60 of microseconds (bookkeeping) and one of a
 * 300 ms computation (HPCC's STREAM or DGEMM, each run once between the same barriers).
 * The heavy one is a phase of its own, not a rare time variant merged into the light ones
 * as noise: merged, the phase's mean was 5000x its median, and predict, which times a few
 * occurrences and takes their median, missed it entirely. */
static void test_heavy_oneoff_apart(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    for (int r = 0; r < 2; r++)
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
    for (int round = 0; round < 61; round++)
        for (int r = 0; r < 2; r++)
            add(&s[r], PAS2P_CALL_Barrier, -1, -1, 0, round == 30 ? 300000000 : 2000 + (uint64_t)(round % 3) * 100);
    pas2p_rank_phases_t res[2];
    finish(s, 2, res);
    for (int r = 0; r < 2; r++) {
        const pas2p_phase_t *p = heaviest(&res[r]);
        assert_non_null(p);
        assert_true(p->weight >= 50);
        assert_true(p->time_mean_s < 1e-3); /* not the heavy round's 0.3 s spread over 60 */
        int heavy = 0;
        for (uint32_t i = 0; i < res[r].nphases; i++)
            heavy |= res[r].phases[i].time_mean_s > 0.25 && res[r].phases[i].weight == 1;
        assert_true(heavy);
    }
    free_all(s, res, 2);
}

/* NAS EP's shape: one heavy computation ends at the first of 4 MPI_Allreduce in a row.  The
 * three cheap ones all come after it, but they are no "stretch" of the heavy one to be
 * merged into it (global.c, merge_linked: a stretch joins a group with more occurrences
 * than its own): merged, the phase had a median of the cheap ones and predict timed
 * 0.02 % of the run. */
static void test_heavy_first_then_cheap(void **state)
{
    (void)state;
    stream_t s[2] = {{0}};
    for (int r = 0; r < 2; r++) {
        add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
        add(&s[r], PAS2P_CALL_Barrier, -1, -1, 0, 1000);
        for (int k = 0; k < 4; k++)
            add(&s[r], PAS2P_CALL_Allreduce, -1, -1, 8, k == 0 ? 300000000 : 3000);
    }
    pas2p_rank_phases_t res[2];
    finish(s, 2, res);
    for (int r = 0; r < 2; r++) {
        int heavy = 0;
        for (uint32_t i = 0; i < res[r].nphases; i++) {
            const pas2p_phase_t *p = &res[r].phases[i];
            assert_false(p->weight > 1 && p->time_mean_s > 1e-3); /* no cheap ones with it */
            heavy |= p->weight == 1 && p->time_mean_s > 0.25;
        }
        assert_true(heavy);
    }
    free_all(s, res, 2);
}

/* A heavier step that recurs regularly is a phase of its own, even when stray occurrences
 * link the two bands of computation (global.c, distinct_groups): LAMMPS re-neighbours every
 * 20th step (4x the computation), and on a loaded machine one stalled ordinary step lay
 * between the bands and merged them; predict's median of a few occurrences then missed
 * the heavier steps' 20 % of the time.  The same heavy steps in one burst (a stall of
 * consecutive steps) or at irregular places (noise) are still time variants of one phase. */
static void test_regular_heavy_step_apart(void **state)
{
    (void)state;
    static const int gaps[] = {3, 41, 7, 60, 2, 33, 15, 1, 50, 9, 27, 4, 38, 11, 5, 44, 6, 30, 8};
    for (int kind = 0; kind < 3; kind++) { /* every 20th, a burst, irregular */
        stream_t s[2] = {{0}};
        const int n = 400;
        uint8_t heavy[400] = {0};
        for (int i = 0; i < n; i++) {
            if (kind == 0)
                heavy[i] = i % 20 == 19;
            else if (kind == 1)
                heavy[i] = i >= 200 && i < 219;
        }
        for (int k = 0, at = 10; kind == 2 && k < 19; at += gaps[k++])
            heavy[at] = 1;
        for (int r = 0; r < 2; r++)
            add(&s[r], PAS2P_CALL_Init, -1, -1, 0, 0);
        for (int i = 0; i < n; i++) {
            uint64_t c = heavy[i] ? 500000 + (uint64_t)(i % 5) * 2000 : 100000 + (uint64_t)(i % 3) * 1000;
            if (i == 101)
                c = 180000; /* two stalled ordinary steps: 100 -> 180 -> 320 -> 500 us */
            if (i == 303)
                c = 320000;
            add(&s[0], PAS2P_CALL_Send, 1, 1, 4096, c);
            add(&s[0], PAS2P_CALL_Recv, 1, 2, 4096, 1000);
            add(&s[1], PAS2P_CALL_Recv, 0, 1, 4096, c);
            add(&s[1], PAS2P_CALL_Send, 0, 2, 4096, 1000);
        }
        pas2p_rank_phases_t res[2];
        finish(s, 2, res);
        int steps = 0;
        for (uint32_t i = 0; i < res[0].nphases; i++)
            if (res[0].phases[i].nsym == 2) {
                steps++;
                if (kind == 0 && res[0].phases[i].time_mean_s > 4e-4)
                    assert_true(res[0].phases[i].weight >= 19 && res[0].phases[i].weight <= 21);
            }
        assert_int_equal(steps, kind == 0 ? 2 : 1);
        free_all(s, res, 2);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotated_bodies),   cmocka_unit_test(test_lag2_pipeline),
        cmocka_unit_test(test_farm_any_source),  cmocka_unit_test(test_drifting_sizes),
        cmocka_unit_test(test_small_sizes_one_variant),
        cmocka_unit_test(test_migrating_sizes),
        cmocka_unit_test(test_deterministic),    cmocka_unit_test(test_unmatched_receive),
        cmocka_unit_test(test_wait_for_slowest), cmocka_unit_test(test_wait_at_a_join), cmocka_unit_test(test_counting_tags), cmocka_unit_test(test_counting_tags_both_ends), cmocka_unit_test(test_farm_rounds),
        cmocka_unit_test(test_variable_skeleton_first_occurrences),
        cmocka_unit_test(test_time_variants_linked),
        cmocka_unit_test(test_number_event),     cmocka_unit_test(test_waitsome_runs),
        cmocka_unit_test(test_orphan_request),   cmocka_unit_test(test_wildcard_one_source),
        cmocka_unit_test(test_rare_anchors_keep_steps),
        cmocka_unit_test(test_snapped_blocks_split),
        cmocka_unit_test(test_polled_wildcards_anchor),
        cmocka_unit_test(test_wait_completes_later_request),
        cmocka_unit_test(test_polled_sends),
        cmocka_unit_test(test_found_test_time_not_compute),
        cmocka_unit_test(test_polled_receive_named),
        cmocka_unit_test(test_cancelled_receive_marked),
        cmocka_unit_test(test_never_completed_receive_marked), cmocka_unit_test(test_heavy_oneoff_apart),
        cmocka_unit_test(test_heavy_first_then_cheap),
        cmocka_unit_test(test_regular_heavy_step_apart),
        cmocka_unit_test(test_unreceived_send),
        cmocka_unit_test(test_orphan_then_unreceived),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
