/* `pas2p dump DIR [--rank R]`
 *
 * Without --rank: the structural profile of the run (reference/nas-structural-profile.md):
 * per rank, events, compute vs MPI time and bytes; then per MPI call over all ranks,
 * count, bytes and time.  With --rank R: one line per event of rank R, in order. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pas2p_cli.h"
#include "pas2p_trace.h"

static const char usage[] =
    "usage: pas2p dump DIR [--rank R]\n"
    "\n"
    "Without --rank: per-rank summary (events; compute vs MPI time from MPI_Init's return to\n"
    "MPI_Finalize, the AET window; bytes, each message once: a send at its post or, persistent,\n"
    "at each completion, a receive at its completion) and per-call totals over all ranks (the\n"
    "events' own fields: a Wait's bytes are those of the sends it completed), with the calls\n"
    "counted and timed but not traced (one-sided, MPI-IO, and neighbourhood collectives in\n"
    "traces made before pas2p traced them; their time is in compute_s).  With --rank R: one\n"
    "line per event of rank R, in order:\n"
    "  ordinal call peer tag comm bytes compute_ns call_ns [counters] [flags] [details]\n"
    "peer is a world rank (ANY = unresolved MPI_ANY_SOURCE, NULL = MPI_PROC_NULL, - = none).\n"
    "flags: error; any_source, any_tag: a receive posted with MPI_ANY_SOURCE, MPI_ANY_TAG (peer\n"
    "and tag are then the actual ones when the call resolved them); tested: a wait whose every\n"
    "request a Test* had looked at; on a completion's request, (src=..,tag=..,NB,any_source,\n"
    "any_tag).\n";

static void fmt_peer(char *out, size_t n, int32_t p)
{
    if (p >= 0)
        snprintf(out, n, "%d", p);
    else
        snprintf(out, n, "%s", p == PAS2P_PEER_ANY ? "ANY" : p == PAS2P_PEER_NULL ? "NULL" : "-");
}

static void fmt_tag(char *out, size_t n, int32_t t)
{
    if (t >= 0)
        snprintf(out, n, "%d", t);
    else
        snprintf(out, n, "%s", t == PAS2P_TAG_ANY ? "ANY" : "-");
}

static void fmt_comm(char *out, size_t n, uint32_t c)
{
    if (c == PAS2P_COMM_WORLD)
        snprintf(out, n, "WORLD");
    else if (c == PAS2P_COMM_SELF)
        snprintf(out, n, "SELF");
    else if (c == PAS2P_COMM_NONE)
        snprintf(out, n, "-");
    else
        snprintf(out, n, "%08x", c);
}

static void print_details(const pas2p_event_view_t *v, int klass)
{
    const pas2p_event_t *e = &v->ev;
    if (e->peer2 != PAS2P_PEER_NONE || e->tag2 != PAS2P_TAG_NONE) {
        char p[16], t[16];
        fmt_peer(p, sizeof p, e->peer2);
        fmt_tag(t, sizeof t, e->tag2);
        printf(" from=%s rtag=%s rbytes=%" PRIu64, p, t, e->rbytes);
    } else if (e->rbytes && klass != PAS2P_CLASS_COMPLETION) {
        printf(" rbytes=%" PRIu64, e->rbytes);
    }
    if (!v->payload)
        return;
    pas2p_comm_view_t cv;
    if (klass == PAS2P_CLASS_COMPLETION) {
        uint32_t n;
        const pas2p_completion_t *c = pas2p_event_completions(v, &n);
        printf(" done=");
        for (uint32_t i = 0; i < n; i++) {
            char s[16], t[16];
            fmt_peer(s, sizeof s, c[i].source);
            fmt_tag(t, sizeof t, c[i].tag);
            if (c[i].post == UINT64_MAX)
                printf("%s?", i ? "," : "");
            else
                printf("%s%" PRIu64, i ? "," : "", c[i].post);
            if (c[i].index)
                printf(".%u", c[i].index);
            if (c[i].source != PAS2P_PEER_NONE)
                printf("(src=%s,tag=%s,%" PRIu64 "B%s%s)", s, t, c[i].bytes,
                       c[i].flags & PAS2P_EV_ANY_SOURCE ? ",any_source" : "",
                       c[i].flags & PAS2P_EV_ANY_TAG ? ",any_tag" : "");
        }
    } else if (klass == PAS2P_CLASS_START) {
        const uint64_t *o = v->payload;
        printf(" init=");
        for (uint32_t i = 0; i < e->aux && (i + 1) * 8 <= e->payload; i++)
            printf("%s%" PRIu64, i ? "," : "", o[i]);
    } else if (pas2p_event_comm_def(v, &cv)) {
        char c[16];
        fmt_comm(c, sizeof c, cv.id);
        printf(" new=%s size=%u members=", c, cv.size);
        for (uint32_t i = 0; i < cv.size; i++)
            printf("%s%d", i ? "," : "", cv.members[i]);
        if (cv.ndims) {
            printf(" dims=");
            for (uint32_t i = 0; i < cv.ndims; i++)
                printf("%s%d", i ? "x" : "", cv.dims[i]);
            printf(" periods=");
            for (uint32_t i = 0; i < cv.ndims; i++)
                printf("%s%d", i ? "," : "", cv.periods[i]);
            printf(" coords=");
            for (uint32_t i = 0; i < cv.ndims; i++)
                printf("%s%d", i ? "," : "", cv.coords[i]);
        }
    } else if (klass == PAS2P_CLASS_COLLECTIVE && e->payload >= sizeof(pas2p_vcounts_t)) {
        const pas2p_vcounts_t *h = v->payload;
        const uint64_t *c = (const uint64_t *)(h + 1);
        if (sizeof *h + 8 * ((size_t)h->nsend + h->nrecv) > e->payload)
            return;
        if (h->nsend) {
            printf(" sendcounts=");
            for (uint32_t i = 0; i < h->nsend; i++)
                printf("%s%" PRIu64, i ? "," : "", c[i]);
        }
        if (h->nrecv) {
            printf(" recvcounts=");
            for (uint32_t i = 0; i < h->nrecv; i++)
                printf("%s%" PRIu64, i ? "," : "", c[h->nsend + i]);
        }
    }
}

static int dump_rank(const char *dir, int rank, const pas2p_manifest_t *m)
{
    char path[PATH_MAX], err[1024];
    pas2p_rank_path(dir, rank, path, sizeof path);
    pas2p_rank_reader_t *r = pas2p_rank_reader_open(path, err, sizeof err);
    if (!r) {
        pas2p_err("dump", "%s", err);
        return PAS2P_EXIT_USAGE;
    }
    const pas2p_file_header_t *h = pas2p_rank_reader_header(r);
    printf("# rank %u of %u on %s, pid %u, counters:", h->rank, h->np, h->host, h->pid);
    if (!h->ncounters)
        printf(" none");
    for (uint32_t i = 0; i < h->ncounters; i++)
        printf(" %s", h->counters[i]);
    printf("\n# ordinal call peer tag comm bytes compute_ns call_ns%s flags details\n",
           h->ncounters ? " counters" : "");
    pas2p_event_view_t v;
    int rc;
    while ((rc = pas2p_rank_reader_next(r, &v)) == 1) {
        const pas2p_event_t *e = &v.ev;
        char p[16], t[16], c[16];
        fmt_peer(p, sizeof p, e->peer);
        fmt_tag(t, sizeof t, e->tag);
        fmt_comm(c, sizeof c, e->comm);
        printf("%" PRIu64 " %s %s %s %s %" PRIu64 " %" PRIu64 " %" PRIu64, v.ordinal,
               pas2p_call_name(e->call), p, t, c, e->bytes, e->compute_ns, e->t_end - e->t_start);
        for (uint32_t i = 0; i < h->ncounters; i++)
            printf(" %" PRIu64, v.counters[i]);
        if (e->flags & PAS2P_EV_ERROR)
            printf(" error");
        if (e->flags & PAS2P_EV_ANY_SOURCE)
            printf(" any_source");
        if (e->flags & PAS2P_EV_ANY_TAG)
            printf(" any_tag");
        if (e->flags & PAS2P_EV_TESTED)
            printf(" tested");
        if (e->thread)
            printf(" thread=%u", e->thread);
        print_details(&v, pas2p_call_class(e->call));
        putchar('\n');
    }
    if (rc < 0)
        pas2p_err("dump", "%s", pas2p_rank_reader_error(r));
    else if (m && pas2p_manifest_check_count(m, rank, pas2p_rank_reader_count(r), err, sizeof err))
        pas2p_err("dump", "%s", err), rc = -1;
    pas2p_rank_reader_close(r);
    return rc < 0 ? PAS2P_EXIT_USAGE : 0; /* the trace is damaged: a bad input */
}

typedef struct {
    uint64_t count, bytes, rbytes, ns;
} call_stat_t;

static int persistent_init(unsigned call)
{
    return call == PAS2P_CALL_Send_init || call == PAS2P_CALL_Ssend_init ||
           call == PAS2P_CALL_Bsend_init || call == PAS2P_CALL_Rsend_init ||
           call == PAS2P_CALL_Recv_init;
}

/* The bytes an event moved, each message counted once: a send at its post (a blocking
 * call, an Isend), a persistent send at each completion of a Start of it (its init only
 * describes it), a receive at its completion (an Irecv's or Recv_init's rbytes are the
 * capacity posted, not what arrived), a broadcast sent by its root and received by the
 * others; nothing for a probe (the message it saw is counted where it is received) or
 * on MPI_COMM_SELF. */
static void moved(const pas2p_event_view_t *v, int rank, uint64_t *sent, uint64_t *recv)
{
    const pas2p_event_t *e = &v->ev;
    if (persistent_init(e->call) || e->call == PAS2P_CALL_Request_free || /* (a freed request's */
        e->call == PAS2P_CALL_Probe || e->call == PAS2P_CALL_Iprobe ||   /* entry, a probe's  */
        e->comm == PAS2P_COMM_SELF)                                       /* size: no message) */
        return;
    if (e->call == PAS2P_CALL_Bcast || e->call == PAS2P_CALL_Ibcast) { /* (both: the size) */
        if (e->peer == rank)
            *sent += e->bytes;
        else
            *recv += e->rbytes;
        return;
    }
    if (pas2p_call_class(e->call) == PAS2P_CLASS_COMPLETION) {
        uint32_t n;
        const pas2p_completion_t *c = pas2p_event_completions(v, &n);
        for (uint32_t i = 0; i < n; i++)
            if (persistent_init(c[i].call) && c[i].call != PAS2P_CALL_Recv_init)
                *sent += c[i].bytes;
        *recv += e->rbytes;
        return;
    }
    *sent += e->bytes;
    if (e->call != PAS2P_CALL_Irecv)
        *recv += e->rbytes;
}

static int summary(const char *dir)
{
    pas2p_manifest_t m;
    char err[1024];
    if (pas2p_manifest_read(dir, &m, err, sizeof err)) {
        pas2p_err("dump", "%s", err);
        return PAS2P_EXIT_USAGE;
    }
    printf("trace = %s\ncommand = %s\nnp = %d\ncounters = %s\nthread_level = %s\n", dir, m.command,
           m.np, m.counters, m.thread_level);
    printf("AET = %.6f s\nevents = %" PRIu64 "\n\n", m.aet_s, m.events);
    call_stat_t *calls = calloc(PAS2P_CALL_LIMIT, sizeof *calls);
    if (!calls) {
        pas2p_manifest_free(&m);
        pas2p_err("dump", "out of memory");
        return PAS2P_EXIT_FAIL;
    }
    int bad = 0;
    printf("%6s %12s %12s %12s %7s %14s %14s  %s\n", "rank", "events", "compute_s", "mpi_s", "mpi_%",
           "bytes_sent", "bytes_recv", "host");
    for (int rank = 0; rank < m.np; rank++) {
        char path[PATH_MAX];
        pas2p_rank_path(dir, rank, path, sizeof path);
        pas2p_rank_reader_t *r = pas2p_rank_reader_open(path, err, sizeof err);
        if (!r) {
            pas2p_err("dump", "%s", err);
            bad = 1;
            continue;
        }
        uint64_t comp = 0, mpi = 0, sent = 0, recv = 0;
        pas2p_event_view_t v;
        int rc;
        while ((rc = pas2p_rank_reader_next(r, &v)) == 1) {
            const pas2p_event_t *e = &v.ev;
            uint64_t ns = e->t_end - e->t_start;
            int init = e->call == PAS2P_CALL_Init || e->call == PAS2P_CALL_Init_thread;
            comp += e->compute_ns;
            mpi += init ? 0 : ns; /* the profile covers the AET window: after MPI_Init */
            moved(&v, rank, &sent, &recv);
            call_stat_t *s = &calls[e->call];
            s->count++;
            s->bytes += e->bytes;
            s->rbytes += e->rbytes;
            s->ns += ns;
        }
        if (rc < 0) {
            pas2p_err("dump", "%s", pas2p_rank_reader_error(r));
            bad = 1;
        } else if (pas2p_manifest_check_count(&m, rank, pas2p_rank_reader_count(r), err, sizeof err)) {
            pas2p_err("dump", "%s", err);
            bad = 1;
        }
        double tot = (double)(comp + mpi);
        printf("%6d %12" PRIu64 " %12.6f %12.6f %7.2f %14" PRIu64 " %14" PRIu64 "  %s\n", rank,
               pas2p_rank_reader_count(r), comp * 1e-9, mpi * 1e-9, tot > 0 ? 100.0 * mpi / tot : 0.0,
               sent, recv, m.hosts[rank]);
        pas2p_rank_reader_close(r);
    }
    printf("\n%-26s %12s %16s %16s %12s\n", "call", "count", "bytes_sent", "bytes_recv", "time_s");
    for (unsigned c = 1; c < PAS2P_CALL_LIMIT; c++)
        if (calls[c].count)
            printf("%-26s %12" PRIu64 " %16" PRIu64 " %16" PRIu64 " %12.6f\n", pas2p_call_name(c),
                   calls[c].count, calls[c].bytes, calls[c].rbytes, calls[c].ns * 1e-9);
    /* the calls counted and timed, not traced (their bytes are not known) */
    const uint64_t *ucnt[3] = {m.untraced, m.untraced_io, m.untraced_nbr};
    const double *usec[3] = {m.untraced_s, m.untraced_io_s, m.untraced_nbr_s};
    static const char *const uname[3] = {"one-sided (not traced)", "MPI-IO (not traced)",
                                         "neighbourhood (not traced)"};
    for (int k = 0; k < 3; k++) {
        uint64_t n = 0;
        double t = 0;
        for (int r = 0; r < m.np; r++) {
            n += ucnt[k] ? ucnt[k][r] : 0;
            t += usec[k] ? usec[k][r] : 0;
        }
        if (n)
            printf("%-26s %12" PRIu64 " %16s %16s %12.6f\n", uname[k], n, "-", "-", t);
    }
    char note[1200];
    if (pas2p_manifest_untraced_note(&m, note, sizeof note))
        printf("\nnote: %s\n", note);
    free(calls);
    pas2p_manifest_free(&m);
    return bad ? PAS2P_EXIT_USAGE : 0; /* a damaged rank file: a bad input */
}

int pas2p_cmd_dump(int argc, char **argv)
{
    long rank = -1;
    const pas2p_opt_t opts[] = {
        {.name = "--rank", .kind = PAS2P_OPT_LONG, .dst = &rank, .min = 0, .max = INT_MAX,
         .what = "a rank number"},
    };
    const pas2p_cli_t cli = {.cmd = "dump", .usage = usage, .opts = opts,
                             .nopts = sizeof opts / sizeof *opts, .npos_max = 1,
                             .pos_what = "one trace directory"};
    pas2p_args_t a;
    int rc = pas2p_cli_parse(&cli, argc, argv, &a);
    if (rc)
        return rc == PAS2P_CLI_HELP ? 0 : rc;
    const char *dir = a.npos ? a.pos[0] : NULL;
    if (!dir) {
        fputs(usage, stderr);
        return PAS2P_EXIT_USAGE;
    }
    if (access(dir, R_OK | X_OK)) {
        pas2p_err("dump", "cannot read trace directory %s", dir);
        return PAS2P_EXIT_USAGE;
    }
    if (rank >= 0) { /* a trace without manifest (killed run) can still be dumped */
        pas2p_manifest_t m;
        char err[1024];
        int have = !pas2p_manifest_read(dir, &m, err, sizeof err);
        if (have && rank >= m.np) {
            pas2p_err("dump", "rank %ld out of range: the trace has %d ranks", rank, m.np);
            pas2p_manifest_free(&m);
            return PAS2P_EXIT_USAGE;
        }
        rc = dump_rank(dir, (int)rank, have ? &m : NULL);
        if (have)
            pas2p_manifest_free(&m);
        return rc;
    }
    return summary(dir);
}
