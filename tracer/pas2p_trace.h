/* pas2p tracer module: the trace format, its reader, and the `trace`/`dump` commands.
 *
 * A trace is a directory written by libpas2p (the PMPI interposition library):
 *   manifest            text, "key = value" per line (see tracer/FORMAT.md)
 *   rank-NNNNN.p2t      one binary file per MPI rank (world rank NNNNN)
 *
 * A rank file is a header followed by event records, all little-endian.  Every record
 * is a pas2p_event_t, then `ncounters` uint64 counter deltas, then `payload` bytes
 * (padded so that records stay 8-byte aligned).  The exact layout, field by field, is
 * documented in tracer/FORMAT.md; this header is its C mirror and the only door other
 * modules use (the analyzer reads events through pas2p_rank_reader_*).
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
#define PAS2P_TRACE_VERSION 1u            /* bump on any incompatible layout change */
#define PAS2P_MAX_COUNTERS 8
#define PAS2P_COUNTER_NAME_LEN 32
#define PAS2P_HOST_LEN 64
#define PAS2P_MANIFEST "manifest"
#define PAS2P_RANK_FILE_FMT "rank-%05d.p2t"

/* peer / tag sentinels (real values are world ranks >= 0 and MPI tags >= 0) */
#define PAS2P_PEER_NONE (-1)    /* the call has no peer */
#define PAS2P_PEER_ANY (-2)     /* MPI_ANY_SOURCE, resolved in the completing event */
#define PAS2P_PEER_NULL (-3)    /* MPI_PROC_NULL */
#define PAS2P_TAG_NONE (-1)
#define PAS2P_TAG_ANY (-2)      /* MPI_ANY_TAG, resolved in the completing event */

#define PAS2P_COMM_WORLD 0u
#define PAS2P_COMM_SELF 1u
#define PAS2P_COMM_NONE 0xffffffffu

/* event flags */
enum {
    PAS2P_EV_ERROR = 1u << 0,      /* the MPI call returned an error code */
    PAS2P_EV_FORTRAN = 1u << 1,    /* called through the Fortran bindings */
    PAS2P_EV_FLAG_TRUE = 1u << 2,  /* Test*, Iprobe: the returned flag was true */
    PAS2P_EV_NO_COUNTERS = 1u << 3 /* counters were not read for this event (other thread) */
};

/* rank file header: 8-byte aligned, written once at MPI_Init */
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

/* one event record's fixed part (80 bytes) */
typedef struct {
    uint32_t size;          /* record bytes: this struct + counters + payload (+pad) */
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
    uint32_t payload;       /* payload bytes following the counters (unpadded) */
} pas2p_event_t;

/* Payload entry of completion calls (Wait*, Test*, Request_free): one per request
 * completed by this call, in the order MPI reports them. */
typedef struct {
    uint64_t post;          /* ordinal of the event that started the request (Isend, Irecv,
                               I-collective, Start/Startall); UINT64_MAX if unknown */
    uint32_t index;         /* which request of that event (Startall), else 0 */
    uint32_t call;          /* call that created the request (MPI_Isend, MPI_Recv_init...) */
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

/* Bytes a record takes: the event, ncounters counters, the payload padded to 8. */
static inline size_t pas2p_record_size(uint32_t ncounters, size_t payload)
{
    return sizeof(pas2p_event_t) + 8 * (size_t)ncounters + ((payload + 7) & ~(size_t)7);
}

/* Encodes one record into dst (pas2p_record_size bytes): sets e->size and e->payload.
 * counters may be NULL (zeros).  Returns the record size. */
size_t pas2p_record_encode(void *dst, pas2p_event_t *e, const uint64_t *counters,
                           uint32_t ncounters, const void *payload, size_t payload_len);

/* ---------------------------------------------------------------- reading */

/* A decoded event: the fixed record, its counters and a view of its payload.  The
 * pointers are valid until the next call on the same reader. */
typedef struct {
    uint64_t ordinal;                   /* 0-based index of the event in its rank file */
    pas2p_event_t ev;
    const uint64_t *counters;           /* header.ncounters values (NULL if none) */
    const void *payload;                /* ev.payload bytes (NULL if none) */
} pas2p_event_view_t;

typedef struct pas2p_rank_reader pas2p_rank_reader_t;

/* Opens a rank file.  On failure returns NULL and writes a one-line reason naming the
 * file into err (the caller prints it). */
pas2p_rank_reader_t *pas2p_rank_reader_open(const char *path, char *err, size_t errlen);
const pas2p_file_header_t *pas2p_rank_reader_header(const pas2p_rank_reader_t *r);
/* Next event: 1 = one read into *out, 0 = clean end of file, -1 = the file ends in the
 * middle of a record or a record is malformed (see pas2p_rank_reader_error). */
int pas2p_rank_reader_next(pas2p_rank_reader_t *r, pas2p_event_view_t *out);
const char *pas2p_rank_reader_error(const pas2p_rank_reader_t *r);
uint64_t pas2p_rank_reader_count(const pas2p_rank_reader_t *r); /* events read so far */
void pas2p_rank_reader_close(pas2p_rank_reader_t *r);

/* The manifest, parsed. */
typedef struct {
    uint32_t version;
    int np;
    char command[4096];
    char tracer[64];
    char counters[256];     /* comma separated, "none" when time only */
    char thread_level[32];
    char **hosts;           /* np entries */
    uint64_t clock_res_ns;
    double aet_s;           /* MPI_Init return -> MPI_Finalize entry, max over ranks */
    uint64_t events;        /* total over ranks */
    char events_locking[16];
} pas2p_manifest_t;

/* Reads DIR/manifest.  Returns 0, or -1 with a one-line reason in err. */
int pas2p_manifest_read(const char *dir, pas2p_manifest_t *m, char *err, size_t errlen);
void pas2p_manifest_free(pas2p_manifest_t *m);

/* Path of rank R's file in DIR (buffer of at least PATH_MAX). */
void pas2p_rank_path(const char *dir, int rank, char *out, size_t outlen);

/* ---------------------------------------------------------------- commands */
int pas2p_cmd_trace(int argc, char **argv);
int pas2p_cmd_dump(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
