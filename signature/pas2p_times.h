/* The signature-mode times file (tracer/FORMAT.md, "Signature-mode times"): one per rank,
 * DIR/rank-NNNNN.times, the target's phase times that every path hands the PET module.
 * This header and times.c are its one writer and one reader.
 *
 * Plain C (stdio only: no libxml2, no signature model), so that every program that writes
 * the file compiles it in: the signature runtime (sigrun.c, a shared library), the action
 * replayer built with mpicc, and the same replayer built alone by smpicc
 * (simbackend/CMakeLists.txt compiles times.c beside replayer.c).  The one other writer is
 * libpas2p's own "cannot load the signature runtime" line (tracer/runtime.c), which may not
 * depend on this module.
 *
 *   pas2p-times 1
 *   rank R / np N / pid P / status stopped|completed|diverged / events E / set_s S / checks C
 *   [reason TEXT] [done_at EVENT]
 *   phase ID T1 T2 ...        (each timed occurrence or repetition, seconds, in order)
 */
#ifndef PAS2P_TIMES_H
#define PAS2P_TIMES_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { PAS2P_TIMES_STOPPED = 1, PAS2P_TIMES_COMPLETED = 2, PAS2P_TIMES_DIVERGED = 3 };

/* at most this many values of a phase line are read (the median is of those) */
#define PAS2P_TIMES_MAX_VALUES 64

/* A file's status lines. */
typedef struct {
    int status;              /* PAS2P_TIMES_STOPPED (early), _COMPLETED, _DIVERGED */
    double set_s;            /* MPI_Init (or the replay's start) to the stop */
    unsigned long long events, done_at; /* done_at: event after which all was measured */
    char reason[1024];
} pas2p_times_t;

/* ------------------------------------------------------------------ writing
 * begin (the status lines), then per phase: phase(id) and its value()s, then end: the file
 * is written as PATH.tmp and renamed, so a reader never sees half of it. */
typedef struct {
    FILE *f;
    int in_phase;
    char path[4200], tmp[4300];
} pas2p_times_writer_t;

/* 0, or -1 (errno set; w->tmp is the file that could not be created).  reason, done_at:
 * NULL when there is none. */
int pas2p_times_begin(pas2p_times_writer_t *w, const char *dir, int rank, int np, int status,
                      unsigned long long events, double set_s, unsigned long long checks,
                      const char *reason, const unsigned long long *done_at);
void pas2p_times_phase(pas2p_times_writer_t *w, unsigned id);
void pas2p_times_value(pas2p_times_writer_t *w, double seconds);
/* 0, or -1 (errno set; w->path is the file that could not be written) */
int pas2p_times_end(pas2p_times_writer_t *w);

/* ------------------------------------------------------------------ reading */
typedef struct {
    unsigned id;
    int n;                   /* values on its line (at most PAS2P_TIMES_MAX_VALUES read) */
    double median;           /* of those values */
} pas2p_times_phase_t;

typedef struct {
    pas2p_times_t st;
    pas2p_times_phase_t *phases; /* the phase lines, in file order */
    size_t nphases;
} pas2p_times_file_t;

/* Reads DIR/rank-NNNNN.times.  0, or -1 if the file is missing or malformed (a wrong
 * first line, no status, a phase line without a value): err names the file. */
int pas2p_times_load(const char *dir, unsigned rank, pas2p_times_file_t *out, char *err,
                     size_t errlen);
void pas2p_times_file_free(pas2p_times_file_t *f);

#ifdef __cplusplus
}
#endif
#endif
