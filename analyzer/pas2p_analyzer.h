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

#include <stdio.h>

#include "pas2p_signature.h"
#include "pas2p_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double size_tolerance;       /* relative: 0.05 = message sizes within 5 % are alike */
    uint64_t size_floor;         /* bytes: sizes no further apart than this are alike whatever
                                    their ratio (1024: a message of a few hundred bytes costs
                                    its latency on any network, so 0 and 240 bytes of
                                    migrating atoms are the same event); 0 with --phases local */
    double compute_similarity;   /* 0.85: occurrences whose instruction counts are >= 85 %
                                    alike are the same phase (PAS2P's criterion) */
    double compute_similarity_time; /* the same on compute *time*, for traces without
                                    instruction counters: 0.5, because wall-clock compute
                                    varies with scheduling far more than instructions do
                                    (measured: 85 % split a stencil into 5-11 phases on 4
                                    ranks sharing 2 cores; 50 % gives 3) */
    uint64_t compute_floor_ns;   /* differences below this are alike whatever the ratio
                                    (timer noise on tiny computations); 0 with counters */
    uint32_t window;             /* longest loop body folded, in elements (default 4096;
                                    bodies over 256 at a bounded cost: phases.c) */
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
    int locate;                  /* global phases, how the runtime finds occurrences: -1
                                    (auto, the default) by anchor positions when a rank's
                                    wildcard receives make its calls vary (a farm), else by
                                    ordinals; 1 (--locate anchors) by anchor positions
                                    always; 0 (--locate ordinals) by ordinals always */
    int waits_tested;            /* not an option: the trace's tracer flags waits for tested
                                    requests (manifest waits_tested), so global phases number
                                    calls with PAS2P_NUMBER_TESTED instead of
                                    PAS2P_NUMBER_WAITS (set by the analysis) */
} pas2p_analysis_opts_t;

/* the rules global phases number a rank's calls with (pas2p_number_event) */
static inline int pas2p_analysis_rules(const pas2p_analysis_opts_t *o)
{
    /* (the flag says which waits a test decided; the after-tests rule guessed it from the
     * calls before, and a wait for a request no test looked at then became a call or not
     * by whether a test of another request happened to come just before it: SuperLU_DIST) */
    return o->waits_tested ? (PAS2P_NUMBER_GLOBAL & ~PAS2P_NUMBER_WAITS) | PAS2P_NUMBER_TESTED
                           : PAS2P_NUMBER_GLOBAL;
}

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
    uint32_t *pos_pdone;         /* nsym (global phases, else NULL): receives that tests
                                    before each call completed, the oldest active, in every
                                    occurrence (the least over them); the top bit
                                    (0x80000000): a receive the application cancelled (or
                                    never completed) in every occurrence */
    uint32_t *pos_wdist;         /* nsym (global phases, else NULL): an MPI_Wait/Waitany's
                                    request was posted this many calls before it in every
                                    occurrence (0: not so, or another call) */
    uint32_t *pos_pwdist;        /* nsym (global phases, else NULL): a receive that a test
                                    before the call completed, not the oldest active request
                                    (so not in pos_pdone), was posted this many calls before
                                    it in every occurrence (0: not so) */
    double *pos_wait_s;          /* nsym (global phases, else NULL): what a replay of the
                                    mean occurrence misses of the phase's share of the run's
                                    critical path, as a share of each call's computation
                                    (may be < 0; global.c, phase_jitter) */
    uint64_t min_bytes, max_bytes; /* range of the bytes of its messages (global phases) */
    double instructions_mean;    /* per occurrence, when counted (else 0) */
    uint64_t first_start[PAS2P_PHASE_SAMPLE_OCC]; /* ordinals of the first occurrences */
    uint64_t first_end[PAS2P_PHASE_SAMPLE_OCC];   /* (one past the last event) */
    double first_time_s[PAS2P_PHASE_SAMPLE_OCC];  /* and their times */
    uint64_t first_astart[PAS2P_PHASE_SAMPLE_OCC]; /* global phases: the same as anchor */
    uint64_t first_aend[PAS2P_PHASE_SAMPLE_OCC];   /* positions (anchors << 32 | calls since) */
    uint32_t nfirst;
    int variable;                /* global phases: its occurrences' calls differ in order or
                                    number (wildcard receives); the skeleton is the first's */
    uint32_t skel_occ;           /* global phases: occurrences the skeleton holds in a row
                                    (a variable phase's first ones; 0 or 1: one) */
    uint8_t *pos_occ_start;      /* nsym when skel_occ > 1 (else NULL): 1 at the first call
                                    of its 2nd, 3rd, ... occurrence */
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
    pas2p_sig_start_t **sym_starts; /* global phases, NULL if none: per symbol of an MPI_Start
                                    or MPI_Startall, the persistent requests its first event
                                    started (sym_nstarts[i] of them; NULL: none known) */
    uint32_t *sym_nstarts;
    uint64_t folded_elements;    /* top-level elements of the loop tree (diagnostic) */
    uint64_t wildcard_recvs;     /* receives and probes posted with MPI_ANY_SOURCE: the
                                    order of this rank's calls may depend on timing */
    uint64_t numbered;           /* opts.global: the calls a global signature numbers (events
                                    less failed polls and completion-run continuations,
                                    pas2p_number_event): what wildcard_recvs is a share of */
    int32_t wildcard_source;     /* -1: on some communicator they came from several ranks:
                                    only then can which sender is first change the order
                                    (a farm's master); else a source + 1 (0: none
                                    resolved): from one rank per communicator they are
                                    receives from that rank (CP2K's at np 2 and 4) */
    uint64_t probed_wildcards;   /* MPI_Iprobe(MPI_ANY_SOURCE) calls that found a message:
                                    a loop that polls for arrivals among its other calls
                                    (MUMPS's solves) -- or waits for one in a ring (Ray's):
                                    analyze.c tries both locations for such a rank */
    uint64_t polled_wildcards;   /* wildcard receives completed by a successful MPI_Test*:
                                    a loop reacting to arrivals (HPCC's RandomAccess), whose
                                    calls' order changes with timing even from one source */
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
 * an error.  0, 1 (orph, below), or -1 with a one-line reason (a receive whose message is
 * never sent names the rank and event). */
typedef struct {
    uint64_t occurrences;        /* slices across all ranks */
    uint32_t phases;
    uint64_t largest_occurrence; /* events in the largest slice, all ranks */
    uint32_t characteristic_comm; /* the all-rank communicator with collectives in the most
                                    occurrences, WORLD on a tie (thesis 7.4); UINT32_MAX:
                                    none (point-to-point only) */
    int unclosed_end;            /* cut: the last occurrence is not closed (truncated trace) */
    uint64_t unreceived;         /* messages sent and never received (left in flight when
                                    the ranks end: Ray's message to itself); the last
                                    occurrence holds them.  0: none */
    int32_t unreceived_src, unreceived_dst; /* the first such channel's ranks */
    double repeating, repeating_ordinals; /* anchored_probes: the share of the ranks' time in
                                    phases that repeat, located by anchors and by ordinals */
    int anchored_probes;         /* anchored because a rank's wildcard probes found messages
                                    in >= 5 % of its calls and its phases repeat more so
                                    (analyze.c, try_anchors) */
    int anchored;                /* a rank receives from MPI_ANY_SOURCE in >= 5 % of its calls
                                    (a farm's master): occurrences are cut at
                                    the all-rank blocking collectives (anchors) only, located
                                    by anchor positions, and their calls may vary (global.c) */
} pas2p_global_info_t;
/* Requests a rank starts and never completes (orphans): a leak of the application's, which
 * MPI lets a program get away with for a send whose message is received (ScaLAPACK's BLACS
 * leaves the last buffer of a grid it exits after one failed MPI_Testall, as CP2K shows).
 * post[2k], post[2k+1]: the (post ordinal, index) of rank's k-th orphan, as a completion
 * entry names it. */
typedef struct {
    uint64_t *post;
    size_t n;
} pas2p_orphans_t;
void pas2p_orphans_free(pas2p_orphans_t *orph, int np);

/* orph (optional; np of them): in, requests taken as complete where they start, so that a
 * cut may fall after them; out, when the pass ends with nothing unbalanced but requests of
 * orph's ranks still active (everything else closed), those requests, with return value 1:
 * run the pass again on fresh sources with them (analyze.c does), and the slices are cut as
 * if they had completed at once.  An orphaned receive leaves its sender's message unmatched:
 * the trace then does not add up, an error as before.  NULL: an active request at the end is
 * an error.  Messages sent and never received, with every rank at its end, are not an
 * error: they are the last occurrence's (info->unreceived); a receive whose message is
 * never sent is. */
int pas2p_global_phases(pas2p_event_source_t *srcs, int np, const pas2p_analysis_opts_t *o,
                        int use_instr, int cut, pas2p_rank_phases_t *res,
                        pas2p_orphans_t *orph, pas2p_global_info_t *info, char *err,
                        size_t errlen);

/* ---- The analysis engine (analyzer/analyze.c): `pas2p analyze` without its command line.
 * cmd_analyze.c (and bin/pas2p-analyze, mpi_analyze.c) parse the options into this struct,
 * call pas2p_analyze() and print the result. */
typedef struct {
    const char *trace;           /* TRACE_DIR (required) */
    const char *signature;       /* -o: where the signature goes; NULL: TRACE_DIR/signature.xml */
    long jobs;                   /* --jobs: ranks analysed in parallel; 0: the cores (or
                                    dist->jobs in a distributed run) */
    pas2p_analysis_opts_t analysis; /* --relevance, --compute-similarity (both of its
                                    fields), --size-tolerance, --size-floor, --phases (analysis.global),
                                    --inline-events N (analysis.inline_events) */
    int size_tolerance_given;    /* 0: --phases local uses 0.05, the per-rank default */
    int size_floor_given;        /* 0: --phases local uses 0, the per-rank default */
    int inline_auto;             /* --inline-events auto (1, the default): start at
                                    analysis.inline_events and coarsen while skewed */
    double skew;                 /* --skew: the auto granularity's limit (0.2) */
    int logical;                 /* --logical: -1 none (default), 0 local, 1 global */
    int strict;                  /* --strict: refuse a truncated rank file */
    int all_ranks;               /* --all-ranks: the printer shows every rank's table */
    int one_run;                 /* internal: analyse TRACE_DIR alone and write nothing (the
                                    other runs of pas2p trace --runs N, pooled by the kept
                                    run's analysis: analyze.c) */
} pas2p_analyze_opts_t;

void pas2p_analyze_defaults(pas2p_analyze_opts_t *o);

/* What `pas2p analyze` reports (everything it prints but the phase tables, which come
 * from sig).  Filled on process 0 (or the only process) once the signature is built
 * (done = 1), even when a later step (the logical trace, writing the file) failed. */
typedef struct {
    int done;                    /* the fields below are set */
    int np;
    uint64_t events;
    int representative;          /* EPAS: the rank whose preliminary PET is closest to AET */
    int spmd;                    /* the same calls x weights on every rank */
    int global;                  /* global phases (0 when asked for but refused: local_why) */
    char local_why[1024];        /* why per-rank phases were kept although global were asked */
    pas2p_global_info_t ginfo;   /* global phases only */
    uint32_t phases;             /* global: ginfo.phases; local: the representative's */
    uint32_t relevant;           /* relevant phases (global: ids relevant on any rank) */
    uint32_t inline_events;      /* the granularity used */
    double skew_before, skew_after; /* skew_before >= 0: auto granularity went coarser */
    double aet_s;
    int logical_done;            /* --logical computed: logical_ticks */
    uint64_t logical_ticks;
    char signature_path[4096];
    int signature_written;
    double tfat_s;               /* analysis time: manifest read to signature written */
    uint32_t runs_found;         /* the other runs pas2p trace --runs N kept (TRACE_DIR/run-K) */
    uint32_t runs_pooled;        /* how many of them a phase was pooled over (the most) */
    uint32_t phases_pooled;      /* phases (over all ranks) with every run's times pooled */
    char shared_note[512];       /* the trace's note on a rank that computed on well under a
                                    core (pas2p_manifest_shared_note), or empty */
    char *warnings;              /* NULL or lines ("\n"-separated) to say without failing:
                                    truncated rank files, an unclosed last occurrence */
    uint32_t truncated_ranks;    /* rank files cut short, analysed to their last complete
                                    event (not with --strict: refused) */
    pas2p_signature_t sig;       /* the signature as written (its coverage, PET, tables) */
} pas2p_analyze_result_t;

void pas2p_analyze_result_free(pas2p_analyze_result_t *r);

/* `pas2p analyze` spread over several processes (the MPI mode, analyzer/mpi_analyze.c:
 * bin/pas2p-analyze).  Process `self` of `size` analyses the trace ranks r with
 * r % size == self, with `jobs` threads unless opts.jobs says otherwise; the processes agree
 * through `max` (the maximum of v over all processes; every process calls it the same
 * number of times) and `gather` (every process calls it once with its own ranks' results
 * in res[] and warn[]; on process 0 it fills in the others').  Process 0 builds and writes
 * the signature. */
typedef struct {
    int self, size;
    long jobs;
    void *ctx;
    double (*max)(void *ctx, double v);
    int (*gather)(void *ctx, pas2p_rank_phases_t *res, char (*warn)[512], int np, char *err,
                  size_t errlen);
} pas2p_analyze_dist_t;

/* pas2p_analyze's exit statuses (the command-line kit's contract, pas2p_cli.h) */
enum { PAS2P_ANALYZE_OK = 0, PAS2P_ANALYZE_FAILED = 1, PAS2P_ANALYZE_BAD_INPUT = 2 };

/* Analyses the trace opts->trace (dist NULL: in this process alone), writes the signature
 * and fills *out (free it with pas2p_analyze_result_free, whatever the return).  Returns
 * the exit status: 0, 1 (the analysis failed: an inconsistent trace, a signature that
 * cannot be written, out of memory) or 2 (a bad input: a missing or malformed manifest or
 * rank file); err holds the one-line reason when this process is the one to say it (in a
 * distributed run the lowest process that failed; the others get ""). */
int pas2p_analyze(const pas2p_analyze_opts_t *opts, const pas2p_analyze_dist_t *dist,
                  pas2p_analyze_result_t *out, char *err, size_t errlen);

/* The engine's decisions, for pas2p_analyze and the unit tests.
 *
 * Automatic granularity (--inline-events auto): the skew of a set of rank phase tables is
 * the largest (mean - median) / mean over the phases that repeat (weight >= 8), carry
 * >= 5 % of their rank's time and have >= 3 % of their occurrences slower than 3 x the
 * median (0 if none).  pas2p_granularity_coarsen: 1 when the phases found with
 * inline_events should be tried again with 4 x as many (skew above max_skew, and below the
 * limit of 4096); pas2p_granularity_keep: 1 when the coarser phases are kept: their skew is
 * lower and every relevant loop phase still occurs >= 4 times (min_loop_weight:
 * pas2p_min_loop_weight over all ranks). */
double pas2p_phase_skew(const pas2p_rank_phases_t *res, int np);
uint64_t pas2p_min_loop_weight(const pas2p_rank_phases_t *res, int np, double relevant_s);
int pas2p_granularity_coarsen(double skew, double max_skew, uint32_t inline_events);
int pas2p_granularity_keep(double skew, double skew_coarser, double min_loop_weight);

/* The representative rank (EPAS): the rank whose elapsed time (its preliminary PET) is
 * closest to AET, the lowest on a tie.  pas2p_ranks_spmd: 1 when every rank's phases make
 * the same call sequences with the same weights as rank rep's (peers and computation
 * variants aside). */
int pas2p_representative_rank(const pas2p_rank_phases_t *res, int np, double aet_s);
int pas2p_ranks_spmd(const pas2p_rank_phases_t *res, int np, int rep);

/* The signature of the run from every rank's phases (res[0..m->np)): relevance judged
 * against m->aet_s (global phases: a phase relevant on any rank is relevant on all), the
 * representative's relevant time, remainder, PET and coverage, and the communicators
 * created.  0, or -1 (out of memory; free *s with pas2p_signature_free either way). */
int pas2p_build_signature(const pas2p_rank_phases_t *res, const pas2p_manifest_t *m,
                          const pas2p_analysis_opts_t *o, int rep, int spmd,
                          pas2p_signature_t *s);
/* Relevant phases of a signature: global, the ids relevant on any rank; else rank rep's */
uint32_t pas2p_signature_relevant_count(const pas2p_signature_t *s, int global, int rep);

/* ---- `pas2p analyze` (analyzer/cmd_analyze.c): the one option table, shared with
 * bin/pas2p-analyze.  pas2p_analyze_parse: argv[1..argc) into *o; mpi non-NULL accepts
 * `--mpi K` (*mpi = K, 0 if not given) and `-- LAUNCHER...` (*dash: the index of `--`,
 * argc if none).  quiet: say nothing (the MPI processes > 0).  Returns 0, PAS2P_CLI_HELP
 * (-1: usage printed) or 2 after the one-line error. */
int pas2p_analyze_parse(int argc, char **argv, int quiet, pas2p_analyze_opts_t *o, long *mpi,
                        int *dash);
/* pas2p_analyze, then what `pas2p analyze` says: the warnings and the error (one line each,
 * stderr), and on stdout the NAME = value lines, the global phase table and the
 * representative's (every rank's with all_ranks).  The exit status. */
int pas2p_analyze_command(const pas2p_analyze_opts_t *o, const pas2p_analyze_dist_t *dist);
int pas2p_cmd_analyze(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
