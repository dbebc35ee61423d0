/* Unit tests of the signature file: round trip, and every way a file can be wrong. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pas2p_signature.h"
#include "pas2p_trace.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/pas2p-sig-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) ? -1 : 0;
}

static void sample(pas2p_signature_t *s)
{
    memset(s, 0, sizeof *s);
    s->version = PAS2P_SIGNATURE_VERSION;
    snprintf(s->command, sizeof s->command, "mpirun -np 2 ./app \"quoted\" <&>");
    snprintf(s->counters, sizeof s->counters, "none");
    snprintf(s->tracer, sizeof s->tracer, "0.1.0");
    snprintf(s->hosts, sizeof s->hosts, "a,b");
    s->np = 2;
    s->aet_s = 12.5;
    s->relevance = 0.01;
    s->compute_similarity = 0.85;
    s->compute_similarity_time = 0.5;
    s->size_tolerance = 0.05;
    s->size_floor = 1024;
    s->representative = 1;
    s->events = 1234;
    s->pet_s = 12.5;
    s->relevant_s = 12.0;
    s->remainder_s = 0.5;
    s->coverage = 0.96;
    s->spmd = 1;
    s->ncomms = 1;
    s->comms = calloc(1, sizeof *s->comms);
    s->comms[0] = (pas2p_sig_comm_t){.id = 77, .parent = 0, .call = PAS2P_CALL_Cart_create,
                                     .size = 2, .ndims = 1};
    s->comms[0].members = malloc(2 * sizeof(int32_t));
    s->comms[0].members[0] = 1;
    s->comms[0].members[1] = 0;
    s->comms[0].dims = malloc(sizeof(int32_t));
    s->comms[0].periods = malloc(sizeof(int32_t));
    s->comms[0].dims[0] = 2;
    s->comms[0].periods[0] = 1;
    s->nranks = 2;
    s->ranks = calloc(2, sizeof *s->ranks);
    for (uint32_t r = 0; r < 2; r++) {
        pas2p_sig_rank_t *R = &s->ranks[r];
        R->rank = r;
        R->elapsed_s = 12.0 + r * 0.5;
        R->events = 617;
        R->nphases = 1;
        R->phases = calloc(1, sizeof *R->phases);
        pas2p_sig_phase_t *p = &R->phases[0];
        p->id = 1;
        p->weight = 100;
        p->relevant = 1;
        p->time_mean_s = 0.12;
        p->time_median_s = 0.119;
        p->time_min_s = 0.1;
        p->time_max_s = 0.2;
        p->time_sd_s = 0.01;
        p->compute_mean_s = 0.11;
        p->instructions_mean = 0;
        p->nocc = 2;
        p->occ_start[0] = 3;
        p->occ_end[0] = 9;
        p->occ_start[1] = 9;
        p->occ_end[1] = 15;
        p->nevents = 2;
        p->events = calloc(2, sizeof *p->events);
        p->events[0] = (pas2p_sig_event_t){.call = PAS2P_CALL_Sendrecv, .peer = 1 - (int)r, .tag = 5,
                                           .peer2 = 1 - (int)r, .tag2 = 5, .comm = 77,
                                           .bytes = 4096, .rbytes = 4096, .compute_s = 0.1};
        p->events[1] = (pas2p_sig_event_t){.call = PAS2P_CALL_Allreduce, .peer = -1, .tag = -1,
                                           .peer2 = -1, .tag2 = -1, .comm = 0, .bytes = 8,
                                           .rbytes = 8, .compute_s = 0.01, .polled = 3,
                                           .cancelled = 1};
    }
}

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_round_trip(void **state)
{
    (void)state;
    pas2p_signature_t a, b;
    char path[128], err[512];
    sample(&a);
    path_of(path, sizeof path, "sig.xml");
    assert_int_equal(pas2p_signature_write(&a, path, err, sizeof err), 0);
    assert_int_equal(pas2p_signature_read(path, &b, err, sizeof err), 0);
    assert_string_equal(b.command, a.command);
    assert_int_equal(b.np, 2);
    assert_true(b.aet_s == 12.5 && b.coverage == 0.96 && b.remainder_s == 0.5);
    assert_int_equal(b.size_floor, 1024);
    assert_int_equal(b.representative, 1);
    assert_int_equal(b.spmd, 1);
    assert_int_equal(b.ncomms, 1);
    assert_int_equal(b.comms[0].id, 77);
    assert_int_equal(b.comms[0].call, PAS2P_CALL_Cart_create);
    assert_int_equal(b.comms[0].members[0], 1);
    assert_int_equal(b.comms[0].ndims, 1);
    assert_int_equal(b.comms[0].periods[0], 1);
    assert_int_equal(b.nranks, 2);
    const pas2p_sig_phase_t *p = &b.ranks[1].phases[0];
    assert_int_equal(p->weight, 100);
    assert_int_equal(p->nocc, 2);
    assert_int_equal(p->occ_end[1], 15);
    assert_int_equal(p->nevents, 2);
    assert_int_equal(p->events[0].call, PAS2P_CALL_Sendrecv);
    assert_int_equal(p->events[0].peer, 0);
    assert_int_equal(p->events[0].peer2, 0);
    assert_int_equal(p->events[0].comm, 77);
    assert_int_equal(p->events[1].peer2, -1);
    assert_int_equal(p->events[0].polled, 0); /* (optional: absent) */
    assert_int_equal(p->events[1].polled, 3);
    assert_int_equal(p->events[0].cancelled, 0); /* (optional: absent) */
    assert_int_equal(p->events[1].cancelled, 1);
    assert_true(p->events[0].compute_s == 0.1);
    assert_true(p->time_median_s == 0.119);
    pas2p_signature_free(&a);
    pas2p_signature_free(&b);
}

/* the numbering rules a global signature says (analysis/completion_waits...) are read back
 * as written: the runtime numbers calls by them, so a value lost is a divergence */
static void test_numbering_rules(void **state)
{
    (void)state;
    char path[128], err[512];
    path_of(path, sizeof path, "rules.xml");
    for (int w = 0; w <= 3; w++) {
        pas2p_signature_t a, b;
        sample(&a);
        a.global = 1;
        a.runs = a.tests = a.probes = 1;
        a.waits = w;
        assert_int_equal(pas2p_signature_write(&a, path, err, sizeof err), 0);
        assert_int_equal(pas2p_signature_read(path, &b, err, sizeof err), 0);
        assert_int_equal(b.waits, w);
        assert_int_equal(b.runs, 1);
        pas2p_signature_free(&a);
        pas2p_signature_free(&b);
    }
    /* an unknown value is refused (the grammar) */
    pas2p_signature_t a, b;
    sample(&a);
    a.global = 1;
    a.waits = 3;
    assert_int_equal(pas2p_signature_write(&a, path, err, sizeof err), 0);
    pas2p_signature_free(&a);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char *v = strstr(text, "completion_waits=\"flagged\"");
    assert_non_null(v);
    memcpy(v + strlen("completion_waits=\""), "flogged", 7);
    write_text(path, text);
    assert_int_equal(pas2p_signature_read(path, &b, err, sizeof err), -1);
}

/* a phase below the relevance threshold in time but with >= 1 % of a rank's messages (or
 * bytes sent) is replayed as relevant (simulate, replay); one with neither is not; only in
 * a global signature */
static void test_relevant_comm(void **state)
{
    (void)state;
    pas2p_signature_t s;
    sample(&s); /* phase 1: weight 100, a Sendrecv and an Allreduce, relevant */
    for (uint32_t r = 0; r < 2; r++) {
        pas2p_sig_rank_t *R = &s.ranks[r];
        R->phases = realloc(R->phases, 3 * sizeof *R->phases);
        R->nphases = 3;
        for (uint32_t k = 1; k < 3; k++) {
            pas2p_sig_phase_t *p = &R->phases[k];
            memset(p, 0, sizeof *p);
            p->id = k + 1;
            p->weight = k == 1 ? 6 : 1; /* 6 of 207 communicating calls; 1 of 207 */
            p->nevents = k == 1 ? 2 : 1;
            p->events = calloc(p->nevents, sizeof *p->events);
        }
        pas2p_sig_event_t *e = R->phases[1].events;
        e[0] = (pas2p_sig_event_t){.call = PAS2P_CALL_Isend, .peer = 1 - (int)r, .tag = 3,
                                   .peer2 = -1, .tag2 = -1, .bytes = 100};
        e[1] = (pas2p_sig_event_t){.call = PAS2P_CALL_Wait, .peer = -1, .tag = -1, .peer2 = -1,
                                   .tag2 = -1, .aux = 1};
        R->phases[2].events[0] = (pas2p_sig_event_t){.call = PAS2P_CALL_Barrier, .peer = -1,
                                                     .tag = -1, .peer2 = -1, .tag2 = -1};
    }
    assert_int_equal(pas2p_signature_relevant_comm(&s, 0.01), 0); /* ids per rank: none */
    s.global = 1;
    assert_int_equal(pas2p_signature_relevant_comm(&s, 0.01), 1);
    for (uint32_t r = 0; r < 2; r++) {
        assert_true(s.ranks[r].phases[0].relevant);
        assert_true(s.ranks[r].phases[1].relevant);
        assert_false(s.ranks[r].phases[2].relevant);
    }
    assert_int_equal(pas2p_signature_relevant_comm(&s, 0.01), 0); /* (done already) */
    pas2p_signature_free(&s);
}

/* many phases under 1 % of the messages each, 9 % together: enough of them are replayed
 * that the replayed phases hold >= 95 % of every rank's messages (PAS2P_COMM_COVER), the
 * ones with the most first (deal.II's step-40: a quarter of its collectives in such
 * phases, 4 % off the full trace on two hosts) */
static void test_relevant_comm_cover(void **state)
{
    (void)state;
    pas2p_signature_t s;
    sample(&s); /* phase 1: weight 100, a Sendrecv and an Allreduce (200 calls), relevant */
    s.global = 1;
    enum { SMALL = 20 };
    for (uint32_t r = 0; r < 2; r++) {
        pas2p_sig_rank_t *R = &s.ranks[r];
        R->phases = realloc(R->phases, (1 + SMALL) * sizeof *R->phases);
        R->nphases = 1 + SMALL;
        for (uint32_t k = 1; k <= SMALL; k++) {
            pas2p_sig_phase_t *p = &R->phases[k];
            memset(p, 0, sizeof *p);
            p->id = k + 1;
            p->weight = k == SMALL ? 2 : 1; /* the last: 2 of 221 calls, the others 1 */
            p->nevents = 1;
            p->events = calloc(1, sizeof *p->events);
            p->events[0] = (pas2p_sig_event_t){.call = PAS2P_CALL_Barrier, .peer = -1,
                                               .tag = -1, .peer2 = -1, .tag2 = -1};
        }
    }
    /* 200 of 221 covered (90.5 %); 95 % is 209.95: the 2-call phase, then 8 of 1 call */
    assert_int_equal(pas2p_signature_relevant_comm(&s, 0.01), 9);
    for (uint32_t r = 0; r < 2; r++) {
        const pas2p_sig_rank_t *R = &s.ranks[r];
        uint32_t n = 0;
        for (uint32_t k = 1; k <= SMALL; k++)
            n += R->phases[k].relevant == 2;
        assert_int_equal(n, 9);
        assert_int_equal(R->phases[SMALL].relevant, 2);
        assert_int_equal(R->phases[1].relevant, 2); /* (ties: the lowest id first) */
        assert_int_equal(R->phases[SMALL - 1].relevant, 0);
    }
    pas2p_signature_free(&s);
}

static void expect_refused(const char *name, const char *text, const char *needle)
{
    char path[128], err[512];
    pas2p_signature_t s;
    path_of(path, sizeof path, name);
    if (text)
        write_text(path, text);
    assert_int_equal(pas2p_signature_read(path, &s, err, sizeof err), -1);
    if (!strstr(err, needle))
        fail_msg("error '%s' does not contain '%s'", err, needle);
    assert_non_null(strstr(err, path)); /* names the file */
    assert_null(strchr(err, '\n'));     /* one line */
    /* the streaming readers (one rank's table; every rank's without events) refuse it the
     * same way */
    for (int k = 0; k < 2; k++) {
        err[0] = 0;
        assert_int_equal(k ? pas2p_signature_read_tables(path, &s, err, sizeof err)
                           : pas2p_signature_read_rank(path, 0, &s, err, sizeof err), -1);
        if (!strstr(err, needle))
            fail_msg("%s: error '%s' does not contain '%s'", k ? "read_tables" : "read_rank", err, needle);
        assert_non_null(strstr(err, path));
        assert_null(strchr(err, '\n'));
    }
}

/* pas2p_signature_read_rank gives what pas2p_signature_read gives, for that rank alone; a
 * damage in another rank's table is still refused (read past, validated) */
static void test_read_rank(void **state)
{
    (void)state;
    pas2p_signature_t a, all, one;
    char path[128], err[512];
    sample(&a);
    a.anchored = 0;
    path_of(path, sizeof path, "ranks.xml");
    assert_int_equal(pas2p_signature_write(&a, path, err, sizeof err), 0);
    assert_int_equal(pas2p_signature_read(path, &all, err, sizeof err), 0);
    for (uint32_t r = 0; r < 2; r++) {
        if (pas2p_signature_read_rank(path, r, &one, err, sizeof err))
            fail_msg("%s", err);
        assert_int_equal(one.nranks, 1);
        assert_string_equal(one.command, all.command);
        assert_int_equal(one.np, all.np);
        assert_true(one.size_floor == all.size_floor && one.size_tolerance == all.size_tolerance);
        assert_int_equal(one.global, all.global);
        assert_int_equal(one.ncomms, all.ncomms);
        assert_int_equal(one.comms[0].members[0], all.comms[0].members[0]);
        const pas2p_sig_rank_t *x = &one.ranks[0], *y = &all.ranks[r];
        assert_int_equal(x->rank, r);
        assert_true(x->elapsed_s == y->elapsed_s);
        assert_int_equal(x->events, y->events);
        assert_int_equal(x->nphases, y->nphases);
        for (uint32_t k = 0; k < x->nphases; k++) {
            const pas2p_sig_phase_t *p = &x->phases[k], *q = &y->phases[k];
            assert_int_equal(p->id, q->id);
            assert_int_equal(p->weight, q->weight);
            assert_true(p->time_mean_s == q->time_mean_s && p->time_median_s == q->time_median_s);
            assert_int_equal(p->nocc, q->nocc);
            assert_int_equal(p->occ_end[p->nocc - 1], q->occ_end[q->nocc - 1]);
            assert_int_equal(p->nevents, q->nevents);
            assert_memory_equal(p->events, q->events, p->nevents * sizeof *p->events);
        }
        pas2p_signature_free(&one);
    }
    assert_int_equal(pas2p_signature_read_rank(path, 2, &one, err, sizeof err), -1);
    assert_non_null(strstr(err, "has no phase table for rank 2"));
    /* every rank's table without the events (predict's own read) */
    if (pas2p_signature_read_tables(path, &one, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(one.nranks, all.nranks);
    assert_int_equal(one.representative, all.representative);
    for (uint32_t r = 0; r < one.nranks; r++) {
        assert_int_equal(one.ranks[r].rank, all.ranks[r].rank);
        assert_int_equal(one.ranks[r].nphases, all.ranks[r].nphases);
        for (uint32_t k = 0; k < one.ranks[r].nphases; k++) {
            const pas2p_sig_phase_t *p = &one.ranks[r].phases[k], *q = &all.ranks[r].phases[k];
            assert_int_equal(p->nevents, 0);
            assert_int_equal(p->weight, q->weight);
            assert_true(p->time_mean_s == q->time_mean_s && p->relevant == q->relevant);
            assert_int_equal(p->nocc, q->nocc);
            assert_memory_equal(p->occ_start, q->occ_start, sizeof p->occ_start);
            assert_memory_equal(p->occ_time_s, q->occ_time_s, sizeof p->occ_time_s);
        }
    }
    pas2p_signature_free(&one);
    /* rank 0's phase damaged: rank 1's reader still refuses the file */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "awk '/<rank id=\"0\"/ { r0 = 1 } /<rank id=\"1\"/ { r0 = 0 } "
                              "r0 && /weight=\"100\"/ { sub(/weight=\"100\"/, \"weight=\\\"-3\\\"\") } "
                              "{ print }' %s > %s/neg0.xml", path, dir);
    assert_int_equal(system(cmd), 0);
    char neg[128];
    path_of(neg, sizeof neg, "neg0.xml");
    assert_int_equal(pas2p_signature_read(neg, &one, err, sizeof err), -1); /* (damaged indeed) */
    assert_int_equal(pas2p_signature_read_rank(neg, 1, &one, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a valid signature"));
    pas2p_signature_free(&a);
    pas2p_signature_free(&all);
}

static void test_refusals(void **state)
{
    (void)state;
    expect_refused("missing.xml", NULL, "cannot open");
    expect_refused("empty.xml", "", "not XML");
    expect_refused("garbage.xml", "this is not xml <<<", "not XML");
    expect_refused("truncated.xml", "<pas2p-signature version=\"1\"><application", "not XML");
    expect_refused("root.xml", "<platform version=\"4.1\"/>", "not a pas2p signature");
    expect_refused("v2.xml", "<pas2p-signature version=\"2\"/>", "signature version 2, this pas2p reads version 1");
    expect_refused("invalid.xml", "<pas2p-signature version=\"1\"><application/></pas2p-signature>",
                   "not a valid signature");
    /* a valid file, then damaged: a negative weight, and an unknown call */
    pas2p_signature_t s;
    char path[128], err[512];
    sample(&s);
    path_of(path, sizeof path, "good.xml");
    assert_int_equal(pas2p_signature_write(&s, path, err, sizeof err), 0);
    pas2p_signature_free(&s);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sed 's/weight=\"100\"/weight=\"-3\"/' %s/good.xml > %s/neg.xml; "
                              "sed 's/MPI_Allreduce/MPI_Frobnicate/' %s/good.xml > %s/call.xml",
             dir, dir, dir, dir);
    assert_int_equal(system(cmd), 0);
    expect_refused("neg.xml", NULL, "not a valid signature");
    expect_refused("call.xml", NULL, "MPI call this pas2p does not know");
}

/* a long phase (an irregular run's one occurrence of weight 1) is written with its repeats
 * folded (<repeat count="N">) and read back unfolded: the same calls in the same order, the
 * same sums of computation; a copy that computed much longer stays an event of its own;
 * short phases are written event by event; a repeat that would give a phase more events
 * than its rank made is refused */
static void test_repeats(void **state)
{
    (void)state;
    pas2p_signature_t a, b, one;
    char path[128], err[512];
    sample(&a);
    const uint32_t n = 10000;
    double sum[2] = {0, 0};
    for (uint32_t r = 0; r < 2; r++) {
        pas2p_sig_phase_t *p = &a.ranks[r].phases[0];
        free(p->events);
        a.ranks[r].events = 2 * n;
        p->weight = 1;
        p->nevents = n;
        p->events = calloc(n, sizeof *p->events);
        for (uint32_t k = 0; k < n; k++) { /* Isend, Isend, Irecv ... */
            p->events[k] = (pas2p_sig_event_t){.call = k % 3 == 2 ? PAS2P_CALL_Irecv : PAS2P_CALL_Isend,
                                               .peer = 1 - (int)r, .tag = (int)(k % 3), .peer2 = -1,
                                               .tag2 = -1, .bytes = k % 3 == 2 ? 0 : 64,
                                               .rbytes = k % 3 == 2 ? 64 : 0,
                                               .compute_s = 1e-6 * (1 + k % 5),
                                               .polled = k % 3 == 2};
            if (k == 5000) /* a preemption */
                p->events[k].compute_s = 0.004;
            sum[r] += p->events[k].compute_s;
        }
    }
    path_of(path, sizeof path, "repeats.xml");
    assert_int_equal(pas2p_signature_write(&a, path, err, sizeof err), 0);
    char cmd[1024], out[64];
    snprintf(cmd, sizeof cmd, "grep -c '<event ' %s; grep -c '<repeat count=' %s; "
                              "grep -c 'compute_s=\"0.004\"' %s", path, path, path);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    unsigned ev = 0, rep = 0, spike = 0;
    assert_non_null(fgets(out, sizeof out, f));
    ev = (unsigned)atoi(out);
    assert_non_null(fgets(out, sizeof out, f));
    rep = (unsigned)atoi(out);
    assert_non_null(fgets(out, sizeof out, f));
    spike = (unsigned)atoi(out);
    pclose(f);
    assert_true(ev < n / 10 && rep > 0); /* folded: 2 x 10000 events in far fewer elements */
    assert_int_equal(spike, 2);          /* the preemption kept, once per rank */
    assert_int_equal(pas2p_signature_read(path, &b, err, sizeof err), 0);
    for (uint32_t r = 0; r < 2; r++) {
        const pas2p_sig_phase_t *p = &a.ranks[r].phases[0], *q = &b.ranks[r].phases[0];
        assert_int_equal(q->nevents, n);
        double t = 0;
        for (uint32_t k = 0; k < n; k++) {
            const pas2p_sig_event_t *x = &p->events[k], *y = &q->events[k];
            assert_int_equal(y->call, x->call);
            assert_int_equal(y->peer, x->peer);
            assert_int_equal(y->tag, x->tag);
            assert_int_equal(y->bytes, x->bytes);
            assert_int_equal(y->rbytes, x->rbytes);
            assert_int_equal(y->polled, x->polled);
            assert_true(fabs(y->compute_s - x->compute_s) <= 1e-5); /* close: a mean */
            t += y->compute_s;
        }
        assert_true(fabs(t - sum[r]) < 1e-9 * n);
        assert_true(q->events[5000].compute_s == 0.004);
    }
    /* the streaming reader unfolds them the same */
    assert_int_equal(pas2p_signature_read_rank(path, 1, &one, err, sizeof err), 0);
    assert_int_equal(one.ranks[0].phases[0].nevents, n);
    assert_memory_equal(one.ranks[0].phases[0].events, b.ranks[1].phases[0].events,
                        n * sizeof *one.ranks[0].phases[0].events);
    pas2p_signature_free(&one);
    /* a short phase is written event by event */
    pas2p_signature_t c;
    sample(&c);
    char small[128];
    path_of(small, sizeof small, "small.xml");
    assert_int_equal(pas2p_signature_write(&c, small, err, sizeof err), 0);
    snprintf(cmd, sizeof cmd, "grep -q '<repeat' %s", small);
    assert_int_not_equal(system(cmd), 0);
    pas2p_signature_free(&c);
    /* a repeat of count 0, or one that gives the phase more events than its rank made */
    snprintf(cmd, sizeof cmd, "sed '0,/<repeat count=\"[0-9]*\"/s//<repeat count=\"0\"/' %s > %s/rep0.xml; "
                              "sed '0,/<repeat count=\"[0-9]*\"/s//<repeat count=\"4000000000\"/' %s > %s/repbig.xml",
             path, dir, path, dir);
    assert_int_equal(system(cmd), 0);
    expect_refused("rep0.xml", NULL, "a phase holds more events than its rank made");
    expect_refused("repbig.xml", NULL, "a phase holds more events than its rank made");
    pas2p_signature_free(&a);
    pas2p_signature_free(&b);
}

/* the phases a replay adds so that what it replays holds >= 95 % of every rank's base time:
 * each rank's largest other phases, in turn, marked on every rank that has them; none in a
 * signature whose relevant phases already do, nor in one with per-rank ids */
static void test_relevant_cover(void **state)
{
    (void)state;
    pas2p_signature_t s;
    sample(&s); /* phase 1: weight 100 x 0.12 s = 12 s, relevant */
    s.global = 1;
    for (uint32_t r = 0; r < 2; r++) {
        pas2p_sig_rank_t *R = &s.ranks[r];
        R->phases = realloc(R->phases, 12 * sizeof *R->phases);
        R->nphases = 12;
        for (uint32_t k = 1; k < 12; k++) { /* 11 one-offs: 1 s each on rank 0, and on rank
                                               1 phase 12 holds 3 s */
            pas2p_sig_phase_t *p = &R->phases[k];
            memset(p, 0, sizeof *p);
            p->id = k + 1;
            p->weight = 1;
            p->time_mean_s = r == 1 && k == 11 ? 3.0 : 1.0;
            p->nevents = 1;
            p->events = calloc(1, sizeof *p->events);
            p->events[0] = (pas2p_sig_event_t){.call = PAS2P_CALL_Barrier, .peer = -1, .tag = -1,
                                               .peer2 = -1, .tag2 = -1};
        }
    }
    double was = 0;
    /* rank 1, the least covered (12 of 25 s), takes phase 12 (3 s there, 1 s on rank 0),
     * then the ranks in turn the next one-offs by id: 9 more bring rank 0 to 22 of 23 s
     * (95.7 %) and rank 1 to 24 of 25 (96 %): phase 11 stays out */
    uint32_t n = pas2p_signature_relevant_cover(&s, 0.95, &was);
    assert_true(was > 0.44 && was < 0.53); /* rank 1: 12 of 25 s */
    assert_int_equal(n, 10);
    for (uint32_t r = 0; r < 2; r++) {
        uint32_t marked = 0;
        for (uint32_t k = 1; k < 12; k++)
            marked += s.ranks[r].phases[k].relevant == 3;
        assert_int_equal(marked, 10);            /* the same phases on both ranks */
        assert_int_equal(s.ranks[r].phases[0].relevant, 1); /* (the analyzer's, kept) */
        assert_int_equal(s.ranks[r].phases[11].relevant, 3); /* phase 12: rank 1's largest */
        assert_int_equal(s.ranks[r].phases[10].relevant, 0); /* phase 11: not needed */
    }
    /* again: nothing left to add */
    assert_int_equal(pas2p_signature_relevant_cover(&s, 0.95, &was), 0);
    assert_true(was >= 0.95);
    /* per-rank phase ids: none */
    for (uint32_t r = 0; r < 2; r++)
        for (uint32_t k = 1; k < 12; k++)
            s.ranks[r].phases[k].relevant = 0;
    s.global = 0;
    assert_int_equal(pas2p_signature_relevant_cover(&s, 0.95, &was), 0);
    pas2p_signature_free(&s);
}

/* external entities are never fetched or expanded */
static void test_no_external_entities(void **state)
{
    (void)state;
    char path[128], secret[128], err[512], text[1024];
    path_of(secret, sizeof secret, "secret.txt");
    write_text(secret, "SECRET-CONTENT");
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n<!DOCTYPE pas2p-signature [<!ENTITY x SYSTEM \"file://%s\">]>\n"
             "<pas2p-signature version=\"1\"><application command=\"&x;\" np=\"1\" aet_s=\"1\" "
             "counters=\"none\" tracer=\"t\" hosts=\"h\"/></pas2p-signature>", secret);
    path_of(path, sizeof path, "xxe.xml");
    write_text(path, text);
    pas2p_signature_t s;
    assert_int_equal(pas2p_signature_read(path, &s, err, sizeof err), -1);
    assert_null(strstr(err, "SECRET-CONTENT"));
}

static void test_write_errors(void **state)
{
    (void)state;
    pas2p_signature_t s;
    char err[512];
    sample(&s);
    assert_int_equal(pas2p_signature_write(&s, "/proc/no/such/dir/sig.xml", err, sizeof err), -1);
    assert_non_null(strstr(err, "/proc/no/such/dir/sig.xml"));
    pas2p_signature_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_numbering_rules),
        cmocka_unit_test(test_read_rank),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_repeats),
        cmocka_unit_test(test_no_external_entities),
        cmocka_unit_test(test_write_errors),
        cmocka_unit_test(test_relevant_comm),
        cmocka_unit_test(test_relevant_comm_cover),
        cmocka_unit_test(test_relevant_cover),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
