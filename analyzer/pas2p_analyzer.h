/* pas2p analyzer module: from one rank's event stream to its phases and weights.
 *
 * Per process (EPAS: no cross-rank synchronisation), in two streaming passes over the
 * rank's events (tracer/pas2p_trace.h readers):
 *
 *  A. structure: each event becomes a symbol (call, peers, tag, communicator, size class:
 *     sizes within `size_tolerance` share a symbol).  Tandem repeats of symbols are folded
 *     online into a loop tree (nested loops, bodies of several calls); elements far enough
 *     from the tail can no longer change and are handed to pass B.  Memory is bounded by the
 *     folding window, not by the number of events.
 *  B. phases: a second reader walks the events along that tree, decoding only their
 *     times (the identity is known from pass A).  (Handing pass A's decoded times over in
 *     memory instead was measured slower: the buffer's cache misses cost more than the
 *     decoding.)  Every maximal run of plain events inside one iteration of a loop body (or
 *     between loops at top level) is one *occurrence*; occurrences with the same symbol sequence and similar computation
 *     (>= `compute_similarity`, instructions when counted, else time) are the same *phase*.
 *     Every event belongs to exactly one occurrence, so sum(weight x mean time) is the
 *     rank's time from MPI_Init's return to MPI_Finalize.
 *
 * No MPI here; the analyzer reads traces only through pas2p_trace.h.
 */
#ifndef PAS2P_ANALYZER_H
#define PAS2P_ANALYZER_H

#include <stddef.h>
#include <stdint.h>

#include "pas2p_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double size_tolerance;       /* relative: 0.05 = message sizes within 5 % are alike */
    double compute_similarity;   /* 0.85: occurrences whose instruction counts are >= 85 %
                                    alike are the same phase (PAS2P's criterion) */
    double compute_similarity_time; /* the same on compute *time*, for traces without
                                    instruction counters: 0.5, because wall-clock compute
                                    varies with scheduling far more than instructions do
                                    (measured: 85 % split a stencil into 5-11 phases on 4
                                    ranks sharing 2 cores; 50 % gives 3) */
    uint64_t compute_floor_ns;   /* differences below this are alike whatever the ratio
                                    (timer noise on tiny computations); 0 with counters */
    uint32_t window;             /* longest loop body folded, in elements (default 256) */
    uint32_t inline_events;      /* an inner loop of at most this many events in all is part
                                    of the enclosing occurrence, not phases of its own (16) */
    double relevance;            /* relevant phase: weight x time >= relevance x AET (0.01) */
    double variant_merge;        /* a variant (same calls, other computation) with fewer than
                                    this share of its calls' occurrences is merged into the
                                    closest larger variant: with time-only traces, preempted
                                    occurrences would otherwise fragment phases (0.05) */
    int global;                  /* 1 (default): phases of all ranks together (global.c):
                                    pass B records every occurrence's start as a cut
                                    proposal and walks top-level loops iteration by
                                    iteration however short; 0: each rank's own (EPAS) */
} pas2p_analysis_opts_t;

void pas2p_analysis_defaults(pas2p_analysis_opts_t *o);

/* Where events come from: 1 = one event, 0 = end, -1 = error (message via err).
 * next_batch (optional, NULL: next is used): up to max events into out[0..n), n >= 1, or
 * 0 / -1 as next; the views' pointers are valid until the next call. */
typedef struct {
    int (*next)(void *ctx, pas2p_event_view_t *out);
    const char *(*error)(void *ctx);
    void *ctx;
    int (*next_batch)(void *ctx, pas2p_event_view_t *out, int max);
    /* optional (NULL: next_batch or next): as next_batch, only the times (the second pass) */
    int (*next_times)(void *ctx, pas2p_event_times_t *out, int max);
} pas2p_event_source_t;

#define PAS2P_PHASE_SAMPLE_OCC 32 /* first occurrences kept per phase, for the runtime */

typedef struct {
    uint32_t id;                 /* 1-based, in order of first occurrence */
    uint32_t nsym;               /* events per occurrence */
    uint32_t *syms;              /* their symbols (pas2p_rank_phases_t.symbols) */
    uint64_t weight;             /* occurrences */
    double time_sum_s, time_mean_s, time_median_s, time_min_s, time_max_s, time_sd_s;
    double time_slow_share;      /* share of the sampled occurrences slower than 3 x the
                                    median: a pipeline's fill is one in every inner loop (1/16
                                    in wavefront), scheduling noise far fewer */
    double compute_mean_s;       /* computation per occurrence */
    double *pos_compute_s;       /* nsym: mean computation before each call of the phase */
    double *pos_instructions;    /* nsym: mean instructions before each call (0 if uncounted) */
    double *pos_bytes, *pos_rbytes; /* nsym: mean bytes sent / received by each call (global
                                    phases; NULL: the symbol's bytes) */
    uint64_t *pos_size_min, *pos_size_max; /* nsym: range of bytes + rbytes (global phases) */
    uint64_t min_bytes, max_bytes; /* range of the bytes of its messages (global phases) */
    double instructions_mean;    /* per occurrence, when counted (else 0) */
    uint64_t first_start[PAS2P_PHASE_SAMPLE_OCC]; /* ordinals of the first occurrences */
    uint64_t first_end[PAS2P_PHASE_SAMPLE_OCC];   /* (one past the last event) */
    double first_time_s[PAS2P_PHASE_SAMPLE_OCC];  /* and their times */
    uint32_t nfirst;
} pas2p_phase_t;

/* a symbol: the identity of an event for phase detection */
typedef struct {
    uint16_t call;
    int32_t peer, peer2, tag, tag2;
    uint32_t comm, aux;
    uint64_t bytes, rbytes;      /* of the first event given this symbol */
} pas2p_symbol_t;

/* a communicator created during the run, as one member saw it */
typedef struct {
    uint32_t id, parent;         /* ids as in the trace (0 = MPI_COMM_WORLD) */
    uint16_t call;               /* MPI_Comm_split, MPI_Cart_create, ... */
    uint32_t size, ndims;
    int32_t *members;            /* size world ranks, in communicator rank order */
    int32_t *dims, *periods;     /* ndims each (Cartesian), else NULL */
} pas2p_comm_info_t;

typedef struct {
    int rank;
    uint64_t events;
    double elapsed_s;            /* MPI_Init return -> MPI_Finalize entry: sum of all occurrences */
    uint32_t nphases;
    pas2p_phase_t *phases;
    uint32_t nsymbols;
    pas2p_symbol_t *symbols;
    uint64_t folded_elements;    /* top-level elements of the loop tree (diagnostic) */
    uint32_t ncomms;             /* communicators this rank created, in creation order */
    pas2p_comm_info_t *comms;
    uint64_t *bounds;            /* opts.global: ordinal of every occurrence's first event, */
    uint64_t nbounds;            /* ascending (the cut proposals of the global phases) */
    char error[512];
} pas2p_rank_phases_t;

/* Finds the phases of one rank.  `a` and `b` must deliver the same event stream (pass A and
 * pass B: two readers of the same file); `b` needs only each event's call, times and
 * counters (pas2p_rank_reader_next_times).  Returns 0, or -1 with out->error set. */
int pas2p_find_phases(pas2p_event_source_t a, pas2p_event_source_t b,
                      const pas2p_analysis_opts_t *o, int ncounters_is_instructions,
                      pas2p_rank_phases_t *out);
void pas2p_rank_phases_free(pas2p_rank_phases_t *p);

/* One rank's phases as bytes and back (analyzer/pack.c), for the MPI mode: pack returns 0
 * with a malloc'ed buffer, or -1 (out of memory); unpack fills *r (free it with
 * pas2p_rank_phases_free) or returns -1 with a one-line reason on damaged or foreign
 * bytes.  Host byte order: the processes of one MPI job run the same binary. */
int pas2p_rank_phases_pack(const pas2p_rank_phases_t *r, unsigned char **out, size_t *len);
int pas2p_rank_phases_unpack(const unsigned char *in, size_t len, pas2p_rank_phases_t *r,
                             char *err, size_t errlen);

/* The logical trace (analyzer/logical.c).  global: PAS2P's Lamport rules across ranks
 * (srcs[r] is rank r's event stream; np of them); otherwise each rank's own order (EPAS).
 * visit(ctx, rank, ordinal, lt) is called for every event, each rank in order.  Returns 0
 * with *max_lt, or -1 with a one-line reason (ranks waiting for each other forever means
 * the trace is inconsistent). */
int pas2p_logical_clock(pas2p_event_source_t *srcs, int np, int global,
                        void (*visit)(void *ctx, int rank, uint64_t ordinal, uint64_t lt),
                        void *ctx, uint64_t *max_lt, char *err, size_t errlen);

/* Global phases (analyzer/global.c; the thesis's PHASE_TABLE).  srcs[r] delivers rank r's
 * events again (np sources); res[r] holds rank r's per-rank analysis made with
 * opts.global (its bounds are the cut proposals).  Cuts across all ranks are sought from
 * those proposals: each cut is the least communication-closed one at or after every
 * rank's next proposal (every message sent before it is received before it, no request is
 * active at it, every member of a communicator has made the same collectives before it).
 * The slices between consecutive cuts are the occurrences; those that make the same calls
 * on every rank (wildcard receives as wildcards, sizes within size_tolerance of the
 * symbol's first, completions by what they complete, failed Test/Iprobe polls folded into
 * the computation before the next call) with similar computation are one phase, with one
 * id and one weight on every rank.  On return res[r]'s phases and symbols are replaced by
 * rank r's share of each global phase (a phase in which rank r makes no call is absent
 * from its table); Σ weight x mean time is still rank r's elapsed time.
 * info (optional) receives a summary.  cut: 1 when a rank file was truncated (analysed up
 * to its complete part): what cannot be closed at the end is then the last occurrence, not
 * an error.  0, or -1 with a one-line reason (a receive whose message is never sent names
 * the rank and event). */
typedef struct {
    uint64_t occurrences;        /* slices across all ranks */
    uint32_t phases;
    uint64_t largest_occurrence; /* events in the largest slice, all ranks */
    uint32_t characteristic_comm; /* the all-rank communicator with collectives in the most
                                    occurrences, WORLD on a tie (thesis 7.4); UINT32_MAX:
                                    none (point-to-point only) */
    int unclosed_end;            /* cut: the last occurrence is not closed (truncated trace) */
} pas2p_global_info_t;
int pas2p_global_phases(pas2p_event_source_t *srcs, int np, const pas2p_analysis_opts_t *o,
                        int use_instr, int cut, pas2p_rank_phases_t *res,
                        pas2p_global_info_t *info, char *err, size_t errlen);

/* `pas2p analyze` */
int pas2p_cmd_analyze(int argc, char **argv);

/* `pas2p analyze` spread over several processes (the MPI mode, analyzer/mpi_analyze.c:
 * bin/pas2p-analyze).  Process `self` of `size` analyses the trace ranks r with
 * r % size == self, with `jobs` threads unless --jobs says otherwise; the processes agree
 * through `max` (the maximum of v over all processes; every process calls it the same
 * number of times) and `gather` (every process calls it once with its own ranks' results
 * in res[] and warn[]; on process 0 it fills in the others').  Process 0 prints and writes
 * the signature; errors are printed once, by the lowest process that has one.  Returns
 * the exit status. */
typedef struct {
    int self, size;
    long jobs;
    void *ctx;
    double (*max)(void *ctx, double v);
    int (*gather)(void *ctx, pas2p_rank_phases_t *res, char (*warn)[512], int np, char *err,
                  size_t errlen);
} pas2p_analyze_dist_t;
int pas2p_analyze_run(int argc, char **argv, const pas2p_analyze_dist_t *dist);

#ifdef __cplusplus
}
#endif
#endif
