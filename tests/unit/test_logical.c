/* Unit tests of the logical clock on hand-built multi-rank traces with known LTs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pas2p_analyzer.h"

#define MAXR 4
#define MAXE 64

typedef struct {
    pas2p_event_t ev[MAXE];
    unsigned char pay[MAXE][256];
    int n, pos;
} rstream_t;

typedef struct {
    rstream_t r[MAXR];
    uint64_t lt[MAXR][MAXE];
} world_t;

static pas2p_event_t *add(world_t *w, int rank, unsigned call, int peer, int tag, uint32_t comm)
{
    rstream_t *s = &w->r[rank];
    pas2p_event_t *e = &s->ev[s->n++];
    memset(e, 0, sizeof *e);
    e->call = (uint16_t)call;
    e->peer = peer;
    e->tag = tag;
    e->peer2 = e->tag2 = -1;
    e->comm = comm;
    return e;
}

static void add_split(world_t *w, int rank, uint32_t newid, int32_t m0, int32_t m1)
{
    pas2p_event_t *e = add(w, rank, PAS2P_CALL_Comm_split, -1, -1, PAS2P_COMM_WORLD);
    e->aux = newid;
    pas2p_comm_def_t d = {.size = 2, .ndims = 0};
    int32_t m[2] = {m0, m1};
    unsigned char *p = w->r[rank].pay[w->r[rank].n - 1];
    memcpy(p, &d, sizeof d);
    memcpy(p + sizeof d, m, sizeof m);
    e->payload = sizeof d + sizeof m;
}

static void add_waitany(world_t *w, int rank, uint64_t post, int source, int tag)
{
    pas2p_event_t *e = add(w, rank, PAS2P_CALL_Waitany, -1, -1, PAS2P_COMM_NONE);
    pas2p_completion_t c = {.post = post, .index = 0, .call = PAS2P_CALL_Irecv, .source = source,
                            .tag = tag, .bytes = 4};
    memcpy(w->r[rank].pay[w->r[rank].n - 1], &c, sizeof c);
    e->aux = 1;
    e->payload = sizeof c;
}

static int next(void *ctx, pas2p_event_view_t *out)
{
    rstream_t *s = ctx;
    if (s->pos == s->n)
        return 0;
    out->ev = s->ev[s->pos];
    out->ordinal = (uint64_t)s->pos;
    out->counters = NULL;
    out->payload = s->ev[s->pos].payload ? s->pay[s->pos] : NULL;
    s->pos++;
    return 1;
}

static void visit(void *ctx, int rank, uint64_t ordinal, uint64_t lt)
{
    world_t *w = ctx;
    w->lt[rank][ordinal] = lt;
}

static int run(world_t *w, int np, int global, uint64_t *max, char *err, size_t errlen)
{
    pas2p_event_source_t src[MAXR];
    for (int i = 0; i < np; i++) {
        w->r[i].pos = 0;
        src[i] = (pas2p_event_source_t){.next = next, .ctx = &w->r[i]};
    }
    return pas2p_logical_clock(src, np, global, visit, w, max, err, errlen);
}

static void test_send_recv(void **state)
{
    (void)state;
    world_t *w = calloc(1, sizeof *w);
    add(w, 0, PAS2P_CALL_Init, -1, -1, 0);
    add(w, 0, PAS2P_CALL_Send, 1, 5, 0);
    add(w, 0, PAS2P_CALL_Finalize, -1, -1, 0);
    add(w, 1, PAS2P_CALL_Init, -1, -1, 0);
    add(w, 1, PAS2P_CALL_Recv, 0, 5, 0);
    add(w, 1, PAS2P_CALL_Finalize, -1, -1, 0);
    uint64_t max;
    char err[256];
    assert_int_equal(run(w, 2, 1, &max, err, sizeof err), 0);
    assert_int_equal(w->lt[0][0], 1);
    assert_int_equal(w->lt[1][0], 1);
    assert_int_equal(w->lt[0][1], 2);       /* the send */
    assert_int_equal(w->lt[1][1], 3);       /* its receive: send + 1 */
    assert_int_equal(w->lt[0][2], 4);       /* MPI_Finalize: 1 + max */
    assert_int_equal(w->lt[1][2], 4);
    assert_int_equal(max, 4);
    free(w);
}

/* a collective on a sub-communicator waits for its members only */
static void test_subcommunicator_collective(void **state)
{
    (void)state;
    world_t *w = calloc(1, sizeof *w);
    for (int r = 0; r < 4; r++) {
        add(w, r, PAS2P_CALL_Init, -1, -1, 0);
        add_split(w, r, r % 2 ? 101 : 100, r % 2, r % 2 + 2);
    }
    for (int k = 0; k < 3; k++)
        add(w, 0, PAS2P_CALL_Iprobe, -1, 3, 0);
    add(w, 0, PAS2P_CALL_Allreduce, -1, -1, 100);
    add(w, 2, PAS2P_CALL_Allreduce, -1, -1, 100);
    add(w, 1, PAS2P_CALL_Allreduce, -1, -1, 101);
    add(w, 3, PAS2P_CALL_Allreduce, -1, -1, 101);
    uint64_t max;
    char err[256];
    assert_int_equal(run(w, 4, 1, &max, err, sizeof err), 0);
    for (int r = 0; r < 4; r++)
        assert_int_equal(w->lt[r][1], 2); /* Comm_split: a collective on WORLD */
    assert_int_equal(w->lt[0][4], 5);     /* three local calls after the split */
    assert_int_equal(w->lt[0][5], 6);     /* the Allreduce: 1 + max(5, 2) */
    assert_int_equal(w->lt[2][2], 6);
    assert_int_equal(w->lt[1][2], 3);     /* the other half is not held back */
    assert_int_equal(w->lt[3][2], 3);
    free(w);
}

/* MPI_ANY_SOURCE: the completion names the source; its send decides the LT */
static void test_any_source_waitany(void **state)
{
    (void)state;
    world_t *w = calloc(1, sizeof *w);
    add(w, 0, PAS2P_CALL_Init, -1, -1, 0);
    add(w, 0, PAS2P_CALL_Irecv, PAS2P_PEER_ANY, 7, 0);   /* ordinal 1 */
    add(w, 0, PAS2P_CALL_Irecv, PAS2P_PEER_ANY, 7, 0);   /* ordinal 2 */
    add_waitany(w, 0, 1, 2, 7);                          /* the first got rank 2's message */
    add_waitany(w, 0, 2, 1, 7);
    add(w, 1, PAS2P_CALL_Init, -1, -1, 0);
    add(w, 1, PAS2P_CALL_Send, 0, 7, 0);                 /* LT 2 */
    add(w, 2, PAS2P_CALL_Init, -1, -1, 0);
    for (int k = 0; k < 5; k++)
        add(w, 2, PAS2P_CALL_Iprobe, -1, 1, 0);          /* LT 2..6 */
    add(w, 2, PAS2P_CALL_Send, 0, 7, 0);                 /* LT 7 */
    uint64_t max;
    char err[256];
    assert_int_equal(run(w, 3, 1, &max, err, sizeof err), 0);
    assert_int_equal(w->lt[0][1], 2);
    assert_int_equal(w->lt[0][2], 3);
    assert_int_equal(w->lt[0][3], 8); /* max(4, 7 + 1) */
    assert_int_equal(w->lt[0][4], 9); /* max(9, 2 + 1) */
    free(w);
}

static void test_sendrecv_ring(void **state)
{
    (void)state;
    world_t *w = calloc(1, sizeof *w);
    for (int r = 0; r < 3; r++) {
        add(w, r, PAS2P_CALL_Init, -1, -1, 0);
        pas2p_event_t *e = add(w, r, PAS2P_CALL_Sendrecv, (r + 1) % 3, 4, 0);
        e->peer2 = (r + 2) % 3;
        e->tag2 = 4;
    }
    uint64_t max;
    char err[256];
    assert_int_equal(run(w, 3, 1, &max, err, sizeof err), 0);
    for (int r = 0; r < 3; r++)
        assert_int_equal(w->lt[r][1], 3);
    free(w);
}

static void test_local_mode(void **state)
{
    (void)state;
    world_t *w = calloc(1, sizeof *w);
    add(w, 0, PAS2P_CALL_Init, -1, -1, 0);
    add(w, 0, PAS2P_CALL_Recv, 1, 9, 0); /* never sent: fine in local mode */
    add(w, 0, PAS2P_CALL_Barrier, -1, -1, 0);
    uint64_t max;
    char err[256];
    assert_int_equal(run(w, 1, 0, &max, err, sizeof err), 0);
    assert_int_equal(w->lt[0][2], 3);
    assert_int_equal(max, 3);
    free(w);
}

/* a receive nobody sends: an error naming the rank and event, not a hang */
static void test_inconsistent_trace(void **state)
{
    (void)state;
    world_t *w = calloc(1, sizeof *w);
    add(w, 0, PAS2P_CALL_Init, -1, -1, 0);
    add(w, 0, PAS2P_CALL_Recv, 1, 9, 0);
    add(w, 0, PAS2P_CALL_Finalize, -1, -1, 0);
    add(w, 1, PAS2P_CALL_Init, -1, -1, 0);
    add(w, 1, PAS2P_CALL_Finalize, -1, -1, 0);
    uint64_t max;
    char err[256];
    assert_int_equal(run(w, 2, 1, &max, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank 0, event 1 (MPI_Recv) waits for a message no rank sends"));
    free(w);
}

/* One Waitall completing two receives on one channel that holds one message so far: it
 * waits for the second (before, it took a message past the channel's end: a heap read
 * out of bounds under ASan when the channel's buffer was full, a wrong clock otherwise).
 * Rank 0 sends 16, receives, then sends one more; rank 1 receives 15, posts two Irecv,
 * sends, and waits for both. */
static void test_waitall_two_on_one_channel(void **state)
{
    (void)state;
    static world_t w;
    memset(&w, 0, sizeof w);
    for (int i = 0; i < 16; i++)
        add(&w, 0, PAS2P_CALL_Send, 1, 0, PAS2P_COMM_WORLD);
    add(&w, 0, PAS2P_CALL_Recv, 1, 0, PAS2P_COMM_WORLD);
    add(&w, 0, PAS2P_CALL_Send, 1, 0, PAS2P_COMM_WORLD); /* ordinal 17 */
    for (int i = 0; i < 15; i++)
        add(&w, 1, PAS2P_CALL_Recv, 0, 0, PAS2P_COMM_WORLD);
    add(&w, 1, PAS2P_CALL_Irecv, 0, 0, PAS2P_COMM_WORLD); /* ordinal 15 */
    add(&w, 1, PAS2P_CALL_Irecv, 0, 0, PAS2P_COMM_WORLD); /* ordinal 16 */
    add(&w, 1, PAS2P_CALL_Send, 0, 0, PAS2P_COMM_WORLD);
    pas2p_event_t *e = add(&w, 1, PAS2P_CALL_Waitall, -1, -1, PAS2P_COMM_NONE);
    pas2p_completion_t c[2] = {
        {.post = 15, .index = 0, .call = PAS2P_CALL_Irecv, .source = 0, .tag = 0, .bytes = 4},
        {.post = 16, .index = 0, .call = PAS2P_CALL_Irecv, .source = 0, .tag = 0, .bytes = 4}};
    memcpy(w.r[1].pay[w.r[1].n - 1], c, sizeof c);
    e->aux = 2;
    e->payload = sizeof c;
    uint64_t max;
    char err[256] = "";
    assert_int_equal(run(&w, 2, 1, &max, err, sizeof err), 0);
    assert_true(w.lt[1][w.r[1].n - 1] > w.lt[0][17]); /* after the second message was sent */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_send_recv),          cmocka_unit_test(test_subcommunicator_collective),
        cmocka_unit_test(test_any_source_waitany), cmocka_unit_test(test_sendrecv_ring),
        cmocka_unit_test(test_local_mode),         cmocka_unit_test(test_inconsistent_trace),
        cmocka_unit_test(test_waitall_two_on_one_channel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
