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
int pas2p_actions_from_signature(const pas2p_signature_t *sig, const char *dir, char *err,
                                 size_t errlen);

/* Writes DIR/rank-NNNNN.act with every event of every rank of the trace in TRACE_DIR, in
 * order (no phase blocks): the full-trace reference.  *events receives the number of
 * events translated.  0, or -1 with a one-line reason. */
int pas2p_actions_from_trace(const char *trace_dir, const char *dir, uint64_t *events,
                             char *err, size_t errlen);

/* Writes the signature's relevant phases as SimGrid SMPI time-independent traces (the
 * stock format of smpireplaymain, no pas2p needed to replay them) into DIR: per phase ID a
 * directory phase-ID/ with one trace per rank and a list file phase-ID.txt; weights.csv
 * (rank, phase, weight, base time, the rank's base remainder); run.sh, which replays every
 * phase on a platform and combines them into PET; README.  Computation: base seconds x
 * base_speed flops.  Refused, naming the phase and call, when the stock format cannot say it
 * (collectives on a sub-communicator, non-blocking collectives, scans).  0, or -1 with a
 * one-line reason. */
int pas2p_actions_export_ti(const pas2p_signature_t *sig, const char *dir, double base_speed,
                            char *err, size_t errlen);

int pas2p_cmd_simulate(int argc, char **argv); /* cmd_simulate.c */
int pas2p_cmd_replay(int argc, char **argv);   /* cmd_replay.c */
int pas2p_cmd_calibrate(int argc, char **argv); /* cmd_calibrate.c */

#ifdef __cplusplus
}
#endif
#endif
