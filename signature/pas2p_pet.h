/* pas2p PET module: the one prediction equation, shared by every path (predict: the
 * application on the target; replay: the phases as real MPI; simulate: SimGrid).
 *
 *   PET = sum over relevant phases i of PhaseET_i(target) x W_i  +  remainder(target)
 *
 * Inputs: the signature (weights, base PhaseET, the explicit remainder of the non-relevant
 * phases) and the target's time of each relevant phase per rank, as measured (NAN: not
 * measured).  The remainder has no target measurement; it is the base remainder scaled by
 * the rank's aggregate target/base ratio over its measured relevant phases (the same
 * machine-to-machine factor), and reported as its own term.  A relevant phase not measured
 * on the target is estimated the same way and flagged: never silently dropped.
 *
 * SPMD signatures predict from the representative rank; per-rank signatures from the rank
 * with the largest predicted time (the run ends with its slowest rank).
 */
#ifndef PAS2P_PET_H
#define PAS2P_PET_H

#include <stdint.h>
#include <stdio.h>

#include "pas2p_signature.h"
#include "pas2p_times.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the paired base occurrences' median over the base mean beyond which pas2p_pet_print notes
 * that the PET rests on one base run's early profile (either way: 1.2x or 1/1.2x) */
#define PAS2P_PET_PROFILE 1.2
/* a predict phase timed on 2 to PAS2P_PET_FEW_VALUES - 1 values, the largest
 * PAS2P_PET_FEW_SPREAD x the least or more, holding >= 10 % of the PET: pas2p_pet_print_for
 * says the PET rests on them */
#define PAS2P_PET_FEW_VALUES 5
#define PAS2P_PET_FEW_SPREAD 4.0
/* PAS2P_PET_FEW_VALUES or more, this far apart, holding >= 10 % of the PET: said too */
#define PAS2P_PET_WIDE_SPREAD 10.0

typedef struct {
    uint32_t id;                 /* phase id in the rank's table */
    uint64_t weight;
    double base_s;               /* base PhaseET (mean of the base occurrences) */
    double target_s;             /* target PhaseET (measured, or estimated) */
    double ratio;                /* target / base */
    double contribution_s;       /* target_s x weight */
    int estimated;               /* not measured: base_s x the rank's aggregate ratio */
    int for_messages;            /* not relevant by its time in the signature: replayed for
                                    its share of the messages or bytes sent (1), or so that
                                    the replayed phases cover the run (2; simulate, replay) */
    uint32_t nvalues;            /* the timed values the target PhaseET rests on (0: none,
                                    estimated; or not known: an older prediction file) */
    double lo_s, hi_s;           /* their range, on the scale of target_s */
    double early_s;              /* > 0: the target's median was taken against the base's
                                    median over its first recorded occurrences, early_s
                                    (predict, a phase whose base mean is PAS2P_PET_DRIFT x
                                    that or more, or that PAS2P_PET_DRIFT x the mean or
                                    more, when its values could not be paired: below) */
    uint32_t paired_first;       /* > 0 (predict): target_s is the base mean x the median of
                                    values each over the same occurrence of the base run:
                                    paired_n of them from occurrence paired_first (counted
                                    from 1), of which paired_used entered the median, from
                                    the paired_from-th (from 0; pas2p_times_pair): */
    uint32_t paired_n, paired_used, paired_from; /* pas2p_pet_from_times */
    unsigned paired_how;         /* PAS2P_PAIR_* (pas2p_times.h): which were left out, why */
    double paired_before;        /* PAS2P_PAIR_AFTER_CHANGE: the median ratio before it */
    double paired_ratio;         /* that median */
    double paired_base;          /* the median of the used base occurrences over the base
                                    mean (0 unknown): far from 1 in one base run, the PET rests
                                    on that run's early profile (pas2p_pet_print says so) */
    uint32_t paired_runs;        /* > 1: each value over the median of that many base runs'
                                    same occurrence, and their median mean (the signature
                                    pooled the runs of pas2p trace --runs N) */
} pas2p_pet_phase_t;

typedef struct {
    uint32_t rank;               /* the rank the PET comes from */
    double pet_s;                /* the prediction */
    double relevant_s;           /* sum of the relevant phases' contributions */
    double remainder_base_s, remainder_s; /* the explicit non-relevant term, base and target */
    double ratio;                /* aggregate target / base over the measured phases */
    double set_s;                /* signature execution time (as given) */
    double aet_s;                /* measured execution time on the target, <= 0 if unknown */
    double pete;                 /* (PET - AET) / AET, signed; NAN without AET */
    uint32_t nphases, nestimated;
    pas2p_pet_phase_t *phases;   /* the relevant phases of that rank */
} pas2p_pet_t;

/* target[r][k]: target PhaseET (s) of phase k (index in sig->ranks[r].phases) on rank r,
 * NAN when not measured.  0, or -1 with a one-line reason (nothing measured on the rank
 * the prediction needs: no ratio to scale by). */
int pas2p_pet_compute(const pas2p_signature_t *sig, const double *const *target, double set_s,
                      double aet_s, pas2p_pet_t *out, char *err, size_t errlen);
void pas2p_pet_free(pas2p_pet_t *p);

/* Prints `PET = T s`, `SET = T s`, (`AET`, `PETE` when known) and the per-phase table. */
void pas2p_pet_print(const pas2p_pet_t *p, FILE *out);
/* The same for a run of METHOD ("predict", "replay", "simulate"; NULL: unknown), whose
 * rows then say what only that method's figures mean (predict: a phase timed once). */
void pas2p_pet_print_for(const pas2p_pet_t *p, const char *method, FILE *out);

/* ------------------------------------------------------------------ target phase times
 * Every path measures the target as "times files", one per rank (pas2p_times.h, its one
 * writer and reader; tracer/FORMAT.md, "Signature-mode times"): written by the signature
 * runtime (predict) and by the action replayer (replay, simulate). */
/* Reads DIR/rank-NNNNN.times of rank R->rank: status, SET, and each phase's target
 * PhaseET into t[k] (k: index in R->phases; NAN if not measured; t may be NULL): the median
 * of the phase's timed values, whether they are repetitions of the phase's mean skeleton
 * (replay, simulate) or the application's own occurrences 2, 3, ... of the phase, or its
 * only one (predict).
 *
 * predict does not compare an occurrence with the same occurrence on the base, although
 * the signature keeps those base times: on a shared machine the base's early occurrences
 * are single samples, and a burst of load in them (cartsweep's occurrences 1-3 at 58, 50
 * and 28 ms against a 30 ms mean; wavefront's first 8 at twice its mean) is
 * indistinguishable from a real start-up excess, so the ratio to them misread noise as
 * speed: -38 to -45 % predictions.  Measured on 5 applications x 3 traces x 6 predict
 * runs, three times (validation/bench/predict_estimators.sh, results/predict.md): mean
 * |PETE| 11.1 % against 14.4 % at np 2, 3.6 and 5.6 % against 5.3 and 5.7 % at np 4, for
 * the median against the former switch to those ratios when the base's occurrences looked
 * atypical.  A real excess of one early occurrence (wavefront's second,
 * +27 % on both machines) is outvoted by the median of the default 3.
 * t == NULL: only the status, SET and counts are wanted, and phase lines of ids R does not
 * have are skipped (an aligned replay labels every rank's blocks with the representative
 * rank's ids; pas2p_sim.h).
 * 0, or -1 if the file is missing or malformed (err names it). */
int pas2p_times_read(const char *dir, const pas2p_sig_rank_t *R, double *t, pas2p_times_t *st,
                     char *err, size_t errlen);

/* Every rank's DIR/rank-NNNNN.times into the PET, SET being the slowest rank's.  base_dir
 * (may be NULL): the times of the same replay run on the base machine; each phase's target
 * time is then base PhaseET x DIR's time / base_dir's time, so whatever the replay models
 * wrongly on both machines (the kernel's speed against the application's own computation,
 * the replayer's MPI overheads) cancels.
 *
 * occurrences (predict: the times are the application's own early occurrences, not
 * repetitions of the phase's mean skeleton): each value is paired with the same
 * occurrence of the base run (the times file's `first` line says which; the signature
 * records the base's first PAS2P_SIG_OCC), and the phase's target time is its base mean x
 * the median of those ratios.  A code whose steps drift (md's get 1.3x dearer over its run
 * as its lattice melts, LAMMPS's melt) starts as cheaply on the target as on the base, and
 * the early occurrences' median alone predicted md -42 %.  Before, the base's early
 * occurrences were taken as noise more often than signal (the comment above): most of that
 * noise was the benchmarks' unbound ranks, two of which the kernel often started on one
 * core for some milliseconds (2 of 5 runs of md 40 1000 and cartsweep 96 500 ran their
 * first steps at 2x); with ranks bound to cores (as Open MPI does by default), 9 codes x 3
 * traces x 6 runs at validation size (predict_estimators.sh, results/predict.md): mean
 * |median PETE| 1.1 % paired against 4.2 % with the guard below (md -20 %), 6.3 % with the
 * median alone (md -43 %), cg left out (its traces were disturbed).  A stall in one base or
 * target occurrence is one ratio of at least three.  When the signature pooled the base runs
 * of pas2p trace --runs N (a phase's runs > 1), each value is paired with the runs' median
 * time of the same occurrence and the base mean is the runs' median mean: one run's early
 * occurrences carry its noise (the same 9 codes, 3 traces pooled: mean |PETE| of a single
 * predict run 2.4 % against 3.1 % paired with its own trace, 3 of 54 runs over 5 % against
 * 6; the mean of the runs did as well there, but one slow start in 5 runs moved ftn_ring's
 * pooled mean and its predictions by -13 %).  Of the pairs, those pas2p_times_pair keeps:
 * the ones whose base occurrence is typical of the phase (within 4x its whole-run median),
 * and of those the ones after the target's last clean change of pace (3 or more), the
 * occurrences before it counted as they ran (a target starting at 60x its base's pace:
 * PET 6.14 s for runs of 0.82 s, now 0.79 s; 0.1 ms base occurrences of a 10 ms phase
 * paired: PET 0.01-100x the run; tests predict_slow_start, predict_untypical_pairs).
 * Values that cannot be paired (no `first` line, occurrences the signature does not record,
 * an older signature without their times) fall back on this: a phase whose base mean is
 * PAS2P_PET_DRIFT times its base median over the occurrences the signature records (2nd to 32nd) or more,
 * or that early median PAS2P_PET_DRIFT times its mean or more, gets base mean x target
 * median / that early median instead of the target median.  Its early occurrences are
 * then no sample of its whole run (the second way: NetPIPE's 0.4 us phase took 3.2 us in
 * its early occurrences, and the median alone predicted +751 %; on the three estimator
 * studies' kept runs of the bundled codes it never fires, results/predict.md).  And a phase whose mean is over
 * PAS2P_PET_TAIL (10) times its whole-run median (its time is in a few heavy occurrences)
 * gets its measured typical occurrence plus its tail (mean - early median) x the rank's
 * ratio over its other phases (pet.c).  Measured on quiet traces: LAMMPS's LJ melt (4000
 * atoms, 5000 steps) has one phase for its step's four exchanges, 13 us to 0.9 ms as the
 * force computation precedes one of them or not, mean 26x median: the median alone
 * predicted -89 %, the tail rule -17 % (3 runs, results/predict.md); HPCC's Allreduce
 * rounds on rank 1 wait for rank 0's single-process benchmarks (median 0.85 us, mean
 * 0.76 ms).  The drift factor, 1.12: over 88 relevant phases of >= 8 occurrences (runs H
 * and I of the experiment, the two estimator studies' signatures) the ratio is below 1.10
 * but for md, whose steps slow down over its run (1.13-1.30), and one cartsweep trace
 * (1.43); scored on both studies' kept runs, the guard at 1.12 took md from -11 / -16 %
 * to +6 / -3 % and cartsweep from -8 to +4 %, every other code unchanged (mean |PETE|
 * 5.2 -> 3.4 % and 7.1 -> 4.9 %; at 2.0 it fired on none of them; results/predict.md).
 * On a loaded base, though, stalls (a rank descheduled for a time slice) make the same
 * shape: md at 40 x 40 particles traced beside 4 busy processes on 2 cores had a mean 2.5x
 * its early median (1.05x on a quiet machine); the guard then predicts a target that
 * stalls as the base did.  Trace on a quiet base.
 * 0, or -1 with a one-line reason (a missing or malformed times file is named). */
#define PAS2P_PET_DRIFT 1.12
int pas2p_pet_from_times(const pas2p_signature_t *sig, const char *dir, const char *base_dir,
                         int occurrences, double aet_s, pas2p_pet_t *out, char *err,
                         size_t errlen);

/* ------------------------------------------------------------------ the result file
 * Every path writes its prediction as an XML file (prediction.rng, signature/FORMAT.md)
 * that `pas2p show` prints. */
#define PAS2P_PREDICTION_VERSION 1u

typedef struct {
    char method[16];         /* "predict", "replay" or "simulate" */
    char signature[4096];    /* the signature file */
    char application[4096];  /* the application's command (from the signature) */
    char target[4096];       /* the launch (predict, replay) or the platform (simulate) */
    char host[256];          /* the machine pas2p ran on */
    char date[32];           /* UTC, ISO 8601 */
    char stop[512];          /* how the signature's execution ended */
    char note[1024];         /* why (when it did not stop early), or empty */
    double wall_s;           /* the whole run, launch included */
    pas2p_pet_t pet;
} pas2p_prediction_t;

/* Fills host and date with this machine and now. */
void pas2p_prediction_stamp(pas2p_prediction_t *p);
/* Fills the run's description: method, the signature file (absolute when it resolves), the
 * application (the signature's command), host, date, wall; then stamps it. */
void pas2p_prediction_begin(pas2p_prediction_t *p, const char *method, const char *sig_path,
                            const pas2p_signature_t *sig, double wall_s);
/* 0, or -1 with a one-line reason naming the file. */
int pas2p_prediction_write(const pas2p_prediction_t *p, const char *path, char *err, size_t errlen);
/* 0; -2 when PATH is XML of another kind (e.g. a signature: try that reader); -1 otherwise;
 * err names the file.  Validated against the schema; no network, no external entities. */
int pas2p_prediction_read(const char *path, pas2p_prediction_t *p, char *err, size_t errlen);
void pas2p_prediction_free(pas2p_prediction_t *p);
/* `--relative BASE_DIR` of replay and simulate: BASE_DIR/prediction.xml must be a `method`
 * run of the same signature whose `stop` line contains `mode` (the settings that must
 * match, e.g. the computation model).  0, or -1 with a one-line reason. */
int pas2p_prediction_check_base(const char *base_dir, const char *method, const char *sig_path,
                                const char *mode, char *err, size_t errlen);
/* The run's lines (method, target, stop, wall) then pas2p_pet_print. */
void pas2p_prediction_print(const pas2p_prediction_t *p, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
