/* SimGrid platform files (SimGrid 4.1 DTD) as the simulation backend needs them: the hosts
 * ranks can be mapped to, with their speed (flop/s) and cores.  Part of simbackend/. */
#ifndef PAS2P_PLATFORM_H
#define PAS2P_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char name[256];
    double speed;            /* flop/s (the first pstate) */
    int cores;
} pas2p_host_t;

typedef struct {
    pas2p_host_t *hosts;     /* <host> elements and <cluster> expansions, in file order */
    size_t nhosts;
    int kernel_unit;         /* a host or cluster says <prop id="pas2p_speed_unit"
                                value="kernel"/>: its speeds are pas2p's replay kernel's
                                flop/s (pas2p calibrate, vcluster platform), so the trace's
                                kernel calibration is the base speed in the same unit */
} pas2p_platform_t;

/* The property that marks a platform's host speeds as kernel flop/s. */
#define PAS2P_SPEED_UNIT_PROP "pas2p_speed_unit"

/* "1Gf", "2.5Mf", "1e9": flop/s; -1 if not a speed. */
double pas2p_parse_speed(const char *s);

/* 0, or -1 with a one-line reason naming PATH (missing, not XML, not a SimGrid 4.1
 * platform, a host without a speed, no host). */
int pas2p_platform_read(const char *path, pas2p_platform_t *p, char *err, size_t errlen);
void pas2p_platform_free(pas2p_platform_t *p);
/* index of the host called NAME, or -1 */
int pas2p_platform_find(const pas2p_platform_t *p, const char *name);
/* rank -> host index for np ranks, one per core: block fills each host's cores first,
 * round-robin deals ranks over hosts in turn.  -1 (err) if the cores are fewer than np. */
int pas2p_platform_map(const pas2p_platform_t *p, uint32_t np, int block, int *out, char *err,
                       size_t errlen);

/* What-if: writes OUT, a copy of platform IN with every host speed x speed, every link
 * bandwidth x bw and latency x lat (hosts, clusters, links, backbones; units kept).  The
 * DOCTYPE is kept as is.  0, or -1 with a one-line reason. */
int pas2p_platform_scale(const char *in, const char *out, double speed, double bw, double lat,
                         char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
