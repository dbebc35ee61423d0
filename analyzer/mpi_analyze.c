/* bin/pas2p-analyze: `pas2p analyze` as an MPI program, for traces larger than one node
 * handles (`mpirun -np K pas2p-analyze TRACE_DIR [options]`, or `pas2p analyze --mpi K`).
 *
 * The analysis is per process (EPAS), so the distribution is simple: analyzer process p
 * of K takes the trace ranks r with r % K == p, with threads over the cores its node
 * gives it (the cores over the analyzer processes on that node).  The processes agree on
 * the automatic granularity with MPI_Allreduce, and each sends its ranks' phase tables
 * (pas2p_rank_phases_pack) to process 0, which writes the signature exactly as the
 * one-process analyzer does.  Memory on process 0: the phase tables, not the events. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pas2p_analyzer.h"
#include "pas2p_cli.h"

#define TAG_TABLE 4711

typedef struct {
    MPI_Comm comm;
    int self, size;
} ctx_t;

static double all_max(void *c, double v)
{
    double out = v;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, ((ctx_t *)c)->comm);
    return out;
}

/* one message per trace rank, from its owner to process 0: the rank's warning (a
 * truncated file analysed in part), then its packed phase table.  A process that cannot
 * pack sends an empty table, which process 0 reports. */
static int gather(void *c, pas2p_rank_phases_t *res, char (*warn)[512], int np, char *err,
                  size_t errlen)
{
    ctx_t *x = c;
    int rc = 0;
    if (x->self) {
        for (int r = x->self; r < np; r += x->size) {
            unsigned char *buf = NULL;
            size_t len = 0;
            if (pas2p_rank_phases_pack(&res[r], &buf, &len) || len > (size_t)INT32_MAX - 512) {
                free(buf);
                buf = NULL;
                len = 0;
            }
            unsigned char *msg = malloc(512 + len);
            if (!msg) { /* still send: process 0 is waiting for this rank */
                MPI_Send(warn[r], 512, MPI_BYTE, 0, TAG_TABLE, x->comm);
            } else {
                memcpy(msg, warn[r], 512);
                if (len)
                    memcpy(msg + 512, buf, len);
                MPI_Send(msg, (int)(512 + len), MPI_BYTE, 0, TAG_TABLE, x->comm);
            }
            free(msg);
            free(buf);
        }
        return 0;
    }
    for (int r = 0; r < np; r++) {
        int owner = r % x->size;
        if (!owner)
            continue;
        MPI_Status st;
        int n = 0;
        MPI_Probe(owner, TAG_TABLE, x->comm, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        unsigned char *msg = malloc(n > 0 ? (size_t)n : 1);
        if (!msg) { /* the message cannot be received, nor left waiting */
            pas2p_err("analyze", "out of memory for rank %d's phase table", r);
            MPI_Abort(x->comm, 1);
        }
        MPI_Recv(msg, n, MPI_BYTE, owner, TAG_TABLE, x->comm, MPI_STATUS_IGNORE);
        char why[256];
        if (!rc && n < 512) {
            snprintf(err, errlen, "analyzer process %d sent no phase table for rank %d", owner, r);
            rc = -1;
        } else if (!rc && n == 512) {
            snprintf(err, errlen, "analyzer process %d could not pack rank %d's phase table "
                     "(out of memory)", owner, r);
            rc = -1;
        } else if (!rc) {
            memcpy(warn[r], msg, 512);
            warn[r][511] = 0;
            if (pas2p_rank_phases_unpack(msg + 512, (size_t)n - 512, &res[r], why, sizeof why)) {
                snprintf(err, errlen, "rank %d's phase table from analyzer process %d: %s", r,
                         owner, why);
                rc = -1;
            }
        }
        free(msg);
    }
    return rc;
}

/* the command line (the option table of `pas2p analyze`, cmd_analyze.c), the engine, and
 * on process 0 what `pas2p analyze` prints; every error is said once, by the process the
 * engine names (the lowest that has it); option errors by process 0 */
static int analyze(int argc, char **argv, const pas2p_analyze_dist_t *d)
{
    pas2p_analyze_opts_t o;
    int rc = pas2p_analyze_parse(argc, argv, d->self != 0, &o, NULL, NULL);
    if (rc)
        return rc == PAS2P_CLI_HELP ? PAS2P_EXIT_OK : rc;
    return pas2p_analyze_command(&o, d);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ctx_t x = {MPI_COMM_WORLD, 0, 1};
    MPI_Comm_rank(x.comm, &x.self);
    MPI_Comm_size(x.comm, &x.size);
    /* threads: this node's cores shared by the analyzer processes on it */
    MPI_Comm node;
    int local = 1;
    if (MPI_Comm_split_type(x.comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    pas2p_analyze_dist_t d = {.self = x.self, .size = x.size,
                              .jobs = cores > local ? cores / local : 1,
                              .ctx = &x, .max = all_max, .gather = gather};
    int rc = analyze(argc, argv, &d);
    fflush(stdout);
    /* under `pas2p analyze --mpi` the exit status goes through a file, so that a failure
     * is its one line and not also the launcher's banner about a non-zero exit; every
     * error is agreed, so process 0's status is the run's.  Where process 0 cannot write
     * the file (another node), it exits with the status as usual. */
    const char *status = getenv("PAS2P_ANALYZE_STATUS");
    if (status && *status) {
        if (x.self) {
            rc = 0;
        } else {
            FILE *f = fopen(status, "w");
            if (f && fprintf(f, "%d\n", rc) > 0 && !fclose(f))
                rc = 0;
            else if (f)
                fclose(f);
        }
    }
    MPI_Finalize();
    return rc;
}
