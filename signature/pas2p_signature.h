/* pas2p signature module: the signature model and its XML file (libxml2, RelaxNG schema
 * signature/signature.rng, validated on every read), and `pas2p show`.
 *
 * A signature holds what a prediction needs from the base run: the application, the
 * thresholds used, the analysis summary (representative rank, PET, coverage, the explicit
 * remainder), the communicators created, and per rank its phases: weight, base time
 * statistics, the ordinals of the first occurrences (so a runtime can find them while the
 * application runs) and the event skeleton (calls, peers, tags, communicators, bytes, mean
 * computation and instructions before each call) to replay or simulate them.
 * Later modules (PET, predict, replay, simulate) read it through this header. */
#ifndef PAS2P_SIGNATURE_H
#define PAS2P_SIGNATURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PAS2P_SIGNATURE_VERSION 1u
/* first occurrences of a phase a signature locates (ordinals, base times): the signature
 * runtime checks the run against them and times those after the warm-up that complete
 * before the stop (pas2p predict) */
#define PAS2P_SIG_OCC 32
/* The exit status of a launch that the signature runtime ended itself once every rank's
 * times were safe on rank 0 (MPI_Abort with this code: the guaranteed stop of a code with
 * no safe collective to stop at; sigrun.c).  `pas2p predict` takes it as a success. */
#define PAS2P_STOP_CODE 93
/* ... and of one it ended because the run diverged from the signature (the rank's times
 * file says where) */
#define PAS2P_DIVERGED_CODE 3

/* a persistent request an MPI_Start/MPI_Startall starts, as its *_init call made it */
typedef struct {
    uint32_t call;                      /* MPI_Send_init ... MPI_Rsend_init, MPI_Recv_init */
    int32_t peer, tag;                  /* world rank (-2 any source), tag (-2 any) */
    uint32_t comm;
    uint64_t bytes;                     /* sent, or the receive's capacity */
} pas2p_sig_start_t;

typedef struct {
    uint32_t call;                      /* call id (tracer/mpi_calls.tbl) */
    int32_t peer, tag, peer2, tag2;     /* world ranks; -1 none, -2 any, -3 MPI_PROC_NULL */
    uint32_t comm, aux;
    uint64_t bytes, rbytes;             /* global phases: the mean over the occurrences */
    uint64_t size_min, size_max;        /* bytes + rbytes: the range seen (0, 0: not recorded) */
    double compute_s, instructions;     /* mean, before the call */
    double wait_s;                      /* global phases: what a replay of the means misses
                                           of the run's critical path, per call (may be < 0;
                                           FORMAT.md); simulate adds it, replay does not */
    uint32_t polled;                    /* global phases: receives that tests (polls, not
                                           numbered) completed before this call, the oldest
                                           active ones, in every occurrence (0: none) */
    uint32_t cancelled;                 /* global phases: 1 on an MPI_Irecv that the run
                                           cancelled in every occurrence, or never completed
                                           (simulate and replay do not post it) */
    uint32_t nstarts;                   /* Start/Startall (global phases): the requests it */
    pas2p_sig_start_t *starts;          /* starts (NULL: not known; simulate, replay refuse) */
    uint32_t completes;                 /* global phases, an MPI_Wait/Waitany: the request it
                                           completes was posted this many calls of the phase
                                           before it, in every occurrence (0: not said) */
    uint32_t pcompletes;                /* global phases: a receive that a test before this
                                           call completed, not the rank's oldest pending
                                           request (so not in `polled`), was posted this many
                                           calls of the phase before it, in every occurrence
                                           (0: not said) */
    uint8_t occ_start;                  /* a skeleton of several occurrences in a row (its
                                           phase's skel_occ > 1): the first call of its 2nd,
                                           3rd, ... occurrence, before which nothing was
                                           pending in the run (a replay completes what it
                                           still has pending there) */
    uint32_t pwpos;                     /* the action writers' (not in the file): 1 + where
                                           that receive is among the pending ones (0: none) */
    uint32_t wpos;                      /* the action writers' (not in the file): 1 + where
                                           that request is among the replay's pending ones,
                                           0 oldest first (`wait N P`, ACTIONS.md) */
} pas2p_sig_event_t;

typedef struct {
    uint32_t id;
    uint64_t weight;
    int relevant;                /* 1: the analyzer's; 2: made relevant for its share of the
                                    messages or bytes sent (pas2p_signature_relevant_comm);
                                    3: to cover the run (pas2p_signature_relevant_cover) */
    double time_mean_s, time_median_s, time_min_s, time_max_s, time_sd_s;
    double compute_mean_s, instructions_mean;
    uint32_t nocc;
    uint64_t occ_start[PAS2P_SIG_OCC], occ_end[PAS2P_SIG_OCC];
    double occ_time_s[PAS2P_SIG_OCC]; /* their base times; 0 unknown (older signatures) */
    uint32_t runs;                    /* > 1: the base runs pooled (pas2p trace --runs N, the
                                         other runs kept): this phase had the same id, weight
                                         and recorded occurrences in all of them, and */
    double runs_time_mean_s;          /* the runs' median of its mean time, and */
    double occ_runs_time_s[PAS2P_SIG_OCC]; /* of each recorded occurrence's (0 unknown) */
    uint64_t occ_astart[PAS2P_SIG_OCC], occ_aend[PAS2P_SIG_OCC]; /* anchored signatures: the
                                      same as anchor positions, anchors << 32 | calls since */
    int variable;                     /* its occurrences' calls vary in order and number (a
                                         farm's round); the events are the first's */
    uint32_t skel_occ;                /* the occurrences its events are, in a row (a variable
                                         phase's first ones, up to 16); 1 otherwise: a replay
                                         of the events divides its time by it */
    uint32_t nevents;
    pas2p_sig_event_t *events;
} pas2p_sig_phase_t;

typedef struct {
    uint32_t rank;
    double elapsed_s;
    uint64_t events;
    double kernel_rate;      /* replay kernel blocks/s on the base (pas2p_kernel.h); 0 unknown */
    double compute_blocked;  /* share of the computation's time blocked off the CPU (0..1) */
    double untraced_s;       /* seconds in MPI calls counted and not traced (one-sided, MPI-IO:
                                the manifest's untraced*_s), inside its phases' computation */
    uint32_t nphases;
    pas2p_sig_phase_t *phases;
} pas2p_sig_rank_t;

typedef struct {
    uint32_t id, parent, call, size, ndims;
    int32_t *members, *dims, *periods;
} pas2p_sig_comm_t;

typedef struct {
    uint32_t version;
    char command[4096], counters[256], tracer[64], hosts[4096];
    char program[4096];          /* rank 0's own command line when traced ("": not recorded) */
    uint32_t np;
    double aet_s;
    uint32_t mpi_threads;        /* the most threads of a rank that called MPI at once (traced
                                    under MPI_THREAD_MULTIPLE; 0 or 1: one at a time) */
    double relevance, compute_similarity, compute_similarity_time, size_tolerance;
    uint64_t size_floor;         /* message sizes at most this many bytes apart were one event
                                    (0: not recorded, an older signature) */
    uint32_t inline_events;      /* inner loops of <= this many events were part of their
                                    enclosing phase (0: not recorded) */
    uint32_t representative;
    uint64_t events;
    double pet_s, relevant_s, remainder_s, coverage;
    int spmd;
    int global;                  /* phases are global: one id = one slice of the run on every
                                    rank (analysis/phases="global"); 0: ids per rank */
    uint32_t characteristic_comm; /* global: the all-rank communicator with collectives in
                                    the most occurrences (UINT32_MAX: none) */
    int anchored;                /* global: occurrences located by anchor positions (a rank
                                    receives from MPI_ANY_SOURCE; signature/FORMAT.md) */
    int runs;                    /* global: ordinals fold a run of Waitsome (Testsome) calls
                                    into one call and count an empty Testsome as a failed
                                    poll (analysis/completion_runs="folded"; pas2p_trace.h,
                                    pas2p_number_event) */
    int tests;                   /* global: ordinals count no Test* call, whatever it completed
                                    (analysis/completion_tests="polls"; PAS2P_NUMBER_TESTS) */
    int probes;                  /* global: ordinals count no MPI_Iprobe, whatever it found
                                    (analysis/probes="polls"; PAS2P_NUMBER_PROBES) */
    int waits;                   /* global: 1 ordinals count no Wait/Waitany/Waitall after a
                                    Test* (analysis/completion_waits="after-tests";
                                    PAS2P_NUMBER_WAITS); 2 nor one flagged PAS2P_EV_TESTED
                                    or completing nothing either ("tested";
                                    PAS2P_NUMBER_TESTED too); 3 only those ("flagged";
                                    PAS2P_NUMBER_TESTED alone) */
    uint32_t ncomms;
    pas2p_sig_comm_t *comms;
    uint32_t nranks;
    pas2p_sig_rank_t *ranks;
} pas2p_signature_t;

/* Writes/reads a signature file.  0, or -1 with a one-line reason naming the file in err.
 * Reading refuses another version and anything the schema rejects; the network and
 * external entities are never used.  Read as a stream, one phase child at a time, so that
 * memory follows the tables built, not the file (Ray's 78 MB signature, one phase of 186 k
 * calls a rank: 1.45 GB in simulate as one libxml2 tree, 169 MB so). */
int pas2p_signature_write(const pas2p_signature_t *s, const char *path, char *err, size_t errlen);
int pas2p_signature_read(const char *path, pas2p_signature_t *s, char *err, size_t errlen);
void pas2p_signature_free(pas2p_signature_t *s);

/* What one rank of `pas2p predict`'s run needs: the signature's top-level elements and
 * rank RANK's table only (s->nranks = 1), read as a stream: the other ranks' tables are read
 * past (validated, never kept) and this rank's phases are built one at a time, so memory
 * follows the phases built, not the file (ABySS's 82 MB signature at np 2: 1.35 GB per
 * rank with pas2p_signature_read).  The same checks as pas2p_signature_read; also -1 when
 * the file has no table for RANK. */
int pas2p_signature_read_rank(const char *path, uint32_t rank, pas2p_signature_t *s, char *err,
                              size_t errlen);

/* Every rank's table without the phases' events (nevents 0; their calls still checked), read
 * the same way: what `pas2p predict` itself needs (weights, times, occurrences) while its
 * ranks read their own calls.  ABySS's 82 MB signature: 1.38 GB read whole.  The same
 * checks as pas2p_signature_read but an event's `starts`, which the ranks check. */
int pas2p_signature_read_tables(const char *path, pas2p_signature_t *s, char *err, size_t errlen);

/* The application element's command, np and program ("" when absent), read by streaming to
 * it (the first elements), not by loading the file: what `pas2p predict`'s runtime checks
 * before it pays for the whole signature (82 MB: 15 s).  0, or -1 (not found, not XML: pas2p_signature_read
 * says why). */
int pas2p_signature_peek(const char *path, char *command, size_t len, uint32_t *np,
                         char *program, size_t plen);

/* The first rank table without a kernel calibration (rank/kernel_rate), or NULL when every
 * rank has one: what `replay --compute kernel` and `simulate --base-speed kernel` need. */
const pas2p_sig_rank_t *pas2p_signature_uncalibrated(const pas2p_signature_t *s);

/* Replays (simulate, replay) take a phase as relevant also when it carries a share of the
 * run's communication: on some rank, its weight x calls or weight x bytes sent is at least
 * `share` of that rank's whole run's (calls that send, receive or take part in a
 * collective; the bytes they send).  Relevance is a share of the base's time, and a
 * phase cheap on the base (messages over shared memory, no computation) can take much of
 * a target's when its network is slower: estimated from the relevant phases' ratio, md's
 * first six steps (0.17 % of a 17 ms base run) were 3.2 ms short on a 100 Mbit/s cluster,
 * 4 % of the run.  Then, while the phases replayed hold under PAS2P_COMM_COVER of a
 * rank's messages (calls that communicate, weighted), the least covered rank's phase with
 * the most of them is taken too: many phases under `share` each can hold much of the
 * communication together (deal.II's step-40: a quarter of its collectives; 4 % off the
 * full trace with its ranks on two hosts).  Global signatures only (ids per rank name no
 * common slice); marks the phase on every rank; returns how many phases it marked. */
#define PAS2P_COMM_COVER 0.95
uint32_t pas2p_signature_relevant_comm(pas2p_signature_t *s, double share);

/* Marks relevant (3) the phases a replay needs so that the phases it replays hold at least
 * `cover` of every rank's time in the base (weight x mean time, over the rank's phases):
 * the least covered rank's largest other phase, again and again, until every rank is.  The rest is extrapolated
 * from the replayed phases' ratio, and when it is a third of a run spread over hundreds of
 * one-off phases (rheolef traced on a loaded machine: 506 phases, the 16 relevant holding
 * 68 %) that ratio is not theirs: simulate came out 20 % below the full trace, and within
 * 0.1 % with every phase replayed.  Global signatures only; marks the phase on every rank;
 * returns how many phases it marked; *before gets the least coverage of a rank before. */
uint32_t pas2p_signature_relevant_cover(pas2p_signature_t *s, double cover, double *before);

/* The note `show`, `replay` and `simulate` print when a rank spent >= 1 % of its run in
 * MPI calls counted and not traced (rank/untraced_s: one-sided, MPI-IO), which every
 * path but predict (which runs them) takes as computation: 1 and the note in out (no
 * "note: " prefix, no newline), else 0.  Graph500's one-sided variant spends 92 % of a rank
 * in fences and gets: replay +79 % with --compute kernel, said only by trace and analyze. */
int pas2p_signature_untraced_note(const pas2p_signature_t *s, char *out, size_t len);

/* The phase table of one rank (thesis Table 2.5: instructions, weight, PhaseET, W x
 * PhaseET, % of AET), as `pas2p analyze` and `pas2p show` print it. */
void pas2p_signature_print_table(const pas2p_signature_t *s, uint32_t rank_index, FILE *out);

/* The global phase table (thesis Fig. 3.18's PHASE_TABLE): per phase its weight, the
 * slowest rank's PhaseET and W x PhaseET, and each rank's share of that phase's time
 * (its W x PhaseET over the slowest rank's), as `pas2p show` prints it for a signature of
 * global phases. */
void pas2p_signature_print_global(const pas2p_signature_t *s, FILE *out);

int pas2p_cmd_show(int argc, char **argv);
int pas2p_cmd_predict(int argc, char **argv); /* cmd_predict.c */

#ifdef __cplusplus
}
#endif
#endif
