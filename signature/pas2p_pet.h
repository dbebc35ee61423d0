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

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint32_t id;                 /* phase id in the rank's table */
    uint64_t weight;
    double base_s;               /* base PhaseET (mean of the base occurrences) */
    double target_s;             /* target PhaseET (measured, or estimated) */
    double ratio;                /* target / base */
    double contribution_s;       /* target_s x weight */
    int estimated;               /* not measured: base_s x the rank's aggregate ratio */
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

#ifdef __cplusplus
}
#endif
#endif
