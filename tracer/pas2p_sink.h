/* Where libpas2p's recorded events go: the tracer's sink interface (public header of the
 * tracer module, like pas2p_trace.h).
 *
 * libpas2p has two sinks, chosen once per process at MPI_Init:
 *
 *  - the trace writer (the default, built into runtime.c): its per-event path is the
 *    encoder inlined in pas2p_commit (rt.h), so tracing pays no call for the choice;
 *  - a sink loaded from a shared library, described by this header.  Today there is one:
 *    signature mode (`pas2p predict`), signature/sigrun.c built as libpas2p-sigrun.so.
 *    It is chosen when PAS2P_SIGNATURE is set and loaded from PAS2P_SIGRUN_LIB (default:
 *    libpas2p-sigrun.so in the directory libpas2p.so was loaded from).  A library that
 *    cannot be loaded ends the run: see tracer/FORMAT.md, "Signature-mode times".
 *
 * A sink library exports one symbol, PAS2P_SINK_SYMBOL: a `const pas2p_sink_t`.  It links
 * what it needs itself (MPI, its own module); libpas2p links none of it, and the sink sees
 * nothing of libpas2p but this header, pas2p_trace.h and the host below.
 *
 * Calling rules: every callback runs on the thread inside the MPI call, never in a signal
 * handler, with the runtime's lock held under MPI_THREAD_MULTIPLE (one callback at a
 * time).  A sink may call PMPI_* (not MPI_*: those are libpas2p's wrappers and would be
 * recorded), and may end the process itself: PMPI_Finalize then _exit(0) (an early stop),
 * or PMPI_Abort (a fatal error).  Its state lives in what `start` returns, not in globals:
 * the interposition layer holds the only process-wide pointers (the sink and its state).
 */
#ifndef PAS2P_SINK_H
#define PAS2P_SINK_H

#include <stdint.h>

#include "pas2p_trace.h"

#define PAS2P_SINK_ABI 1              /* bumped by any change to the two structs below */
#define PAS2P_SINK_SYMBOL "pas2p_sink" /* the one symbol a sink library exports */

/* What libpas2p offers a sink (valid from `start` until the process ends). */
typedef struct pas2p_sink_host {
    int rank, np;                       /* in MPI_COMM_WORLD */
    int quiet;                          /* PAS2P_QUIET set: no notes on stderr */
    uint64_t (*now_ns)(void);           /* the tracer's clock, the one events are timed by */
    uint64_t (*init_ns)(void);          /* when MPI_Init returned, on that clock (0 during `start`) */
    /* point-to-point traffic counted by the tracer's request bookkeeping, which events
     * alone do not show: messages sent by persistent sends started and received by
     * non-blocking receives completed, and non-blocking operations started and not yet
     * completed.  A sink adds the messages it counts from events (blocking calls, Isend). */
    void (*requests)(uint64_t *sent, uint64_t *recvd, uint64_t *active);
} pas2p_sink_host_t;

typedef struct pas2p_sink {
    uint32_t abi;                       /* PAS2P_SINK_ABI of the header it was built with */
    const char *name;
    /* MPI_Init: after PMPI_Init, before MPI_Init's own event.  Returns the sink's state,
     * handed back to the calls below; NULL ends the run as a library that cannot be loaded
     * does (a sink with something to say ends it itself). */
    void *(*start)(const pas2p_sink_host_t *host);
    /* Every recorded event (MPI_Init's and MPI_Finalize's included), in order: what the
     * trace writer would write, times in ns on host->now_ns's clock; `ordinal` is the
     * event's index in the rank's trace (0, 1, 2, ...). */
    void (*event)(void *state, const pas2p_event_t *e, uint64_t ordinal);
    /* MPI_Finalize: after its event, before PMPI_Finalize.  Frees the state. */
    void (*finish)(void *state);
} pas2p_sink_t;

#endif
