/* The one prediction pipeline: every path from a signature to a prediction.
 *
 *   read the signature → --relative base check → backend check → output directory
 *     → backend prepare → backend run (timed: wall) → every rank's times file
 *     → PET (pas2p_pet.h) → DIR/prediction.xml → printed
 *
 * What differs between the paths is a backend, one file each: how the signature's phases
 * get measured on a target.
 *
 *   pas2p_backend_predict   (signature/backend_predict.c) the application itself in
 *                           signature mode (libpas2p + the signature runtime, sigrun.c)
 *   pas2p_backend_replay    (simbackend/backend_replay.c) the phases' actions replayed
 *                           with real MPI by bin/pas2p-replayer
 *   pas2p_backend_simulate  (simbackend/backend_simulate.c) the same actions replayed in
 *                           SimGrid by bin/pas2p-simreplay under smpirun
 *
 * All three leave one times file per rank (pas2p_times.h) in the output directory; the
 * pipeline alone reads them, computes PET, writes and prints the prediction.  A command
 * file parses its command line (tracer/pas2p_cli.h), fills the options, calls
 * pas2p_pipeline_run() and prints the one-line error it returns; `simulate --sweep` calls
 * it once per point, in-process (pas2p_sim.h).
 *
 * A run without a signature (opts.sig_path NULL: `simulate --full-trace`, the reference)
 * goes through the same steps; its prediction is the replay's SET (no prediction.xml).
 */
#ifndef PAS2P_PIPELINE_H
#define PAS2P_PIPELINE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pas2p_pet.h"
#include "pas2p_signature.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the least share of every rank's base time the phases a replay or simulation replays
 * hold (pas2p_signature_relevant_cover): the coverage target */
#define PAS2P_REPLAY_COVER 0.95

typedef struct pas2p_backend pas2p_backend_t;

/* What the command asks for.  The pipeline never parses a command line. */
typedef struct {
    const char *cmd;               /* "predict": messages say "pas2p predict: ..." */
    const pas2p_backend_t *backend;
    const void *backend_opts;      /* the backend's own options (its header says which) */
    const char *sig_path;          /* the signature; NULL: a run the backend defines alone */
    const char *dir;               /* -o DIR; NULL: the backend's PREFIX-YYYYmmdd-HHMMSS */
    const char *relative;          /* --relative BASE_DIR, or NULL */
    double aet;                    /* > 0: the measured time on the target, for PETE */
    FILE *out;                     /* the results (NULL: stdout) */
    FILE *log;                     /* progress and notes (NULL: stderr) */
} pas2p_pipeline_opts_t;

/* What a run leaves for its caller (a sweep point's numbers). */
typedef struct {
    double pet_s, set_s;
} pas2p_pipeline_result_t;

/* One run's state, shared by the pipeline and its backend's steps. */
typedef struct {
    const pas2p_pipeline_opts_t *opts;
    const void *bopts;             /* opts->backend_opts */
    const pas2p_signature_t *sig;  /* NULL without a signature */
    uint32_t np;                   /* ranks: the signature's, or set by check() */
    const char *shown_dir;         /* the output directory as given (printed) */
    char dir[PATH_MAX];            /* the same, absolute */
    int code;                      /* the launch's exit status (run()) */
    int exit_status;               /* the status the command passes through after its
                                      prediction (run(): predict's launch), or 0 */
    double wall_s;                 /* run()'s real time */
    uint64_t events;               /* a run without signature: the events replayed */
    double aet_s;                  /* > 0: the run's own time, which the backend measured
                                      (verify(): predict --to-end), for PETE instead of
                                      opts->aet */
    pas2p_times_t *st;             /* every signature rank's times file (after run) */
    void *state;                   /* the backend's, freed by release() */
} pas2p_run_t;

/* A backend: the steps that differ between predict, replay and simulate.  Each step
 * returns 0 or the command's exit code (pas2p_cli.h: 1 the work failed, 2 bad input) with a
 * one-line reason in err (left empty when the reason was already shown, e.g. by a launched
 * program on the terminal). */
struct pas2p_backend {
    const char *method;            /* "predict", "replay", "simulate": the prediction's method */
    int comm_relevant;             /* it replays phases, and a phase that carries a share of
                                      the run's communication is replayed as relevant too
                                      (pas2p_signature_relevant_comm: simulate, replay), and
                                      so are the phases that bring what it replays to
                                      PAS2P_REPLAY_COVER of every rank's base time
                                      (pas2p_signature_relevant_cover) */
    int no_events;                 /* it needs no phase's calls (predict: its ranks read their
                                      own): the signature is read without them
                                      (pas2p_signature_read_tables) */
    int occurrences;               /* its times are the application's own occurrences, not
                                      repetitions of a phase's mean skeleton (predict:
                                      pas2p_pet_from_times's drift and tail rules) */
    const char *dir_prefix;        /* default output directory "PREFIX-YYYYmmdd-HHMMSS" */
    /* Before anything is written: what the backend needs (its programs, the signature's
     * calibration, the launch's np); sets run->np when there is no signature. */
    int (*check)(pas2p_run_t *run, char *err, size_t errlen);
    /* The settings a --relative base run must share (a part of its prediction's stop
     * line), from the options alone (asked before check()); NULL: no --relative. */
    void (*mode)(const pas2p_run_t *run, char *out, size_t len);
    /* In the output directory, before the run: actions, host file, platform, environment. */
    int (*prepare)(pas2p_run_t *run, char *err, size_t errlen);
    /* The launch; sets run->code (and run->exit_status, the status to pass through). */
    int (*run)(pas2p_run_t *run, char *err, size_t errlen);
    /* After every rank's times file was read (and none diverged): missing is the first rank
     * whose file is missing or unreadable (err says which) or -1.  0 to go on to PET (only
     * with missing -1), or the exit code with err rewritten to say why. */
    int (*verify)(pas2p_run_t *run, int missing, char *err, size_t errlen);
    /* The prediction's target, stop and note lines. */
    void (*describe)(const pas2p_run_t *run, pas2p_prediction_t *res);
    /* Lines printed after `results` and `prediction`, before the prediction (may be NULL). */
    void (*print)(const pas2p_run_t *run, FILE *out);
    void (*release)(pas2p_run_t *run);   /* may be NULL */
};

/* Runs the pipeline.  Returns the command's exit code: 0, 1 (the work failed), 2 (bad input
 * or settings), or the launch's own status that run() set to pass through (after the
 * prediction, when it could still be made).  err: the one-line reason of a non-zero code
 * (empty: already shown).  res (may be NULL): PET and SET of a run that predicted. */
int pas2p_pipeline_run(const pas2p_pipeline_opts_t *opts, pas2p_pipeline_result_t *res,
                       char *err, size_t errlen);

/* "pas2p CMD: MESSAGE" on the run's log (progress, notes). */
void pas2p_run_say(const pas2p_run_t *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "pas2p CMD" (for pas2p_launch's messages) */
void pas2p_run_who(const pas2p_run_t *run, char *out, size_t len);
/* PAS2P_QUIET is set: no progress lines */
int pas2p_quiet_env(void);

/* ------------------------------------------------------------------ the predict backend
 * (backend_predict.c): the application launched with libpas2p in signature mode. */
typedef struct {
    char **launch;                 /* the launch as traced, e.g. mpirun -np 4 ./app args */
    int nlaunch;
    long occurrences;              /* timed occurrences the stop waits for (1..PAS2P_SIG_OCC-1) */
    int ignore_args;               /* run even if the program or its arguments differ */
    int measure_end;               /* also time a relevant phase at MPI_Finalize */
    double rare_after;             /* share of the run after which a phase's occurrences are
                                      not waited for (rare phases; sigrun.c) */
    double timeout_s;              /* the run is stopped after this long (0: never; < 0: the
                                      default, 60 s + 10 x the signature's AET) */
    int to_end;                    /* the times are taken when the run could stop, and it
                                      goes on to its end: its own time is the AET (PETE of
                                      the same run) */
} pas2p_predict_opts_t;

extern const pas2p_backend_t pas2p_backend_predict;

#ifdef __cplusplus
}
#endif
#endif
