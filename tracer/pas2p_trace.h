/* pas2p tracer module: the trace format, its reader, and the `trace`/`dump` commands.
 *
 * A trace is a directory written by libpas2p (the PMPI interposition library):
 *   manifest            text, "key = value" per line (see tracer/FORMAT.md)
 *   rank-NNNNN.p2t      one binary file per MPI rank (world rank NNNNN)
 *
 * A rank file is a fixed header followed by compactly encoded event records (varints,
 * fields present only when they differ from their default, times as deltas), typically
 * 10-20 bytes each.  The exact layout, byte by byte, is documented in tracer/FORMAT.md;
 * this header is its C mirror and the only door other modules use: the reader decodes
 * every record into a pas2p_event_t (pas2p_rank_reader_*), and pas2p_record_encode is
 * the one encoder (libpas2p's hot path and the tests use it).
 *
 * This header does not depend on MPI: readers (pas2p, the analyzer, tests) link
 * libpas2p_format, not the MPI library.
 */
#ifndef PAS2P_TRACE_H
#define PAS2P_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pas2p_calls.h" /* generated from tracer/mpi_calls.tbl: enum pas2p_call, names */

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- format constants */
#define PAS2P_TRACE_MAGIC "PAS2PTRC"      /* 8 bytes, no NUL stored */
#include <string.h>
#define PAS2P_TRACE_VERSION 2u            /* bump on any incompatible layout change (2: wildcard
                                             receive flags, tracer/FORMAT.md "Versioning") */
#define PAS2P_MAX_COUNTERS 8
#define PAS2P_COUNTER_NAME_LEN 32
#define PAS2P_HOST_LEN 64
#define PAS2P_MANIFEST "manifest"
/* written in the trace directory by each process that MPI_Comm_spawn started (one line:
 * its pid and command line): such a process is not traced, and a trace directory that
 * holds this file is refused by every reader (pas2p_manifest_read), since its run is more
 * than the one MPI_COMM_WORLD it traced */
#define PAS2P_SPAWNED "spawned"
#define PAS2P_RANK_FILE_FMT "rank-%05d.p2t"

/* peer / tag sentinels (real values are world ranks >= 0 and MPI tags >= 0) */
#define PAS2P_PEER_NONE (-1)    /* the call has no peer */
#define PAS2P_PEER_ANY (-2)     /* MPI_ANY_SOURCE, resolved in the completing event */
#define PAS2P_PEER_NULL (-3)    /* MPI_PROC_NULL */
#define PAS2P_TAG_NONE (-1)
#define PAS2P_TAG_ANY (-2)      /* MPI_ANY_TAG, resolved in the completing event */
#define PAS2P_TAG_COUNTING (-4) /* signatures only: a tag that counts up from call to call
                                   (pas2p_tag_count) */

#define PAS2P_COMM_WORLD 0u
#define PAS2P_COMM_SELF 1u
#define PAS2P_COMM_NONE 0xffffffffu

/* event flags */
enum {
    PAS2P_EV_ERROR = 1u << 0,      /* the MPI call returned an error code */
    PAS2P_EV_FORTRAN = 1u << 1,    /* called through the Fortran bindings */
    PAS2P_EV_FLAG_TRUE = 1u << 2,  /* Test*, Iprobe: the returned flag was true */
    PAS2P_EV_NO_COUNTERS = 1u << 3, /* counters were not read for this event (other thread) */
    /* the receive was posted with a wildcard (Recv, Probe, Iprobe, Irecv, Recv_init, and
     * the receive side of Sendrecv(_replace)); peer/tag (peer2/tag2) still hold the actual
     * source/tag when the call resolved them.  Also set in pas2p_completion_t.flags. */
    PAS2P_EV_ANY_SOURCE = 1u << 4, /* posted with MPI_ANY_SOURCE */
    PAS2P_EV_ANY_TAG = 1u << 5,    /* posted with MPI_ANY_TAG */
    /* MPI_Wait, Waitany, Waitall: every request it completed had been looked at by a Test*
     * call that did not complete it (a wait for what a test did not find done; set by
     * tracers whose manifest says waits_tested = 1) */
    PAS2P_EV_TESTED = 1u << 6
};

/* rank file header: written once at MPI_Init */
typedef struct {
    char magic[8];          /* PAS2P_TRACE_MAGIC */
    uint32_t version;       /* PAS2P_TRACE_VERSION */
    uint32_t header_size;   /* bytes from file start to the first record */
    uint32_t rank, np;      /* MPI_COMM_WORLD rank and size */
    uint32_t ncounters;     /* counter deltas stored per event (0: time only) */
    uint32_t thread_level;  /* 0 single, 1 funneled, 2 serialized, 3 multiple */
    uint64_t clock_res_ns;  /* clock_getres(CLOCK_MONOTONIC) */
    uint64_t t_init;        /* ns, CLOCK_MONOTONIC, when MPI_Init returned */
    uint32_t pid;
    uint32_t reserved;
    char host[PAS2P_HOST_LEN];
    char counters[PAS2P_MAX_COUNTERS][PAS2P_COUNTER_NAME_LEN];
} pas2p_file_header_t;

/* One event, decoded (the in-memory form; on disk it is encoded, see FORMAT.md). */
typedef struct {
    uint32_t size;          /* bytes of the encoded record in the file */
    uint16_t call;          /* enum pas2p_call */
    uint16_t flags;         /* PAS2P_EV_* */
    int32_t peer;           /* world rank: dest of a send, source of a receive (actual, from
                               the status, when the call completes it), root of a rooted
                               collective; PAS2P_PEER_* otherwise */
    int32_t tag;            /* message tag (actual when known), PAS2P_TAG_* otherwise */
    int32_t peer2;          /* Sendrecv(_replace): world rank of the source; else NONE */
    int32_t tag2;           /* Sendrecv(_replace): receive tag; else NONE */
    uint32_t comm;          /* communicator id, identical on every member rank */
    uint32_t aux;           /* per call: new comm id (comm creation), number of entries
                               (completions, Start/Startall), 0 otherwise */
    uint64_t bytes;         /* bytes sent (p2p send, this rank's collective contribution) */
    uint64_t rbytes;        /* bytes received (actual for completed receives) */
    uint64_t t_start;       /* ns, CLOCK_MONOTONIC: call entered */
    uint64_t t_end;         /* ns: call returned */
    uint64_t compute_ns;    /* t_start - end of this thread's previous MPI call */
    uint32_t thread;        /* tracer thread index, 0 = the thread that initialised MPI */
    uint32_t payload;       /* payload bytes */
} pas2p_event_t;

/* Payload entry of completion calls (Wait*, Test*, Request_free): one per request
 * completed by this call, in the order MPI reports them. */
typedef struct {
    uint64_t post;          /* ordinal of the event that started the request (Isend, Irecv,
                               I-collective, Start/Startall); UINT64_MAX if unknown */
    uint32_t index;         /* which request of that event (Startall), else 0 */
    uint16_t call;          /* call that created the request (MPI_Isend, MPI_Recv_init...) */
    uint16_t flags;         /* PAS2P_EV_ANY_SOURCE, PAS2P_EV_ANY_TAG: the receive was posted
                               with that wildcard (as the flags of its Irecv/Recv_init) */
    int32_t source;         /* receives: actual source, world rank; else PAS2P_PEER_NONE */
    int32_t tag;            /* receives: actual tag; else PAS2P_TAG_NONE */
    uint64_t bytes;         /* receives: bytes actually received; sends: bytes sent */
} pas2p_completion_t;

/* Payload of communicator-creating calls (aux = new comm id, PAS2P_COMM_NONE when this
 * rank got MPI_COMM_NULL): a header, then `size` int32 world ranks in new-comm rank
 * order, then for Cartesian communicators `ndims` int32 each of dims, periods, coords. */
typedef struct {
    uint32_t size;
    uint32_t ndims;         /* 0: not Cartesian */
} pas2p_comm_def_t;

/* Payload of v-collectives (Gatherv, Scatterv, Allgatherv, Alltoallv/w, Reduce_scatter):
 * a header, then nsend uint64 byte counts per peer (comm rank order), then nrecv. */
typedef struct {
    uint32_t nsend;
    uint32_t nrecv;
} pas2p_vcounts_t;

/* Start/Startall payload: `aux` uint64 ordinals of the persistent-request init events. */

/* ---------------------------------------------------------------- writing */

/* Fills a rank file header (magic, version, sizes); the caller sets the rest. */
void pas2p_header_init(pas2p_file_header_t *h, uint32_t rank, uint32_t np, uint32_t ncounters);

/* Record encoding (FORMAT.md, "Records").  State carried from one record to the next. */
typedef struct {
    uint64_t prev_end;      /* t_end of the previous record in the file (0 before the first) */
    uint32_t prev_comm;     /* comm of the previous record (PAS2P_COMM_WORLD before the first) */
} pas2p_codec_t;

enum { /* field mask, second byte of a record */
    PAS2P_F_PEER = 1u << 0, PAS2P_F_TAG = 1u << 1, PAS2P_F_COMM = 1u << 2,
    PAS2P_F_BYTES = 1u << 3, PAS2P_F_RBYTES = 1u << 4, PAS2P_F_PEER2 = 1u << 5,
    PAS2P_F_EXT = 1u << 6, PAS2P_F_COUNTERS = 1u << 7
};
enum { /* extension mask */
    PAS2P_X_FLAGS = 1u << 0, PAS2P_X_AUX = 1u << 1, PAS2P_X_THREAD = 1u << 2,
    PAS2P_X_PAYLOAD = 1u << 3, PAS2P_X_COMPUTE = 1u << 4
};

/* Upper bound of an encoded record's size. */
static inline size_t pas2p_record_max(uint32_t ncounters, size_t payload)
{
    return 5 + 2 + 10 + 10 + 5 + 5 + 4 + 10 + 10 + 5 + 5 + 1 + 3 + 5 + 5 + 5 + 10 +
           10 * (size_t)ncounters + payload;
}

static inline unsigned char *pas2p_put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static inline uint64_t pas2p_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* Encodes e (+ counters, payload) at dst, which has pas2p_record_max() bytes; sets
 * e->size and e->payload; returns the record size.  counters may be NULL (no counters
 * read for this event).  Times must be ns with t_end >= t_start. */
static inline __attribute__((always_inline)) size_t pas2p_record_encode(unsigned char *dst, pas2p_event_t *e,
                                         const uint64_t *counters, uint32_t ncounters,
                                         const void *payload, size_t payload_len,
                                         pas2p_codec_t *st)
{
    unsigned char *p = dst + 1; /* length byte(s) go first, written at the end */
    unsigned mask = 0, x = 0;
    int64_t dt = (int64_t)(e->t_start - st->prev_end);
    e->payload = (uint32_t)payload_len;
    if (e->peer != -1) mask |= PAS2P_F_PEER;
    if (e->tag != -1) mask |= PAS2P_F_TAG;
    if (e->comm != st->prev_comm) mask |= PAS2P_F_COMM;
    if (e->bytes) mask |= PAS2P_F_BYTES;
    if (e->rbytes) mask |= PAS2P_F_RBYTES;
    if (e->peer2 != -1 || e->tag2 != -1) mask |= PAS2P_F_PEER2;
    if (counters && ncounters) mask |= PAS2P_F_COUNTERS;
    if (e->flags) x |= PAS2P_X_FLAGS;
    if (e->aux) x |= PAS2P_X_AUX;
    if (e->thread) x |= PAS2P_X_THREAD;
    if (payload_len) x |= PAS2P_X_PAYLOAD;
    if (e->compute_ns != (uint64_t)dt) x |= PAS2P_X_COMPUTE;
    if (x) mask |= PAS2P_F_EXT;
    *p++ = (unsigned char)e->call;
    *p++ = (unsigned char)mask;
    p = pas2p_put_varint(p, pas2p_zigzag(dt));
    p = pas2p_put_varint(p, e->t_end - e->t_start);
    if (mask & PAS2P_F_PEER) p = pas2p_put_varint(p, pas2p_zigzag(e->peer));
    if (mask & PAS2P_F_TAG) p = pas2p_put_varint(p, pas2p_zigzag(e->tag));
    if (mask & PAS2P_F_COMM) { memcpy(p, &e->comm, 4); p += 4; }
    if (mask & PAS2P_F_BYTES) p = pas2p_put_varint(p, e->bytes);
    if (mask & PAS2P_F_RBYTES) p = pas2p_put_varint(p, e->rbytes);
    if (mask & PAS2P_F_PEER2) {
        p = pas2p_put_varint(p, pas2p_zigzag(e->peer2));
        p = pas2p_put_varint(p, pas2p_zigzag(e->tag2));
    }
    if (x) {
        *p++ = (unsigned char)x;
        if (x & PAS2P_X_FLAGS) p = pas2p_put_varint(p, e->flags);
        if (x & PAS2P_X_AUX) p = pas2p_put_varint(p, e->aux);
        if (x & PAS2P_X_THREAD) p = pas2p_put_varint(p, e->thread);
        if (x & PAS2P_X_PAYLOAD) p = pas2p_put_varint(p, payload_len);
        if (x & PAS2P_X_COMPUTE) p = pas2p_put_varint(p, e->compute_ns);
    }
    if (mask & PAS2P_F_COUNTERS)
        for (uint32_t i = 0; i < ncounters; i++)
            p = pas2p_put_varint(p, counters[i]);
    if (payload_len) {
        memcpy(p, payload, payload_len);
        p += payload_len;
    }
    size_t n = (size_t)(p - dst);
    if (n <= 254) {
        dst[0] = (unsigned char)n;
    } else { /* long record: 0xff, u32 length, then the body moved up by 4 */
        memmove(dst + 5, dst + 1, n - 1);
        n += 4;
        dst[0] = 0xff;
        uint32_t n32 = (uint32_t)n;
        memcpy(dst + 1, &n32, 4);
    }
    e->size = (uint32_t)n;
    st->prev_end = e->t_end;
    st->prev_comm = e->comm;
    return n;
}

/* ---------------------------------------------------------------- reading */

/* A decoded event: the fixed record, its counters and a view of its payload.  The
 * pointers are valid until the next call on the same reader. */
typedef struct {
    uint64_t ordinal;                   /* 0-based index of the event in its rank file */
    pas2p_event_t ev;
    const uint64_t *counters;           /* header.ncounters values; NULL if none were read */
    const void *payload;                /* ev.payload bytes, 8-byte aligned (NULL if none) */
} pas2p_event_view_t;

typedef struct pas2p_rank_reader pas2p_rank_reader_t;

/* Validated views of payloads (the only place their layout is decoded). */
typedef struct {
    uint32_t id;                        /* the new communicator (event's aux) */
    uint32_t size, ndims;
    const int32_t *members;             /* size world ranks, communicator rank order */
    const int32_t *dims, *periods, *coords; /* ndims each, NULL if not Cartesian */
} pas2p_comm_view_t;

/* A communicator-creating event this rank is a member of: 1 and *out filled; 0 if the
 * event defines no communicator for this rank (other call, MPI_COMM_NULL, bad payload). */
int pas2p_event_comm_def(const pas2p_event_view_t *v, pas2p_comm_view_t *out);

/* The completion entries of a Wait, Test or Request_free event (*n of them, clamped to what
 * the payload holds); NULL with *n = 0 if none. */
const pas2p_completion_t *pas2p_event_completions(const pas2p_event_view_t *v, uint32_t *n);

/* Opens a rank file.  On failure returns NULL and writes a one-line reason naming the
 * file into err (the caller prints it). */
pas2p_rank_reader_t *pas2p_rank_reader_open(const char *path, char *err, size_t errlen);
const pas2p_file_header_t *pas2p_rank_reader_header(const pas2p_rank_reader_t *r);
/* Times as read: one timeline per rank, whatever thread made a call (FORMAT.md, "Reading
 * times"): each event's compute_ns is the time since the latest end of any earlier event of
 * the file, its t_start no earlier than that (t_end too), so the rank's computation and call
 * times add up to its elapsed time as with one thread -- where threads overlapped, the
 * record's own values (a thread's computation since its own previous call) counted the
 * overlap twice.  The same values as the records' for a rank whose calls came from one
 * thread.  raw = 1 (before the first read): the records' own values. */
void pas2p_rank_reader_raw_times(pas2p_rank_reader_t *r, int raw);
/* Next event: 1 = one read into *out, 0 = clean end of file, -1 = the file ends in the
 * middle of a record or a record is malformed (see pas2p_rank_reader_error). */
int pas2p_rank_reader_next(pas2p_rank_reader_t *r, pas2p_event_view_t *out);
/* The same, for a second pass that already knows each event's identity: peers, tags and
 * byte counts are skipped (left at their "none" values) and no payload is copied
 * (ev.payload = 0); times, call, comm, aux, flags and counters are decoded.  A record is
 * checked as fully as by pas2p_rank_reader_next. */
int pas2p_rank_reader_next_times(pas2p_rank_reader_t *r, pas2p_event_view_t *out);
/* Up to max (at most PAS2P_READ_BATCH) events into out[0..n): n >= 1 read, 0 = clean end,
 * -1 = error as above (events before a failing record are returned first, the error by the
 * next call).  times_only: as pas2p_rank_reader_next_times, else as pas2p_rank_reader_next.
 * A batch ends after an event with a payload; every view's pointers are valid until the
 * next call on the same reader. */
#define PAS2P_READ_BATCH 64
int pas2p_rank_reader_next_batch(pas2p_rank_reader_t *r, pas2p_event_view_t *out, int max,
                                 int times_only);
/* What a times-only pass needs of an event, read as pas2p_rank_reader_next_times reads it
 * (the same records accepted and refused): up to max events into out, returns as
 * pas2p_rank_reader_next_batch. */
typedef struct {
    uint64_t ordinal, compute_ns, t_start, t_end;
    uint64_t counter0;                  /* the first counter, 0 if none were read */
    uint16_t call;
    uint16_t flags;                     /* the event's flags and aux (pas2p_number_event) */
    uint32_t aux;
} pas2p_event_times_t;
int pas2p_rank_reader_next_times_batch(pas2p_rank_reader_t *r, pas2p_event_times_t *out, int max);
const char *pas2p_rank_reader_error(const pas2p_rank_reader_t *r);
uint64_t pas2p_rank_reader_count(const pas2p_rank_reader_t *r); /* events read so far */
void pas2p_rank_reader_close(pas2p_rank_reader_t *r);

/* The manifest, parsed. */
typedef struct {
    uint32_t version;
    int np;
    char command[4096];
    char program[4096];     /* rank 0's own command line ("" in older traces) */
    char tracer[64];
    char counters[256];     /* comma separated, "none" when time only */
    char thread_level[32];
    char **hosts;           /* np entries */
    uint64_t *events_per_rank; /* np entries (what each rank wrote) */
    double *kernel_rate;    /* np entries: replay kernel blocks/s (pas2p_kernel.h), 0 unknown */
    double *compute_share;  /* np entries: share of a core while computing (1 when absent) */
    double *compute_blocked; /* np entries: share of the computation's wall time spent blocked
                                off the CPU (I/O, child processes, sleep); 0 when absent */
    uint64_t *untraced;     /* np entries: one-sided calls made, not traced (0 when absent) */
    double *untraced_s;     /* np entries: the time they took (s; 0 when absent) */
    uint64_t *untraced_io;  /* np entries: MPI-IO calls made, not traced (0 when absent) */
    double *untraced_io_s;  /* np entries: the time they took (s; 0 when absent) */
    uint64_t *untraced_nbr; /* np entries: neighbourhood collectives made, not traced */
    double *untraced_nbr_s; /* np entries: the time they took (s; 0 when absent) */
    uint64_t *threads;      /* np entries: threads that made traced calls (0: not said) */
    uint64_t clock_res_ns;
    double aet_s;           /* MPI_Init return -> MPI_Finalize entry, max over ranks */
    uint64_t events;        /* total over ranks */
    char events_locking[16];
    int complete;           /* every rank wrote its whole file */
    int waits_tested;       /* its tracer flags PAS2P_EV_TESTED (waits_tested = 1; 0 in older
                               traces, whose waits are never flagged) */
} pas2p_manifest_t;

/* Reads DIR/manifest.  Returns 0, or -1 with a one-line reason in err. */
int pas2p_manifest_read(const char *dir, pas2p_manifest_t *m, char *err, size_t errlen);

/* The one-line note on the calls the trace counted but did not trace (one-sided
 * communication, MPI-IO), in out: how many, how long on the rank where they took the
 * largest share of the run; 1 when there were some, 0 (out empty) when not. */
int pas2p_manifest_untraced_note(const pas2p_manifest_t *m, char *out, size_t len);

/* The one-line note on a rank that computed on well under a core (compute_share < 0.9: the
 * machine was shared while tracing, or the computation waited off the CPU), naming the
 * rank with the least share; 1 when there is one, 0 (out empty) when not. */
int pas2p_manifest_shared_note(const pas2p_manifest_t *m, char *out, size_t len);

/* After reading rank R's file to its end (n events): 0 if that is what the manifest says
 * the rank wrote, else -1 with "rank-0000R.p2t: truncated: ..." in err. */
int pas2p_manifest_check_count(const pas2p_manifest_t *m, int rank, uint64_t n, char *err,
                               size_t errlen);
/* The most threads of a rank that called MPI, traced under MPI_THREAD_MULTIPLE (their
 * calls may overlap); 0 under a lower level or when the manifest does not say. */
uint32_t pas2p_manifest_mpi_threads(const pas2p_manifest_t *m);
void pas2p_manifest_free(pas2p_manifest_t *m);

/* Path of rank R's file in DIR (buffer of at least PATH_MAX). */
void pas2p_rank_path(const char *dir, int rank, char *out, size_t outlen);

/* Creates DIR and its missing parents (mode 0755), as `mkdir -p`: the one copy, used by
 * libpas2p for its trace directory and by the launcher for output directories.  0, or -1
 * with errno set. */
int pas2p_mkdir_p(const char *dir);

/* ---------------------------------------------------------------- call numbering
 * How a global signature numbers a rank's calls (signature/FORMAT.md, `occurrence`): the
 * one rule the analyzer, which writes the ordinals, and `pas2p predict`'s runtime, which
 * counts them in the run, both apply, one event at a time, in the rank's order.
 *
 *  PAS2P_NUM_POLL  a poll that found nothing: waiting, folded into the computation before
 *                  the next numbered call.  An MPI_Iprobe or MPI_Test* whose flag was
 *                  false; with runs, also a Test* that completed no request (MPI_Testsome
 *                  has no flag: the tracer sets flag 4 on every Testsome, and an empty one
 *                  has aux 0).
 *  PAS2P_NUM_RUN   with runs: an MPI_Waitsome (MPI_Testsome) right after a numbered
 *                  Waitsome (Testsome), failed polls between allowed.  How many calls a
 *                  loop needs to complete its requests depends on when they arrive, so a
 *                  run of them is one call, folded into the run's first (numbered) one.
 *  PAS2P_NUM_CALL  a call: the next ordinal.
 *
 * rules (PAS2P_NUMBER_* below): runs when the signature says analysis/completion_runs=
 * "folded", tests when completion_tests="polls", probes when probes="polls"; without them
 * (older signatures) only flag-false polls are folded.  `last` is the rank's state: the call of
 * its last numbered event (0 before the first). */
enum { PAS2P_NUM_CALL, PAS2P_NUM_POLL, PAS2P_NUM_RUN };
/* pas2p_number_event's rules: runs as above; tests, also every Test* (Test, Testany,
 * Testall, Testsome) whatever it completed (analysis/completion_tests="polls"): whether a
 * test finds its requests done depends on timing, and a library that tests its sends again
 * only while they are not done (ScaLAPACK's BLACS: an Isend, a Testall, another Testall at
 * its next call if that one failed) then makes more or fewer tests, in other places, from
 * run to run.  The requests they complete are still completed there (the analyzer's closure,
 * the runtime's bookkeeping); a replay completes them at the end of the phase. */
/* probes, also every MPI_Iprobe whatever it found, and every MPI_Probe (analysis/probes=
 * "polls"): whether the message is there when the program looks is timing -- MUMPS (under
 * getdp) polls with MPI_Iprobe(MPI_ANY_SOURCE) before its sends, and 79 of its 488 939
 * probes found a message in one run, others in the next, and when none did it waits with
 * a blocking MPI_Probe: numbered, each one moved every ordinal after it.  A probe is
 * waiting for a message, as polls are; the receive that takes the message is numbered; a
 * probe consumes nothing (an MPI_Improbe is recorded as an MPI_Iprobe, an MPI_Mprobe as an
 * MPI_Probe, and the MPI_Mrecv that takes their message as a receive). */
/* waits, also every MPI_Wait, Waitany or Waitall that comes after a Test* with no numbered
 * call between (a Waitsome there is the runs rule's; analysis/completion_waits=
 * "after-tests"): a library that tests its requests and waits only for those the tests did
 * not find done makes the wait in one run and not in the next (Boost.MPI's wait_all tests
 * each request, then MPI_Waitall if any is left): numbered, every ordinal after it moved
 * and predict diverged.  Such a wait is the end of the tests' waiting: folded into the next
 * call's time, what it completed said with that call as the tests' is. */
/* tested, also every MPI_Wait, Waitany or Waitall flagged PAS2P_EV_TESTED, other calls
 * between or not, and every one that completed nothing (MPI_REQUEST_NULL: aux 0)
 * (analysis/completion_waits="tested").  SuperLU_DIST tests its receives, makes other
 * calls, and then waits for each: on MPI_REQUEST_NULL where the test found it done (a wait
 * that does nothing), on the request where it did not (a wait for what a test did not find
 * done); which one a run makes is timing, and the tests' own number too.  Neither is a
 * call.  Only from a trace whose tracer set the flag (manifest waits_tested = 1): a wait in
 * an older trace is not flagged, and the runtime's would be.  With the flag the waits rule
 * is left out (analysis/completion_waits="flagged": tested alone; "tested" was both):
 * the flag says which waits a test decided, and the waits rule also folded a wait for a
 * request no test had looked at whenever a test of another one came just before it --
 * SuperLU_DIST sends a panel, tests its look-ahead receive only while it is pending, then
 * waits for the previous panel's send: a poll while the receive was pending, a call after
 * it arrived, so when it arrived decided how many calls the rank made, and predict
 * diverged in every run (tests/mpi/testwait.c sends). */
enum { PAS2P_NUMBER_RUNS = 1, PAS2P_NUMBER_TESTS = 2, PAS2P_NUMBER_PROBES = 4,
       PAS2P_NUMBER_WAITS = 8, PAS2P_NUMBER_TESTED = 16 };
/* the rules `pas2p analyze` numbers a global signature with (and says so in its file) */
#define PAS2P_NUMBER_GLOBAL                                                                     \
    (PAS2P_NUMBER_RUNS | PAS2P_NUMBER_TESTS | PAS2P_NUMBER_PROBES | PAS2P_NUMBER_WAITS)
/* (in *last: a Test* came since the last numbered call) */
#define PAS2P_NUM_TESTED 0x80000000u

static inline int pas2p_number_event(unsigned *last, const pas2p_event_t *e, int rules)
{
    unsigned c = e->call;
    int runs = rules & PAS2P_NUMBER_RUNS;
    int tests = c == PAS2P_CALL_Test || c == PAS2P_CALL_Testany || c == PAS2P_CALL_Testall ||
                c == PAS2P_CALL_Testsome;
    if (tests && (rules & PAS2P_NUMBER_WAITS))
        *last |= PAS2P_NUM_TESTED;
    if ((tests && (rules & PAS2P_NUMBER_TESTS)) ||
        ((c == PAS2P_CALL_Iprobe || c == PAS2P_CALL_Probe) && (rules & PAS2P_NUMBER_PROBES)))
        return PAS2P_NUM_POLL;
    if ((((rules & PAS2P_NUMBER_WAITS) && (*last & PAS2P_NUM_TESTED)) ||
         ((rules & PAS2P_NUMBER_TESTED) && ((e->flags & PAS2P_EV_TESTED) || !e->aux))) &&
        (c == PAS2P_CALL_Wait || c == PAS2P_CALL_Waitany || c == PAS2P_CALL_Waitall))
        return PAS2P_NUM_POLL;
    int polls = c == PAS2P_CALL_Iprobe || tests;
    if (polls && (!(e->flags & PAS2P_EV_FLAG_TRUE) || (runs && c != PAS2P_CALL_Iprobe && !e->aux)))
        return PAS2P_NUM_POLL;
    if (runs && (c == PAS2P_CALL_Waitsome || c == PAS2P_CALL_Testsome) &&
        (*last & ~PAS2P_NUM_TESTED) == c)
        return PAS2P_NUM_RUN;
    *last = c;
    return PAS2P_NUM_CALL;
}

/* ---------------------------------------------------------------- counting tags
 * A library that numbers its messages tags them with a counter: mpi4py's pickle-based
 * collectives (comm.allreduce of a Python object is an MPI_Recv and an MPI_Bcast on a
 * duplicate of the communicator, tagged 0, 1, 2, ... one number per call).  No two steps
 * of such a loop make the same calls by their tags, so none repeats.  The analyzer
 * identifies a point-to-point call by PAS2P_TAG_COUNTING instead of its tag once the tags
 * between this rank and that peer on that communicator have counted up PAS2P_TAGC_STEPS
 * times in a row (the tag one more than the last different one; the same tag again
 * neither counts nor breaks the run), from then on; `pas2p predict` takes any tag where
 * the signature says PAS2P_TAG_COUNTING.  Both ends of a channel see its tags in the same
 * order, so both count alike; a halo whose tags name its directions has one tag per peer.
 * Every pass applies it to each event of the rank, in the rank's order, with its own
 * state. */
#define PAS2P_TAGC_SLOTS 64  /* (communicator, peer) pairs followed at once (direct-mapped) */
#define PAS2P_TAGC_STEPS 32

typedef struct {
    uint32_t comm;
    int32_t peer, last;
    uint32_t steps;
    uint8_t used, counting;
} pas2p_tagc_slot_t;

typedef struct {
    pas2p_tagc_slot_t s[PAS2P_TAGC_SLOTS];
} pas2p_tagc_t;

/* tag as the identity of a call to or from `peer` on `comm` has it */
static inline int32_t pas2p_tagc_one(pas2p_tagc_t *t, uint32_t comm, int32_t peer, int32_t tag)
{
    if (tag < 0)
        return tag;
    uint32_t h = comm * 0x9e3779b1u ^ (uint32_t)peer * 0x85ebca6bu;
    pas2p_tagc_slot_t *x = &t->s[(h >> 26) % PAS2P_TAGC_SLOTS];
    if (!x->used || x->comm != comm || x->peer != peer) {
        *x = (pas2p_tagc_slot_t){.comm = comm, .peer = peer, .last = tag, .used = 1};
    } else if (!x->counting) {
        if (tag == x->last + 1 && ++x->steps >= PAS2P_TAGC_STEPS)
            x->counting = 1;
        else if (tag != x->last && tag != x->last + 1)
            x->steps = 0;
        x->last = tag;
    }
    return x->counting ? PAS2P_TAG_COUNTING : tag;
}

/* *tag, *tag2: e's tags as its identity has them (PAS2P_TAG_COUNTING, or e's own) */
static inline void pas2p_tag_count(pas2p_tagc_t *t, const pas2p_event_t *e, int32_t *tag,
                                   int32_t *tag2)
{
    *tag = e->tag;
    *tag2 = e->tag2;
    int k = pas2p_call_class(e->call);
    if (k == PAS2P_CLASS_SEND || (k == PAS2P_CLASS_RECV && !(e->flags & PAS2P_EV_ANY_TAG))) {
        *tag = pas2p_tagc_one(t, e->comm, e->peer, e->tag);
    } else if (k == PAS2P_CLASS_SENDRECV) {
        *tag = pas2p_tagc_one(t, e->comm, e->peer, e->tag);
        if (!(e->flags & PAS2P_EV_ANY_TAG))
            *tag2 = pas2p_tagc_one(t, e->comm, e->peer2, e->tag2);
    }
}

/* ---------------------------------------------------------------- commands */
int pas2p_cmd_trace(int argc, char **argv);
int pas2p_cmd_dump(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
