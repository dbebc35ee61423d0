/* Checks real traces written by libpas2p (integration tests, run after an mpirun job).
 *
 *   check_trace probe DIR          the tests/mpi/probe.c run (np 4): cmocka tests below
 *   check_trace counts DIR SPEC    exact per-rank event counts, SPEC = "MPI_Send=3,MPI_Recv=3,*=12"
 *                                  ("*" = all events of the rank); every rank must match
 *   check_trace sane DIR           every rank file reads to the end, times are ordered
 *   check_trace abort DIR          rank 0 ends with MPI_Abort after >= 100 MPI_Send events
 *   check_trace counters DIR NAME  one counter NAME recorded with every event; as a CPU-time
 *                                  counter (perf::TASK-CLOCK) it must measure the computation
 *                                  between calls, not the calls (sum <= 1.5 x sum of compute)
 *   check_trace partial DIR NP MIN every rank file of a killed run (no manifest) holds at
 *                                  least MIN complete events, then at most unwritten space
 *   check_trace anysrc DIR         the tests/mpi/anysrc.c run (np 3): the wildcard flags event
 *                                  by event on rank 0, none on the workers, + the "wild" rules
 *   check_trace wild DIR R SPEC    the wildcard rules on every rank (below), and on rank R per
 *                                  call "total/any_source/any_tag" counts:
 *                                  SPEC = "MPI_Recv=5/5/0,MPI_Irecv=6/1/1"
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pas2p_trace.h"

typedef struct {
    pas2p_event_t ev;
    unsigned char *payload;
} event_t;

typedef struct {
    int np;
    pas2p_manifest_t m;
    event_t *ev[64];
    size_t n[64];
} trace_t;

static int load(const char *dir, trace_t *t)
{
    char err[1024], path[4096];
    memset(t, 0, sizeof *t);
    if (pas2p_manifest_read(dir, &t->m, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    t->np = t->m.np;
    if (t->np > 64)
        return -1;
    for (int r = 0; r < t->np; r++) {
        pas2p_rank_path(dir, r, path, sizeof path);
        pas2p_rank_reader_t *rd = pas2p_rank_reader_open(path, err, sizeof err);
        if (!rd) {
            fprintf(stderr, "%s\n", err);
            return -1;
        }
        size_t cap = 256;
        t->ev[r] = malloc(cap * sizeof(event_t));
        pas2p_event_view_t v;
        int rc;
        while ((rc = pas2p_rank_reader_next(rd, &v)) == 1) {
            if (t->n[r] == cap)
                t->ev[r] = realloc(t->ev[r], (cap *= 2) * sizeof(event_t));
            event_t *e = &t->ev[r][t->n[r]++];
            e->ev = v.ev;
            e->payload = NULL;
            if (v.ev.payload) {
                e->payload = malloc(v.ev.payload);
                memcpy(e->payload, v.payload, v.ev.payload);
            }
        }
        if (rc < 0) {
            fprintf(stderr, "%s\n", pas2p_rank_reader_error(rd));
            pas2p_rank_reader_close(rd);
            return -1;
        }
        pas2p_rank_reader_close(rd);
    }
    return 0;
}

static void unload(trace_t *t)
{
    for (int r = 0; r < t->np; r++) {
        for (size_t i = 0; i < t->n[r]; i++)
            free(t->ev[r][i].payload);
        free(t->ev[r]);
    }
    pas2p_manifest_free(&t->m);
}

/* i-th event of rank r with the given call (0-based), or NULL */
static const event_t *nth(const trace_t *t, int r, unsigned call, int i)
{
    for (size_t k = 0; k < t->n[r]; k++)
        if (t->ev[r][k].ev.call == call && i-- == 0)
            return &t->ev[r][k];
    return NULL;
}

static size_t ordinal_of(const trace_t *t, int r, const event_t *e)
{
    return (size_t)(e - t->ev[r]);
}

static const char *g_dir;

static int group_setup(void **state)
{
    trace_t *t = calloc(1, sizeof *t);
    if (load(g_dir, t))
        return -1;
    *state = t;
    return 0;
}

static int group_teardown(void **state)
{
    unload(*state);
    free(*state);
    return 0;
}

/* ------------------------------------------------------------------ probe checks */
static void probe_shape(void **state)
{
    trace_t *t = *state;
    assert_int_equal(t->np, 4);
    uint64_t total = 0;
    for (int r = 0; r < 4; r++) {
        assert_true(t->n[r] > 10);
        assert_int_equal(t->ev[r][0].ev.call, PAS2P_CALL_Init);
        assert_int_equal(t->ev[r][t->n[r] - 1].ev.call, PAS2P_CALL_Finalize);
        total += t->n[r];
        for (size_t i = 1; i < t->n[r]; i++) {
            const pas2p_event_t *a = &t->ev[r][i - 1].ev, *b = &t->ev[r][i].ev;
            assert_true(b->t_start >= a->t_end);
            assert_true(b->t_end >= b->t_start);
            assert_int_equal(b->compute_ns, b->t_start - a->t_end);
        }
    }
    assert_int_equal(total, t->m.events);
}

static void probe_world_translation(void **state)
{
    trace_t *t = *state;
    /* on the split communicator local 0 -> local 1 is world 0 -> 2 and 1 -> 3 */
    const event_t *s0 = nth(t, 0, PAS2P_CALL_Send, 0), *s1 = nth(t, 1, PAS2P_CALL_Send, 0);
    const event_t *r2 = nth(t, 2, PAS2P_CALL_Recv, 0), *r3 = nth(t, 3, PAS2P_CALL_Recv, 0);
    assert_non_null(s0);
    assert_non_null(r3);
    assert_int_equal(s0->ev.peer, 2);
    assert_int_equal(s1->ev.peer, 3);
    assert_int_equal(r2->ev.peer, 0);
    assert_int_equal(r3->ev.peer, 1);
    assert_int_equal(s0->ev.tag, 7);
    assert_int_equal(s0->ev.bytes, sizeof(int));
    assert_int_equal(r2->ev.rbytes, sizeof(int));
}

static void probe_comm_ids(void **state)
{
    trace_t *t = *state;
    uint32_t split[4], cart[4], row[4];
    for (int r = 0; r < 4; r++) {
        split[r] = nth(t, r, PAS2P_CALL_Comm_split, 0)->ev.aux;
        cart[r] = nth(t, r, PAS2P_CALL_Cart_create, 0)->ev.aux;
        row[r] = nth(t, r, PAS2P_CALL_Cart_sub, 0)->ev.aux;
        assert_int_equal(nth(t, r, PAS2P_CALL_Cart_sub, 0)->ev.comm, cart[r]);
    }
    assert_int_equal(split[0], split[2]);
    assert_int_equal(split[1], split[3]);
    assert_int_not_equal(split[0], split[1]);
    assert_int_equal(cart[0], cart[1]);
    assert_int_equal(cart[0], cart[2]);
    assert_int_equal(cart[0], cart[3]);
    assert_int_equal(row[0], row[1]);
    assert_int_equal(row[2], row[3]);
    assert_int_not_equal(row[0], row[2]);
    /* the send on the split comm carries the split comm's id; the Allreduce the row's */
    assert_int_equal(nth(t, 0, PAS2P_CALL_Send, 0)->ev.comm, split[0]);
    for (int r = 0; r < 4; r++)
        assert_int_equal(nth(t, r, PAS2P_CALL_Allreduce, 0)->ev.comm, row[r]);
    /* Comm_free names the freed communicator */
    assert_int_equal(nth(t, 0, PAS2P_CALL_Comm_free, 0)->ev.comm, row[0]);
    assert_int_equal(nth(t, 0, PAS2P_CALL_Comm_free, 1)->ev.comm, cart[0]);
    assert_int_equal(nth(t, 0, PAS2P_CALL_Comm_free, 2)->ev.comm, split[0]);
}

static void probe_comm_members(void **state)
{
    trace_t *t = *state;
    for (int r = 0; r < 4; r++) {
        const event_t *c = nth(t, r, PAS2P_CALL_Cart_create, 0);
        const pas2p_comm_def_t *d = (const void *)c->payload;
        assert_non_null(d);
        assert_int_equal(d->size, 4);
        assert_int_equal(d->ndims, 2);
        const int32_t *w = (const int32_t *)(d + 1), *dims = w + 4, *per = dims + 2, *co = per + 2;
        for (int i = 0; i < 4; i++)
            assert_int_equal(w[i], i);
        assert_int_equal(dims[0], 2);
        assert_int_equal(dims[1], 2);
        assert_int_equal(per[0], 1);
        assert_int_equal(per[1], 0);
        assert_int_equal(co[0], r / 2);
        assert_int_equal(co[1], r % 2);
        const event_t *s = nth(t, r, PAS2P_CALL_Comm_split, 0);
        const pas2p_comm_def_t *sd = (const void *)s->payload;
        assert_int_equal(sd->size, 2);
        const int32_t *sw = (const int32_t *)(sd + 1);
        assert_int_equal(sw[0], r % 2);
        assert_int_equal(sw[1], r % 2 + 2);
    }
}

static void probe_any_source(void **state)
{
    trace_t *t = *state;
    int seen = 0;
    for (int i = 0; i < 3; i++) {
        const event_t *e = nth(t, 0, PAS2P_CALL_Recv, i); /* after the split's Recv? rank 0 sends there */
        assert_non_null(e);
        assert_int_equal(e->ev.tag, 11);
        assert_true(e->ev.peer >= 1 && e->ev.peer <= 3);
        assert_int_equal(e->ev.flags & (PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG), PAS2P_EV_ANY_SOURCE);
        seen |= 1 << e->ev.peer;
    }
    assert_int_equal(seen, 0xe);
    /* the fixed-source receives of the probe are not flagged: the split's Recv (ranks 2, 3),
     * the Recv after the Probe (rank 0), every Sendrecv and Recv_init */
    assert_int_equal(nth(t, 2, PAS2P_CALL_Recv, 0)->ev.flags & PAS2P_EV_ANY_SOURCE, 0);
    assert_int_equal(nth(t, 3, PAS2P_CALL_Recv, 0)->ev.flags & PAS2P_EV_ANY_SOURCE, 0);
    const event_t *after_probe = nth(t, 0, PAS2P_CALL_Recv, 3);
    assert_non_null(after_probe);
    assert_int_equal(after_probe->ev.tag, 41);
    assert_int_equal(after_probe->ev.flags & (PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG), 0);
    const event_t *pr = nth(t, 0, PAS2P_CALL_Probe, 0);
    assert_int_equal(pr->ev.flags & (PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG), PAS2P_EV_ANY_SOURCE);
    for (int r = 0; r < 4; r++) {
        assert_int_equal(nth(t, r, PAS2P_CALL_Sendrecv, 0)->ev.flags & (PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG), 0);
        assert_int_equal(nth(t, r, PAS2P_CALL_Recv_init, 0)->ev.flags & (PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG), 0);
    }
}

/* each rank-0 Irecv(ANY_SOURCE) is completed exactly once, naming the real source */
static void probe_waitany_waitsome(void **state)
{
    trace_t *t = *state;
    int completed[4096] = {0}, sources[2] = {0, 0};
    for (size_t k = 0; k < t->n[0]; k++) {
        const event_t *e = &t->ev[0][k];
        if (e->ev.call != PAS2P_CALL_Waitany && e->ev.call != PAS2P_CALL_Waitsome)
            continue;
        const pas2p_completion_t *c = (const void *)e->payload;
        assert_int_equal(e->ev.payload, e->ev.aux * sizeof *c);
        for (uint32_t j = 0; j < e->ev.aux; j++) {
            assert_true(c[j].post < k);
            const event_t *post = &t->ev[0][c[j].post];
            assert_int_equal(post->ev.call, PAS2P_CALL_Irecv);
            assert_int_equal(post->ev.peer, PAS2P_PEER_ANY);
            assert_int_equal(post->ev.flags & (PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG), PAS2P_EV_ANY_SOURCE);
            assert_int_equal(c[j].flags, PAS2P_EV_ANY_SOURCE);
            assert_int_equal(c[j].call, PAS2P_CALL_Irecv);
            assert_true(c[j].source >= 1 && c[j].source <= 3);
            assert_int_equal(c[j].tag, post->ev.tag);
            assert_int_equal(c[j].bytes, sizeof(int));
            completed[c[j].post]++;
            sources[post->ev.tag - 20] |= 1 << c[j].source;
        }
    }
    int irecvs = 0;
    for (size_t k = 0; k < t->n[0]; k++)
        if (t->ev[0][k].ev.call == PAS2P_CALL_Irecv) {
            irecvs++;
            assert_int_equal(completed[k], 1);
        }
    assert_int_equal(irecvs, 6);
    assert_int_equal(sources[0], 0xe);
    assert_int_equal(sources[1], 0xe);
    assert_int_equal(nth(t, 0, PAS2P_CALL_Waitany, 2) != NULL, 1);
}

static void probe_persistent(void **state)
{
    trace_t *t = *state;
    for (int r = 0; r < 4; r++) {
        const event_t *si = nth(t, r, PAS2P_CALL_Send_init, 0), *ri = nth(t, r, PAS2P_CALL_Recv_init, 0);
        assert_int_equal(si->ev.peer, (r + 1) % 4);
        assert_int_equal(ri->ev.peer, (r + 3) % 4);
        for (int it = 0; it < 2; it++) {
            const event_t *st = nth(t, r, PAS2P_CALL_Startall, it);
            assert_int_equal(st->ev.aux, 2);
            const uint64_t *init = (const void *)st->payload;
            assert_int_equal(init[0], ordinal_of(t, r, si));
            assert_int_equal(init[1], ordinal_of(t, r, ri));
            const event_t *w = nth(t, r, PAS2P_CALL_Waitall, it);
            const pas2p_completion_t *c = (const void *)w->payload;
            assert_int_equal(w->ev.aux, 2);
            assert_int_equal(c[0].post, ordinal_of(t, r, st));
            assert_int_equal(c[0].index, 0);
            assert_int_equal(c[1].post, ordinal_of(t, r, st));
            assert_int_equal(c[1].index, 1);
            assert_int_equal(c[1].source, (r + 3) % 4);
            assert_int_equal(c[1].call, PAS2P_CALL_Recv_init);
            assert_int_equal(c[0].flags, 0);
            assert_int_equal(c[1].flags, 0);
        }
        assert_non_null(nth(t, r, PAS2P_CALL_Request_free, 1));
    }
}

static void probe_vcoll(void **state)
{
    trace_t *t = *state;
    for (int r = 0; r < 4; r++) {
        const event_t *a = nth(t, r, PAS2P_CALL_Alltoallv, 0);
        const pas2p_vcounts_t *h = (const void *)a->payload;
        assert_int_equal(h->nsend, 4);
        assert_int_equal(h->nrecv, 4);
        const uint64_t *c = (const uint64_t *)(h + 1);
        for (int i = 0; i < 4; i++) {
            assert_int_equal(c[i], (uint64_t)(r + 1) * sizeof(int));
            assert_int_equal(c[4 + i], (uint64_t)(i + 1) * sizeof(int));
        }
        assert_int_equal(a->ev.bytes, 4u * (r + 1) * sizeof(int));
        const event_t *g = nth(t, r, PAS2P_CALL_Gatherv, 0);
        assert_int_equal(g->ev.peer, 0);
        assert_int_equal(g->ev.bytes, (uint64_t)(r + 1) * sizeof(int));
        if (r == 0) {
            const pas2p_vcounts_t *gh = (const void *)g->payload;
            assert_int_equal(gh->nrecv, 4);
            assert_int_equal(g->ev.rbytes, 10 * sizeof(int));
        } else {
            assert_null(g->payload);
        }
    }
}

static void probe_p2p_misc(void **state)
{
    trace_t *t = *state;
    for (int r = 0; r < 4; r++) {
        const event_t *s = nth(t, r, PAS2P_CALL_Sendrecv, 0);
        assert_int_equal(s->ev.peer, (r + 1) % 4);
        assert_int_equal(s->ev.peer2, (r + 3) % 4);
        assert_int_equal(s->ev.tag2, 40);
        const event_t *ia = nth(t, r, PAS2P_CALL_Iallreduce, 0);
        int completed = 0;
        for (int i = 0; nth(t, r, PAS2P_CALL_Test, i); i++) {
            const event_t *te = nth(t, r, PAS2P_CALL_Test, i);
            if (te->ev.aux) {
                const pas2p_completion_t *c = (const void *)te->payload;
                assert_int_equal(c[0].post, ordinal_of(t, r, ia));
                assert_true(te->ev.flags & PAS2P_EV_FLAG_TRUE);
                completed++;
            }
        }
        assert_int_equal(completed, 1);
    }
    const event_t *p = nth(t, 0, PAS2P_CALL_Probe, 0);
    assert_int_equal(p->ev.peer, 1);
    assert_int_equal(p->ev.tag, 41);
    assert_int_equal(nth(t, 1, PAS2P_CALL_Ssend, 0)->ev.peer, 0);
}

static int run_probe(const char *dir)
{
    g_dir = dir;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(probe_shape),           cmocka_unit_test(probe_world_translation),
        cmocka_unit_test(probe_comm_ids),        cmocka_unit_test(probe_comm_members),
        cmocka_unit_test(probe_any_source),      cmocka_unit_test(probe_waitany_waitsome),
        cmocka_unit_test(probe_persistent),      cmocka_unit_test(probe_vcoll),
        cmocka_unit_test(probe_p2p_misc),
    };
    return cmocka_run_group_tests_name("probe", tests, group_setup, group_teardown);
}

/* ------------------------------------------------------------------ counts, sane, abort */
static int run_counts(const char *dir, const char *spec)
{
    trace_t t;
    if (load(dir, &t))
        return 1;
    int bad = 0;
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) {
            fprintf(stderr, "bad spec item '%s'\n", item);
            return 2;
        }
        *eq = 0;
        unsigned call = strcmp(item, "*") ? pas2p_call_by_name(item) : 0;
        if (strcmp(item, "*") && !call) {
            fprintf(stderr, "unknown call '%s'\n", item);
            return 2;
        }
        long want = atol(eq + 1);
        for (int r = 0; r < t.np; r++) {
            long n = 0;
            for (size_t k = 0; k < t.n[r]; k++)
                n += !call || t.ev[r][k].ev.call == call;
            if (n != want) {
                fprintf(stderr, "rank %d: %s: %ld events, expected %ld\n", r, item, n, want);
                bad = 1;
            }
        }
    }
    unload(&t);
    printf("%s\n", bad ? "counts: FAILED" : "counts: OK");
    return bad;
}

static int run_sane(const char *dir)
{
    trace_t t;
    if (load(dir, &t))
        return 1;
    int bad = 0;
    uint64_t total = 0;
    for (int r = 0; r < t.np; r++) {
        total += t.n[r];
        if (!t.n[r] || (t.ev[r][0].ev.call != PAS2P_CALL_Init && t.ev[r][0].ev.call != PAS2P_CALL_Init_thread)) {
            fprintf(stderr, "rank %d: does not start with MPI_Init\n", r);
            bad = 1;
        }
        for (size_t i = 1; i < t.n[r]; i++)
            if (t.ev[r][i].ev.t_start < t.ev[r][i - 1].ev.t_end && !t.ev[r][i].ev.thread) {
                fprintf(stderr, "rank %d: event %zu starts before the previous ended\n", r, i);
                bad = 1;
                break;
            }
        /* every completed request is tied to the call that started it */
        for (size_t i = 0; i < t.n[r]; i++) {
            const event_t *e = &t.ev[r][i];
            if (!e->payload || pas2p_call_class(e->ev.call) != PAS2P_CLASS_COMPLETION)
                continue;
            pas2p_event_view_t v = {.ordinal = i, .ev = e->ev, .payload = e->payload};
            uint32_t nc = 0;
            const pas2p_completion_t *c = pas2p_event_completions(&v, &nc);
            for (uint32_t k = 0; c && k < nc; k++)
                if (c[k].post == UINT64_MAX) {
                    fprintf(stderr, "rank %d: event %zu (%s): completed request %u has no starting call\n",
                            r, i, pas2p_call_name(e->ev.call), k);
                    bad = 1;
                    break;
                }
        }
    }
    if (total != t.m.events) {
        fprintf(stderr, "manifest says %llu events, files hold %llu\n",
                (unsigned long long)t.m.events, (unsigned long long)total);
        bad = 1;
    }
    unload(&t);
    printf("%s\n", bad ? "sane: FAILED" : "sane: OK");
    return bad;
}

/* no manifest after an abort: read rank 0 directly */
static int run_abort(const char *dir)
{
    char path[4096], err[1024];
    pas2p_rank_path(dir, 0, path, sizeof path);
    pas2p_rank_reader_t *r = pas2p_rank_reader_open(path, err, sizeof err);
    if (!r) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    pas2p_event_view_t v;
    unsigned last = 0;
    long sends = 0;
    int rc;
    while ((rc = pas2p_rank_reader_next(r, &v)) == 1) {
        last = v.ev.call;
        sends += v.ev.call == PAS2P_CALL_Send;
    }
    pas2p_rank_reader_close(r);
    int ok = rc == 0 && last == PAS2P_CALL_Abort && sends >= 100;
    printf("abort: %s (%ld sends, last %s)\n", ok ? "OK" : "FAILED", sends,
           last ? pas2p_call_name(last) : "none");
    return !ok;
}

static int run_partial(const char *dir, int np, long min)
{
    int bad = 0;
    for (int rank = 0; rank < np; rank++) {
        char path[4096], err[1024];
        pas2p_rank_path(dir, rank, path, sizeof path);
        pas2p_rank_reader_t *r = pas2p_rank_reader_open(path, err, sizeof err);
        if (!r) {
            fprintf(stderr, "%s\n", err);
            bad = 1;
            continue;
        }
        pas2p_event_view_t v;
        int rc;
        while ((rc = pas2p_rank_reader_next(r, &v)) == 1)
            ;
        long n = (long)pas2p_rank_reader_count(r);
        if ((rc != 0 && !strstr(pas2p_rank_reader_error(r), "incomplete")) || n < min) {
            fprintf(stderr, "rank %d: %ld events%s%s\n", rank, n, rc ? ", " : "",
                    rc ? pas2p_rank_reader_error(r) : "");
            bad = 1;
        }
        pas2p_rank_reader_close(r);
    }
    printf("partial: %s\n", bad ? "FAILED" : "OK");
    return bad;
}

static int run_counters(const char *dir, const char *name)
{
    int bad = 0;
    pas2p_manifest_t m;
    char err[1024], path[4096];
    if (pas2p_manifest_read(dir, &m, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (int rank = 0; rank < m.np; rank++) {
        pas2p_rank_path(dir, rank, path, sizeof path);
        pas2p_rank_reader_t *r = pas2p_rank_reader_open(path, err, sizeof err);
        if (!r) {
            fprintf(stderr, "%s\n", err);
            bad = 1;
            continue;
        }
        const pas2p_file_header_t *h = pas2p_rank_reader_header(r);
        if (h->ncounters != 1 || strcmp(h->counters[0], name)) {
            fprintf(stderr, "rank %d: counters in the header: %u, first '%s'\n", rank, h->ncounters,
                    h->counters[0]);
            bad = 1;
        }
        pas2p_event_view_t v;
        uint64_t ctr = 0, compute = 0, mpi = 0, missing = 0;
        while (pas2p_rank_reader_next(r, &v) == 1) {
            if (!v.counters) {
                missing++;
                continue;
            }
            if (v.ev.call == PAS2P_CALL_Init)
                continue; /* counts PAPI's own start-up */
            ctr += v.counters[0];
            compute += v.ev.compute_ns;
            mpi += v.ev.t_end - v.ev.t_start;
        }
        pas2p_rank_reader_close(r);
        printf("rank %d: %s %llu, compute %llu ns, MPI %llu ns\n", rank, name,
               (unsigned long long)ctr, (unsigned long long)compute, (unsigned long long)mpi);
        if (missing || ctr == 0 || (double)ctr > 1.5 * (double)compute + 1e6) {
            fprintf(stderr, "rank %d: %llu events without counters, or counts not of the computation\n",
                    rank, (unsigned long long)missing);
            bad = 1;
        }
    }
    pas2p_manifest_free(&m);
    printf("counters: %s\n", bad ? "FAILED" : "OK");
    return bad;
}

/* ------------------------------------------------------------------ wildcard receives */
#define WILD (PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG)

static int is_recv_side(unsigned call)
{
    return call == PAS2P_CALL_Recv || call == PAS2P_CALL_Probe || call == PAS2P_CALL_Iprobe ||
           call == PAS2P_CALL_Irecv || call == PAS2P_CALL_Recv_init ||
           call == PAS2P_CALL_Sendrecv || call == PAS2P_CALL_Sendrecv_replace;
}

/* The event a completion entry's request was posted by: the Irecv/Isend/..., or for a
 * started persistent request the *_init event named in the Start's payload. */
static const event_t *posting_event(const trace_t *t, int r, const pas2p_completion_t *c)
{
    if (c->post >= t->n[r])
        return NULL;
    const event_t *p = &t->ev[r][c->post];
    if (p->ev.call == PAS2P_CALL_Start || p->ev.call == PAS2P_CALL_Startall) {
        const uint64_t *init = (const void *)p->payload;
        if (!init || c->index >= p->ev.aux || init[c->index] >= t->n[r])
            return NULL;
        p = &t->ev[r][init[c->index]];
    }
    return p;
}

/* Rules every trace keeps (format 2): wildcard flags only on receive-side events; a flagged
 * non-blocking receive has the unresolved peer/tag, a flagged blocking one that returned
 * a message the actual ones; a completion entry's flags are its post's. */
static int wild_rules(const trace_t *t)
{
    int bad = 0;
    for (int r = 0; r < t->np; r++)
        for (size_t i = 0; i < t->n[r]; i++) {
            const event_t *e = &t->ev[r][i];
            unsigned call = e->ev.call, w = e->ev.flags & WILD;
            const char *nm = pas2p_call_name(call);
            if (w && !is_recv_side(call)) {
                fprintf(stderr, "rank %d: event %zu (%s): wildcard flags %#x on a call that does not receive\n",
                        r, i, nm, w);
                bad = 1;
            }
            int nb = call == PAS2P_CALL_Irecv || call == PAS2P_CALL_Recv_init ||
                     (call == PAS2P_CALL_Iprobe && !(e->ev.flags & PAS2P_EV_FLAG_TRUE));
            int sr = call == PAS2P_CALL_Sendrecv || call == PAS2P_CALL_Sendrecv_replace;
            int32_t peer = sr ? e->ev.peer2 : e->ev.peer, tag = sr ? e->ev.tag2 : e->ev.tag;
            if (is_recv_side(call) && !(e->ev.flags & PAS2P_EV_ERROR) && peer != PAS2P_PEER_NULL) {
                int ok_src = nb ? ((w & PAS2P_EV_ANY_SOURCE) != 0) == (peer == PAS2P_PEER_ANY) : peer >= 0;
                int ok_tag = nb ? ((w & PAS2P_EV_ANY_TAG) != 0) == (tag == PAS2P_TAG_ANY) : tag >= 0;
                if (!ok_src || !ok_tag) {
                    fprintf(stderr, "rank %d: event %zu (%s): flags %#x with peer %d tag %d\n", r, i,
                            nm, w, peer, tag);
                    bad = 1;
                }
            }
            if (!e->payload || pas2p_call_class(call) != PAS2P_CLASS_COMPLETION)
                continue;
            pas2p_event_view_t v = {.ordinal = i, .ev = e->ev, .payload = e->payload};
            uint32_t nc = 0;
            const pas2p_completion_t *c = pas2p_event_completions(&v, &nc);
            for (uint32_t k = 0; c && k < nc; k++) {
                const event_t *p = posting_event(t, r, &c[k]);
                unsigned want = p ? p->ev.flags & WILD : 0;
                if (c[k].flags != want || (p && p->ev.call != c[k].call)) {
                    fprintf(stderr, "rank %d: event %zu (%s): request %u has flags %#x, its post %s %#x\n",
                            r, i, nm, k, c[k].flags, p ? pas2p_call_name(p->ev.call) : "(none)", want);
                    bad = 1;
                }
            }
        }
    return bad;
}

static int run_wild(const char *dir, int rank, const char *spec)
{
    trace_t t;
    if (load(dir, &t))
        return 1;
    int bad = wild_rules(&t);
    if (rank < 0 || rank >= t.np) {
        fprintf(stderr, "rank %d not in the trace\n", rank);
        unload(&t);
        return 2;
    }
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        long want[3];
        if (!eq || sscanf(eq + 1, "%ld/%ld/%ld", &want[0], &want[1], &want[2]) != 3) {
            fprintf(stderr, "bad spec item '%s' (CALL=total/any_source/any_tag)\n", item);
            unload(&t);
            return 2;
        }
        *eq = 0;
        unsigned call = pas2p_call_by_name(item);
        if (!call) {
            fprintf(stderr, "unknown call '%s'\n", item);
            unload(&t);
            return 2;
        }
        long got[3] = {0, 0, 0};
        for (size_t k = 0; k < t.n[rank]; k++) {
            const pas2p_event_t *e = &t.ev[rank][k].ev;
            if (e->call != call)
                continue;
            got[0]++;
            got[1] += !!(e->flags & PAS2P_EV_ANY_SOURCE);
            got[2] += !!(e->flags & PAS2P_EV_ANY_TAG);
        }
        if (got[0] != want[0] || got[1] != want[1] || got[2] != want[2]) {
            fprintf(stderr, "rank %d: %s: %ld/%ld/%ld (total/any_source/any_tag), expected %ld/%ld/%ld\n",
                    rank, item, got[0], got[1], got[2], want[0], want[1], want[2]);
            bad = 1;
        }
    }
    unload(&t);
    printf("wild: %s\n", bad ? "FAILED" : "OK");
    return bad;
}

/* One expected rank-0 event of tests/mpi/anysrc.c.  peer/tag: a value, or WORKER (1 or 2),
 * or TAG_PLUS(x): x + the event's actual source.  csrc/ctag/cwild: for completions, what
 * every entry must hold (csrc NONE: a send or a freed request). */
#define WORKER (-100)
#define TAG_PLUS(x) (-1000 - (x))
#define ANYP PAS2P_PEER_ANY
#define ANYT PAS2P_TAG_ANY
#define AS PAS2P_EV_ANY_SOURCE
#define AT PAS2P_EV_ANY_TAG
typedef struct {
    unsigned call, wild;
    int32_t peer, tag, peer2, tag2;
    int repeat;          /* 1: zero or more of this event (an Iprobe polling loop) */
    int flag_true;       /* Iprobe: the returned flag */
    unsigned cwild;
    int32_t csrc, ctag;
} step_t;

static int value_ok(int32_t want, int32_t got, int32_t src)
{
    if (want == WORKER)
        return got == 1 || got == 2;
    if (want <= -1000)
        return got == -1000 - want + src;
    return want == got;
}

static int run_anysrc(const char *dir)
{
    static const step_t steps[] = {
        {PAS2P_CALL_Init, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        /* A */
        {PAS2P_CALL_Recv, AS, WORKER, 1, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Recv, AS, WORKER, 1, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Barrier, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        /* B */
        {PAS2P_CALL_Recv, AT, 1, 101, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Recv, AT, 2, 102, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Barrier, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        /* C */
        {PAS2P_CALL_Recv, AS | AT, WORKER, TAG_PLUS(200), -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Recv, AS | AT, WORKER, TAG_PLUS(200), -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Barrier, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        /* D: fixed */
        {PAS2P_CALL_Recv, 0, 1, 3, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Recv, 0, 2, 3, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Barrier, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        /* E */
        {PAS2P_CALL_Irecv, AS | AT, ANYP, ANYT, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Irecv, AS | AT, ANYP, ANYT, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Waitany, 0, -1, -1, -1, -1, 0, 0, AS | AT, WORKER, TAG_PLUS(300)},
        {PAS2P_CALL_Waitany, 0, -1, -1, -1, -1, 0, 0, AS | AT, WORKER, TAG_PLUS(300)},
        {PAS2P_CALL_Barrier, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        /* F: fixed */
        {PAS2P_CALL_Irecv, 0, 1, 4, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Irecv, 0, 2, 4, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Waitall, 0, -1, -1, -1, -1, 0, 0, 0, WORKER, 4},
        {PAS2P_CALL_Barrier, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        /* G */
        {PAS2P_CALL_Iprobe, AS | AT, ANYP, ANYT, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Barrier, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Iprobe, AS, ANYP, 5, -1, -1, 1, 0, 0, 0, 0},
        {PAS2P_CALL_Iprobe, AS, 1, 5, -1, -1, 0, 1, 0, 0, 0},
        {PAS2P_CALL_Recv, 0, 1, 5, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Barrier, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        /* H */
        {PAS2P_CALL_Recv_init, AS, ANYP, 6, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Start, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Wait, 0, -1, -1, -1, -1, 0, 0, AS, WORKER, 6},
        {PAS2P_CALL_Start, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Wait, 0, -1, -1, -1, -1, 0, 0, AS, WORKER, 6},
        {PAS2P_CALL_Request_free, 0, -1, -1, -1, -1, 0, 0, AS, PAS2P_PEER_NONE, PAS2P_TAG_NONE},
        {PAS2P_CALL_Barrier, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        /* I, J: the flags are the receive side's; peer2/tag2 the actual source and tag */
        {PAS2P_CALL_Sendrecv, AS | AT, 1, 7, 1, 8, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Barrier, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Sendrecv_replace, AT, 2, 9, 2, 10, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Barrier, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        /* K */
        {PAS2P_CALL_Probe, AS | AT, 2, 11, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Recv, 0, 2, 11, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Barrier, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
        {PAS2P_CALL_Finalize, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0},
    };
    trace_t t;
    if (load(dir, &t))
        return 1;
    int bad = wild_rules(&t);
    if (t.np != 3) {
        fprintf(stderr, "anysrc: np %d, expected 3\n", t.np);
        unload(&t);
        return 1;
    }
    size_t i = 0, nsteps = sizeof steps / sizeof steps[0];
    int pair_seen = 0; /* stages A, C: both workers answered */
    for (size_t s = 0; s < nsteps && !bad; s++) {
        const step_t *x = &steps[s];
        for (;;) {
            if (i >= t.n[0]) {
                fprintf(stderr, "rank 0: trace ends at event %zu, expected %s\n", i, pas2p_call_name(x->call));
                bad = 1;
                break;
            }
            const event_t *e = &t.ev[0][i];
            const pas2p_event_t *v = &e->ev;
            int src = v->peer >= 0 ? v->peer : 0;
            int ok = v->call == x->call && (v->flags & WILD) == x->wild &&
                     value_ok(x->peer, v->peer, src) && value_ok(x->tag, v->tag, src) &&
                     v->peer2 == x->peer2 && v->tag2 == x->tag2 &&
                     (v->call != PAS2P_CALL_Iprobe || !!(v->flags & PAS2P_EV_FLAG_TRUE) == x->flag_true);
            if (!ok && x->repeat)
                break; /* zero or more: the next step must match */
            if (!ok) {
                fprintf(stderr,
                        "rank 0: event %zu: %s flags %#x peer %d tag %d peer2 %d tag2 %d; expected %s "
                        "flags %#x peer %d tag %d peer2 %d tag2 %d\n",
                        i, pas2p_call_name(v->call), v->flags, v->peer, v->tag, v->peer2, v->tag2,
                        pas2p_call_name(x->call), x->wild, x->peer, x->tag, x->peer2, x->tag2);
                bad = 1;
                break;
            }
            if (x->wild & AS && v->peer >= 0 && (x->call == PAS2P_CALL_Recv))
                pair_seen |= 1 << v->peer;
            if (pas2p_call_class(v->call) == PAS2P_CLASS_COMPLETION) {
                pas2p_event_view_t vv = {.ordinal = i, .ev = *v, .payload = e->payload};
                uint32_t nc = 0;
                const pas2p_completion_t *c = pas2p_event_completions(&vv, &nc);
                if (!nc) {
                    fprintf(stderr, "rank 0: event %zu (%s): completed nothing\n", i, pas2p_call_name(v->call));
                    bad = 1;
                }
                for (uint32_t k = 0; k < nc; k++)
                    if (c[k].flags != x->cwild || !value_ok(x->csrc, c[k].source, c[k].source) ||
                        !value_ok(x->ctag, c[k].tag, c[k].source)) {
                        fprintf(stderr, "rank 0: event %zu (%s): request %u flags %#x src %d tag %d, "
                                "expected flags %#x src %d tag %d\n", i, pas2p_call_name(v->call), k,
                                c[k].flags, c[k].source, c[k].tag, x->cwild, x->csrc, x->ctag);
                        bad = 1;
                    }
            }
            i++;
            if (!x->repeat)
                break;
        }
    }
    if (!bad && i != t.n[0]) {
        fprintf(stderr, "rank 0: %zu events after the expected ones\n", t.n[0] - i);
        bad = 1;
    }
    if (!bad && pair_seen != 6) {
        fprintf(stderr, "rank 0: the ANY_SOURCE receives did not name both workers (%#x)\n", pair_seen);
        bad = 1;
    }
    /* the workers receive only from fixed sources: no flag anywhere, and they do receive */
    for (int r = 1; r < 3; r++) {
        int recvs = 0;
        for (size_t k = 0; k < t.n[r]; k++) {
            recvs += is_recv_side(t.ev[r][k].ev.call);
            if (t.ev[r][k].ev.flags & WILD) {
                fprintf(stderr, "rank %d: event %zu (%s): wildcard flags on a fixed receive\n", r, k,
                        pas2p_call_name(t.ev[r][k].ev.call));
                bad = 1;
            }
        }
        if (recvs != 1) {
            fprintf(stderr, "rank %d: %d receive-side events, expected 1 (its Sendrecv)\n", r, recvs);
            bad = 1;
        }
    }
    unload(&t);
    printf("anysrc: %s\n", bad ? "FAILED" : "OK");
    return bad;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "counters"))
        return run_counters(argv[2], argv[3]);
    if (argc >= 5 && !strcmp(argv[1], "partial"))
        return run_partial(argv[2], atoi(argv[3]), atol(argv[4]));
    if (argc >= 3 && !strcmp(argv[1], "probe"))
        return run_probe(argv[2]);
    if (argc >= 4 && !strcmp(argv[1], "counts"))
        return run_counts(argv[2], argv[3]);
    if (argc >= 3 && !strcmp(argv[1], "sane"))
        return run_sane(argv[2]);
    if (argc >= 3 && !strcmp(argv[1], "abort"))
        return run_abort(argv[2]);
    if (argc >= 3 && !strcmp(argv[1], "anysrc"))
        return run_anysrc(argv[2]);
    if (argc >= 5 && !strcmp(argv[1], "wild"))
        return run_wild(argv[2], atoi(argv[3]), argv[4]);
    fprintf(stderr, "usage: check_trace probe|counts|sane|abort|partial|counters|anysrc|wild DIR [ARGS]\n");
    return 2;
}
