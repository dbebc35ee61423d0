/* The replay vocabulary, once (simbackend/ACTIONS.md).  One row per action, the way
 * SimGrid's smpi_replay.cpp registers each of its actions once: its name in the action
 * files, the fields of its line, the MPI calls of tracer/mpi_calls.tbl it is written from
 * (and which of the call's byte counts BYTES is), the replayer function that runs it, and
 * how `pas2p replay --export` says it in SimGrid's stock time-independent (TI) format, or
 * why it cannot.  Three files expand the rows, each taking the columns it needs:
 *
 *   actions.c   writes a signature's or a trace's events as action lines  (name, fields,
 *               calls, bytes)
 *   replayer.c  reads and runs them (mpicc and smpicc: this header is C and needs neither
 *               MPI nor libxml2)                                         (name, fields, nb, run)
 *   export.c    rewrites them as stock TI lines                          (name, fields, ti)
 *
 * Adding an action is one row here plus its run function in replayer.c (and its ti_
 * function in export.c when TI can say it).  Calls with no action are listed below too:
 * PAS2P_ACTIONS_SILENT (nothing to replay) and PAS2P_ACTIONS_REFUSED (refused, the call
 * named, with the reason).  tests/unit/test_actions.c checks that every call of the call
 * table is in exactly one of the three. */
#ifndef PAS2P_ACTION_TABLE_H
#define PAS2P_ACTION_TABLE_H

#include <stdlib.h>
#include <string.h>

/* What follows an action's name on its line.  COUNTS: comma-separated bytes, one per
 * member of the communicator in communicator rank order, or `-` where MPI reads no
 * counts (the non-roots of gatherv and scatterv). */
enum pas2p_fields {
    PAS2P_AF_NONE,     /* -                                        */
    PAS2P_AF_SECONDS,  /* S                                        */
    PAS2P_AF_P2P,      /* PEER TAG BYTES COMM                      */
    PAS2P_AF_PROBE,    /* PEER TAG COMM                            */
    PAS2P_AF_SENDRECV, /* DST STAG SBYTES SRC RTAG RBYTES COMM     */
    PAS2P_AF_COUNT,    /* N [P]                                    */
    PAS2P_AF_COMM,     /* COMM                                     */
    PAS2P_AF_ROOTED,   /* BYTES ROOT COMM                          */
    PAS2P_AF_BYTES,    /* BYTES COMM                               */
    PAS2P_AF_VROOTED,  /* BYTES ROOT COMM COUNTS|-                 */
    PAS2P_AF_VBYTES,   /* BYTES COMM COUNTS                        */
    PAS2P_AF_VV,       /* COMM SCOUNTS RCOUNTS                     */
    PAS2P_AF_VCOUNTS,  /* COMM COUNTS                              */
    PAS2P_AF_PHASE,    /* ID [BURST] [once] [reps N] [occ K] [as ID,ID...] (the replayer and export read it) */
};

/* Which of the event's byte counts BYTES (and, for a v-collective, every member's
 * COUNTS entry) is: what the rank sends, or what it receives. */
enum pas2p_bytes { PAS2P_B_NONE, PAS2P_B_SENT, PAS2P_B_RECEIVED };

/* A(ID, name, fields, nb, bytes, "written from: MPI_ calls", run function, TI)
 *   nb  1: the action posts a request, completed by a later wait/waitall/test (or at the
 *       end of its phase block)
 *   TI  TI(ti_function) in export.c, or NO_TI("why the stock format cannot say it") */
#define PAS2P_ACTIONS(A)                                                                        \
    A(COMPUTE, "compute", PAS2P_AF_SECONDS, 0, PAS2P_B_NONE, "", run_compute, TI(ti_compute))     \
    A(SEND, "send", PAS2P_AF_P2P, 0, PAS2P_B_SENT, "Send Ssend Bsend Rsend", run_send, TI(ti_p2p)) \
    A(ISEND, "isend", PAS2P_AF_P2P, 1, PAS2P_B_SENT, "Isend Issend Ibsend Irsend", run_send,       \
      TI(ti_p2p))                                                                               \
    A(RECV, "recv", PAS2P_AF_P2P, 0, PAS2P_B_RECEIVED, "Recv", run_recv, TI(ti_p2p))              \
    A(IRECV, "irecv", PAS2P_AF_P2P, 1, PAS2P_B_RECEIVED, "Irecv", run_recv, TI(ti_p2p))           \
    A(PROBE, "probe", PAS2P_AF_PROBE, 0, PAS2P_B_NONE, "Probe", run_probe, TI(ti_drop))           \
    A(SENDRECV, "sendrecv", PAS2P_AF_SENDRECV, 0, PAS2P_B_NONE, "Sendrecv Sendrecv_replace",      \
      run_sendrecv, TI(ti_sendrecv))                                                            \
    A(WAIT, "wait", PAS2P_AF_COUNT, 0, PAS2P_B_NONE, "Wait Waitany Waitsome", run_wait,           \
      TI(ti_wait))                                                                              \
    A(WAITALL, "waitall", PAS2P_AF_NONE, 0, PAS2P_B_NONE, "Waitall", run_waitall, TI(ti_waitall)) \
    A(TEST, "test", PAS2P_AF_NONE, 0, PAS2P_B_NONE, "Test Testany Testall Testsome", run_test,    \
      TI(ti_drop))                                                                              \
    A(BARRIER, "barrier", PAS2P_AF_COMM, 0, PAS2P_B_NONE, "Barrier", run_barrier, TI(ti_barrier)) \
    A(IBARRIER, "ibarrier", PAS2P_AF_COMM, 1, PAS2P_B_NONE, "Ibarrier", run_barrier, NO_TI(NBC))  \
    A(BCAST, "bcast", PAS2P_AF_ROOTED, 0, PAS2P_B_SENT, "Bcast", run_bcast, TI(ti_bcast))         \
    A(IBCAST, "ibcast", PAS2P_AF_ROOTED, 1, PAS2P_B_SENT, "Ibcast", run_bcast, NO_TI(NBC))        \
    A(REDUCE, "reduce", PAS2P_AF_ROOTED, 0, PAS2P_B_SENT, "Reduce", run_reduce, TI(ti_reduce))    \
    A(IREDUCE, "ireduce", PAS2P_AF_ROOTED, 1, PAS2P_B_SENT, "Ireduce", run_reduce, NO_TI(NBC))    \
    A(ALLREDUCE, "allreduce", PAS2P_AF_BYTES, 0, PAS2P_B_SENT, "Allreduce", run_allreduce,        \
      TI(ti_allreduce))                                                                         \
    A(IALLREDUCE, "iallreduce", PAS2P_AF_BYTES, 1, PAS2P_B_SENT, "Iallreduce", run_allreduce,     \
      NO_TI(NBC))                                                                               \
    A(GATHER, "gather", PAS2P_AF_ROOTED, 0, PAS2P_B_SENT, "Gather", run_gather, TI(ti_gather))    \
    A(IGATHER, "igather", PAS2P_AF_ROOTED, 1, PAS2P_B_SENT, "Igather", run_gather, NO_TI(NBC))    \
    A(SCATTER, "scatter", PAS2P_AF_ROOTED, 0, PAS2P_B_RECEIVED, "Scatter", run_scatter,           \
      TI(ti_gather))                                                                            \
    A(ISCATTER, "iscatter", PAS2P_AF_ROOTED, 1, PAS2P_B_RECEIVED, "Iscatter", run_scatter,        \
      NO_TI(NBC))                                                                               \
    A(ALLGATHER, "allgather", PAS2P_AF_BYTES, 0, PAS2P_B_SENT, "Allgather", run_allgather,        \
      TI(ti_allgather))                                                                         \
    A(IALLGATHER, "iallgather", PAS2P_AF_BYTES, 1, PAS2P_B_SENT, "Iallgather", run_allgather,     \
      NO_TI(NBC))                                                                               \
    A(ALLTOALL, "alltoall", PAS2P_AF_BYTES, 0, PAS2P_B_SENT, "Alltoall", run_alltoall,            \
      TI(ti_allgather))                                                                         \
    A(IALLTOALL, "ialltoall", PAS2P_AF_BYTES, 1, PAS2P_B_SENT, "Ialltoall", run_alltoall,         \
      NO_TI(NBC))                                                                               \
    A(REDUCE_SCATTER, "reduce_scatter", PAS2P_AF_BYTES, 0, PAS2P_B_SENT, "Reduce_scatter_block",  \
      run_reduce_scatter, TI(ti_reduce_scatter))                                                \
    A(IREDUCE_SCATTER, "ireduce_scatter", PAS2P_AF_BYTES, 1, PAS2P_B_SENT,                        \
      "Ireduce_scatter_block", run_reduce_scatter, NO_TI(NBC))                                  \
    A(SCAN, "scan", PAS2P_AF_BYTES, 0, PAS2P_B_SENT, "Scan", run_scan, NO_TI(SCANS))              \
    A(ISCAN, "iscan", PAS2P_AF_BYTES, 1, PAS2P_B_SENT, "Iscan", run_scan, NO_TI(NBC))             \
    A(EXSCAN, "exscan", PAS2P_AF_BYTES, 0, PAS2P_B_SENT, "Exscan", run_exscan, NO_TI(SCANS))      \
    A(IEXSCAN, "iexscan", PAS2P_AF_BYTES, 1, PAS2P_B_SENT, "Iexscan", run_exscan, NO_TI(NBC))     \
    A(GATHERV, "gatherv", PAS2P_AF_VROOTED, 0, PAS2P_B_SENT, "Gatherv", run_gatherv,              \
      TI(ti_gatherv))                                                                           \
    A(IGATHERV, "igatherv", PAS2P_AF_VROOTED, 1, PAS2P_B_SENT, "Igatherv", run_gatherv,           \
      NO_TI(NBC))                                                                               \
    A(SCATTERV, "scatterv", PAS2P_AF_VROOTED, 0, PAS2P_B_RECEIVED, "Scatterv", run_scatterv,      \
      TI(ti_scatterv))                                                                          \
    A(ISCATTERV, "iscatterv", PAS2P_AF_VROOTED, 1, PAS2P_B_RECEIVED, "Iscatterv", run_scatterv,   \
      NO_TI(NBC))                                                                               \
    A(ALLGATHERV, "allgatherv", PAS2P_AF_VBYTES, 0, PAS2P_B_SENT, "Allgatherv", run_allgatherv,   \
      TI(ti_allgatherv))                                                                        \
    A(IALLGATHERV, "iallgatherv", PAS2P_AF_VBYTES, 1, PAS2P_B_SENT, "Iallgatherv",                \
      run_allgatherv, NO_TI(NBC))                                                               \
    A(ALLTOALLV, "alltoallv", PAS2P_AF_VV, 0, PAS2P_B_NONE,                                    \
      "Alltoallv Alltoallw Neighbor_allgather Neighbor_allgatherv Neighbor_alltoall "           \
      "Neighbor_alltoallv Neighbor_alltoallw", run_alltoallv, TI(ti_alltoallv))                 \
    A(IALLTOALLV, "ialltoallv", PAS2P_AF_VV, 1, PAS2P_B_NONE,                                  \
      "Ialltoallv Ialltoallw Ineighbor_allgather Ineighbor_allgatherv Ineighbor_alltoall "      \
      "Ineighbor_alltoallv Ineighbor_alltoallw", run_alltoallv, NO_TI(NBC))                     \
    A(REDUCE_SCATTERV, "reduce_scatterv", PAS2P_AF_VCOUNTS, 0, PAS2P_B_RECEIVED, "Reduce_scatter", \
      run_reduce_scatterv, TI(ti_reduce_scatterv))                                              \
    A(IREDUCE_SCATTERV, "ireduce_scatterv", PAS2P_AF_VCOUNTS, 1, PAS2P_B_RECEIVED,                \
      "Ireduce_scatter", run_reduce_scatterv, NO_TI(NBC))                                       \
    A(PHASE, "phase", PAS2P_AF_PHASE, 0, PAS2P_B_NONE, "", run_none, TI(ti_phase))                \
    A(END, "end", PAS2P_AF_NONE, 0, PAS2P_B_NONE, "", run_none, TI(ti_phase))

/* the reasons of NO_TI rows */
#define PAS2P_TI_WHY_NBC "has no SimGrid time-independent action (stock replay has no non-blocking collective)"
#define PAS2P_TI_WHY_SCANS "has no SimGrid time-independent action (stock replay has no scan)"

/* MPI calls written as no action: the replayer runs its own Init/Finalize and creates
 * every communicator once, up front; a probe that does not block moves no data, a freed
 * request is completed by the replay's own waits, and a persistent request's init moves
 * nothing (its Starts are written as the isend or irecv of each request they start). */
#define PAS2P_ACTIONS_SILENT                                                                     \
    "Init Init_thread Finalize Abort Iprobe Request_free Comm_dup Comm_split Comm_create "     \
    "Comm_free Cart_create Cart_sub Comm_split_type Comm_dup_with_info Graph_create "         \
    "Dist_graph_create Dist_graph_create_adjacent Comm_create_group Intercomm_create "        \
    "Intercomm_merge Comm_idup Send_init Ssend_init Bsend_init Rsend_init Recv_init"

/* R("MPI_ calls", "why"): refused, the call named: "MPI_X cannot be replayed: why".
 * A Start/Startall is written as the isend or irecv of each request it starts: in a full
 * trace (actions.c, pas2p_actions_from_trace) from its payload, which names their init
 * events; in a signature from its event's `starts` (global phases), and refused without. */
#define PAS2P_ACTIONS_REFUSED(R)                                                                 \
    R("Start Startall",                                                                        \
      "the signature does not say which persistent requests it starts (per-rank phases, or "  \
      "a signature written before pas2p named them: analyze the trace again)")

/* ------------------------------------------------------------------ the rows, as data */

enum pas2p_action {
#define PAS2P_ENUM_(ID, name, f, nb, b, calls, run, ti) PAS2P_ACT_##ID,
    PAS2P_ACTIONS(PAS2P_ENUM_)
#undef PAS2P_ENUM_
    PAS2P_NACTIONS
};

typedef struct {
    const char *name;
    enum pas2p_fields fields;
    int nb;
    enum pas2p_bytes bytes;
    const char *calls;       /* space-separated MPI call names without MPI_ */
} pas2p_action_row_t;

static const pas2p_action_row_t pas2p_action_rows[PAS2P_NACTIONS] = {
#define PAS2P_ROW_(ID, name, f, nb, b, calls, run, ti) {name, f, nb, b, calls},
    PAS2P_ACTIONS(PAS2P_ROW_)
#undef PAS2P_ROW_
};

/* the action named `word`, or -1 */
static inline int pas2p_action_find(const char *word)
{
    for (int k = 0; k < PAS2P_NACTIONS; k++)
        if (!strcmp(pas2p_action_rows[k].name, word))
            return k;
    return -1;
}

/* does the space-separated list `calls` hold `name` (without MPI_)? */
static inline int pas2p_action_lists(const char *calls, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = calls; (p = strstr(p, name)); p += n)
        if ((p == calls || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
            return 1;
    return 0;
}

/* ------------------------------------------------------------------ one line, parsed */

/* An action line's fields (those its layout has; the rest 0).  COUNTS lists are
 * allocated: pas2p_action_clear frees them. */
typedef struct {
    int act;                 /* enum pas2p_action */
    int peer, tag, peer2, tag2;
    unsigned comm;
    long long bytes, rbytes; /* wait: N */
    long long pos;           /* wait: P, where the N requests start among the pending ones */
    double seconds;
    long long *counts[2];    /* COUNTS (VROOTED, VBYTES, VCOUNTS: [0]; VV: send, receive) */
    int ncounts[2];          /* 0 for `-` */
} pas2p_action_t;

static inline void pas2p_action_clear(pas2p_action_t *a)
{
    free(a->counts[0]);
    free(a->counts[1]);
    a->counts[0] = a->counts[1] = NULL;
    a->ncounts[0] = a->ncounts[1] = 0;
}

/* `-`, or comma-separated non-negative byte counts; p is advanced past them.  0, or -1 */
static inline int pas2p_action_counts(const char **pp, long long **out, int *n)
{
    const char *p = *pp + strspn(*pp, " \t");
    *out = NULL;
    *n = 0;
    if (*p == '-' && (p[1] == 0 || p[1] == ' ' || p[1] == '\n' || p[1] == '\r')) {
        *pp = p + 1;
        return 0;
    }
    int cap = 1;
    for (const char *s = p; *s && *s != ' ' && *s != '\n'; s++)
        cap += *s == ',';
    long long *v = malloc((size_t)cap * sizeof *v);
    if (!v)
        return -1;
    for (;;) {
        char *end;
        long long x = strtoll(p, &end, 10);
        if (end == p || x < 0 || *n == cap) {
            free(v);
            return -1;
        }
        v[(*n)++] = x;
        p = end;
        if (*p != ',')
            break;
        p++;
    }
    *out = v;
    *pp = p;
    return 0;
}

/* Parses the fields of action `act` (rest: the line after its name) into *a.  1, or 0
 * when malformed (a phase header is not parsed here: 1). */
static inline int pas2p_action_parse(int act, const char *p, pas2p_action_t *a)
{
    memset(a, 0, sizeof *a);
    a->act = act;
    int n = 0, want = 0, off = 0;
    switch (pas2p_action_rows[act].fields) {
    case PAS2P_AF_NONE: case PAS2P_AF_PHASE: break;
    case PAS2P_AF_SECONDS: want = 1; n = sscanf(p, "%lf%n", &a->seconds, &off); break;
    case PAS2P_AF_P2P:
        want = 4;
        n = sscanf(p, "%d %d %lld %u%n", &a->peer, &a->tag, &a->bytes, &a->comm, &off);
        break;
    case PAS2P_AF_PROBE: want = 3; n = sscanf(p, "%d %d %u%n", &a->peer, &a->tag, &a->comm, &off); break;
    case PAS2P_AF_SENDRECV:
        want = 7;
        n = sscanf(p, "%d %d %lld %d %d %lld %u%n", &a->peer, &a->tag, &a->bytes, &a->peer2,
                   &a->tag2, &a->rbytes, &a->comm, &off);
        break;
    case PAS2P_AF_COUNT:
        want = 1;
        n = sscanf(p, "%lld%n", &a->bytes, &off);
        if (n == 1) { /* [P] */
            int o2 = 0;
            if (sscanf(p + off, "%lld%n", &a->pos, &o2) == 1 && a->pos >= 0)
                off += o2;
            else
                a->pos = 0;
        }
        break;
    case PAS2P_AF_COMM: want = 1; n = sscanf(p, "%u%n", &a->comm, &off); break;
    case PAS2P_AF_ROOTED: case PAS2P_AF_VROOTED:
        want = 3;
        n = sscanf(p, "%lld %d %u%n", &a->bytes, &a->peer, &a->comm, &off);
        break;
    case PAS2P_AF_BYTES: case PAS2P_AF_VBYTES:
        want = 2;
        n = sscanf(p, "%lld %u%n", &a->bytes, &a->comm, &off);
        break;
    case PAS2P_AF_VV: case PAS2P_AF_VCOUNTS: want = 1; n = sscanf(p, "%u%n", &a->comm, &off); break;
    }
    if (n != want || a->bytes < 0 || a->rbytes < 0)
        return 0;
    p += off;
    enum pas2p_fields f = pas2p_action_rows[act].fields;
    int lists = f == PAS2P_AF_VV ? 2 : f == PAS2P_AF_VROOTED || f == PAS2P_AF_VBYTES || f == PAS2P_AF_VCOUNTS;
    for (int k = 0; k < lists; k++)
        if (pas2p_action_counts(&p, &a->counts[k], &a->ncounts[k]) ||
            (!a->ncounts[k] && f != PAS2P_AF_VROOTED)) {
            pas2p_action_clear(a);
            return 0;
        }
    if (f != PAS2P_AF_PHASE && p[strspn(p, " \t\r\n")]) {
        pas2p_action_clear(a);
        return 0;
    }
    return 1;
}

#endif
