/* Global phases: the phases of all ranks put together (the PAS2P thesis's PHASE_TABLE),
 * every occurrence a communication-closed slice across all ranks.
 *
 * One more streaming pass over every rank's events, all ranks at once.  A cut is a
 * position in every rank's stream.  It is *closed* when, before it, every channel
 * (communicator, source, destination, tag) has as many messages received as sent, no
 * request is active on any rank, and every member of a communicator has made the same
 * number of collectives on it.  Closed cuts form a lattice (min and max of two closed cuts
 * are closed), so from any lower bound there is one least closed cut, found by advancing,
 * one event at a time, a rank that some condition says must move (a receiver short of its
 * messages, a sender whose message was received, a rank with an active request, a member
 * behind on a collective): every such move is forced, so the order of moves does not
 * change the cut and the pass is deterministic.
 *
 * The lower bounds come from the per-rank analysis: each rank's next occurrence boundary
 * (its loop iterations).  A rank with no boundary left waits where it is; when no rank has
 * one, every rank goes to its end.  The slices between consecutive cuts are the
 * occurrences; occurrences whose every rank makes the same calls (symbols) with similar
 * computation are one phase.  Messages, requests and collectives never cross a cut, so
 * each phase can be replayed alone and timed, and its time multiplied by its weight.
 *
 * Each occurrence is also walked as the run's critical path with free communication, every
 * rank going on from the previous cut (crit_path); a phase's mean share of it over its mean
 * occurrence's path scales its computation for a simulation (wait_s, phase_jitter).
 *
 * Cost: each event is read once and moved over once; the slice being built is the only
 * buffer (its events and dependencies, all ranks).  See pas2p_analyzer.h for the contract. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pas2p_analyzer.h"
#include "table.h"

#define RESERVOIR 255

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* max of two times (never NaN): inline where fmax is a libm call */
static inline double tmax2(double a, double b)
{
    return a > b ? a : b;
}

/* ------------------------------------------------------------------ symbols */
#define MEMO 64 /* direct-mapped memos (symbols, channels): a loop's few distinct calls */

typedef struct {
    pas2p_symbol_t v;         /* an event's identity exactly as last looked up */
    uint32_t sym;             /* its symbol + 1 (0: empty) */
} symmemo_t;

/* an event as it was read: the bytes [peer, rbytes] of pas2p_event_t, its call, wildcard
 * flags and counted tags (all that identity() reads) */
#define IDENT_AT offsetof(pas2p_event_t, peer)
_Static_assert(offsetof(pas2p_event_t, rbytes) + 8 - IDENT_AT == 40,
               "an event's identity fields are 40 contiguous bytes");
typedef struct {
    uint64_t w[5];
    uint64_t x;               /* call | wildcard flags << 16 | counted tag << 32 */
    int32_t tag2;             /* counted tag2 */
    uint32_t sym;             /* its symbol + 1 (0: empty) */
} evmemo_t;

typedef struct {
    pas2p_symbol_t *v;
    uint32_t n, cap;
    table_t index;            /* (base hash, variant #) -> symbol id + 1 */
    double tol;
    uint64_t floor_b;         /* bytes apart that are alike whatever the ratio */
    symmemo_t memo[MEMO];
    evmemo_t ememo[MEMO];     /* gsym_event's: events as read */
} gsyms_t;

static int same_identity(const pas2p_symbol_t *a, const pas2p_symbol_t *b)
{
    return a->call == b->call && a->peer == b->peer && a->peer2 == b->peer2 && a->tag == b->tag &&
           a->tag2 == b->tag2 && a->comm == b->comm && a->aux == b->aux && a->bytes == b->bytes &&
           a->rbytes == b->rbytes;
}

static uint64_t base_hash(const pas2p_symbol_t *s)
{
    uint64_t a = (uint64_t)s->call << 48 ^ (uint64_t)(uint32_t)s->peer << 16 ^ s->aux;
    uint64_t b = ((uint64_t)(uint32_t)s->tag << 32 | (uint32_t)s->peer2) * 0x9e3779b97f4a7c15ull;
    uint64_t c = ((uint64_t)s->comm << 32 | (uint32_t)s->tag2) * 0xc2b2ae3d27d4eb4full;
    return mix64(a ^ b ^ c);
}

static int size_alike(uint64_t a, uint64_t b, double tol, uint64_t floor_b)
{
    uint64_t mx = a > b ? a : b, mn = a < b ? a : b;
    return mx - mn <= floor_b || (double)(mx - mn) <= tol * (double)mx;
}

/* how far apart two sizes are: their difference over the larger, or over the size floor
 * when both are smaller (0 and 360 bytes are nearer than 360 and 2880) */
static double size_distance(uint64_t a, uint64_t b, uint64_t floor_b)
{
    uint64_t mx = a > b ? a : b, mn = a < b ? a : b;
    return mx ? (double)(mx - mn) / (double)(mx > floor_b ? mx : floor_b) : 0;
}

/* the symbol of x: of its variants (same call, peers, tags, communicator, aux) whose sizes
 * are alike, the closest (the first of equals), else a new variant; UINT32_MAX when out of
 * memory.  The closest, not the first: a size that drifts would otherwise straddle a
 * boundary set by the first size seen (md's migrating atoms: 2880 bytes once, then 40-400;
 * with the first alike, 288-400 went to the 2880 variant and 40-287 to another, and the
 * same step came out as a new phase whenever one rank's size crossed 288).  A size whose
 * two counts are within the floor takes a variant that is too, when one is alike: GROMACS's
 * halo (100-450 bytes each way, once 1080/324) went to (1080, 324) or to (4, 4) by which
 * was closer, and its step split into a phase per combination (63 phases, 11 relevant). */
static uint32_t gsym_lookup(gsyms_t *t, const pas2p_symbol_t *x)
{
    uint64_t h = base_hash(x), k = 0;
    int small = x->bytes <= t->floor_b && x->rbytes <= t->floor_b;
    uint32_t best = UINT32_MAX;
    double bd = 0;
    for (slot_t *s; (s = tfind(&t->index, h, k)); k++) {
        const pas2p_symbol_t *y = &t->v[s->v - 1];
        if (y->call == x->call && y->peer == x->peer && y->peer2 == x->peer2 && y->tag == x->tag &&
            y->tag2 == x->tag2 && y->comm == x->comm && y->aux == x->aux &&
            size_alike(y->bytes, x->bytes, t->tol, t->floor_b) &&
            size_alike(y->rbytes, x->rbytes, t->tol, t->floor_b)) {
            /* (small: both sizes within the floor, latency-bound; two small sizes are
             * always alike, so a small size takes a small variant first) */
            double d = size_distance(y->bytes, x->bytes, t->floor_b) +
                       size_distance(y->rbytes, x->rbytes, t->floor_b) +
                       (small && !(y->bytes <= t->floor_b && y->rbytes <= t->floor_b) ? 4 : 0);
            if (best == UINT32_MAX || d < bd) {
                best = (uint32_t)(s->v - 1);
                bd = d;
            }
        }
    }
    if (best != UINT32_MAX)
        return best;
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        pas2p_symbol_t *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return UINT32_MAX;
        t->v = v;
        t->cap = cap;
    }
    slot_t *n = tput(&t->index, h, k);
    if (!n)
        return UINT32_MAX;
    n->v = t->n + 1;
    t->v[t->n] = *x;
    /* a new size variant can be closer to an identity the memo holds: forget them all (a
     * new variant of a known call is rare; a new call changes no other call's lookup) */
    if (k) {
        memset(t->memo, 0, sizeof t->memo);
        memset(t->ememo, 0, sizeof t->ememo);
    }
    return t->n++;
}

/* gsym_lookup behind a memo of the identities last seen: the same identity always gets the
 * symbol a lookup gives (the memo is emptied whenever a variant is added) */
static uint32_t gsym_of(gsyms_t *t, const pas2p_symbol_t *x)
{
    uint32_t slot = (uint32_t)(x->call * 0x9e3779b1u ^ (uint32_t)x->peer * 0x85ebca6bu ^
                               (uint32_t)x->tag * 0xc2b2ae35u ^ (uint32_t)x->bytes) >> 26;
    symmemo_t *m = &t->memo[slot % MEMO];
    if (m->sym && same_identity(&m->v, x))
        return m->sym - 1;
    uint32_t id = gsym_lookup(t, x);
    if (id != UINT32_MAX)
        *m = (symmemo_t){.v = *x, .sym = id + 1};
    return id;
}

/* ------------------------------------------------------------------ requests */
/* A rank's active requests: (post ordinal, index) -> communicator.  A loop keeps a few
 * active at a time (a halo's 4-8), so they are a vector searched from its end (the last
 * posted first) while there are at most REQ_VEC, and a hash table beyond (a farm's
 * thousands of posted receives), never back. */
#define REQ_VEC 32

typedef struct {
    uint64_t post, index;
    uint32_t comm;
    uint32_t si;              /* the posting call's index in its slice (gev_t) */
} req_t;

typedef struct {
    req_t v[REQ_VEC];
    size_t n;                 /* active requests (in v, or in t when big) */
    table_t t;
    int big;
    /* when big: every request put since, in order, (post, index) pairs from fh; those no
     * longer in t are dropped from the front as they are met (req_oldest) */
    uint64_t *fifo;
    size_t fh, fn, fcap;      /* front, end (pairs), capacity (pairs) */
} reqset_t;

static int fifo_push(reqset_t *s, uint64_t post, uint64_t index)
{
    if (s->fn == s->fcap) {
        if (s->fh > s->fn / 2) { /* mostly dropped: move the live part down */
            memmove(s->fifo, s->fifo + 2 * s->fh, 2 * (s->fn - s->fh) * sizeof *s->fifo);
            s->fn -= s->fh;
            s->fh = 0;
        } else {
            size_t c = s->fcap ? 2 * s->fcap : 64;
            uint64_t *f = realloc(s->fifo, 2 * c * sizeof *f);
            if (!f)
                return -1;
            s->fifo = f;
            s->fcap = c;
        }
    }
    s->fifo[2 * s->fn] = post;
    s->fifo[2 * s->fn + 1] = index;
    s->fn++;
    return 0;
}

static int cmp_req_post(const void *a, const void *b)
{
    const req_t *x = a, *y = b;
    return x->post != y->post ? (x->post > y->post) - (x->post < y->post)
                              : (x->index > y->index) - (x->index < y->index);
}

/* 0, -1 out of memory.  si: the index the posting call has (or will have) in the rank's
 * current slice */
static int req_put(reqset_t *s, uint64_t post, uint64_t index, uint32_t comm, uint32_t si)
{
    if (!s->big) { /* (an event's ordinal and index name one request: never put twice) */
        if (s->n < REQ_VEC) {
            s->v[s->n++] = (req_t){post, index, comm, si};
            return 0;
        }
        qsort(s->v, s->n, sizeof *s->v, cmp_req_post); /* (the fifo is in post order) */
        for (size_t i = 0; i < s->n; i++) { /* into the table, for good */
            slot_t *p = tput(&s->t, s->v[i].post, s->v[i].index);
            if (!p || fifo_push(s, s->v[i].post, s->v[i].index))
                return -1;
            p->v = (uint64_t)s->v[i].si << 32 | ((uint64_t)s->v[i].comm + 1);
        }
        s->big = 1;
    }
    slot_t *p = tput(&s->t, post, index);
    if (!p || fifo_push(s, post, index))
        return -1;
    p->v = (uint64_t)si << 32 | ((uint64_t)comm + 1);
    s->n = s->t.n;
    return 0;
}

/* the oldest active request's post, UINT64_MAX when none (big sets: the fifo's first that
 * is still in the table, those before it dropped for good) */
static uint64_t req_oldest(reqset_t *s)
{
    uint64_t m = UINT64_MAX;
    if (!s->big) {
        for (size_t i = 0; i < s->n; i++)
            if (s->v[i].post < m)
                m = s->v[i].post;
        return m;
    }
    while (s->fh < s->fn && !tfind(&s->t, s->fifo[2 * s->fh], s->fifo[2 * s->fh + 1]))
        s->fh++;
    return s->fh < s->fn ? s->fifo[2 * s->fh] : UINT64_MAX;
}

/* removes (post, index): 0 when it is not active, else its communicator + 1 in the low 32
 * bits and its posting call's slice index (req_put's si) in the high 32 */
static uint64_t req_take(reqset_t *s, uint64_t post, uint64_t index)
{
    if (!s->big) {
        for (size_t i = s->n; i-- > 0;)
            if (s->v[i].post == post && s->v[i].index == index) {
                uint64_t c = (uint64_t)s->v[i].si << 32 | ((uint64_t)s->v[i].comm + 1);
                s->v[i] = s->v[--s->n];
                return c;
            }
        return 0;
    }
    slot_t *p = tfind(&s->t, post, index);
    if (!p)
        return 0;
    uint64_t c = p->v;
    tdel(&s->t, p);
    s->n = s->t.n;
    return c;
}

/* How many requests a poll (a test, not numbered in a global signature) completed, when
 * they were the oldest active requests of the rank -- receives, none of them cancelled, or
 * sends: a replay that waits for its k oldest pending requests there (`wait k`) waits for
 * exactly those.  0 otherwise.  Called after the completions were taken from s.  (Sends:
 * murasaki-mpi streams MPI_Issend and completes them with MPI_Test on the oldest, at most
 * a thousand unfinished, a set searched by req_oldest; without their waits its replay
 * posted 918 000 sends before the first wait.) */
static uint32_t polled_oldest(reqset_t *s, const pas2p_event_view_t *v, uint64_t ghost1)
{
    uint32_t n = 0;
    const pas2p_completion_t *d = pas2p_event_completions(v, &n);
    if (!d || !n)
        return 0;
    uint64_t newest = 0;
    for (uint32_t i = 0; i < n; i++) {
        int send = d[i].call == PAS2P_CALL_Isend || d[i].call == PAS2P_CALL_Issend ||
                   d[i].call == PAS2P_CALL_Ibsend || d[i].call == PAS2P_CALL_Irsend;
        if ((d[i].call != PAS2P_CALL_Irecv && !send) || d[i].post == UINT64_MAX ||
            (!send && (d[i].flags & PAS2P_EV_ANY_SOURCE) && d[i].source == PAS2P_PEER_ANY))
            return 0;
        if (d[i].post > newest)
            newest = d[i].post;
    }
    uint64_t oldest = req_oldest(s);
    if (ghost1 && ghost1 - 1 < oldest)
        oldest = ghost1 - 1;
    return oldest != UINT64_MAX && oldest < newest ? 0 : n;
}

/* fn(ctx, post, index) for every active request, in no particular order (orphans_out) */
static void req_each(const reqset_t *s, void (*fn)(void *, uint64_t, uint64_t), void *ctx)
{
    if (!s->big) {
        for (size_t i = 0; i < s->n; i++)
            fn(ctx, s->v[i].post, s->v[i].index);
        return;
    }
    for (size_t k = 0; k < s->t.cap; k++)
        if (s->t.s[k].used)
            fn(ctx, s->t.s[k].a, s->t.s[k].b);
}

/* ------------------------------------------------------------------ state */
/* gev_t.pdone's top bit: a wildcard receive the application cancelled (its completion has
 * no source; MPI_Cancel is not traced) */
#define PDONE_CANCELLED 0x80000000u

/* gpr_t.range's values per call (RW): see gpr_t */
#define RW 5

/* gpr_t.range's fourth value per call: an MPI_Wait/Waitany/Waitsome's distance back to the call that
 * posted the request it completed (gev_t.wdist), the same in every occurrence; WD_UNSET
 * before the first, WD_MIXED when occurrences differ */
#define WD_UNSET UINT64_MAX
#define WD_MIXED (UINT64_MAX - 1)

static uint64_t wd_merge(uint64_t a, uint64_t b)
{
    return a == WD_UNSET ? b : b == WD_UNSET || a == b ? a : WD_MIXED;
}

/* gpr_t.range's third value per call: the least pdone over the occurrences in its low 32
 * bits (PD_NONE: none summed yet), and bit 32 set once an occurrence did not cancel it */
#define PD_NONE 0xffffffffull
#define PD_KEPT (1ull << 32)

static uint64_t pd_merge(uint64_t a, uint64_t b)
{
    uint64_t lo = (a & PD_NONE) < (b & PD_NONE) ? a & PD_NONE : b & PD_NONE;
    return ((a | b) & PD_KEPT) | lo;
}

static uint64_t pd_of(uint32_t pdone)
{
    return (pdone & PDONE_CANCELLED ? 0 : PD_KEPT) | (pdone & ~PDONE_CANCELLED);
}

/* the phase's pas2p_phase_t.pos_pdone value */
static uint32_t pd_out(uint64_t v)
{
    if ((v & PD_NONE) == PD_NONE)
        return 0;
    return (uint32_t)(v & PD_NONE) | (v & PD_KEPT ? 0 : PDONE_CANCELLED);
}

typedef struct {
    uint32_t sym;
    uint32_t pdone;           /* receives the tests (polls) before it completed, each
                                 test's the oldest active ones (polled_oldest); its top
                                 bit: PDONE_CANCELLED */
    uint32_t wdist;           /* an MPI_Wait/Waitany/Waitsome completing one request posted in this
                                 slice: how many calls before it that was (0: none) */
    uint32_t pwdist;          /* a receive a test before it completed, posted in this slice but
                                 not the oldest active request (not in pdone): how many calls
                                 before it that receive was posted (0: none) */
    uint64_t compute_ns, time_ns, instr, bytes, rbytes;
} gev_t;

typedef struct {
    uint64_t a, b;
    uint32_t gen, ix;
} cpslot_t;

/* what a call of the slice waits for or lets go, for the critical path (crit_path): a send
 * posted (channel, its ordinal on it), a receive completed (the same pair: the send it
 * matches), a blocking collective (communicator, its ordinal there) */
enum { DEP_SEND, DEP_RECV, DEP_COLL };
typedef struct {
    uint32_t ev;              /* the call's index in the rank's slice */
    uint32_t kind;
    uint64_t a, b;
} gdep_t;

typedef struct {
    uint64_t sent, recvd;
    uint64_t last_recv;       /* receiver's ordinal of the last receive (for errors) */
    int32_t src, dst;
    uint32_t bad;             /* position in the bad list + 1, 0 if balanced */
} chan_t;

typedef struct {
    uint32_t size;
    int32_t *members;
    uint64_t *count;          /* collectives made, per member */
    uint64_t max;
    uint32_t at_max;
    uint32_t bad;
    uint64_t occurrences;     /* occurrences with a collective on it */
    uint64_t last_seen;       /* occurrence number when that was last counted, + 1 */
    int32_t def_rank;         /* the event that defined it first (-1: MPI_COMM_WORLD) */
    uint64_t def_ordinal;
} gcomm_t;

typedef struct {
    pas2p_event_source_t src;
    pas2p_event_view_t *buf;  /* events read, not consumed yet: buf[bi, bn) (batches) */
    int bi, bn, eof;
    const pas2p_event_view_t *cur; /* the event consumed last (valid until the next read) */
    uint64_t pos;             /* events consumed */
    uint64_t total;           /* events in the stream (from the per-rank analysis) */
    const uint64_t *bounds;
    uint64_t nbounds, bnext;
    uint64_t slice_start;
    uint64_t lpos, slice_lstart; /* the same, counting calls other than failed polls: the
                                    ordinals a global signature's occurrences are given in */
    uint64_t apos, slice_astart; /* the same as anchor positions: all-rank blocking
                                    collectives so far << 32 | such calls since the last */
    uint32_t *set, nset, capset; /* anchored: the slice's symbols, sorted, each once */
    gev_t *sl;
    uint32_t nsl, capsl;
    uint8_t *idle;            /* per slice call: no request of the rank active after it
                                 (split_repeats: where a cut inside the slice may go) */
    gdep_t *dp;               /* the slice's calls' dependencies, in call order */
    uint32_t ndp, capdp;
    uint64_t absorbed_ns, absorbed_instr; /* failed polls, carried to the next call */
    uint64_t absorbed_wait_ns;   /* blocking probes' waiting, carried to the next call's time
                                    but not to its computation (the receive that follows
                                    waits in a replay; as computation it waited twice) */
    uint32_t absorbed_done;   /* receives polls completed since the last call (gev_t.pdone) */
    uint64_t ghost1;          /* 1 + the oldest post of this slice's requests that tests
                                 completed unsaid (neither in pdone nor pwdist): a replay
                                 still has them pending, so they are older than the oldest
                                 for polled_oldest (0: none) */
    uint32_t absorbed_psi;    /* 1 + the slice index of the call that posted a receive a poll
                                 completed since the last call, not the oldest (gev_t.pwdist);
                                 0: none */
    int never_done;           /* the call being consumed posts a receive never completed */
    unsigned last_call;       /* pas2p_number_event's state: the last numbered call */
    pas2p_tagc_t tagc;        /* pas2p_tag_count's state */
    uint32_t run_aux;         /* requests completed by the current Waitsome/Testsome run */
    gsyms_t syms;
    struct { uint64_t a, b; uint32_t ci; } chmemo[MEMO]; /* channels this rank used last:
                                 (comm<<32|tag, src<<32|dst) -> index + 1 */
    reqset_t pending;         /* active requests */
    table_t orphans;          /* (post ordinal, index): never completed, taken as done at once */
    table_t inits;            /* persistent init ordinal: (o,0) -> peer|tag, (o,1) -> comm<<1|send,
                                 (o,2) -> call<<48|bytes */
    uint32_t active_bad;      /* position in the active list + 1 */
    pas2p_sig_start_t *sbuf;  /* the requests the current Start/Startall starts */
    uint32_t nsbuf, capsbuf;
    pas2p_sig_start_t **sym_st; /* per symbol of a Start/Startall: its first event's (the */
    uint32_t *sym_nst, nsym_st; /* signature's `starts`, which simulate and replay run) */
} grank_t;

typedef struct {
    uint32_t nsym;
    uint32_t nsym1;           /* of which its first occurrence's (skeleton_append) */
    uint32_t *syms;
    double *pos;              /* 4 x nsym sums: compute, instructions, bytes, rbytes */
    uint64_t *range;          /* RW x nsym: min and max of bytes + rbytes, pdone's (PD_*),
                                 the wait's distance and the polled receive's (WD_*) */
    double tsum, tsumsq, tmin, tmax, csum, isum;
    uint64_t bmin, bmax;
    double samples[RESERVOIR];
    uint32_t ns;
    uint32_t nfirst;
    uint64_t fs[PAS2P_PHASE_SAMPLE_OCC], fe[PAS2P_PHASE_SAMPLE_OCC];
    uint64_t fas[PAS2P_PHASE_SAMPLE_OCC], fae[PAS2P_PHASE_SAMPLE_OCC];
    double ft[PAS2P_PHASE_SAMPLE_OCC];
    uint64_t pw;              /* occurrences summed into pos and range (anchored: those whose
                                 calls are the skeleton's, in order; else every one) */
    uint32_t *set, nset;      /* anchored: the skeleton's symbols, sorted, each once */
    gdep_t *dp;               /* the skeleton's dependencies (its first occurrence's) */
    uint32_t ndp;
    uint32_t *starts, nstarts; /* where its 2nd, 3rd, ... occurrence starts (skeleton_append) */
} gpr_t;

typedef struct {
    uint64_t key, weight, first; /* first: index of its first occurrence */
    uint64_t last;               /* and of its last */
    double ref;                  /* mean compute measure (all ranks) */
    double mmin, mmax;           /* the range of its occurrences' measures */
    double msq;                  /* sum of the squared measures (distinct_groups) */
    double gn, gsum, gsq;        /* the gaps between its consecutive occurrences (in
                                    occurrences): how many, their sum, their squares' sum */
    gpr_t *r;                    /* np */
    int variable;                /* anchored: an occurrence with other calls than the first's */
    uint32_t nskel;              /* occurrences its skeleton holds: 1, or a variable phase's
                                    first ones in a row (skeleton_append) */
    double cpsum;                /* sum over cpn occurrences of how far each moved the run's
                                    critical path on (crit_path) */
    uint64_t cpn;
    double jit;                  /* phase_jitter: its share of the run's critical path per
                                    occurrence over its mean occurrence's */
    int hasjit;
    uint32_t id;
} gphase_t;

/* what advance() asks of every call, looked up once per call number */
enum { CF_BLOCKING_COLLECTIVE = 1, CF_SEND_POST = 2, CF_NONBLOCKING_POST = 4 };

typedef struct {
    int np;
    const pas2p_analysis_opts_t *o;
    int8_t cls[PAS2P_CALL_LIMIT];  /* pas2p_call_class */
    uint8_t cf[PAS2P_CALL_LIMIT];  /* CF_* */
    int use_instr;
    int rules;                /* pas2p_analysis_rules(o): how calls are numbered */
    grank_t *r;
    table_t chans;            /* (comm<<32|tag, src<<32|dst) -> chan index + 1 */
    chan_t *cv;
    size_t nchan, capchan;
    uint32_t *badchan;
    size_t nbadchan;
    table_t comms;            /* comm id -> gcomm index + 1 */
    table_t memb;             /* (comm, world rank) -> member index */
    gcomm_t *gc;
    size_t ngc, capgc;
    uint32_t *badcomm;
    size_t nbadcomm;
    uint32_t *activel;        /* ranks with active requests */
    size_t nactive;
    gphase_t *ph;
    uint32_t nph, capph;
    table_t phidx;            /* (key, variant #) -> phase + 1 */
    uint32_t last_phase;
    struct {                     /* crit_path's scratch */
        cpslot_t *keys;          /* (kind-tagged a, b) -> index in val, cnt; a slot is in
                                    use when its gen is the walk's (no clearing) */
        size_t kcap;
        uint32_t gen;
        double *val;
        uint32_t *cnt;
        uint32_t *wait;          /* per key: the first rank waiting for it + 1 (0: none) */
        size_t n;
        uint32_t *cur, *di;      /* np: each rank's next call and dependency */
        double *t;               /* np: each rank's time */
        double *pw;              /* np: skel: the occurrences its mean divides by (once per
                                    walk: a variable phase's is a sum over its calls) */
        double *st;              /* np: each rank's time at the end of the last slice, its
                                    occurrences run one after the other */
        uint8_t *arrived;        /* np: its current call's collective counted */
        uint32_t *wnext;         /* np: the next rank waiting for the same key + 1 */
        uint32_t *queue;         /* np: the ranks to walk on (a ring) */
        uint8_t *inq;            /* np: in queue */
    } cp;
    uint64_t occ;
    uint64_t joined;             /* occurrences appended to the one before (join_oneoffs):
                                    the run's occurrences are occ - joined */
    uint64_t largest;
    int cut, unclosed;        /* a truncated trace: the end may stay unclosed */
    uint64_t unreceived;      /* messages never received, set aside at the end */
    int32_t unreceived_src, unreceived_dst;
    int anchored;             /* pas2p_global_info_t.anchored */
    int snap;                 /* cuts only after anchors (see anchors_recur) */
    int32_t *bal;             /* split_repeats: per channel, sends - receives in a window */
    size_t capbal;
    uint32_t *touch;          /* the channels a window used */
    size_t captouch;
    pas2p_orphans_t *orph;    /* pas2p_global_phases's orph (NULL: none) */
    int orphaned;             /* the end found orphans, written to orph: run again */
    char *err;
    size_t errlen;
} gstate_t;

/* ------------------------------------------------------------------ balance lists */
/* Each list has room for every item that can be in it (grown with the items), so adding
 * never fails. */
static void list_add(uint32_t *list, size_t *n, uint32_t v, uint32_t *pos)
{
    list[*n] = v;
    *pos = (uint32_t)++*n;
}

static inline void chan_update(gstate_t *g, uint32_t ci)
{
    chan_t *c = &g->cv[ci];
    int bad = c->sent != c->recvd;
    if (bad && !c->bad) {
        list_add(g->badchan, &g->nbadchan, ci, &c->bad);
    } else if (!bad && c->bad) {
        uint32_t at = c->bad - 1, last = g->badchan[--g->nbadchan];
        g->badchan[at] = last;
        g->cv[last].bad = at + 1;
        c->bad = 0;
    }
}

static void comm_update(gstate_t *g, uint32_t k)
{
    gcomm_t *c = &g->gc[k];
    int bad = c->at_max != c->size;
    if (bad && !c->bad) {
        list_add(g->badcomm, &g->nbadcomm, k, &c->bad);
    } else if (!bad && c->bad) {
        uint32_t at = c->bad - 1, last = g->badcomm[--g->nbadcomm];
        g->badcomm[at] = last;
        g->gc[last].bad = at + 1;
        c->bad = 0;
    }
}

static void active_update(gstate_t *g, int rank)
{
    grank_t *R = &g->r[rank];
    int bad = R->pending.n != 0;
    if (bad && !R->active_bad) {
        list_add(g->activel, &g->nactive, (uint32_t)rank, &R->active_bad);
    } else if (!bad && R->active_bad) {
        uint32_t at = R->active_bad - 1, last = g->activel[--g->nactive];
        g->activel[at] = last;
        g->r[last].active_bad = at + 1;
        R->active_bad = 0;
    }
}

/* ------------------------------------------------------------------ channels, comms */
/* chan's lookup when its memo misses */
static chan_t *chan_slow(gstate_t *g, grank_t *R, uint32_t slot, uint64_t a, uint64_t b,
                         int32_t src, int32_t dst, uint32_t *ci)
{
    slot_t *s = tfind(&g->chans, a, b);
    if (!s) {
        if (g->nchan == g->capchan) {
            size_t cap = g->capchan ? g->capchan * 2 : 256;
            chan_t *v = realloc(g->cv, cap * sizeof *v);
            if (v)
                g->cv = v;
            uint32_t *bl = v ? realloc(g->badchan, cap * sizeof *bl) : NULL;
            if (!bl)
                return NULL;
            g->badchan = bl;
            g->capchan = cap;
        }
        s = tput(&g->chans, a, b);
        if (!s)
            return NULL;
        s->v = g->nchan + 1;
        g->cv[g->nchan++] = (chan_t){.src = src, .dst = dst};
    }
    *ci = (uint32_t)(s->v - 1);
    R->chmemo[slot].a = a;
    R->chmemo[slot].b = b;
    R->chmemo[slot].ci = (uint32_t)s->v;
    return &g->cv[s->v - 1];
}

/* the channel (comm, src, dst, tag), made if new; `rank` (src or dst) memoises it */
static inline __attribute__((always_inline)) chan_t *chan(gstate_t *g, int rank, uint32_t comm,
                                                          int32_t src, int32_t dst, int32_t tag,
                                                          uint32_t *ci)
{
    uint64_t a = (uint64_t)comm << 32 | (uint32_t)tag, b = (uint64_t)(uint32_t)src << 32 | (uint32_t)dst;
    grank_t *R = &g->r[rank];
    uint32_t slot = (uint32_t)((a * 0x9e3779b97f4a7c15ull ^ b * 0xc2b2ae3d27d4eb4full) >> 58) % MEMO;
    if (R->chmemo[slot].ci && R->chmemo[slot].a == a && R->chmemo[slot].b == b) {
        *ci = R->chmemo[slot].ci - 1;
        return &g->cv[*ci];
    }
    return chan_slow(g, R, slot, a, b, src, dst, ci);
}

/* a dependency of the call rank r is making (the next one in its slice) */
static inline int dep_add(gstate_t *g, int rank, uint32_t kind, uint64_t a, uint64_t b)
{
    grank_t *R = &g->r[rank];
    if (R->ndp == R->capdp) {
        uint32_t cap = R->capdp ? R->capdp * 2 : 64;
        gdep_t *v = realloc(R->dp, cap * sizeof *v);
        if (!v)
            return -1;
        R->dp = v;
        R->capdp = cap;
    }
    R->dp[R->ndp++] = (gdep_t){.ev = R->nsl, .kind = kind, .a = a, .b = b};
    return 0;
}

static int msg_sent(gstate_t *g, uint32_t comm, int32_t src, int32_t dst, int32_t tag)
{
    if (dst < 0 || dst >= g->np)
        return 0; /* MPI_PROC_NULL */
    uint32_t ci;
    chan_t *c = chan(g, src, comm, src, dst, tag, &ci);
    if (!c)
        return -1;
    c->sent++;
    chan_update(g, ci);
    return dep_add(g, src, DEP_SEND, ci, c->sent);
}

static int msg_recvd(gstate_t *g, uint32_t comm, int32_t src, int32_t dst, int32_t tag, uint64_t ord)
{
    if (src < 0 || src >= g->np)
        return 0; /* MPI_PROC_NULL, or a source we cannot know */
    uint32_t ci;
    chan_t *c = chan(g, dst, comm, src, dst, tag, &ci);
    if (!c)
        return -1;
    c->recvd++;
    c->last_recv = ord;
    chan_update(g, ci);
    return dep_add(g, dst, DEP_RECV, ci, c->recvd);
}

static gcomm_t *comm_get(gstate_t *g, uint32_t id, uint32_t *k)
{
    slot_t *s = tfind(&g->comms, id, 0);
    if (!s)
        return NULL;
    *k = (uint32_t)(s->v - 1);
    return &g->gc[s->v - 1];
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* 1 when the two member lists hold the same world ranks (in any order: an id the tracer
 * hashes from the members of a communicator made by a call it does not wrap is the same
 * for two orders, and the collectives' rules here need the members only); -1 out of memory */
static int same_members(const int32_t *a, const int32_t *b, uint32_t n)
{
    int32_t *x = malloc(sizeof *x * (n ? n : 1)), *y = malloc(sizeof *y * (n ? n : 1));
    if (!x || !y) {
        free(x);
        free(y);
        return -1;
    }
    memcpy(x, a, sizeof *x * n);
    memcpy(y, b, sizeof *y * n);
    qsort(x, n, sizeof *x, cmp_i32);
    qsort(y, n, sizeof *y, cmp_i32);
    int same = !memcmp(x, y, sizeof *x * n);
    free(x);
    free(y);
    return same;
}

/* 0, -1 out of memory, or -2: id is defined already with other members (an id is given
 * again only to a copy laid out as the freed one: tracer/FORMAT.md, "Communicator ids") */
static int comm_add(gstate_t *g, uint32_t id, uint32_t size, const int32_t *members, int rank,
                    uint64_t ordinal)
{
    uint32_t k;
    const gcomm_t *old = comm_get(g, id, &k);
    if (old) { /* (every member's event defines it again, and a loop's copies each time:
                  a reused id has the same order, so sorting is for the rare other case) */
        if (old->size != size)
            return -2;
        if (!members || !memcmp(old->members, members, sizeof *members * size))
            return 0;
        int same = same_members(old->members, members, size);
        return same < 0 ? -1 : same ? 0 : -2;
    }
    if (g->ngc == g->capgc) {
        size_t cap = g->capgc ? g->capgc * 2 : 16;
        gcomm_t *v = realloc(g->gc, cap * sizeof *v);
        if (v)
            g->gc = v;
        uint32_t *b = v ? realloc(g->badcomm, cap * sizeof *b) : NULL;
        if (!b)
            return -1;
        g->badcomm = b;
        g->capgc = cap;
    }
    gcomm_t *c = &g->gc[g->ngc];
    *c = (gcomm_t){.size = size, .at_max = size, .def_rank = rank, .def_ordinal = ordinal};
    c->members = malloc(sizeof(int32_t) * (size ? size : 1));
    c->count = calloc(size ? size : 1, sizeof *c->count);
    if (!c->members || !c->count) {
        free(c->members);
        free(c->count);
        return -1;
    }
    for (uint32_t i = 0; i < size; i++) {
        c->members[i] = members ? members[i] : (int32_t)i;
        slot_t *m = tput(&g->memb, id, (uint64_t)(uint32_t)c->members[i]);
        if (!m)
            return -1;
        m->v = i;
    }
    slot_t *s = tput(&g->comms, id, 0);
    if (!s)
        return -1;
    s->v = ++g->ngc;
    return 0;
}

/* sync: a blocking one (its ranks wait for each other: a dependency) */
static int collective(gstate_t *g, uint32_t comm, int rank, int sync)
{
    uint32_t k;
    gcomm_t *c = comm_get(g, comm, &k);
    if (!c)
        return 0; /* SELF, or made by a call we do not trace: no rule possible */
    slot_t *m = tfind(&g->memb, comm, (uint64_t)(uint32_t)rank);
    if (!m)
        return 0;
    uint64_t n = ++c->count[m->v];
    if (n > c->max) {
        c->max = n;
        c->at_max = 1;
    } else if (n == c->max) {
        c->at_max++;
    }
    if (c->last_seen != g->occ + 1) {
        c->last_seen = g->occ + 1;
        c->occurrences++;
    }
    comm_update(g, k);
    return sync ? dep_add(g, rank, DEP_COLL, k, n) : 0;
}

/* an anchor: a blocking collective on a communicator of all the ranks (the world, or one
 * the trace created with every rank in it) -- every rank makes the same k-th one, whatever
 * the order of its other calls; `pas2p predict`'s runtime counts them the same way */
/* a collective that returns only when its part is done (MPI-3 names every non-blocking
 * call MPI_I...) */
static int blocking_collective(unsigned call)
{
    if (pas2p_call_class(call) != PAS2P_CLASS_COLLECTIVE) /* (the cheap test first) */
        return 0;
    const char *n = pas2p_call_name(call);
    return n && n[4] != 'I';
}

static int is_anchor(gstate_t *g, const pas2p_event_t *e)
{
    uint32_t k;
    const gcomm_t *c;
    return e->call < PAS2P_CALL_LIMIT && (g->cf[e->call] & CF_BLOCKING_COLLECTIVE) &&
           (c = comm_get(g, e->comm, &k)) && c->size == (uint32_t)g->np;
}

/* ------------------------------------------------------------------ reading a rank */
static int is_send_post(unsigned call)
{
    return call == PAS2P_CALL_Send || call == PAS2P_CALL_Ssend || call == PAS2P_CALL_Bsend ||
           call == PAS2P_CALL_Rsend || call == PAS2P_CALL_Isend || call == PAS2P_CALL_Issend ||
           call == PAS2P_CALL_Ibsend || call == PAS2P_CALL_Irsend;
}

static int is_nonblocking_post(unsigned call)
{
    return call == PAS2P_CALL_Isend || call == PAS2P_CALL_Issend || call == PAS2P_CALL_Ibsend ||
           call == PAS2P_CALL_Irsend || call == PAS2P_CALL_Irecv;
}


static int wildcard_source(const pas2p_event_t *e)
{
    return (e->flags & PAS2P_EV_ANY_SOURCE) || e->peer == PAS2P_PEER_ANY;
}

static int wildcard_tag(const pas2p_event_t *e)
{
    return (e->flags & PAS2P_EV_ANY_TAG) || e->tag == PAS2P_TAG_ANY;
}

/* a persistent request's init (ordinal o): what a Start of it sends or receives */
static int init_put(grank_t *R, uint64_t o, const pas2p_event_t *e, uint64_t bytes, int send)
{
    /* one slot at a time: a put may grow the table and move every slot taken before it */
    const uint64_t v[3] = {(uint64_t)(uint32_t)e->peer << 32 | (uint32_t)e->tag,
                           (uint64_t)e->comm << 1 | (uint64_t)send,
                           (uint64_t)e->call << 48 | (bytes & 0xffffffffffffull)};
    for (uint64_t k = 0; k < 3; k++) {
        slot_t *s = tput(&R->inits, o, k);
        if (!s)
            return -1;
        s->v = v[k];
    }
    return 0;
}

static int start_push(grank_t *R, pas2p_sig_start_t x)
{
    if (R->nsbuf == R->capsbuf) {
        uint32_t cap = R->capsbuf ? 2 * R->capsbuf : 8;
        pas2p_sig_start_t *n = realloc(R->sbuf, cap * sizeof *n);
        if (!n)
            return -1;
        R->sbuf = n;
        R->capsbuf = cap;
    }
    R->sbuf[R->nsbuf++] = x;
    return 0;
}

/* a Start/Startall event of symbol sym: the requests it started are the symbol's when it
 * has none yet (the first event given it; another set of the same number on the same
 * communicator is the same symbol, and replays as the first) */
static int start_keep(grank_t *R, uint32_t sym)
{
    if (!R->nsbuf)
        return 0;
    if (sym >= R->nsym_st) {
        uint32_t n = sym + 1 > 2 * R->nsym_st ? sym + 1 : 2 * R->nsym_st;
        pas2p_sig_start_t **st = realloc(R->sym_st, n * sizeof *st);
        if (st)
            R->sym_st = st;
        uint32_t *nst = st ? realloc(R->sym_nst, n * sizeof *nst) : NULL;
        if (!nst)
            return -1;
        R->sym_nst = nst;
        for (uint32_t i = R->nsym_st; i < n; i++)
            R->sym_st[i] = NULL, R->sym_nst[i] = 0;
        R->nsym_st = n;
    }
    if (R->sym_st[sym])
        return 0;
    if (!(R->sym_st[sym] = malloc(R->nsbuf * sizeof **R->sym_st)))
        return -1;
    memcpy(R->sym_st[sym], R->sbuf, R->nsbuf * sizeof **R->sym_st);
    R->sym_nst[sym] = R->nsbuf;
    return 0;
}

/* the identity of an event for global phases (its tags: pas2p_tag_count's) */
static void identity(const pas2p_event_view_t *v, int klass, int32_t tag, int32_t tag2,
                     pas2p_symbol_t *s)
{
    const pas2p_event_t *e = &v->ev;
    *s = (pas2p_symbol_t){.call = e->call, .peer = e->peer, .peer2 = e->peer2, .tag = tag,
                          .tag2 = tag2, .comm = e->comm, .aux = e->aux, .bytes = e->bytes,
                          .rbytes = e->rbytes};
    if (klass == PAS2P_CLASS_RECV) {
        if (wildcard_source(e))
            s->peer = PAS2P_PEER_ANY;
        if (wildcard_tag(e))
            s->tag = PAS2P_TAG_ANY;
    } else if (klass == PAS2P_CLASS_SENDRECV) { /* its receive side */
        if (e->flags & PAS2P_EV_ANY_SOURCE)
            s->peer2 = PAS2P_PEER_ANY;
        if (e->flags & PAS2P_EV_ANY_TAG)
            s->tag2 = PAS2P_TAG_ANY;
    } else if (klass == PAS2P_CLASS_COMPLETION) {
        /* a completion is what it completes, not the bytes that came with it */
        s->bytes = s->rbytes = 0;
        s->peer = s->tag = PAS2P_PEER_NONE;
    }
}

/* the symbol of a plain event (its identity: identity()), through a memo of events as
 * read.  identity() builds a pas2p_symbol_t field by field and gsym_of compares it with
 * wider loads, which wait for those narrow stores to retire: a store-forwarding stall that
 * was two fifths of gsym_of's time.  Events were decoded at least a call earlier. */
static inline __attribute__((always_inline)) uint32_t gsym_event(gsyms_t *t,
                                                               const pas2p_event_view_t *v,
                                                               int klass, int32_t tag,
                                                               int32_t tag2)
{
    const pas2p_event_t *e = &v->ev;
    uint64_t w[5];
    memcpy(w, (const char *)e + IDENT_AT, sizeof w);
    uint64_t xk = (uint64_t)e->call |
                  (uint64_t)(e->flags & (PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG)) << 16 |
                  (uint64_t)(uint32_t)tag << 32;
    uint32_t slot = (uint32_t)(((w[0] ^ xk) * 0x9e3779b97f4a7c15ull ^
                                (w[2] + w[3] + w[4]) * 0xc2b2ae3d27d4eb4full) >> 58) % MEMO;
    evmemo_t *m = &t->ememo[slot];
    if (m->sym &&
        !((m->w[0] ^ w[0]) | (m->w[1] ^ w[1]) | (m->w[2] ^ w[2]) | (m->w[3] ^ w[3]) |
          (m->w[4] ^ w[4]) | (m->x ^ xk)) &&
        m->tag2 == tag2)
        return m->sym - 1;
    pas2p_symbol_t s;
    identity(v, klass, tag, tag2, &s);
    uint32_t id = gsym_of(t, &s);
    if (id != UINT32_MAX) {
        memcpy(m->w, w, sizeof w);
        m->x = xk;
        m->tag2 = tag2;
        m->sym = id + 1;
    }
    return id;
}

static int slice_push(grank_t *R, const gev_t *x)
{
    if (R->nsl == R->capsl) {
        uint32_t cap = R->capsl ? R->capsl * 2 : 64;
        gev_t *v = realloc(R->sl, cap * sizeof *v);
        if (!v)
            return -1;
        R->sl = v;
        uint8_t *d = realloc(R->idle, cap);
        if (!d)
            return -1;
        R->idle = d;
        R->capsl = cap;
    }
    R->idle[R->nsl] = R->pending.n == 0;
    R->sl[R->nsl++] = *x;
    return 0;
}

/* a request started: active until a completion names it, unless it is an orphan */
static int post_request(grank_t *R, uint64_t ordinal, uint64_t index, uint32_t comm)
{
    if (R->orphans.n && tfind(&R->orphans, ordinal, index))
        return 0;
    return req_put(&R->pending, ordinal, index, comm, R->nsl);
}

/* consumes rank r's next event: its messages, requests and collectives into the balance,
 * the event into the current slice.  1 done, 0 no event left, -1 error (g->err). */
static int advance(gstate_t *g, int rank)
{
    grank_t *R = &g->r[rank];
    if (R->bi == R->bn) {
        if (R->eof)
            return 0;
        int rc = R->src.next_batch ? R->src.next_batch(R->src.ctx, R->buf, PAS2P_READ_BATCH)
                                   : R->src.next(R->src.ctx, R->buf);
        if (rc < 0) {
            snprintf(g->err, g->errlen, "%s", R->src.error ? R->src.error(R->src.ctx) : "read error");
            return -1;
        }
        if (rc == 0) {
            R->eof = 1;
            return 0;
        }
        R->bi = 0;
        R->bn = rc;
    }
    const pas2p_event_view_t *v = &R->buf[R->bi];
    const pas2p_event_t *e = &v->ev;
    if (v->ordinal != R->pos) {
        snprintf(g->err, g->errlen, "rank %d: event %" PRIu64 " read where %" PRIu64 " was expected",
                 rank, v->ordinal, R->pos);
        return -1;
    }
    unsigned call = e->call;
    int klass = call < PAS2P_CALL_LIMIT ? g->cls[call] : -1;
    unsigned cf = call < PAS2P_CALL_LIMIT ? g->cf[call] : 0;
    uint32_t ndp0 = R->ndp, wdist = 0, psi = 0;
    int32_t tag, tag2; /* as the identity has them (counting tags; phases.c the same) */
    pas2p_tag_count(&R->tagc, e, &tag, &tag2);
    switch (klass) {
    case PAS2P_CLASS_COLLECTIVE:
        if (collective(g, e->comm, rank, (cf & CF_BLOCKING_COLLECTIVE) != 0))
            goto oom;
        if (!blocking_collective(call) && /* a non-blocking collective: a request until done */
            post_request(R, v->ordinal, 0, e->comm))
            goto oom;
        break;
    case PAS2P_CLASS_COMM: {
        pas2p_comm_view_t cv;
        int rc = pas2p_event_comm_def(v, &cv)
                     ? comm_add(g, cv.id, cv.size, cv.members, rank, v->ordinal) : 0;
        if (rc == -2) {
            uint32_t k;
            const gcomm_t *first = comm_get(g, cv.id, &k);
            snprintf(g->err, g->errlen, "rank %d: event %" PRIu64 " (%s) defines communicator "
                     "%u with other members than rank %d's event %" PRIu64 " did (a damaged or "
                     "inconsistent trace)", rank, v->ordinal, pas2p_call_name(call), cv.id,
                     first->def_rank, first->def_ordinal);
            return -1;
        }
        if (rc)
            goto oom;
        if (collective(g, e->comm, rank, 1))
            goto oom;
        break;
    }
    case PAS2P_CLASS_SEND:
        if (call >= PAS2P_CALL_Send_init && call <= PAS2P_CALL_Rsend_init) {
            if (init_put(R, v->ordinal, e, e->bytes, 1))
                goto oom;
            break;
        }
        if ((cf & CF_SEND_POST) && msg_sent(g, e->comm, rank, e->peer, e->tag))
            goto oom;
        if ((cf & CF_NONBLOCKING_POST) && post_request(R, v->ordinal, 0, e->comm))
            goto oom;
        break;
    case PAS2P_CLASS_SENDRECV:
        if (msg_sent(g, e->comm, rank, e->peer, e->tag) ||
            msg_recvd(g, e->comm, e->peer2, rank, e->tag2, v->ordinal))
            goto oom;
        break;
    case PAS2P_CLASS_RECV:
        if (call == PAS2P_CALL_Recv) {
            if (msg_recvd(g, e->comm, e->peer, rank, e->tag, v->ordinal))
                goto oom;
        } else if (call == PAS2P_CALL_Irecv) {
            /* one the rank never completes (an orphan: mplrs posts one per worker for a
             * message none sends) is said as a cancelled one: not posted by a replay */
            if (R->orphans.n && tfind(&R->orphans, v->ordinal, 0))
                R->never_done = 1;
            if (post_request(R, v->ordinal, 0, e->comm))
                goto oom;
        } else if (call == PAS2P_CALL_Recv_init) {
            if (init_put(R, v->ordinal, e, e->rbytes, 0))
                goto oom;
        }
        break; /* Probe, Iprobe: nothing consumed */
    case PAS2P_CLASS_START: {
        const uint64_t *init = v->payload;
        R->nsbuf = 0;
        for (uint32_t i = 0; init && i < e->aux && (i + 1) * 8 <= e->payload; i++) {
            slot_t *t = tfind(&R->inits, init[i], 1), *s = tfind(&R->inits, init[i], 0),
                   *b = tfind(&R->inits, init[i], 2);
            if (!t)
                continue;
            uint32_t comm = (uint32_t)(t->v >> 1);
            if ((t->v & 1) && s &&
                msg_sent(g, comm, rank, (int32_t)(s->v >> 32), (int32_t)(uint32_t)s->v))
                goto oom;
            if (post_request(R, v->ordinal, i, comm))
                goto oom;
            if (s && b && start_push(R, (pas2p_sig_start_t){
                              .call = (uint32_t)(b->v >> 48), .peer = (int32_t)(s->v >> 32),
                              .tag = (int32_t)(uint32_t)s->v, .comm = comm,
                              .bytes = b->v & 0xffffffffffffull}))
                goto oom;
        }
        break;
    }
    case PAS2P_CLASS_COMPLETION: {
        uint32_t n;
        const pas2p_completion_t *d = pas2p_event_completions(v, &n);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t c = d[i].post != UINT64_MAX ? req_take(&R->pending, d[i].post, d[i].index) : 0;
            if (!c)
                continue; /* a request we did not see start (or an inactive persistent one) */
            uint32_t comm = (uint32_t)(c - 1);
            uint32_t si = (uint32_t)(c >> 32);
            if (d[i].call == PAS2P_CALL_Irecv && (d[i].flags & PAS2P_EV_ANY_SOURCE) &&
                d[i].source == PAS2P_PEER_ANY && d[i].post >= R->slice_start && si < R->nsl)
                R->sl[si].pdone |= PDONE_CANCELLED; /* posted in this slice, then cancelled */
            /* which request a Wait completes: StarPU waits for later requests while an
             * older wildcard receive stays posted (a replay that completes the oldest
             * waited for that one); a Waitsome that completed one, the same (yorick's mpy
             * waits for its send with an older wildcard receive in the set) */
            if (n == 1 && (call == PAS2P_CALL_Wait || call == PAS2P_CALL_Waitany ||
                           call == PAS2P_CALL_Waitsome) &&
                d[i].post >= R->slice_start && si < R->nsl)
                wdist = R->nsl - si;
            /* a test that completed one receive, posted in this slice (Graph500's BFS tests
             * its wildcard receive while older sends are pending): if it was not the oldest
             * request (polled_oldest), the next call waits for that one (`wait 1 P`) */
            if (n == 1 && d[i].call == PAS2P_CALL_Irecv && d[i].post >= R->slice_start &&
                si < R->nsl && !(d[i].source == PAS2P_PEER_ANY && (d[i].flags & PAS2P_EV_ANY_SOURCE)))
                psi = si + 1;
            if (d[i].source >= 0 && msg_recvd(g, comm, d[i].source, rank, d[i].tag, v->ordinal))
                goto oom;
        }
        break;
    }
    default:
        break;
    }
    active_update(g, rank);
    /* the event into the slice */
    int init = call == PAS2P_CALL_Init || call == PAS2P_CALL_Init_thread;
    uint64_t dur = init ? 0 : e->t_end - e->t_start;
    uint64_t instr = g->use_instr && v->counters ? v->counters[0] : 0;
    R->pos++;
    R->bi++;
    R->cur = v;
    int kind = pas2p_number_event(&R->last_call, e, g->rules);
    if (kind == PAS2P_NUM_RUN && R->nsl) {
        /* a Waitsome (Testsome) continuing a run of them: one call with the run's first,
         * which completes what the run completes; the computation between them and their
         * waiting are the call's */
        gev_t *p = &R->sl[R->nsl - 1];
        pas2p_symbol_t s;
        identity(v, klass, tag, tag2, &s);
        for (uint32_t i = ndp0; i < R->ndp; i++) /* (what it completes, the run's call does) */
            R->dp[i].ev = R->nsl - 1;
        R->run_aux += e->aux;
        s.aux = R->run_aux;
        uint32_t sym = gsym_of(&R->syms, &s);
        if (sym == UINT32_MAX)
            goto oom;
        p->sym = sym;
        p->compute_ns += e->compute_ns + R->absorbed_ns;
        p->time_ns += e->compute_ns + R->absorbed_ns + R->absorbed_wait_ns + dur;
        p->instr += instr + R->absorbed_instr;
        p->bytes += e->bytes;
        p->rbytes += e->rbytes;
        R->idle[R->nsl - 1] = R->pending.n == 0;
        R->absorbed_ns = R->absorbed_instr = R->absorbed_wait_ns = 0;
        return 1;
    }
    if (kind != PAS2P_NUM_CALL) {
        /* a poll that found nothing: waiting, as computation before the next call (and a
         * run's continuation whose first call a cut left in the previous slice, which can
         * only be if it completes requests no traced call started: the same); a test that
         * found its receives done: its computation the same, and what it completed is said
         * with that call (`polled`, a `wait` in a replay) */
        /* (a blocking probe waited for its message: that is the receive's waiting; a wait
         * after tests, for the requests they did not find done: the next call's; and a
         * test's own time when it completed something: taking the message in is what the
         * replay's `wait` models, as a full trace's `test` or `wait` does -- counted as
         * computation, Graph500's 1048 successful tests a rank, 4.5 ms of its 71, made the
         * signature's simulation 6 % longer than the full trace's) */
        int found = klass == PAS2P_CLASS_COMPLETION && (e->flags & PAS2P_EV_FLAG_TRUE) && e->aux;
        int blocking = call == PAS2P_CALL_Probe || call == PAS2P_CALL_Wait ||
                       call == PAS2P_CALL_Waitany || call == PAS2P_CALL_Waitall || found;
        R->absorbed_ns += e->compute_ns + (blocking ? 0 : dur);
        R->absorbed_wait_ns += blocking ? dur : 0;
        R->absorbed_instr += instr;
        if (klass == PAS2P_CLASS_COMPLETION && v->ev.payload) {
            uint32_t po = polled_oldest(&R->pending, v, R->ghost1), nd = 0;
            R->absorbed_done += po;
            if (!po && psi && !R->absorbed_psi) { /* (the first such receive) */
                R->absorbed_psi = psi;
            } else if (!po) { /* completed unsaid: still pending in a replay */
                const pas2p_completion_t *d = pas2p_event_completions(v, &nd);
                for (uint32_t i = 0; d && i < nd; i++)
                    if (d[i].post != UINT64_MAX && d[i].post >= R->slice_start &&
                        (!R->ghost1 || d[i].post + 1 < R->ghost1))
                        R->ghost1 = d[i].post + 1;
            }
        }
        return 1;
    }
    R->lpos++;
    R->apos = (cf & CF_BLOCKING_COLLECTIVE) && is_anchor(g, e) ? ((R->apos >> 32) + 1) << 32
                                                               : R->apos + 1;
    uint32_t sym;
    if (klass == PAS2P_CLASS_START && R->nsbuf) {
        pas2p_symbol_t s;
        identity(v, klass, tag, tag2, &s);
        /* which requests it starts is part of what a Start is: two MPI_Start of one request
         * each, a send's and a receive's, are two symbols (in peer2 and tag2, which a
         * Start has not; analyze.c writes them as -1) */
        uint64_t h = 0x84222325cbf29ce4ull;
        for (uint32_t i = 0; i < R->nsbuf; i++) {
            const pas2p_sig_start_t *q = &R->sbuf[i];
            h = mix64(h ^ ((uint64_t)q->call << 56 ^ (uint64_t)(uint32_t)q->peer << 24 ^
                           (uint64_t)q->comm));
            h = mix64(h ^ ((uint64_t)(uint32_t)q->tag << 32 ^ q->bytes));
        }
        s.peer2 = (int32_t)(h & 0x7fffffff);
        s.tag2 = (int32_t)(h >> 33 & 0x7fffffff);
        sym = gsym_of(&R->syms, &s);
    } else {
        sym = gsym_event(&R->syms, v, klass, tag, tag2);
    }
    R->run_aux = e->aux;
    if (sym == UINT32_MAX || (klass == PAS2P_CLASS_START && start_keep(R, sym)))
        goto oom;
    gev_t x = {.sym = sym,
               .pdone = (R->absorbed_done & ~PDONE_CANCELLED) | (R->never_done ? PDONE_CANCELLED : 0),
               .wdist = wdist, .pwdist = R->absorbed_psi ? R->nsl - (R->absorbed_psi - 1) : 0,
               .compute_ns = e->compute_ns + R->absorbed_ns,
               .time_ns = e->compute_ns + R->absorbed_ns + R->absorbed_wait_ns + dur,
               .instr = instr + R->absorbed_instr, .bytes = e->bytes, .rbytes = e->rbytes};
    R->absorbed_ns = R->absorbed_instr = R->absorbed_wait_ns = 0;
    R->absorbed_done = R->absorbed_psi = 0;
    R->never_done = 0;
    if (slice_push(R, &x))
        goto oom;
    return 1;
oom:
    snprintf(g->err, g->errlen, "out of memory");
    return -1;
}

/* ------------------------------------------------------------------ phases */
static uint64_t slice_key(const grank_t *R)
{
    uint64_t h = 0x2545f4914f6cdd1dull ^ R->nsl;
    for (uint32_t i = 0; i < R->nsl; i++)
        h = mix64(h ^ R->sl[i].sym) + 0x9e37;
    return h;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* anchored: R->set, the symbols of R's slice sorted and each once (the order and the number
 * of a farm's calls between two anchors depend on which worker answers first) */
static int slice_set(grank_t *R)
{
    if (R->nsl > R->capset) {
        uint32_t *v = realloc(R->set, sizeof *v * R->nsl);
        if (!v)
            return -1;
        R->set = v;
        R->capset = R->nsl;
    }
    for (uint32_t i = 0; i < R->nsl; i++)
        R->set[i] = R->sl[i].sym;
    qsort(R->set, R->nsl, sizeof *R->set, cmp_u32);
    uint32_t m = 0;
    for (uint32_t i = 0; i < R->nsl; i++)
        if (!m || R->set[m - 1] != R->set[i])
            R->set[m++] = R->set[i];
    R->nset = m;
    return 0;
}

static uint64_t set_key(const grank_t *R)
{
    uint64_t h = 0x3c6ef372fe94f82bull ^ R->nset;
    for (uint32_t i = 0; i < R->nset; i++)
        h = mix64(h ^ R->set[i]) + 0x9e37;
    return h;
}

/* anchored: every rank's slice has the symbols of p's skeleton, however many and in
 * whatever order */
static int same_sets(const gstate_t *g, const gphase_t *p)
{
    for (int r = 0; r < g->np; r++) {
        const grank_t *R = &g->r[r];
        const gpr_t *q = &p->r[r];
        if (q->nset != R->nset || memcmp(q->set, R->set, sizeof *R->set * R->nset))
            return 0;
    }
    return 1;
}

static int similar(const gstate_t *g, double a, double b)
{
    double mx = a > b ? a : b, mn = a < b ? a : b;
    double floor = g->use_instr ? 0 : (double)g->o->compute_floor_ns * 1e-9 * g->np;
    double thr = g->use_instr ? g->o->compute_similarity : g->o->compute_similarity_time;
    return mx - mn <= floor || mn >= thr * mx;
}

static int same_slices(const gstate_t *g, const gphase_t *p)
{
    for (int r = 0; r < g->np; r++) {
        const grank_t *R = &g->r[r];
        const gpr_t *q = &p->r[r];
        if (q->nsym != R->nsl)
            return 0;
        for (uint32_t i = 0; i < R->nsl; i++)
            if (q->syms[i] != R->sl[i].sym)
                return 0;
    }
    return 1;
}

static int slice_matches(const gstate_t *g, const gphase_t *p)
{
    return g->anchored ? same_sets(g, p) : same_slices(g, p);
}

static void gphase_free(gphase_t *p, int np)
{
    if (!p->r)
        return;
    for (int r = 0; r < np; r++) {
        free(p->r[r].syms);
        free(p->r[r].pos);
        free(p->r[r].range);
        free(p->r[r].set);
        free(p->r[r].dp);
        free(p->r[r].starts);
    }
    free(p->r);
    p->r = NULL;
}

static int phase_new(gstate_t *g, uint64_t key, uint32_t *id)
{
    if (g->nph == g->capph) {
        uint32_t cap = g->capph ? g->capph * 2 : 32;
        gphase_t *v = realloc(g->ph, cap * sizeof *v);
        if (!v)
            return -1;
        g->ph = v;
        g->capph = cap;
    }
    gphase_t *p = &g->ph[g->nph];
    *p = (gphase_t){.key = key, .first = g->occ, .mmin = INFINITY, .mmax = -INFINITY, .nskel = 1};
    p->r = calloc((size_t)g->np, sizeof *p->r);
    if (!p->r)
        return -1;
    for (int r = 0; r < g->np; r++) {
        const grank_t *R = &g->r[r];
        gpr_t *q = &p->r[r];
        q->nsym = q->nsym1 = R->nsl;
        q->tmin = INFINITY;
        q->bmin = UINT64_MAX;
        q->syms = malloc(sizeof *q->syms * (R->nsl ? R->nsl : 1));
        q->pos = calloc(4 * (size_t)(R->nsl ? R->nsl : 1), sizeof *q->pos);
        q->range = malloc(RW * sizeof *q->range * (R->nsl ? R->nsl : 1));
        q->set = g->anchored ? malloc(sizeof *q->set * (R->nset ? R->nset : 1)) : NULL;
        q->dp = malloc(sizeof *q->dp * (R->ndp ? R->ndp : 1));
        if (q->dp && R->ndp) {
            memcpy(q->dp, R->dp, sizeof *q->dp * R->ndp);
            q->ndp = R->ndp;
        }
        if (!q->syms || !q->pos || !q->range || !q->dp || (g->anchored && !q->set)) {
            gphase_free(p, g->np);
            return -1;
        }
        for (uint32_t i = 0; i < R->nsl; i++) {
            q->syms[i] = R->sl[i].sym;
            q->range[RW * i] = UINT64_MAX;
            q->range[RW * i + 1] = 0;
            q->range[RW * i + 2] = PD_NONE;
            q->range[RW * i + 3] = WD_UNSET;
            q->range[RW * i + 4] = WD_UNSET;
        }
        if (g->anchored) {
            memcpy(q->set, R->set, sizeof *q->set * R->nset);
            q->nset = R->nset;
            /* a wildcard receive anywhere in it: its calls' order may change from run to
             * run on every rank it touches */
            for (uint32_t i = 0; i < R->nsl; i++) {
                const pas2p_symbol_t *y = &R->syms.v[R->sl[i].sym];
                int k = pas2p_call_class(y->call);
                p->variable |= (k == PAS2P_CLASS_RECV && y->peer == PAS2P_PEER_ANY) ||
                               (k == PAS2P_CLASS_SENDRECV && y->peer2 == PAS2P_PEER_ANY);
            }
        }
    }
    *id = g->nph++;
    return 0;
}

/* ------------------------------------------------------------------ the critical path */
/* The time a slice takes with free communication (its critical path): each call comes
 * after the computation before it; a send is posted then, a receive's completion waits for
 * its message's send, a blocking collective for its last member.
 *   skel NULL: the slice being ended, with each call's own computation, every rank going
 * on from where the run's path left it at the end of the previous slice (g->cp.st): how
 * far the slice moves the run's last rank on.  Summed over a phase's occurrences, that is
 * its share of the whole run's path.
 *   skel: phase skel's skeleton, with its mean computation, every rank starting at 0: what
 * a replay of the phase's mean occurrence takes (simulate replays each phase so).
 * The two differ by what a replay of the mean misses: each occurrence's slowest rank sets
 * the pace at every wait (E[max] >= max E), and a rank that ends an occurrence early may
 * start the next one early (phase_jitter).  -1: a dependency never met (a message from
 * outside the slice) or a walk too long to finish; -2: out of memory. */
/* *ix: the index of key (a, b) in this walk's val and cnt, made (0, 0) if new */
static int cp_key(gstate_t *g, uint64_t a, uint64_t b, size_t *ix)
{
    if ((g->cp.n + 1) * 2 > g->cp.kcap) {
        size_t cap = g->cp.kcap ? 2 * g->cp.kcap : 256;
        cpslot_t *k = calloc(cap, sizeof *k);
        double *v = k ? realloc(g->cp.val, cap / 2 * sizeof *v) : NULL;
        if (v)
            g->cp.val = v;
        uint32_t *c = v ? realloc(g->cp.cnt, cap / 2 * sizeof *c) : NULL;
        if (c)
            g->cp.cnt = c;
        uint32_t *wt = c ? realloc(g->cp.wait, cap / 2 * sizeof *wt) : NULL;
        if (!wt) {
            free(k);
            return -1;
        }
        g->cp.wait = wt;
        for (size_t i = 0; i < g->cp.kcap; i++)
            if (g->cp.keys[i].gen == g->cp.gen) {
                size_t j = th(g->cp.keys[i].a, g->cp.keys[i].b, cap);
                while (k[j].gen == g->cp.gen)
                    j = (j + 1) & (cap - 1);
                k[j] = g->cp.keys[i];
            }
        free(g->cp.keys);
        g->cp.keys = k;
        g->cp.kcap = cap;
    }
    size_t i = th(a, b, g->cp.kcap);
    cpslot_t *s = g->cp.keys;
    while (s[i].gen == g->cp.gen && !(s[i].a == a && s[i].b == b))
        i = (i + 1) & (g->cp.kcap - 1);
    if (s[i].gen != g->cp.gen) {
        s[i] = (cpslot_t){.a = a, .b = b, .gen = g->cp.gen, .ix = (uint32_t)g->cp.n};
        g->cp.val[g->cp.n] = 0;
        g->cp.cnt[g->cp.n] = 0;
        g->cp.wait[g->cp.n] = 0;
        g->cp.n++;
    }
    *ix = s[i].ix;
    return 0;
}

static double crit_path(gstate_t *g, const gphase_t *skel)
{
    int np = g->np;
    if (++g->cp.gen == 0) { /* (after 2^32 walks) */
        memset(g->cp.keys, 0, g->cp.kcap * sizeof *g->cp.keys);
        g->cp.gen = 1;
    }
    g->cp.n = 0;
    double front = 0;
    for (int r = 0; r < np; r++) {
        g->cp.cur[r] = g->cp.di[r] = 0;
        g->cp.t[r] = skel ? 0 : g->cp.st[r];
        front = tmax2(front, g->cp.t[r]);
        g->cp.arrived[r] = 0;
        if (!skel)
            continue;
        const gpr_t *q = &skel->r[r];
        double pw = (double)(q->pw ? q->pw : skel->weight);
        if (skel->variable) { /* (as results() makes its skeleton) */
            double c = 0;
            for (uint32_t i = 0; i < q->nsym; i++)
                c += q->pos[4 * (size_t)i];
            if (c > 0 && q->csum > 0) /* (its skeleton: nskel mean occurrences) */
                pw = c / ((double)skel->nskel * q->csum / (double)skel->weight);
        }
        g->cp.pw[r] = pw; /* (once: per wake it was quadratic, 6 of ABySS's 9 s analysis) */
    }
    /* a rank walks on until a dependency stops it, and waits on that key until a send or
     * the collective's last member wakes it: each call and dependency is walked once */
    uint32_t qh = 0, qn = 0;
    for (int r = 0; r < np; r++) {
        g->cp.queue[qn++] = (uint32_t)r;
        g->cp.inq[r] = 1;
    }
    while (qn) {
        int r = (int)g->cp.queue[qh];
        qh = (qh + 1) % (uint32_t)np;
        qn--;
        g->cp.inq[r] = 0;
        const gpr_t *q = skel ? &skel->r[r] : NULL;
        const grank_t *R = &g->r[r];
        uint32_t nev = q ? q->nsym : R->nsl, ndp = q ? q->ndp : R->ndp;
        const gdep_t *dp = q ? q->dp : R->dp;
        double pw = q ? g->cp.pw[r] : 1;
        /* the rank's position in locals (the arrays they come from are written through
         * other pointers in the loop, so the compiler would reload them at every step) */
        uint32_t i = g->cp.cur[r], d = g->cp.di[r];
        double tr = g->cp.t[r];
        int arrived = g->cp.arrived[r];
        for (; i < nev; i++) {
            double t0 = tr + (q ? q->pos[4 * (size_t)i] / pw : (double)R->sl[i].compute_ns * 1e-9);
            double tt = t0;
            size_t blocked = SIZE_MAX;
            uint32_t d0 = d;
            for (; d < ndp && dp[d].ev <= i && blocked == SIZE_MAX; d++) {
                const gdep_t *y = &dp[d];
                size_t x;
                if (cp_key(g, y->kind == DEP_COLL ? y->a | 1ull << 63 : y->a, y->b, &x))
                    return -2;
                uint32_t *cnt = g->cp.cnt;
                double *val = g->cp.val;
                int wake = 0;
                if (y->kind == DEP_SEND) {
                    if (!cnt[x]) {
                        cnt[x] = 1;
                        val[x] = t0;
                        wake = 1;
                    }
                } else if (y->kind == DEP_RECV) {
                    if (!cnt[x])
                        blocked = x;
                    else
                        tt = tmax2(tt, val[x]);
                } else {
                    uint32_t size = g->gc[y->a].size;
                    if (!arrived) {
                        arrived = 1;
                        val[x] = tmax2(val[x], t0);
                        wake = ++cnt[x] == size;
                    }
                    if (cnt[x] < size)
                        blocked = x;
                    else
                        tt = tmax2(tt, val[x]);
                }
                if (wake) {
                    for (uint32_t w = g->cp.wait[x]; w; w = g->cp.wnext[w - 1])
                        if (!g->cp.inq[w - 1]) {
                            g->cp.queue[(qh + qn++) % (uint32_t)np] = w - 1;
                            g->cp.inq[w - 1] = 1;
                        }
                    g->cp.wait[x] = 0;
                }
            }
            if (blocked != SIZE_MAX) { /* (woken, it walks this call's dependencies again) */
                g->cp.wnext[r] = g->cp.wait[blocked];
                g->cp.wait[blocked] = (uint32_t)r + 1;
                d = d0;
                break;
            }
            tr = tt;
            arrived = 0;
        }
        g->cp.cur[r] = i;
        g->cp.di[r] = d;
        g->cp.t[r] = tr;
        g->cp.arrived[r] = (uint8_t)arrived;
    }
    for (int r = 0; r < np; r++)
        if (g->cp.cur[r] < (skel ? skel->r[r].nsym : g->r[r].nsl))
            goto unmet;
    double end = 0;
    for (int r = 0; r < np; r++) {
        end = tmax2(end, g->cp.t[r]);
        if (!skel)
            g->cp.st[r] = g->cp.t[r];
    }
    return end - front;
unmet:
    if (!skel) /* the run's path starts again */
        memset(g->cp.st, 0, sizeof *g->cp.st * (size_t)np);
    return -1;
}

static uint64_t rand_below(uint64_t seed, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)(mix64(seed) >> 11) * n) >> 53);
}

/* A variable phase's skeleton: its first SKEL_OCC occurrences in a row, while each rank's
 * stays within SKEL_CALLS calls.  One occurrence replayed for many whose calls and waits
 * differ does not average them, whichever is chosen (Graph500's BFS, 20 occurrences of
 * 230-446 calls: its first one, simulated on two hosts, came out +11 to +14 % against the
 * full trace; every occurrence its own phase, -0.5 %; a farm's rounds at np 8, +3.3 %): the
 * first ones replayed in a row are a sample of them, and a replay divides its time by how
 * many (the phase's skeleton_occurrences, signature/FORMAT.md).  Each appended call keeps
 * its own computation and sizes (times the occurrences results() divides the first one's
 * sums by); results() scales the computation to nskel mean occurrences.  0, or -1 when out
 * of memory. */
#define SKEL_OCC 16
#define SKEL_CALLS 65536
static int skeleton_append(gstate_t *g, gphase_t *p)
{
    if (p->nskel >= SKEL_OCC)
        return 0;
    for (int r = 0; r < g->np; r++)
        if ((uint64_t)p->r[r].nsym + g->r[r].nsl > SKEL_CALLS)
            return 0;
    for (int r = 0; r < g->np; r++) {
        const grank_t *R = &g->r[r];
        gpr_t *q = &p->r[r];
        uint32_t n = q->nsym + R->nsl;
        double f = q->pw ? (double)q->pw : 1;
        uint32_t *syms = realloc(q->syms, sizeof *syms * (n ? n : 1));
        if (syms)
            q->syms = syms;
        double *pos = realloc(q->pos, 4 * sizeof *pos * (n ? n : 1));
        if (pos)
            q->pos = pos;
        uint64_t *range = realloc(q->range, RW * sizeof *range * (n ? n : 1));
        if (range)
            q->range = range;
        gdep_t *dp = realloc(q->dp, sizeof *dp * (q->ndp + R->ndp ? q->ndp + R->ndp : 1));
        if (dp)
            q->dp = dp;
        uint32_t *st = realloc(q->starts, sizeof *st * (q->nstarts + 1));
        if (st)
            q->starts = st;
        if (!syms || !pos || !range || !dp || !st)
            return -1;
        st[q->nstarts++] = q->nsym;
        for (uint32_t i = 0; i < R->nsl; i++) {
            const gev_t *x = &R->sl[i];
            uint32_t k = q->nsym + i;
            uint64_t sz = x->bytes + x->rbytes, b = x->bytes > x->rbytes ? x->bytes : x->rbytes;
            syms[k] = x->sym;
            pos[4 * (size_t)k] = f * (double)x->compute_ns * 1e-9;
            pos[4 * (size_t)k + 1] = f * (double)x->instr;
            pos[4 * (size_t)k + 2] = f * (double)x->bytes;
            pos[4 * (size_t)k + 3] = f * (double)x->rbytes;
            range[RW * (size_t)k] = range[RW * (size_t)k + 1] = sz;
            range[RW * (size_t)k + 2] = pd_merge(PD_NONE, pd_of(x->pdone));
            range[RW * (size_t)k + 3] = wd_merge(WD_UNSET, x->wdist);
            range[RW * (size_t)k + 4] = wd_merge(WD_UNSET, x->pwdist);
            if (b && b < q->bmin)
                q->bmin = b;
            if (b > q->bmax)
                q->bmax = b;
        }
        for (uint32_t k = 0; k < R->ndp; k++) {
            dp[q->ndp + k] = R->dp[k];
            dp[q->ndp + k].ev += q->nsym;
        }
        q->ndp += R->ndp;
        q->nsym = n;
    }
    p->nskel++;
    return 0;
}

/* the slice between the previous cut and the current one is an occurrence */
static int occurrence_end(gstate_t *g)
{
    uint64_t key = 0x6a09e667f3bcc909ull, events = 0;
    double measure = 0;
    for (int r = 0; r < g->np; r++) {
        grank_t *R = &g->r[r];
        if (g->anchored && slice_set(R))
            return -1;
        key = mix64(key ^ (g->anchored ? set_key(R) : slice_key(R))) + (uint64_t)r;
        events += R->nsl;
        for (uint32_t i = 0; i < R->nsl; i++)
            measure += g->use_instr ? (double)R->sl[i].instr : (double)R->sl[i].compute_ns * 1e-9;
    }
    if (!events) {
        int moved = 0;
        for (int r = 0; r < g->np; r++)
            moved |= g->r[r].pos != g->r[r].slice_start;
        if (!moved)
            return 0; /* nothing at all: no occurrence */
    }
    if (events > g->largest)
        g->largest = events;
    uint32_t id = UINT32_MAX;
    if (g->last_phase < g->nph && g->ph[g->last_phase].key == key &&
        similar(g, g->ph[g->last_phase].ref, measure) && slice_matches(g, &g->ph[g->last_phase])) {
        id = g->last_phase;
    } else {
        uint64_t k = 0;
        for (slot_t *s; (s = tfind(&g->phidx, key, k)); k++) {
            gphase_t *p = &g->ph[s->v - 1];
            if (similar(g, p->ref, measure) && slice_matches(g, p)) {
                id = (uint32_t)(s->v - 1);
                break;
            }
        }
        if (id == UINT32_MAX) {
            if (phase_new(g, key, &id))
                return -1;
            slot_t *s = tput(&g->phidx, key, k);
            if (!s)
                return -1;
            s->v = id + 1;
        }
    }
    gphase_t *p = &g->ph[id];
    g->last_phase = id;
    if (p->weight) {
        double gap = (double)(g->occ - p->last);
        p->gn++;
        p->gsum += gap;
        p->gsq += gap * gap;
    }
    p->last = g->occ;
    p->weight++;
    p->ref += (measure - p->ref) / (double)p->weight;
    p->msq += measure * measure;
    if (measure < p->mmin)
        p->mmin = measure;
    if (measure > p->mmax)
        p->mmax = measure;
    /* anchored, an occurrence with the skeleton's symbols in another order or number adds
     * to the phase's times, not to its skeleton's per-call figures */
    int exact = !g->anchored || (p->nskel == 1 && same_slices(g, p));
    p->variable |= !exact;
    if (!exact && skeleton_append(g, p))
        return -1;
    double cp = crit_path(g, NULL); /* (every occurrence: the run's path goes on) */
    if (cp < -1.5)
        return -1;
    if (cp >= 0) {
        p->cpsum += cp;
        p->cpn++;
    }
    for (int r = 0; r < g->np; r++) {
        grank_t *R = &g->r[r];
        gpr_t *q = &p->r[r];
        double t = 0, c = 0, in = 0;
        q->pw += (uint64_t)exact;
        for (uint32_t i = 0; i < R->nsl; i++) {
            const gev_t *x = &R->sl[i];
            t += (double)x->time_ns;
            c += (double)x->compute_ns;
            in += (double)x->instr;
            if (!exact)
                continue;
            q->pos[4 * i] += (double)x->compute_ns * 1e-9;
            q->pos[4 * i + 1] += (double)x->instr;
            q->pos[4 * i + 2] += (double)x->bytes;
            q->pos[4 * i + 3] += (double)x->rbytes;
            uint64_t sz = x->bytes + x->rbytes;
            if (sz < q->range[RW * i])
                q->range[RW * i] = sz;
            if (sz > q->range[RW * i + 1])
                q->range[RW * i + 1] = sz;
            q->range[RW * i + 2] = pd_merge(q->range[RW * i + 2], pd_of(x->pdone));
            q->range[RW * i + 3] = wd_merge(q->range[RW * i + 3], x->wdist);
            q->range[RW * i + 4] = wd_merge(q->range[RW * i + 4], x->pwdist);
            uint64_t b = x->bytes > x->rbytes ? x->bytes : x->rbytes;
            if (b) {
                if (b < q->bmin)
                    q->bmin = b;
                if (b > q->bmax)
                    q->bmax = b;
            }
        }
        /* failed polls after the slice's last call are the next call's computation, in the
         * next occurrence, as everywhere else (and as `predict` times an occurrence: from
         * the previous one's last call); counted here they were time of this phase that
         * none of its events carried, so simulate and replay lost them (IQ-TREE's master
         * polls for its workers' results: -5 to -8 % against the full trace).  At the
         * rank's end, with no call after them, they stay this slice's. */
        int at_end = R->eof || R->pos >= R->total; /* (no event left to read) */
        if (at_end) {
            t += (double)(R->absorbed_ns + R->absorbed_wait_ns);
            c += (double)R->absorbed_ns;
        }
        t *= 1e-9;
        c *= 1e-9;
        q->tsum += t;
        q->tsumsq += t * t;
        q->csum += c;
        q->isum += in;
        if (t < q->tmin)
            q->tmin = t;
        if (t > q->tmax)
            q->tmax = t;
        if (q->ns < RESERVOIR) {
            q->samples[q->ns++] = t;
        } else { /* reservoir sampling, deterministic */
            uint64_t j = rand_below(p->weight * 0x9e3779b97f4a7c15ull + (uint64_t)r, p->weight);
            if (j < RESERVOIR)
                q->samples[j] = t;
        }
        if (q->nfirst < PAS2P_PHASE_SAMPLE_OCC) {
            q->fs[q->nfirst] = R->slice_lstart;
            q->fe[q->nfirst] = R->lpos;
            q->fas[q->nfirst] = R->slice_astart;
            q->fae[q->nfirst] = R->apos;
            q->ft[q->nfirst] = t;
            q->nfirst++;
        }
        if (at_end)
            R->absorbed_ns = R->absorbed_instr = R->absorbed_wait_ns = 0;
        /* (what they completed is the occurrence's end's: a replay completes what is left
         * there) */
        R->absorbed_done = R->absorbed_psi = 0;
        R->ghost1 = 0;
        R->nsl = 0;
        R->ndp = 0;
        R->slice_start = R->pos;
        R->slice_lstart = R->lpos;
        R->slice_astart = R->apos;
    }
    g->occ++;
    return 0;
}

/* ------------------------------------------------------------------ the cut */
static void describe_unbalanced(gstate_t *g)
{
    if (g->nbadchan) {
        const chan_t *c = &g->cv[g->badchan[0]];
        for (size_t k = 1; k < g->nbadchan && c->recvd <= c->sent; k++) /* a receive first */
            c = &g->cv[g->badchan[k]];
        if (c->recvd > c->sent)
            snprintf(g->err, g->errlen, "rank %d, event %" PRIu64 ": receives a message from rank %d "
                     "that rank %d never sends (%" PRIu64 " received, %" PRIu64 " sent on that channel)",
                     c->dst, c->last_recv, c->src, c->src, c->recvd, c->sent);
        else
            snprintf(g->err, g->errlen, "rank %d sends %" PRIu64 " message(s) to rank %d that rank %d "
                     "never receives", c->src, c->sent - c->recvd, c->dst, c->dst);
    } else if (g->nbadcomm) {
        const gcomm_t *c = &g->gc[g->badcomm[0]];
        int who = -1;
        for (uint32_t i = 0; i < c->size && who < 0; i++)
            if (c->count[i] < c->max)
                who = c->members[i];
        snprintf(g->err, g->errlen, "rank %d makes fewer collectives on a communicator of %u ranks "
                 "than its other members", who, c->size);
    } else if (g->nactive) {
        int r = (int)g->activel[0];
        snprintf(g->err, g->errlen, "rank %d ends with %zu request(s) never completed", r,
                 g->r[r].pending.n);
    }
}

static int cmp_post(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

static void orphan_add(void *ctx, uint64_t post, uint64_t index)
{
    pas2p_orphans_t *O = ctx;
    O->post[2 * O->n] = post;
    O->post[2 * O->n + 1] = index;
    O->n++;
}

/* every rank's active requests, at the end of the trace, into g->orph (which held none of
 * them: the run that was told of its orphans finds none); 1 done (g->orphaned), 0 not */
static int orphans_out(gstate_t *g)
{
    for (int r = 0; r < g->np; r++)
        if (g->r[r].orphans.n) /* the second run: the same trace, no new orphans */
            return 0;
    for (int r = 0; r < g->np; r++) {
        grank_t *R = &g->r[r];
        pas2p_orphans_t *O = &g->orph[r];
        free(O->post);
        O->n = 0;
        O->post = R->pending.n ? malloc(2 * R->pending.n * sizeof *O->post) : NULL;
        if (R->pending.n && !O->post)
            return 0;
        req_each(&R->pending, orphan_add, O);
        if (O->n) /* (no array when none: qsort wants one) */
            qsort(O->post, O->n, 2 * sizeof *O->post, cmp_post);
    }
    g->orphaned = 1;
    return 1;
}

/* advances ranks until the cut is closed; -1 error */
/* Messages sent and never received (an application may leave some in flight when it ends:
 * Ray sends one to itself).  With every rank at its end and no channel short of a message
 * it received, they are set aside: the last occurrence holds their sends, and replay and
 * simulate leave them out (simbackend/actions.c).  1 set aside (the channels balanced), 0
 * not (some channel received more than it was sent: the error stands), -1 read error. */
static int unreceived_out(gstate_t *g)
{
    int rc;
    for (int r = 0; r < g->np; r++) {
        while ((rc = advance(g, r)) > 0)
            ;
        if (rc < 0)
            return -1;
    }
    for (size_t k = 0; k < g->nbadchan; k++)
        if (g->cv[g->badchan[k]].recvd > g->cv[g->badchan[k]].sent)
            return 0;
    while (g->nbadchan) {
        chan_t *c = &g->cv[g->badchan[0]];
        if (!g->unreceived) {
            g->unreceived_src = c->src;
            g->unreceived_dst = c->dst;
        }
        g->unreceived += c->sent - c->recvd;
        c->recvd = c->sent;
        chan_update(g, g->badchan[0]);
    }
    return 1;
}

static int close_cut(gstate_t *g)
{
    for (;;) {
        int who;
        if (g->nbadchan) {
            const chan_t *c = &g->cv[g->badchan[0]];
            who = c->sent > c->recvd ? c->dst : c->src;
        } else if (g->nbadcomm) {
            const gcomm_t *c = &g->gc[g->badcomm[0]];
            who = -1;
            for (uint32_t i = 0; i < c->size && who < 0; i++)
                if (c->count[i] < c->max)
                    who = c->members[i];
        } else if (g->nactive) {
            who = (int)g->activel[0];
        } else {
            return 0;
        }
        int rc = who >= 0 ? advance(g, who) : 0;
        if (rc < 0)
            return -1;
        if (rc == 0) { /* that rank has nothing left: the trace does not add up */
            if (g->cut) { /* a cut trace: everything left is the last occurrence */
                for (int r = 0; r < g->np; r++)
                    while ((rc = advance(g, r)) > 0)
                        ;
                if (rc < 0)
                    return -1;
                g->unclosed = 1;
                return 0;
            }
            if (g->nbadchan && unreceived_out(g) < 0)
                return -1;
            if (!g->nbadchan && !g->nbadcomm && !g->nactive)
                return 0;
            if (!g->nbadchan && !g->nbadcomm && g->orph) {
                /* only requests left active, on a rank at its end: orphans, unless the rest
                 * of the trace does not add up either */
                int ok = 1;
                for (int r = 0; r < g->np && ok; r++) {
                    while ((rc = advance(g, r)) > 0)
                        ;
                    ok = rc == 0;
                }
                if (!ok)
                    return -1;
                /* every rank's end read may hold a message never received (Ray's last one
                 * to itself, after its requests never completed): set aside as above */
                if (g->nbadchan && unreceived_out(g) < 0)
                    return -1;
                if (!g->nbadchan && !g->nbadcomm && orphans_out(g))
                    return 0;
            }
            describe_unbalanced(g);
            return -1;
        }
    }
}

/* Snapped (anchors_recur), a slice between two anchors is often k repetitions of one body on
 * every rank: stencil2d's 10 iterations between two residual reductions, each rank's
 * [Irecv Isend Waitall] x 10 then the MPI_Allreduce.  As one phase, the ten iterations made
 * predict wait for a warm-up and three such blocks, 40 of a 600-iteration run (SET/AET 8 %).
 * The repetitions are the program's structure, not the timing's or the np's (the same k at
 * every np, whichever granularity the ranks' own analyses chose), so the slice is cut after
 * each of its repetitions 2 to k - 1 when every rank's slice repeats a body k >= 4 times (its
 * smallest such body, the repetitions at least half its calls; the last slice keeps the
 * rest) and each of those cuts is closed too: no request active across it, every message
 * received in the repetition it was sent in, every member of a communicator in the same
 * repetition for each of its collectives.  Otherwise the slice stays whole.  The first two
 * repetitions are one slice: the computation before a call is that call's, so the first
 * repetition after the anchor has none of its own, only the wait for the ranks' skew out of
 * the collective (stencil2d validation size: 0.06 % of the run at np 2, 2.5 % at np 4 on 2
 * cores, a phase relevant at one np and not the other). */
#define SPLIT_MIN 4
#define SPLIT_WORK 8 /* comparisons per call of the slice, at most, finding a rank's body */

/* the smallest body that rank R's slice repeats k >= SPLIT_MIN times from its start with the
 * repetitions at least half its calls: its length (0: none), *k its repetitions */
static uint32_t repeat_body(const grank_t *R, uint32_t *k)
{
    uint32_t n = R->nsl;
    uint64_t work = 0, budget = (uint64_t)SPLIT_WORK * n;
    for (uint32_t p = 1; (uint64_t)p * SPLIT_MIN <= n && work <= budget; p++) {
        uint32_t i = p;
        while (i < n && R->sl[i].sym == R->sl[i - p].sym)
            i++;
        work += i - p + 1;
        uint32_t reps = i / p;
        if (reps >= SPLIT_MIN && 2 * (uint64_t)reps * p >= n) {
            *k = reps;
            return p;
        }
    }
    return 0;
}

typedef struct {
    gev_t *sl;
    gdep_t *dp;
    uint32_t nsl, ndp, dpi;
    uint64_t lpos, apos, absorbed_ns, absorbed_instr, absorbed_wait_ns;
    uint32_t absorbed_done, absorbed_psi;
} split_t;

static int split_repeats(gstate_t *g)
{
    int np = g->np;
    uint32_t k = 0;
    uint32_t *per = malloc(sizeof *per * (size_t)np);
    split_t *sv = calloc((size_t)np, sizeof *sv);
    table_t where = {0};       /* (communicator, collective ordinal) -> its window */
    size_t nt = 0;
    int rc = -1, moved = 0;
    if (!per || !sv)
        goto oom;
    for (int r = 0; r < np; r++) {
        grank_t *R = &g->r[r];
        uint32_t kr = 0;
        if (!(per[r] = repeat_body(R, &kr)) || (k && kr != k))
            goto whole;
        k = kr;
        for (uint32_t i = 0; i < R->nsl; i++) {
            unsigned call = R->syms.v[R->sl[i].sym].call;
            if (call < PAS2P_CALL_LIMIT && g->cls[call] == PAS2P_CLASS_COLLECTIVE &&
                !(g->cf[call] & CF_BLOCKING_COLLECTIVE))
                goto whole; /* (a non-blocking collective: its members matched by count only) */
        }
        for (uint32_t j = 2; j < k; j++) /* no request active across a cut */
            if (!R->idle[j * per[r] - 1])
                goto whole;
    }
    /* messages: after each window (repetitions 1-2, 3, ..., k - 1, the last with the rest),
     * every channel it used has as many receives as sends in it (the cut before the slice
     * is closed and a channel matches in order, so each receive's send is in its window);
     * collectives: each one's ordinal on its communicator in one window on every member */
    if (g->capbal < g->nchan) {
        int32_t *v = realloc(g->bal, sizeof *v * g->capchan);
        if (!v)
            goto oom;
        memset(v + g->capbal, 0, sizeof *v * (g->capchan - g->capbal));
        g->bal = v;
        g->capbal = g->capchan;
    }
    for (int r = 0; r < np; r++)
        sv[r].dpi = 0;
    for (uint32_t w = 1; w < k; w++) {
        for (int r = 0; r < np; r++) {
            const grank_t *R = &g->r[r];
            uint32_t end = w + 1 < k ? (w + 1) * per[r] : R->nsl, d = sv[r].dpi;
            for (; d < R->ndp && R->dp[d].ev < end; d++) {
                const gdep_t *x = &R->dp[d];
                if (x->kind == DEP_COLL) {
                    slot_t *s = tfind(&where, x->a, x->b);
                    if (!s) {
                        if (!(s = tput(&where, x->a, x->b)))
                            goto oom;
                        s->v = w;
                    } else if (s->v != w) {
                        goto unbalanced;
                    }
                    continue;
                }
                if (!g->bal[x->a]) {
                    if (nt == g->captouch) {
                        size_t cap = g->captouch ? 2 * g->captouch : 64;
                        uint32_t *v = realloc(g->touch, sizeof *v * cap);
                        if (!v)
                            goto oom;
                        g->touch = v;
                        g->captouch = cap;
                    }
                    g->touch[nt++] = (uint32_t)x->a;
                }
                g->bal[x->a] += x->kind == DEP_SEND ? 1 : -1;
            }
            sv[r].dpi = d;
        }
        for (size_t i = 0; i < nt; i++)
            if (g->bal[g->touch[i]])
                goto unbalanced;
        nt = 0;
    }
    for (int r = 0; r < np; r++)
        sv[r].dpi = 0;
    /* repetitions 1-2, 3, ..., k - 1, each an occurrence (occurrence_end on a window of the
     * slice: its calls and dependencies in place, its positions); the last and the rest
     * stay the slice, for the caller's occurrence */
    moved = 1;
    for (int r = 0; r < np; r++) {
        grank_t *R = &g->r[r];
        sv[r] = (split_t){.sl = R->sl, .nsl = R->nsl, .dp = R->dp, .ndp = R->ndp, .lpos = R->lpos, .apos = R->apos,
                          .absorbed_ns = R->absorbed_ns, .absorbed_instr = R->absorbed_instr,
                          .absorbed_wait_ns = R->absorbed_wait_ns,
                          .absorbed_done = R->absorbed_done, .absorbed_psi = R->absorbed_psi};
    }
    for (uint32_t j = 1; j < k; j++) {
        int last = j + 1 == k;
        for (int r = 0; r < np; r++) {
            grank_t *R = &g->r[r];
            split_t *S = &sv[r];
            uint32_t a = j == 1 ? 0 : j * per[r], b = last ? S->nsl : (j + 1) * per[r];
            uint32_t d0 = S->dpi, d1 = d0;
            while (d1 < S->ndp && S->dp[d1].ev < b)
                S->dp[d1++].ev -= a;
            S->dpi = d1;
            R->sl = S->sl + a;
            R->nsl = b - a;
            R->dp = S->dp + d0;
            R->ndp = d1 - d0;
            if (last) {
                R->lpos = S->lpos;
                R->apos = S->apos;
                R->absorbed_ns = S->absorbed_ns;
                R->absorbed_instr = S->absorbed_instr;
                R->absorbed_wait_ns = S->absorbed_wait_ns;
                R->absorbed_done = S->absorbed_done;
                /* (its index in the last part, if it was posted there) */
                R->absorbed_psi = S->absorbed_psi > a ? S->absorbed_psi - a : 0;
                continue;
            }
            uint64_t ap = R->slice_astart; /* (advance's rule, from the symbols) */
            for (uint32_t i = 0; i < R->nsl; i++) {
                const pas2p_symbol_t *y = &R->syms.v[R->sl[i].sym];
                uint32_t c;
                const gcomm_t *m;
                int anchor = y->call < PAS2P_CALL_LIMIT && (g->cf[y->call] & CF_BLOCKING_COLLECTIVE) &&
                             (m = comm_get(g, y->comm, &c)) && m->size == (uint32_t)np;
                ap = anchor ? ((ap >> 32) + 1) << 32 : ap + 1;
            }
            R->lpos = R->slice_lstart + R->nsl;
            R->apos = ap;
            R->absorbed_ns = R->absorbed_instr = R->absorbed_wait_ns = 0;
            R->absorbed_done = R->absorbed_psi = 0;
            R->ghost1 = 0;
        }
        if (!last && occurrence_end(g))
            goto out;
    }
    rc = 0;
    goto out;
unbalanced:
    for (size_t i = 0; i < nt; i++)
        g->bal[g->touch[i]] = 0;
    goto whole;
oom:
    snprintf(g->err, g->errlen, "out of memory");
    goto out;
whole:
    rc = 0;
out:
    for (int r = 0; moved && r < np; r++) { /* the window to the front of the buffers */
        grank_t *R = &g->r[r];
        split_t *S = &sv[r];
        uint32_t a = (uint32_t)(R->sl - S->sl);
        memmove(S->sl, R->sl, sizeof *R->sl * R->nsl);
        memmove(R->idle, R->idle + a, R->nsl);
        memmove(S->dp, R->dp, sizeof *R->dp * R->ndp);
        R->sl = S->sl;
        R->dp = S->dp;
    }
    free(per);
    free(sv);
    free(where.s);
    return rc;
}

/* Anchored (a rank receives from MPI_ANY_SOURCE, so the order and number of the calls
 * between two all-rank collectives may change from run to run): every rank goes to the end
 * of its next anchor, and the cut is closed from there.  The loops the per-rank analysis
 * found are not proposed: in a farm they are slices of one interleaving of the workers,
 * which the next run does not repeat; the rounds between anchors are what repeats. */
static int sweep_anchored(gstate_t *g)
{
    for (;;) {
        int left = 0;
        for (int r = 0; r < g->np; r++) {
            grank_t *R = &g->r[r];
            int rc;
            while ((rc = advance(g, r)) > 0 && !is_anchor(g, &R->cur->ev))
                ;
            if (rc < 0)
                return -1;
            left |= rc > 0;
        }
        if (close_cut(g) || occurrence_end(g))
            return -1;
        if (!left)
            return 0;
    }
}

/* Anchors recur when every rank makes, in phases its own analysis found repeating (weight
 * >= 4), at least 8 blocking collectives on communicators of all the ranks (a residual's
 * MPI_Allreduce every step or every 10 steps).  Then the cuts are snapped to them: each
 * rank's proposal moves on to the end of its next anchor.  The per-rank loops start where
 * the folding happened to see the first repeat (cartsweep's at np 4: its second quadrant,
 * so the first and last iterations came out as pipeline stages of their own, and which
 * depended on the granularity the timings chose), and an inner loop of stencil2d's was its
 * phase or not as the granularity went; the anchors are the same calls at every np and in
 * every run.  A program whose collectives are only in its set-up and end (or too rare to
 * give 8 cuts, or rarer than one every 16 loop iterations) keeps its ranks' loop
 * boundaries as the cuts. */
static int all_rank_comm(const pas2p_rank_phases_t *R, uint32_t comm, int np)
{
    if (comm == PAS2P_COMM_WORLD)
        return 1;
    for (uint32_t c = 0; c < R->ncomms; c++)
        if (R->comms[c].id == comm)
            return R->comms[c].size == (uint32_t)np;
    return 0;
}

static int anchors_recur(const pas2p_rank_phases_t *res, int np)
{
    for (int r = 0; r < np; r++) {
        const pas2p_rank_phases_t *R = &res[r];
        uint64_t n = 0, most = 0;
        for (uint32_t i = 0; i < R->nphases; i++) {
            const pas2p_phase_t *p = &R->phases[i];
            if (p->weight > most)
                most = p->weight;
            if (p->weight < 4)
                continue;
            for (uint32_t k = 0; k < p->nsym; k++) {
                const pas2p_symbol_t *y = &R->symbols[p->syms[k]];
                n += blocking_collective(y->call) && all_rank_comm(R, y->comm, np) ? p->weight : 0;
            }
        }
        /* and at least one every 16 iterations of the rank's most repeated loop body: md's
         * Allreduce every 50 steps would make each occurrence 50 steps (20 occurrences of a
         * 1000-step run, each a phase of its own, nothing left for predict to stop early on) */
        if (n < 8 || 16 * n < most)
            return 0;
    }
    return 1;
}

static int sweep(gstate_t *g)
{
    if (g->anchored)
        return sweep_anchored(g);
    for (;;) {
        int any = 0;
        for (int r = 0; r < g->np; r++) {
            grank_t *R = &g->r[r];
            while (R->bnext < R->nbounds && R->bounds[R->bnext] <= R->pos)
                R->bnext++;
            if (R->eof)
                R->bnext = R->nbounds;
            any |= R->bnext < R->nbounds;
        }
        for (int r = 0; r < g->np; r++) {
            grank_t *R = &g->r[r];
            /* to its next proposal; with none left, stay (others pull it along), until no
             * rank has one: then everything that is left */
            uint64_t to = R->bnext < R->nbounds ? R->bounds[R->bnext] : any ? R->pos : UINT64_MAX;
            int moved = R->pos < to;
            while (R->pos < to) {
                int rc = advance(g, r);
                if (rc < 0)
                    return -1;
                if (!rc) {
                    if (to != UINT64_MAX) {
                        snprintf(g->err, g->errlen, "rank %d: its stream ends at event %" PRIu64
                                 ", before the occurrence its analysis found at %" PRIu64,
                                 r, R->pos, to);
                        return -1;
                    }
                    break;
                }
            }
            /* snapped: on to the end of the next anchor (the cut after it is the same loop
             * boundary at every np, whichever call each rank's loop happened to start at) */
            while (g->snap && moved && to != UINT64_MAX && !is_anchor(g, &R->cur->ev)) {
                int rc = advance(g, r);
                if (rc < 0)
                    return -1;
                if (!rc)
                    break;
            }
        }
        if (close_cut(g))
            return -1;
        if (g->snap && split_repeats(g))
            return -1;
        if (occurrence_end(g))
            return -1;
        if (!any) {
            int left = 0;
            for (int r = 0; r < g->np; r++)
                left |= !g->r[r].eof;
            if (!left)
                return 0;
        }
    }
}

/* ------------------------------------------------------------------ results */
/* May the variant x be merged into b as noise (merge_rare, a stretch in merge_linked)?  Not
 * when x carries more computation in all than b: merged, it would then be most of the
 * phase's time while its median stays b's, and a prediction that times a few occurrences
 * (predict's median) would miss it by the ratio of the two.  Noise passes (5 % of the
 * occurrences 10x slower add half of b's total); a different computation that happens
 * to end at the same calls does not: HPCC runs STREAM, DGEMM and FFT once each between
 * the same MPI_Barrier pair as its microsecond-long bookkeeping rounds (merged, a 60-
 * occurrence phase of median 2.6 us and mean 21 ms). */
static int noise_of(const gphase_t *b, const gphase_t *x)
{
    return (double)x->weight * x->ref <= (double)b->weight * b->ref;
}

/* p's occurrences recur at regular intervals: the gaps between consecutive ones (>= 7) are
 * >= 2 on average (not a burst) with a spread of at most half their mean (a random
 * placement has about as much spread as mean); LAMMPS's re-neighbouring steps: 0.37 */
static int regular(const gphase_t *p)
{
    if (p->gn < 7)
        return 0;
    double m = p->gsum / p->gn, v = p->gsq / p->gn - m * m;
    return m >= 2 && sqrt(v > 0 ? v : 0) <= 0.5 * m;
}

/* Are a and b two computations rather than one spread by noise?  Both recur (>= 8
 * occurrences each), their means are not similar, they lie apart by four times the sum
 * of their standard deviations (two tight clusters), and the rarer one recurs at regular
 * intervals (regular): a stall is tight too when the scheduler's time slice makes it
 * (cg at np 4 on 2 cores: 9 consecutive iterations at 6x), but it is a burst or random,
 * never every k-th occurrence.  A range of measures links the variants of one spread
 * (merge_linked), but on a machine with co-tenants one stalled occurrence links anything:
 * LAMMPS's re-neighbouring step (every 20th: 9.7 ms +- 1.1 of computation over the ranks,
 * 205 occurrences) came out as one phase with its ordinary step (2.25 ms +- 0.28, 4745
 * occurrences) through a single 4.8 ms occurrence between them, and predict's median of a
 * few occurrences then missed the 20 % of the time the heavier steps hold.  The variants a
 * continuous spread is cut into are a factor ~2 apart with standard deviations of ~20 % of
 * their means, at most ~3 deviations apart: they still link. */
static int distinct_groups(const gstate_t *g, const gphase_t *a, const gphase_t *b)
{
    if (a->weight < 8 || b->weight < 8 || similar(g, a->ref, b->ref))
        return 0;
    double va = a->msq / (double)a->weight - a->ref * a->ref;
    double vb = b->msq / (double)b->weight - b->ref * b->ref;
    double sd = sqrt(va > 0 ? va : 0) + sqrt(vb > 0 ? vb : 0);
    if (fabs(b->ref - a->ref) < 4 * sd)
        return 0;
    return regular(a->weight < b->weight ? a : b);
}

/* phase b takes phase a's occurrences (the same calls); a is emptied (weight 0) */
static void phase_absorb(gstate_t *g, gphase_t *b, gphase_t *a)
{
    double wa = (double)a->weight, wb = (double)b->weight;
    b->ref = (b->ref * wb + a->ref * wa) / (wa + wb);
    b->msq += a->msq;
    b->gn += a->gn; /* (the gaps within each; those between them are not known) */
    b->gsum += a->gsum;
    b->gsq += a->gsq;
    b->mmin = fmin(b->mmin, a->mmin);
    b->mmax = fmax(b->mmax, a->mmax);
    b->weight += a->weight;
    b->variable |= a->variable;
    b->cpsum += a->cpsum;
    b->cpn += a->cpn;
    if (a->first < b->first)
        b->first = a->first;
    if (a->last > b->last)
        b->last = a->last;
    for (int r = 0; r < g->np; r++) {
        gpr_t *x = &a->r[r], *y = &b->r[r];
        /* per call, only between skeletons of the same calls (else b's stands: a variable
         * phase's computation is scaled to its mean occurrence's by results()) */
        uint32_t same = x->nsym == y->nsym && !memcmp(x->syms, y->syms, sizeof *x->syms * x->nsym);
        for (uint32_t k = 0; same && k < 4 * x->nsym; k++)
            y->pos[k] += x->pos[k];
        for (uint32_t k = 0; same && k < x->nsym; k++) {
            if (x->range[RW * k] < y->range[RW * k])
                y->range[RW * k] = x->range[RW * k];
            if (x->range[RW * k + 1] > y->range[RW * k + 1])
                y->range[RW * k + 1] = x->range[RW * k + 1];
            y->range[RW * k + 2] = pd_merge(y->range[RW * k + 2], x->range[RW * k + 2]);
            y->range[RW * k + 3] = wd_merge(y->range[RW * k + 3], x->range[RW * k + 3]);
            y->range[RW * k + 4] = wd_merge(y->range[RW * k + 4], x->range[RW * k + 4]);
        }
        y->pw += same ? x->pw : 0;
        y->tsum += x->tsum;
        y->tsumsq += x->tsumsq;
        y->csum += x->csum;
        y->isum += x->isum;
        y->tmin = fmin(y->tmin, x->tmin);
        y->tmax = fmax(y->tmax, x->tmax);
        if (x->bmin < y->bmin)
            y->bmin = x->bmin;
        if (x->bmax > y->bmax)
            y->bmax = x->bmax;
        for (uint32_t s = 0; s < x->ns && y->ns < RESERVOIR; s++)
            y->samples[y->ns++] = x->samples[s];
        for (uint32_t s = 0; s < x->nfirst; s++) { /* keep the earliest */
            uint32_t at = y->nfirst;
            if (at == PAS2P_PHASE_SAMPLE_OCC) {
                if (x->fs[s] >= y->fs[at - 1])
                    continue;
                at--;
            } else {
                y->nfirst++;
            }
            while (at > 0 && y->fs[at - 1] > x->fs[s]) {
                y->fs[at] = y->fs[at - 1];
                y->fe[at] = y->fe[at - 1];
                y->fas[at] = y->fas[at - 1];
                y->fae[at] = y->fae[at - 1];
                y->ft[at] = y->ft[at - 1];
                at--;
            }
            y->fs[at] = x->fs[s];
            y->fe[at] = x->fe[s];
            y->fas[at] = x->fas[s];
            y->fae[at] = x->fae[s];
            y->ft[at] = x->ft[s];
        }
    }
    gphase_free(a, g->np);
    a->weight = 0;
}

/* the same calls on every rank (the same key can, rarely, hash other calls): their
 * skeletons' first occurrences make the same calls (a variable phase's skeleton goes on with
 * its next occurrences: skeleton_append) */
static int same_calls(const gstate_t *g, const gphase_t *a, const gphase_t *b)
{
    if (a->key != b->key)
        return 0;
    for (int r = 0; r < g->np; r++) {
        if (a->r[r].nsym1 != b->r[r].nsym1)
            return 0;
        for (uint32_t i = 0; i < a->r[r].nsym1; i++)
            if (a->r[r].syms[i] != b->r[r].syms[i])
                return 0;
    }
    return 1;
}

static int by_mmin(const void *x, const void *y)
{
    const gphase_t *a = *(const gphase_t *const *)x, *b = *(const gphase_t *const *)y;
    if (a->mmin != b->mmin)
        return a->mmin < b->mmin ? -1 : 1;
    return (a->first > b->first) - (a->first < b->first);
}

/* Time variants are groups of occurrences, not bands of one spread.  The pass assigns an
 * occurrence to the first variant of its calls whose running mean is similar, so a
 * computation that varies continuously (noise: a rank preempted on an oversubscribed
 * machine, from 9 us to 90 us for one wavefront stage at np 4) comes out as a chain of
 * variants a factor 2 apart, differently at every np.  Variants of the same calls whose
 * ranges of measures overlap or come within the similarity of each other are one phase:
 * what is left are groups of occurrences separated by a gap wider than the similarity (a
 * step that computes 4x more every 10th time). */
static int merge_linked(gstate_t *g)
{
    gphase_t **v = malloc(sizeof *v * (g->nph ? g->nph : 1));
    uint8_t *done = calloc(g->nph ? g->nph : 1, 1);
    if (!v || !done) {
        free(v);
        free(done);
        return -1;
    }
    for (uint32_t i = 0; i < g->nph; i++) {
        if (done[i] || !g->ph[i].weight)
            continue;
        uint32_t n = 0;
        for (uint32_t k = i; k < g->nph; k++)
            if (!done[k] && g->ph[k].weight && same_calls(g, &g->ph[i], &g->ph[k])) {
                v[n++] = &g->ph[k];
                done[k] = 1;
            }
        if (n < 2)
            continue;
        qsort(v, n, sizeof *v, by_mmin);
        gphase_t *cur = v[0];
        for (uint32_t k = 1; k < n; k++) {
            gphase_t *x = v[k];
            if ((x->mmin <= cur->mmax || similar(g, cur->mmax, x->mmin)) &&
                !distinct_groups(g, cur, x))
                phase_absorb(g, cur, x); /* (numbered by first occurrence later) */
            else
                cur = x;
        }
        /* a group whose occurrences all come before (or all after) every other group's is
         * a stretch of the run, not a variant that recurs: the first iterations while the
         * ranks of an oversubscribed run start (adi's first two 2-4x slower at np 4 and 8,
         * not at np 2; cartsweep's and wavefront's first), a burst of preemption at the end.
         * It joins the group closest in computation, when it is the smaller of the two in
         * occurrences: NAS EP computes once and then makes 4 MPI_Allreduce in a row, and its
         * three cheap ones, all after the heavy one, are no stretch of it (absorbed, the
         * phase's median was theirs and predict timed 0.02 % of the run).  What stays apart
         * recurs among the others' occurrences (md's heavier step every 20th).  Σ W x time
         * is unchanged. */
        for (int again = 1; again;) {
            again = 0;
            for (uint32_t k = 0; k < n && !again; k++) {
                gphase_t *x = v[k], *best = NULL;
                if (!x->weight)
                    continue;
                int apart = 1;
                for (uint32_t j = 0; j < n && apart; j++) {
                    const gphase_t *y = v[j];
                    if (j != k && y->weight)
                        apart = x->last < y->first || y->last < x->first;
                }
                for (uint32_t j = 0; apart && j < n; j++)
                    if (j != k && v[j]->weight &&
                        (!best || fabs(v[j]->ref - x->ref) < fabs(best->ref - x->ref)))
                        best = v[j];
                if (best && x->weight < best->weight && noise_of(best, x)) {
                    phase_absorb(g, best, x);
                    again = 1;
                }
            }
        }
    }
    free(v);
    free(done);
    return 0;
}

static void merge_rare(gstate_t *g, double share)
{
    for (uint32_t i = 0; i < g->nph; i++) {
        gphase_t *a = &g->ph[i];
        if (!a->weight)
            continue;
        uint64_t total = 0;
        for (uint32_t k = 0; k < g->nph; k++)
            if (g->ph[k].key == a->key)
                total += g->ph[k].weight;
        if ((double)a->weight >= share * (double)total)
            continue;
        uint32_t best = UINT32_MAX;
        for (uint32_t k = 0; k < g->nph; k++) {
            gphase_t *b = &g->ph[k];
            if (k == i || b->key != a->key || (double)b->weight < share * (double)total)
                continue;
            if (best == UINT32_MAX || fabs(b->ref - a->ref) < fabs(g->ph[best].ref - a->ref))
                best = k;
        }
        if (best == UINT32_MAX)
            continue;
        if (!same_calls(g, &g->ph[best], a) || /* (anchored, one key is one set of calls) */
            !noise_of(&g->ph[best], a) || distinct_groups(g, &g->ph[best], a))
            continue;
        phase_absorb(g, &g->ph[best], a);
    }
}

/* a takes b, the occurrence right after its own: one occurrence of their calls in a row
 * (two adjacent closed slices make a closed slice); both of weight 1 */
static int phase_append(gstate_t *g, gphase_t *a, gphase_t *b)
{
    uint64_t key = 0x6a09e667f3bcc909ull, events = 0;
    for (int r = 0; r < g->np; r++) {
        gpr_t *x = &a->r[r], *y = &b->r[r];
        uint32_t n = x->nsym + y->nsym;
        events += n;
        uint32_t *syms = malloc(sizeof *syms * (n ? n : 1));
        double *pos = malloc(4 * sizeof *pos * (n ? n : 1));
        uint64_t *range = malloc(RW * sizeof *range * (n ? n : 1));
        gdep_t *dp = malloc(sizeof *dp * (x->ndp + y->ndp ? x->ndp + y->ndp : 1));
        if (!syms || !pos || !range || !dp) {
            free(syms);
            free(pos);
            free(range);
            free(dp);
            return -1;
        }
        memcpy(syms, x->syms, sizeof *syms * x->nsym);
        memcpy(syms + x->nsym, y->syms, sizeof *syms * y->nsym);
        memcpy(pos, x->pos, 4 * sizeof *pos * x->nsym);
        memcpy(pos + 4 * (size_t)x->nsym, y->pos, 4 * sizeof *pos * y->nsym);
        memcpy(range, x->range, RW * sizeof *range * x->nsym);
        memcpy(range + RW * (size_t)x->nsym, y->range, RW * sizeof *range * y->nsym);
        memcpy(dp, x->dp, sizeof *dp * x->ndp);
        for (uint32_t k = 0; k < y->ndp; k++) {
            dp[x->ndp + k] = y->dp[k];
            dp[x->ndp + k].ev += x->nsym;
        }
        free(x->syms);
        free(x->pos);
        free(x->range);
        free(x->dp);
        x->syms = syms;
        x->pos = pos;
        x->range = range;
        x->dp = dp;
        x->ndp += y->ndp;
        x->nsym = x->nsym1 = n;
        uint64_t h = 0x2545f4914f6cdd1dull ^ n; /* (as slice_key) */
        for (uint32_t i = 0; i < n; i++)
            h = mix64(h ^ syms[i]) + 0x9e37;
        key = mix64(key ^ h) + (uint64_t)r;
        x->tsum += y->tsum;
        x->tsumsq = x->tsum * x->tsum;
        x->tmin = x->tmax = x->tsum;
        x->samples[0] = x->tsum;
        x->ns = 1;
        x->csum += y->csum;
        x->isum += y->isum;
        if (y->bmin < x->bmin)
            x->bmin = y->bmin;
        if (y->bmax > x->bmax)
            x->bmax = y->bmax;
        if (x->nfirst && y->nfirst) {
            x->fe[0] = y->fe[0];
            x->fae[0] = y->fae[0];
            x->ft[0] += y->ft[0];
        }
    }
    a->key = key;
    a->ref += b->ref;
    a->mmin = a->mmax = a->ref;
    a->msq = a->ref * a->ref;
    a->last = b->last;
    a->variable |= b->variable;
    a->cpsum += b->cpsum; /* (one occurrence: the run's path over both) */
    a->cpn = a->cpn && b->cpn;
    gphase_free(b, g->np);
    b->weight = 0;
    g->joined++;
    if (events > g->largest)
        g->largest = events;
    return 0;
}

/* Occurrences in a row that are each a phase of its own (weight 1) are one occurrence.
 * Where the ranks' loops end at different calls (adi: rank 0's loop found its 9 whole
 * iterations, the 10th walked as short loops, rank 2's at other calls), the slices
 * between the last loop boundary and the end came out as 2-3 fragments, other ones at np
 * 4 and 8 than at np 2, each a "phase" above 1 % of a short run.  Not for farms (their
 * rounds are phases by their sets of calls). */
static int join_oneoffs(gstate_t *g)
{
    if (g->anchored || g->nph < 2)
        return 0;
    uint32_t *v = malloc(sizeof *v * g->nph), n = 0;
    if (!v)
        return -1;
    for (uint32_t i = 0; i < g->nph; i++)
        if (g->ph[i].weight == 1)
            v[n++] = i;
    for (uint32_t x = 1; x < n; x++) { /* by occurrence */
        uint32_t t = v[x], y = x;
        for (; y > 0 && g->ph[v[y - 1]].first > g->ph[t].first; y--)
            v[y] = v[y - 1];
        v[y] = t;
    }
    for (uint32_t i = 1, cur = n ? v[0] : 0; i < n; i++) {
        gphase_t *a = &g->ph[cur], *b = &g->ph[v[i]];
        if (b->first != a->last + 1) {
            cur = v[i];
        } else if (phase_append(g, a, b)) {
            free(v);
            return -1;
        }
    }
    free(v);
    return 0;
}

/* drops the emptied phases and numbers the rest by first occurrence */
static void renumber(gstate_t *g)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->nph; i++)
        if (g->ph[i].weight)
            g->ph[n++] = g->ph[i];
    g->nph = n;
    for (uint32_t x = 1; x < n; x++) { /* by first occurrence */
        gphase_t key = g->ph[x];
        uint32_t y = x;
        for (; y > 0 && g->ph[y - 1].first > key.first; y--)
            g->ph[y] = g->ph[y - 1];
        g->ph[y] = key;
    }
    for (uint32_t i = 0; i < n; i++)
        g->ph[i].id = i + 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Counting tags on both ends of a channel: a rank whose tags to a peer counted up (and are
 * PAS2P_TAG_COUNTING in its symbols) while the peer's did not (it received them in another
 * order, among other tags) would make a replay send with one tag and receive with another.
 * Every point-to-point symbol between two ranks on a communicator where either end counts
 * gets the counting tag (which tag a replay uses then does not matter: MPI keeps the
 * order on a channel).  Identities (symbol ids) are left as they are. */
static int counting_both_ends(gstate_t *g)
{
    table_t pairs = {0};
    int rc = 0;
    for (int pass = 0; pass < 2 && !rc; pass++)
        for (int r = 0; r < g->np && !rc; r++)
            for (uint32_t i = 0; i < g->r[r].syms.n; i++) {
                pas2p_symbol_t *y = &g->r[r].syms.v[i];
                int k = pas2p_call_class(y->call);
                if (k != PAS2P_CLASS_SEND && k != PAS2P_CLASS_RECV && k != PAS2P_CLASS_SENDRECV)
                    continue;
                for (int side = 0; side < (k == PAS2P_CLASS_SENDRECV ? 2 : 1); side++) {
                    int32_t peer = side ? y->peer2 : y->peer, *tag = side ? &y->tag2 : &y->tag;
                    if (peer < 0)
                        continue;
                    uint64_t lo = (uint64_t)(peer < r ? peer : r), hi = (uint64_t)(peer < r ? r : peer);
                    uint64_t key = lo << 32 | hi;
                    if (!pass && *tag == PAS2P_TAG_COUNTING) {
                        if (!tput(&pairs, y->comm, key))
                            rc = -1;
                    } else if (pass && *tag >= 0 && tfind(&pairs, y->comm, key)) {
                        *tag = PAS2P_TAG_COUNTING;
                    }
                }
            }
    free(pairs.s);
    return rc;
}

/* each phase's jitter: how much longer its occurrences' critical paths were, on average,
 * than the critical path of its mean occurrence (crit_path) */
static int phase_jitter(gstate_t *g)
{
    for (uint32_t i = 0; i < g->nph; i++) {
        gphase_t *p = &g->ph[i];
        if (!p->cpn)
            continue;
        double cp = crit_path(g, p);
        if (cp < -1.5)
            return -1;
        if (cp < 0)
            continue;
        if (cp <= 0)
            continue;
        p->jit = p->cpsum / (double)p->cpn / (cp / (double)p->nskel); /* (per occurrence) */
        p->hasjit = 1;
    }
    return 0;
}

/* rank r's share of every global phase, into out (its phases and symbols replaced) */
static int results(gstate_t *g, int r, pas2p_rank_phases_t *out)
{
    grank_t *R = &g->r[r];
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->nph; i++)
        n += g->ph[i].r[r].nsym > 0;
    pas2p_phase_t *ph = calloc(n ? n : 1, sizeof *ph);
    if (!ph)
        return -1;
    double elapsed = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < g->nph; i++) {
        const gphase_t *G = &g->ph[i];
        gpr_t *q = &G->r[r];
        double w = (double)G->weight;
        elapsed += q->tsum;
        if (!q->nsym)
            continue; /* (its time, failed polls alone, is in the elapsed sum above) */
        pas2p_phase_t *p = &ph[k++];
        p->id = G->id;
        p->nsym = q->nsym;
        p->syms = q->syms;
        q->syms = NULL;
        p->weight = G->weight;
        p->time_sum_s = q->tsum;
        p->time_mean_s = q->tsum / w;
        double var = q->tsumsq / w - p->time_mean_s * p->time_mean_s;
        p->time_sd_s = var > 0 ? sqrt(var) : 0;
        p->time_min_s = q->tmin;
        p->time_max_s = q->tmax;
        qsort(q->samples, q->ns, sizeof *q->samples, cmp_double);
        uint32_t m = q->ns;
        p->time_median_s = !m ? 0 : m % 2 ? q->samples[m / 2] : 0.5 * (q->samples[m / 2 - 1] + q->samples[m / 2]);
        uint32_t slow = 0;
        for (uint32_t x = 0; x < m; x++)
            slow += q->samples[x] > 3 * p->time_median_s;
        p->time_slow_share = m ? (double)slow / m : 0;
        p->compute_mean_s = q->csum / w;
        p->instructions_mean = q->isum / w;
        p->pos_compute_s = malloc(sizeof(double) * q->nsym);
        p->pos_instructions = malloc(sizeof(double) * q->nsym);
        p->pos_bytes = malloc(sizeof(double) * q->nsym);
        p->pos_rbytes = malloc(sizeof(double) * q->nsym);
        p->pos_size_min = malloc(sizeof(uint64_t) * q->nsym);
        p->pos_size_max = malloc(sizeof(uint64_t) * q->nsym);
        p->pos_wait_s = calloc(q->nsym, sizeof(double));
        p->pos_pdone = calloc(q->nsym, sizeof(uint32_t));
        p->pos_wdist = calloc(q->nsym, sizeof(uint32_t));
        p->pos_pwdist = calloc(q->nsym, sizeof(uint32_t));
        if (!p->pos_compute_s || !p->pos_instructions || !p->pos_bytes || !p->pos_rbytes ||
            !p->pos_size_min || !p->pos_size_max || !p->pos_wait_s || !p->pos_pdone ||
            !p->pos_wdist || !p->pos_pwdist) {
            pas2p_rank_phases_t tmp = {.phases = ph, .nphases = k};
            pas2p_rank_phases_free(&tmp);
            return -1;
        }
        double pw = q->pw ? (double)q->pw : w, ctot = 0;
        for (uint32_t x = 0; x < q->nsym; x++) {
            p->pos_compute_s[x] = q->pos[4 * x] / pw;
            ctot += p->pos_compute_s[x];
            p->pos_instructions[x] = q->pos[4 * x + 1] / pw;
            p->pos_bytes[x] = q->pos[4 * x + 2] / pw;
            p->pos_rbytes[x] = q->pos[4 * x + 3] / pw;
            p->pos_size_min[x] = q->range[RW * x];
            p->pos_size_max[x] = q->range[RW * x + 1];
            p->pos_pdone[x] = pd_out(q->range[RW * x + 2]);
            uint64_t wd = q->range[RW * x + 3];
            p->pos_wdist[x] = wd >= WD_MIXED ? 0 : (uint32_t)wd;
            wd = q->range[RW * x + 4];
            p->pos_pwdist[x] = wd >= WD_MIXED ? 0 : (uint32_t)wd;
        }
        p->min_bytes = q->bmin == UINT64_MAX ? 0 : q->bmin;
        p->max_bytes = q->bmax;
        p->nfirst = q->nfirst;
        memcpy(p->first_start, q->fs, sizeof q->fs);
        memcpy(p->first_end, q->fe, sizeof q->fe);
        memcpy(p->first_astart, q->fas, sizeof q->fas);
        memcpy(p->first_aend, q->fae, sizeof q->fae);
        memcpy(p->first_time_s, q->ft, sizeof q->ft);
        /* a phase whose occurrences' calls vary: the skeleton is its first occurrences'
         * calls (nskel of them), with the computation of as many mean occurrences (the
         * skeleton's split of it) */
        p->variable = G->variable;
        p->skel_occ = G->nskel;
        if (q->nstarts) { /* (where its occurrences after the first start) */
            if (!(p->pos_occ_start = calloc(q->nsym, 1))) {
                pas2p_rank_phases_t tmp = {.phases = ph, .nphases = k};
                pas2p_rank_phases_free(&tmp);
                return -1;
            }
            for (uint32_t x = 0; x < q->nstarts; x++)
                if (q->starts[x] < q->nsym)
                    p->pos_occ_start[q->starts[x]] = 1;
        }
        if (G->variable && ctot > 0)
            for (uint32_t x = 0; x < q->nsym; x++)
                p->pos_compute_s[x] *= (double)G->nskel * p->compute_mean_s / ctot;
        if (G->hasjit)
            for (uint32_t x = 0; x < q->nsym; x++)
                p->pos_wait_s[x] = (G->jit - 1) * p->pos_compute_s[x];
    }
    pas2p_rank_phases_t old = {.phases = out->phases, .nphases = out->nphases,
                               .symbols = out->symbols, .nsymbols = out->nsymbols,
                               .sym_starts = out->sym_starts, .sym_nstarts = out->sym_nstarts};
    pas2p_rank_phases_free(&old);
    out->phases = ph;
    out->nphases = n;
    out->symbols = R->syms.v; /* (out owns them now: freed once, also on failure below) */
    out->nsymbols = R->syms.n;
    out->sym_starts = NULL;
    out->sym_nstarts = NULL;
    uint32_t nsyms = R->syms.n;
    R->syms.v = NULL;
    R->syms.n = R->syms.cap = 0;
    if (R->nsym_st) { /* (one entry per symbol) */
        pas2p_sig_start_t **st = realloc(R->sym_st, (nsyms ? nsyms : 1) * sizeof *st);
        uint32_t *nst = st ? realloc(R->sym_nst, (nsyms ? nsyms : 1) * sizeof *nst) : NULL;
        if (st)
            R->sym_st = st;
        if (nst)
            R->sym_nst = nst;
        if (!st || !nst)
            return -1;
        for (uint32_t i = R->nsym_st; i < nsyms; i++)
            R->sym_st[i] = NULL, R->sym_nst[i] = 0;
        out->sym_starts = R->sym_st;
        out->sym_nstarts = R->sym_nst;
        R->sym_st = NULL;
        R->sym_nst = NULL;
        R->nsym_st = 0;
    }
    out->elapsed_s = elapsed;
    return 0;
}

void pas2p_orphans_free(pas2p_orphans_t *orph, int np)
{
    for (int r = 0; orph && r < np; r++) {
        free(orph[r].post);
        orph[r] = (pas2p_orphans_t){0};
    }
}

int pas2p_global_phases(pas2p_event_source_t *srcs, int np, const pas2p_analysis_opts_t *o,
                        int use_instr, int cut, pas2p_rank_phases_t *res,
                        pas2p_orphans_t *orph, pas2p_global_info_t *info, char *err,
                        size_t errlen)
{
    gstate_t g = {.np = np, .o = o, .use_instr = use_instr, .rules = pas2p_analysis_rules(o), .last_phase = UINT32_MAX,
                  .cut = cut, .orph = orph, .err = err, .errlen = errlen};
    int rc = -1;
    for (unsigned c = 0; c < PAS2P_CALL_LIMIT; c++) {
        g.cls[c] = (int8_t)pas2p_call_class(c);
        g.cf[c] = (uint8_t)((blocking_collective(c) ? CF_BLOCKING_COLLECTIVE : 0) |
                            (is_send_post(c) ? CF_SEND_POST : 0) |
                            (is_nonblocking_post(c) ? CF_NONBLOCKING_POST : 0));
    }
    g.r = calloc((size_t)np, sizeof *g.r);
    g.activel = calloc((size_t)np, sizeof *g.activel);
    g.cp.cur = calloc((size_t)np, sizeof *g.cp.cur);
    g.cp.di = calloc((size_t)np, sizeof *g.cp.di);
    g.cp.t = calloc((size_t)np, sizeof *g.cp.t);
    g.cp.pw = calloc((size_t)np, sizeof *g.cp.pw);
    g.cp.st = calloc((size_t)np, sizeof *g.cp.st);
    g.cp.wnext = calloc((size_t)np, sizeof *g.cp.wnext);
    g.cp.queue = calloc((size_t)np, sizeof *g.cp.queue);
    g.cp.inq = calloc((size_t)np, sizeof *g.cp.inq);
    g.cp.arrived = calloc((size_t)np, sizeof *g.cp.arrived);
    if (!g.r || !g.activel || !g.cp.cur || !g.cp.di || !g.cp.t || !g.cp.pw || !g.cp.st || !g.cp.arrived ||
        !g.cp.wnext || !g.cp.queue || !g.cp.inq ||
        comm_add(&g, PAS2P_COMM_WORLD, (uint32_t)np, NULL, -1, 0))
        goto oom;
    for (int r = 0; r < np; r++) {
        grank_t *R = &g.r[r];
        R->src = srcs[r];
        if (!(R->buf = malloc(PAS2P_READ_BATCH * sizeof *R->buf)))
            goto oom;
        R->bounds = res[r].bounds;
        R->nbounds = res[r].nbounds;
        R->total = res[r].events;
        R->syms.tol = o->size_tolerance;
        R->syms.floor_b = o->size_floor;
        /* a farm: its wildcard receives are a good share of a rank's calls (the master's
         * are half of them); a few in a set-up phase do not make the run's order vary, nor
         * do many that on each communicator all come from one rank (CP2K's at np 2 and 4:
         * 10 % of rank 1's calls), which are receives from that rank -- unless they are
         * polled (completed by a successful MPI_Test*): then the rank's calls follow the
         * arrivals, from one rank or several (HPCC's RandomAccess at np 2).  The share is of
         * the calls the signature numbers: the failed polls of such a loop (17 M
         * MPI_Testany for 14 k MPI_Irecv) are waiting, not calls whose order is fixed.
         * Polled ones make the order vary from 1 % of the calls: HPCC at N 1000 (np 2),
         * whose RandomAccess is 3 % of its calls among PTRANS's, HPL's and FFT's, diverged
         * in every predict run located by ordinals */
        uint64_t calls = res[r].numbered ? res[r].numbered : res[r].events;
        g.anchored |= (res[r].wildcard_recvs > 0 && 20 * res[r].wildcard_recvs >= calls &&
                       res[r].wildcard_source < 0) ||
                      (res[r].polled_wildcards > 0 && 100 * res[r].polled_wildcards >= calls);
        for (size_t k = 0; orph && k < orph[r].n; k++)
            if (!tput(&R->orphans, orph[r].post[2 * k], orph[r].post[2 * k + 1]))
                goto oom;
    }
    if (o->locate >= 0) /* --locate: the user knows the calls vary (or do not) */
        g.anchored = o->locate;
    g.snap = !g.anchored && anchors_recur(res, np);
    if (sweep(&g))
        goto out;
    if (g.orphaned) { /* again, told of them */
        rc = 1;
        goto out;
    }
    for (int r = 0; r < np; r++)
        if (g.r[r].pos != res[r].events) {
            snprintf(err, errlen, "rank %d: %" PRIu64 " events in the global pass, %" PRIu64
                     " in the rank's analysis", r, g.r[r].pos, res[r].events);
            goto out;
        }
    if (merge_linked(&g))
        goto oom;
    if (o->variant_merge > 0)
        merge_rare(&g, o->variant_merge);
    if (join_oneoffs(&g))
        goto oom;
    renumber(&g);
    if (phase_jitter(&g) || counting_both_ends(&g))
        goto oom;
    if (info) {
        *info = (pas2p_global_info_t){.occurrences = g.occ - g.joined, .phases = g.nph,
                                      .largest_occurrence = g.largest,
                                      .characteristic_comm = UINT32_MAX,
                                      .unclosed_end = g.unclosed, .anchored = g.anchored,
                                      .unreceived = g.unreceived,
                                      .unreceived_src = g.unreceived_src,
                                      .unreceived_dst = g.unreceived_dst};
        uint64_t best = 0;
        for (size_t k = 0; k < g.ngc; k++) {
            const gcomm_t *c = &g.gc[k];
            if (c->size != (uint32_t)np || !c->occurrences)
                continue;
            /* the all-rank communicator in the most occurrences; WORLD (first) on a tie */
            if (c->occurrences > best) {
                best = c->occurrences;
                for (size_t s = 0; s < g.comms.cap; s++)
                    if (g.comms.s[s].used && g.comms.s[s].v == k + 1)
                        info->characteristic_comm = (uint32_t)g.comms.s[s].a;
            }
        }
    }
    for (int r = 0; r < np; r++)
        if (results(&g, r, &res[r]))
            goto oom;
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory");
out:
    for (int r = 0; g.r && r < np; r++) {
        free(g.r[r].buf);
        free(g.r[r].sl);
        free(g.r[r].idle);
        free(g.r[r].dp);
        free(g.r[r].set);
        free(g.r[r].syms.v);
        free(g.r[r].syms.index.s);
        free(g.r[r].pending.t.s);
        free(g.r[r].pending.fifo);
        free(g.r[r].orphans.s);
        free(g.r[r].inits.s);
        free(g.r[r].sbuf);
        for (uint32_t i = 0; i < g.r[r].nsym_st; i++)
            free(g.r[r].sym_st[i]);
        free(g.r[r].sym_st);
        free(g.r[r].sym_nst);
    }
    free(g.r);
    for (uint32_t i = 0; i < g.nph; i++)
        gphase_free(&g.ph[i], np);
    free(g.ph);
    free(g.cp.keys);
    free(g.cp.val);
    free(g.cp.cnt);
    free(g.cp.cur);
    free(g.cp.di);
    free(g.cp.t);
    free(g.cp.pw);
    free(g.cp.st);
    free(g.cp.wnext);
    free(g.cp.queue);
    free(g.cp.inq);
    free(g.cp.wait);
    free(g.cp.arrived);
    free(g.phidx.s);
    free(g.chans.s);
    free(g.cv);
    free(g.badchan);
    for (size_t k = 0; k < g.ngc; k++) {
        free(g.gc[k].members);
        free(g.gc[k].count);
    }
    free(g.gc);
    free(g.comms.s);
    free(g.memb.s);
    free(g.badcomm);
    free(g.bal);
    free(g.touch);
    free(g.activel);
    return rc;
}
