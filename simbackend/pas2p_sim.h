/* pas2p simulation backend: signature phases (or a whole trace) as replay actions, and
 * their simulated replay on a SimGrid platform.
 *
 * Actions (simbackend/ACTIONS.md) are one text file per rank: communicators, then either
 * phase blocks (`phase ID` ... `end`: one occurrence of a relevant phase, its skeleton in
 * order) or, for a full trace, every event in order.  One C program replays them,
 * `pas2p-simreplay` (replayer.c compiled with smpicc): it issues the MPI calls itself,
 * computation as smpi_execute_flops, and times each phase block with MPI_Wtime, which
 * SimGrid simulates.  Its times file has the signature-mode layout (tracer/FORMAT.md), so
 * the one PET module turns them into the prediction.
 *
 * Nothing is dropped silently: a call the replayer cannot express is an error naming it.
 */
#ifndef PAS2P_SIM_H
#define PAS2P_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "pas2p_pipeline.h"
#include "pas2p_signature.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PAS2P_ACTIONS_VERSION 1u

/* Writes DIR/rank-NNNNN.act for every rank of the signature: its communicators and one
 * phase block per relevant phase (the union over ranks, in id order; a rank without that
 * phase gets an empty block).  Checks that each phase can be replayed on its own: in every
 * phase, messages sent between each pair of ranks on a communicator are received there
 * (counts; MPI_ANY_SOURCE receives count for any sender) and all members of a communicator
 * make the same collectives in the same order.  0, or -1 with a one-line reason naming the
 * phase, rank or call.  An SPMD signature that fails that check because its ranks number
 * the same code differently (time variants split differently per rank) is aligned: each
 * rank replays, for every relevant phase of the representative rank, its own phase with the
 * same calls (the one with an occurrence at the same ordinal, else the heaviest), under the
 * representative's id.  Any other signature that fails it, SPMD or not, is tried with each
 * rank's relevant phases of the same calls merged (time variants: weights summed, each
 * call's computation weighted by them), the ranks' merged phases paired in the order of
 * their first occurrence; each merged block reports its times under every id it stands for
 * (`phase K BURST as ID,ID`).  In both cases 0 is returned with a one-line note in err
 * (err[0] is 0 otherwise). */
enum pas2p_actions_for {
    PAS2P_ACTIONS_FOR_REPLAY,     /* real MPI: each call's mean computation */
    PAS2P_ACTIONS_FOR_SIMULATION  /* SimGrid: plus its wait_s, what the means miss of the
                                     run's critical path (signature/FORMAT.md), which a real
                                     machine's own variation supplies and a simulation does
                                     not */
};
int pas2p_actions_from_signature(const pas2p_signature_t *sig, enum pas2p_actions_for use,
                                 const char *dir, char *err, size_t errlen);

/* Writes DIR/rank-NNNNN.act with every event of every rank of the trace in TRACE_DIR, in
 * order (no phase blocks): the full-trace reference.  *events receives the number of
 * events read; err then holds a note (0 returned) when some were not replayed (failed
 * polls, cancelled receives).  0, or -1 with a one-line reason. */
int pas2p_actions_from_trace(const char *trace_dir, const char *dir, uint64_t *events,
                             char *err, size_t errlen);

/* Writes the signature's relevant phases as SimGrid SMPI time-independent traces (the
 * stock format of smpireplaymain, no pas2p needed to replay them) into DIR: per phase ID a
 * directory phase-ID/ with one trace per rank and a list file phase-ID.txt; weights.csv
 * (rank, phase, weight, base time, the rank's base remainder); run.sh, which replays every
 * phase on a platform and combines them into PET; README.  Computation: base seconds x
 * base_speed flops.  Refused, naming the phase and call, when the stock format cannot say it
 * (collectives on a sub-communicator, non-blocking collectives, scans).  0, or -1 with a
 * one-line reason; -2 when the signature's phases cannot be replayed at all (the refusal
 * replay and simulate make too). */
int pas2p_actions_export_ti(const pas2p_signature_t *sig, const char *dir, double base_speed,
                            char *err, size_t errlen);
/* `pas2p replay --export DIR`: the signature file read, DIR prepared (empty or new), then
 * pas2p_actions_export_ti.  The exit code (pas2p_cli.h: 2 a bad signature or DIR, or one
 * whose phases cannot be replayed, as replay and simulate say; 1 an export that failed)
 * with a one-line reason in err. */
int pas2p_actions_export_file(const char *sig_path, const char *dir, double base_speed,
                              char *err, size_t errlen);

/* The actions of a run in OUT_DIR/actions (its path in actdir): the signature's
 * (pas2p_actions_from_signature) or, sig NULL, every event of the trace in trace_dir
 * (pas2p_actions_from_trace); err may hold a note with 0 returned.  0, or -1 with a
 * one-line reason. */
int pas2p_actions_dir(const pas2p_signature_t *sig, enum pas2p_actions_for use,
                      const char *trace_dir, const char *out_dir, char *actdir, size_t actlen,
                      uint64_t *events, char *err, size_t errlen);

/* ------------------------------------------------------------------ the pipeline's backends
 * (signature/pas2p_pipeline.h): the same actions measured two ways. */

/* replay (backend_replay.c): the actions replayed with real MPI by bin/pas2p-replayer,
 * appended to a launcher. */
typedef struct {
    char **launch;                 /* the launcher without a program, e.g. mpirun -np 4 */
    int nlaunch;
    long reps;                     /* replays of each phase, the first a warm-up (1..16) */
    int kernel;                    /* computation: 1 the calibrated kernel, 0 a timed wait */
} pas2p_replay_opts_t;
extern const pas2p_backend_t pas2p_backend_replay;

/* simulate (backend_simulate.c): the actions replayed inside SimGrid by bin/pas2p-simreplay
 * under smpirun, on a platform.  Without a signature (the pipeline's sig_path NULL), the
 * whole trace in `trace` is replayed: the reference. */
typedef struct {
    const char *trace;             /* --full-trace TRACE_DIR, or NULL */
    const char *platform;          /* SimGrid platform file */
    const char *hostfile;          /* host of each rank, or NULL: --map */
    int block;                     /* --map: 1 block, 0 round-robin */
    long reps;                     /* replays of each phase (1..16) */
    double base_speed;             /* flop/s of a base core; 0: see below */
    int kernel_speed;              /* each rank's kernel calibration (--base-speed kernel) */
    int host_speed;                /* rank 0's host's speed (--base-speed host).  Neither
                                      given: the kernel calibration when the platform says
                                      its speeds are kernel flop/s (pas2p_platform.h) and the
                                      trace has one, else rank 0's host's */
    double whatif[3];              /* factors of host speed, link bandwidth, latency */
    const char *const *cfgs;       /* --cfg=OPT for SimGrid */
    int ncfg;
    int verbose;                   /* SimGrid's output on the terminal, not DIR/simgrid.log */
} pas2p_simulate_opts_t;
extern const pas2p_backend_t pas2p_backend_simulate;

/* --sweep GRID: up to 16 values of each what-if factor (speed, bw, lat) */
typedef struct {
    double v[3][16];
    int n[3];
} pas2p_sweep_grid_t;

/* "speed=0.5:1:2,bw=1:10": 0, or -1 with a one-line reason. */
int pas2p_sweep_parse(const char *spec, pas2p_sweep_grid_t *g, char *err, size_t errlen);

/* The procurement study (sweep.c): the simulate pipeline `opts` run in this process at every
 * point of the grid (its backend options' what-if replaced by the point's), each point in
 * opts->dir/point-NNN/ with its output in point-NNN.log; then sweep.csv, sweep.gp and
 * sweep.png (gnuplot) in opts->dir (default pas2p-sweep-DATE) and the table on stdout.  The
 * first point's failure stops it.  Returns the exit code; err: the one-line reason (empty
 * when the failing points were named on the log). */
int pas2p_sweep_run(const pas2p_pipeline_opts_t *opts, const pas2p_sweep_grid_t *g, char *err,
                    size_t errlen);

/* ------------------------------------------------------------------ calibration
 * (calibrate.c): this machine measured by bin/pas2p-probe, written as a SimGrid cluster. */
typedef struct {
    const char *out;               /* the platform file; NULL: stdout */
    const char *name;              /* the cluster's id and host prefix */
    long hosts, slots;             /* hosts in the cluster, cores per host */
    long cores;                    /* this machine's cores (the share of a core per slot) */
    double cpu;                    /* share of a core each slot gets, (0, 1] */
    double link_bw;                /* the links' nominal bytes/s; 0: the measured bandwidth */
    double seconds;                /* time spent measuring the kernel */
    char *const *launcher;         /* how to start 2 ranks (nlauncher 0: mpirun) */
    int nlauncher;
} pas2p_calibrate_opts_t;

typedef struct {
    double speed;                  /* the kernel's flop/s on one core */
    double latency, bandwidth;     /* MPI one way, 1 byte (s); 4 MiB messages (B/s) */
} pas2p_calibration_t;

/* Measures and writes the platform.  0, or 1 with a one-line reason in err (empty when a
 * launcher that could not be run said so itself). */
int pas2p_calibrate(const pas2p_calibrate_opts_t *o, pas2p_calibration_t *res, char *err,
                    size_t errlen);

int pas2p_cmd_simulate(int argc, char **argv); /* cmd_simulate.c */
int pas2p_cmd_replay(int argc, char **argv);   /* cmd_replay.c */
int pas2p_cmd_calibrate(int argc, char **argv); /* cmd_calibrate.c */

#ifdef __cplusplus
}
#endif
#endif
