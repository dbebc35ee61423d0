/* libpas2p recorders: turn one intercepted call's arguments into an event (tracer/FORMAT.md).
 *
 * Two tables live here, both open addressing on the MPI handle value:
 *  - communicators: id (identical on every member), world ranks of the members, and a
 *    count of communicators created from it.  A new communicator's id is a hash of
 *    (parent id, parent's creation count, lowest world rank among the new members):
 *    every member computes it locally, with no extra communication, because creation
 *    calls are collective and ordered on the parent, and the communicators one call
 *    creates are disjoint.  A copy of the whole parent that is freed (having made no
 *    communicator itself, or only such copies, all freed) gives its place in the count
 *    back, for the next copy laid out the same way: a loop that duplicates, uses and
 *    frees a communicator uses one id.
 *  - requests: who started each pending request (event ordinal), so completions name it.
 */
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>

#include "rt.h"

#define COMM_REUSE 8 /* places in a parent's creation count given back (rec_comm_free) */

typedef struct pas2p_comm {
    MPI_Comm h;              /* MPI_COMM_NULL = free slot */
    uint32_t id, seq;
    /* a copy of its whole parent (rec_comm_new): its place in the parent's count and its
     * layout, given back to the parent when it is freed with all its own places back */
    MPI_Comm parent;         /* MPI_COMM_NULL: not such a copy */
    uint32_t parent_id, place;
    uint64_t layout;
    /* the places its freed copies gave back, with their layouts (a set: the smallest place
     * of a layout is taken, whatever order the copies were freed in) */
    uint32_t nfree, free_place[COMM_REUSE];
    uint64_t free_layout[COMM_REUSE];
    int size;
    int *world;              /* world rank of each (remote, for intercomms) peer rank */
    int nmem;                /* intercomms: both groups' world ranks, sorted: the members */
    int *mem;                /* the trace defines and numbers (the same on both sides);
                                NULL: world[] (an intracommunicator's group) */
} comm_t;

static void comm_release(comm_t *c);

typedef struct pas2p_req {
    MPI_Request h;           /* MPI_REQUEST_NULL = free slot */
    uint64_t post;           /* ordinal of the starting event (Isend, Irecv, Start, I-coll) */
    uint64_t init;           /* persistent requests: ordinal of the *_init event */
    uint64_t bytes;
    MPI_Comm comm;
    uint32_t index;
    uint16_t call;
    uint8_t recv, persistent, active;
    uint8_t wild;            /* receives: PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG of the post */
    uint8_t tested;          /* a Test* call has looked at it since it started (and did not
                                complete it): a wait for it is flagged PAS2P_EV_TESTED */
} req_t;

static inline size_t hash_ptr(const void *p, size_t cap)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 29;
    x *= 0x9e3779b97f4a7c15ull;
    return (size_t)(x >> 17) & (cap - 1);
}

static uint32_t mix_id(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull ^
                 (c + 1) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    x *= 0xd6e8feb86659fd93ull;
    x ^= x >> 32;
    uint32_t id = (uint32_t)x;
    if (id <= PAS2P_COMM_SELF || id == PAS2P_COMM_NONE)
        id += 2;
    return id;
}

/* ------------------------------------------------------------------ communicators */
static comm_t world_info, self_info;

static int *member_world_ranks(MPI_Group g, int n)
{
    MPI_Group wg;
    int *local = malloc(sizeof(int) * (size_t)n), *world = malloc(sizeof(int) * (size_t)n);
    if (!local || !world) {
        free(local);
        free(world);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        local[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    PMPI_Group_translate_ranks(g, n, local, wg, world);
    PMPI_Group_free(&wg);
    free(local);
    return world;
}

static comm_t *comm_slot(MPI_Comm h, int insert)
{
    if (insert && (pas2p_rt.ncomms + 1) * 2 > pas2p_rt.comm_cap) {
        size_t cap = pas2p_rt.comm_cap ? pas2p_rt.comm_cap * 2 : 64;
        comm_t *n = calloc(cap, sizeof *n), *o = pas2p_rt.comms;
        if (!n)
            return NULL;
        for (size_t i = 0; i < cap; i++)
            n[i].h = MPI_COMM_NULL;
        for (size_t i = 0; i < pas2p_rt.comm_cap; i++) {
            if (o[i].h == MPI_COMM_NULL)
                continue;
            size_t j = hash_ptr(o[i].h, cap);
            while (n[j].h != MPI_COMM_NULL)
                j = (j + 1) & (cap - 1);
            n[j] = o[i];
        }
        free(o);
        pas2p_rt.comms = n;
        pas2p_rt.comm_cap = cap;
    }
    if (!pas2p_rt.comm_cap)
        return NULL;
    size_t mask = pas2p_rt.comm_cap - 1;
    for (size_t i = hash_ptr(h, pas2p_rt.comm_cap);; i = (i + 1) & mask) {
        comm_t *c = &pas2p_rt.comms[i];
        if (c->h == h)
            return c;
        if (c->h == MPI_COMM_NULL)
            return insert ? c : NULL;
    }
}

static void comm_remove(MPI_Comm h)
{
    comm_t *c = comm_slot(h, 0);
    if (!c)
        return;
    comm_release(c);
    size_t mask = pas2p_rt.comm_cap - 1, i = (size_t)(c - pas2p_rt.comms);
    pas2p_rt.comms[i].h = MPI_COMM_NULL;
    pas2p_rt.ncomms--;
    /* backward-shift deletion keeps probe chains intact */
    for (size_t j = (i + 1) & mask; pas2p_rt.comms[j].h != MPI_COMM_NULL; j = (j + 1) & mask) {
        size_t home = hash_ptr(pas2p_rt.comms[j].h, pas2p_rt.comm_cap);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            pas2p_rt.comms[i] = pas2p_rt.comms[j];
            pas2p_rt.comms[j].h = MPI_COMM_NULL;
            i = j;
        }
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* the members of c: an intercommunicator's are both groups (sorted world ranks, the same
 * list on either side), an intracommunicator's its group in rank order */
static const int *comm_members(const comm_t *c, int *n)
{
    *n = c->mem ? c->nmem : c->size;
    return c->mem ? c->mem : c->world;
}

/* Fills c (size, world ranks) from the handle; id is set by the caller.  A point-to-point
 * peer of an intercommunicator is a rank of the remote group (world[] maps those); its
 * members are both groups: MPI_Intercomm_create's two sides see other remote groups, and
 * an id or a definition from them would differ between the sender and the receiver. */
static int comm_describe(comm_t *c, MPI_Comm h)
{
    int inter = 0;
    MPI_Group g;
    PMPI_Comm_test_inter(h, &inter);
    c->mem = NULL;
    c->nmem = 0;
    if (inter) {
        PMPI_Comm_remote_size(h, &c->size);
        PMPI_Comm_remote_group(h, &g);
    } else {
        PMPI_Comm_size(h, &c->size);
        PMPI_Comm_group(h, &g);
    }
    c->world = member_world_ranks(g, c->size);
    PMPI_Group_free(&g);
    c->h = h;
    c->seq = 0;
    c->parent = MPI_COMM_NULL;
    c->parent_id = c->place = c->nfree = 0;
    c->layout = 0;
    if (!c->world)
        return -1;
    if (inter) {
        int lsize = 0;
        PMPI_Comm_size(h, &lsize);
        PMPI_Comm_group(h, &g);
        int *local = member_world_ranks(g, lsize);
        PMPI_Group_free(&g);
        c->mem = local ? malloc(sizeof(int) * (size_t)(lsize + c->size)) : NULL;
        if (!c->mem) {
            free(local);
            free(c->world);
            c->world = NULL;
            return -1;
        }
        memcpy(c->mem, local, sizeof(int) * (size_t)lsize);
        memcpy(c->mem + lsize, c->world, sizeof(int) * (size_t)c->size);
        free(local);
        c->nmem = lsize + c->size;
        qsort(c->mem, (size_t)c->nmem, sizeof(int), cmp_int);
    }
    return 0;
}

static void comm_release(comm_t *c)
{
    free(c->world);
    free(c->mem);
    c->world = c->mem = NULL;
}

/* a hash of c's members as world ranks, in sorted order: equal on all members */
static uint64_t members_hash(const comm_t *c)
{
    uint64_t hsh = 0xcbf29ce484222325ull;
    int n;
    const int *m = comm_members(c, &n);
    int *sorted = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (sorted) {
        memcpy(sorted, m, sizeof(int) * (size_t)n);
        qsort(sorted, (size_t)n, sizeof(int), cmp_int);
        for (int i = 0; i < n; i++)
            hsh = (hsh ^ (uint64_t)(uint32_t)sorted[i]) * 0x100000001b3ull;
        free(sorted);
    }
    return hsh;
}

/* The communicator's record; one made by a call we do not wrap is described on first
 * use, with an id hashed from its sorted membership (equal on all members). */
static comm_t *comm_get(MPI_Comm h)
{
    if (h == MPI_COMM_WORLD)
        return &world_info;
    if (h == MPI_COMM_SELF)
        return &self_info;
    if (h == MPI_COMM_NULL)
        return NULL;
    comm_t *c = comm_slot(h, 0);
    if (c)
        return c;
    comm_t tmp;
    if (comm_describe(&tmp, h))
        return NULL;
    int nm;
    comm_members(&tmp, &nm);
    tmp.id = mix_id(0xfeedull, members_hash(&tmp), (uint64_t)nm);
    c = comm_slot(h, 1);
    if (!c) {
        comm_release(&tmp);
        return NULL;
    }
    *c = tmp;
    pas2p_rt.ncomms++;
    return c;
}

void pas2p_comms_init(void)
{
    world_info.h = MPI_COMM_WORLD;
    world_info.id = PAS2P_COMM_WORLD;
    world_info.size = pas2p_rt.np;
    world_info.world = NULL; /* identity */
    world_info.parent = self_info.parent = MPI_COMM_NULL;
    self_info.h = MPI_COMM_SELF;
    self_info.id = PAS2P_COMM_SELF;
    self_info.size = 1;
    self_info.world = &pas2p_rt.rank;
}

void pas2p_comms_destroy(void)
{
    for (size_t i = 0; i < pas2p_rt.comm_cap; i++)
        if (pas2p_rt.comms[i].h != MPI_COMM_NULL)
            comm_release(&pas2p_rt.comms[i]);
    free(pas2p_rt.comms);
    pas2p_rt.comms = NULL;
    pas2p_rt.ncomms = pas2p_rt.comm_cap = 0;
}

static inline uint32_t comm_id(const comm_t *c)
{
    return c ? c->id : PAS2P_COMM_NONE;
}

/* communicator-local rank -> world rank, keeping the PAS2P_PEER_* sentinels */
static inline int32_t to_world(const comm_t *c, int r)
{
    if (r == MPI_PROC_NULL)
        return PAS2P_PEER_NULL;
    if (r == MPI_ANY_SOURCE)
        return PAS2P_PEER_ANY;
    if (r < 0 || !c || r >= c->size)
        return PAS2P_PEER_NONE;
    return c->world ? c->world[r] : r;
}

/* ------------------------------------------------------------------ requests */
/* The table maps a request handle to what started it.  One handle can stand for several
 * live requests: Open MPI's ob1 returns its static, already complete &ompi_request_empty
 * from every MPI_Isend it could send inline (small messages over shared memory).  So an
 * insert always takes a new slot, and a lookup finds the oldest entry of a handle (linear
 * probing and backward-shift deletion keep a handle's entries in insertion order); those
 * entries are alike anyway.  insert = 1: a new slot; 0: the oldest entry, or NULL. */
static req_t *req_slot(MPI_Request h, int insert)
{
    if (insert && (pas2p_rt.nreqs + 1) * 2 > pas2p_rt.req_cap) {
        size_t cap = pas2p_rt.req_cap ? pas2p_rt.req_cap * 2 : 256;
        req_t *n = calloc(cap, sizeof *n), *o = pas2p_rt.reqs;
        if (!n)
            return NULL;
        for (size_t i = 0; i < cap; i++)
            n[i].h = MPI_REQUEST_NULL;
        for (size_t i = 0; i < pas2p_rt.req_cap; i++) {
            if (o[i].h == MPI_REQUEST_NULL)
                continue;
            size_t j = hash_ptr(o[i].h, cap);
            while (n[j].h != MPI_REQUEST_NULL)
                j = (j + 1) & (cap - 1);
            n[j] = o[i];
        }
        free(o);
        pas2p_rt.reqs = n;
        pas2p_rt.req_cap = cap;
    }
    if (!pas2p_rt.req_cap)
        return NULL;
    size_t mask = pas2p_rt.req_cap - 1;
    for (size_t i = hash_ptr(h, pas2p_rt.req_cap);; i = (i + 1) & mask) {
        req_t *r = &pas2p_rt.reqs[i];
        if (r->h == h && !insert)
            return r;
        if (r->h == MPI_REQUEST_NULL)
            return insert ? r : NULL;
    }
}

static void req_remove(req_t *r)
{
    size_t mask = pas2p_rt.req_cap - 1, i = (size_t)(r - pas2p_rt.reqs);
    pas2p_rt.reqs[i].h = MPI_REQUEST_NULL;
    pas2p_rt.nreqs--;
    for (size_t j = (i + 1) & mask; pas2p_rt.reqs[j].h != MPI_REQUEST_NULL; j = (j + 1) & mask) {
        size_t home = hash_ptr(pas2p_rt.reqs[j].h, pas2p_rt.req_cap);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            pas2p_rt.reqs[i] = pas2p_rt.reqs[j];
            pas2p_rt.reqs[j].h = MPI_REQUEST_NULL;
            i = j;
        }
    }
}

void pas2p_reqs_destroy(void)
{
    free(pas2p_rt.reqs);
    pas2p_rt.reqs = NULL;
    pas2p_rt.nreqs = pas2p_rt.req_cap = 0;
}

static void req_add(pas2p_cx_t *cx, MPI_Request h, MPI_Comm comm, int recv, uint64_t bytes)
{
    if (h == MPI_REQUEST_NULL)
        return;
    req_t *r = req_slot(h, 1);
    if (!r)
        return;
    pas2p_rt.nreqs++;
    unsigned call = cx->ev.call;
    int persistent = call >= PAS2P_CALL_Send_init && call <= PAS2P_CALL_Recv_init;
    *r = (req_t){.h = h, .post = cx->ordinal, .init = cx->ordinal, .bytes = bytes, .comm = comm,
                 .index = 0, .call = (uint16_t)call, .recv = (uint8_t)recv,
                 .persistent = (uint8_t)persistent, .active = (uint8_t)!persistent,
                 .wild = (uint8_t)(cx->ev.flags & (PAS2P_EV_ANY_SOURCE | PAS2P_EV_ANY_TAG))};
    pas2p_rt.reqs_active += !persistent;
}

static MPI_Request req_handle(void *reqs, int lang, int i)
{
    return lang == PAS2P_LANG_F ? PMPI_Request_f2c(((MPI_Fint *)reqs)[i]) : ((MPI_Request *)reqs)[i];
}

/* ------------------------------------------------------------------ recorders */
void rec_simple(pas2p_cx_t *cx, MPI_Comm comm)
{
    cx->ev.comm = comm_id(comm_get(comm));
}

void rec_send_any(pas2p_cx_t *cx, MPI_Comm comm, int dest, int tag, int count, MPI_Datatype dt)
{
    const comm_t *c = comm_get(comm);
    cx->ev.comm = comm_id(c);
    cx->ev.peer = to_world(c, dest);
    cx->ev.tag = tag;
    cx->ev.bytes = pas2p_type_bytes(count, dt);
}

void rec_recv_any(pas2p_cx_t *cx, MPI_Comm comm, int source, int tag, const MPI_Status *st)
{
    const comm_t *c = comm_get(comm);
    cx->ev.comm = comm_id(c);
    if (source == MPI_PROC_NULL) {
        cx->ev.peer = PAS2P_PEER_NULL;
        cx->ev.tag = tag == MPI_ANY_TAG ? PAS2P_TAG_ANY : tag;
        return;
    }
    cx->ev.peer = to_world(c, st->MPI_SOURCE);
    cx->ev.tag = st->MPI_TAG;
    cx->ev.rbytes = pas2p_status_bytes(st);
}

void rec_iprobe(pas2p_cx_t *cx, MPI_Comm comm, int source, int tag, int flag, const MPI_Status *st)
{
    if (flag) {
        cx->ev.flags |= PAS2P_EV_FLAG_TRUE;
        rec_recv(cx, comm, source, tag, st);
        return;
    }
    const comm_t *c = comm_get(comm);
    cx->ev.flags |= pas2p_wild_flags(source, tag);
    cx->ev.comm = comm_id(c);
    cx->ev.peer = to_world(c, source);
    cx->ev.tag = tag == MPI_ANY_TAG ? PAS2P_TAG_ANY : tag;
}

/* ------------------------------------------------------------------ matched probes
 * MPI_Mprobe/MPI_Improbe hand out a message handle; MPI_Mrecv/MPI_Imrecv receive it with no
 * communicator, source or tag of their own.  The probe's are kept with the handle (under the
 * event lock) and the receive is recorded as the MPI_Recv/MPI_Irecv of them it stands for;
 * a handle not found (more than PAS2P_MESSAGES held, or MPI_MESSAGE_NO_PROC) records the
 * world and the actual source and tag. */
void rec_message(pas2p_cx_t *cx, MPI_Message message, MPI_Comm comm, int source, int tag, int flag)
{
    (void)cx;
    if (!flag || message == MPI_MESSAGE_NULL || message == MPI_MESSAGE_NO_PROC)
        return;
    uint32_t n = pas2p_rt.nmsgs;
    if (n >= PAS2P_MESSAGES)
        return;
    pas2p_rt.msgs[n].h = message;
    pas2p_rt.msgs[n].comm = comm;
    pas2p_rt.msgs[n].source = source;
    pas2p_rt.msgs[n].tag = tag;
    pas2p_rt.nmsgs = n + 1;
}

/* before MPI_Mrecv/MPI_Imrecv, which set the handle to MPI_MESSAGE_NULL: what its probe
 * asked, into cx; the entry is dropped (under the event lock, taken here: a pre hook runs
 * before pas2p_post takes it) */
void pre_mrecv(pas2p_cx_t *cx, void *message, int lang)
{
    MPI_Message h = lang == PAS2P_LANG_F ? PMPI_Message_f2c(*(MPI_Fint *)message)
                                         : *(MPI_Message *)message;
    cx->m_comm = MPI_COMM_WORLD;
    cx->m_source = MPI_ANY_SOURCE;
    cx->m_tag = MPI_ANY_TAG;
    if (pas2p_rt.use_lock)
        pthread_mutex_lock(&pas2p_rt.lock);
    for (uint32_t i = 0; i < pas2p_rt.nmsgs; i++)
        if (pas2p_rt.msgs[i].h == h) {
            cx->m_comm = pas2p_rt.msgs[i].comm;
            cx->m_source = pas2p_rt.msgs[i].source;
            cx->m_tag = pas2p_rt.msgs[i].tag;
            pas2p_rt.msgs[i] = pas2p_rt.msgs[--pas2p_rt.nmsgs];
            break;
        }
    if (pas2p_rt.use_lock)
        pthread_mutex_unlock(&pas2p_rt.lock);
}

void rec_mrecv(pas2p_cx_t *cx, const MPI_Status *st)
{
    rec_recv(cx, cx->m_comm, cx->m_source, cx->m_tag, st);
}

void rec_imrecv(pas2p_cx_t *cx, int count, MPI_Datatype dt, MPI_Request req)
{
    rec_irecv(cx, cx->m_comm, cx->m_source, cx->m_tag, count, dt, req);
}

/* the flags are those of the receive side (the send side has no wildcard) */
void rec_sendrecv(pas2p_cx_t *cx, MPI_Comm comm, int dest, int stag, int scount, MPI_Datatype stype,
                  int source, int rtag, const MPI_Status *st)
{
    const comm_t *c = comm_get(comm);
    cx->ev.flags |= pas2p_wild_flags(source, rtag);
    cx->ev.comm = comm_id(c);
    cx->ev.peer = to_world(c, dest);
    cx->ev.tag = stag;
    cx->ev.bytes = pas2p_type_bytes(scount, stype);
    if (source == MPI_PROC_NULL) {
        cx->ev.peer2 = PAS2P_PEER_NULL;
        return;
    }
    cx->ev.peer2 = to_world(c, st->MPI_SOURCE);
    cx->ev.tag2 = st->MPI_TAG;
    cx->ev.rbytes = pas2p_status_bytes(st);
}

void rec_isend(pas2p_cx_t *cx, MPI_Comm comm, int dest, int tag, int count, MPI_Datatype dt,
               MPI_Request req)
{
    rec_send(cx, comm, dest, tag, count, dt);
    req_add(cx, req, comm, 0, cx->ev.bytes);
}

void rec_irecv(pas2p_cx_t *cx, MPI_Comm comm, int source, int tag, int count, MPI_Datatype dt,
               MPI_Request req)
{
    const comm_t *c = comm_get(comm);
    cx->ev.flags |= pas2p_wild_flags(source, tag); /* before req_add: the request keeps them */
    cx->ev.comm = comm_id(c);
    cx->ev.peer = to_world(c, source);
    cx->ev.tag = tag == MPI_ANY_TAG ? PAS2P_TAG_ANY : tag;
    cx->ev.rbytes = pas2p_type_bytes(count, dt); /* posted capacity; the completion has the actual */
    req_add(cx, req, comm, 1, 0);
}

void rec_icoll(pas2p_cx_t *cx, MPI_Request req)
{
    req_add(cx, req, MPI_COMM_NULL, 0, 0);
}

void rec_start(pas2p_cx_t *cx, int n, void *reqs, int lang)
{
    uint64_t *init = n > 0 ? pas2p_payload(cx, sizeof(uint64_t) * (size_t)n) : NULL;
    if (n > 0 && !init)
        return;
    cx->ev.aux = (uint32_t)(n > 0 ? n : 0);
    for (int i = 0; i < n; i++) {
        req_t *r = req_slot(req_handle(reqs, lang, i), 0);
        init[i] = r ? r->init : UINT64_MAX;
        if (r) {
            r->post = cx->ordinal;
            r->index = (uint32_t)i;
            pas2p_rt.reqs_active += !r->active;
            pas2p_rt.msg_sent += !r->recv; /* a persistent send started: one message */
            r->active = 1;
            r->tested = 0;
            if (i == 0) {
                cx->ev.comm = comm_id(comm_get(r->comm));
            }
        }
    }
}

void pre_requests(pas2p_cx_t *cx, int n, void *reqs, int lang)
{
    cx->snap = NULL;
    cx->nsnap = 0;
    if (n <= 0)
        return;
    if (n <= PAS2P_INLINE_REQS) {
        cx->snap = cx->snap_inline;
    } else {
        cx->snap = malloc(sizeof(MPI_Request) * (size_t)n);
        if (!cx->snap)
            return;
        cx->slow |= PAS2P_SLOW_SNAP;
    }
    cx->nsnap = n;
    for (int i = 0; i < n; i++)
        cx->snap[i] = req_handle(reqs, lang, i);
}

/* one completed request -> one payload entry (and the request table updated); counts it
 * in tested[0] and, when a test had looked at it, in tested[1] */
static void complete_one(pas2p_cx_t *cx, MPI_Request h, const MPI_Status *st, int *tested)
{
    if (h == MPI_REQUEST_NULL)
        return;
    req_t *r = req_slot(h, 0);
    if (r && !r->active) /* inactive persistent request: MPI returns at once, nothing done */
        return;
    tested[0]++;
    tested[1] += r && r->tested;
    pas2p_completion_t *e = pas2p_payload(cx, sizeof *e);
    if (!e)
        return;
    cx->ev.aux++;
    e->post = r ? r->post : UINT64_MAX;
    e->index = r ? r->index : 0;
    e->call = r ? r->call : 0;
    e->flags = r ? r->wild : 0;
    e->source = PAS2P_PEER_NONE;
    e->tag = PAS2P_TAG_NONE;
    e->bytes = r ? r->bytes : 0;
    if (r && r->recv && st) {
        e->source = st->MPI_SOURCE == MPI_PROC_NULL ? PAS2P_PEER_NULL
                                                    : to_world(comm_get(r->comm), st->MPI_SOURCE);
        e->tag = st->MPI_TAG;
        e->bytes = pas2p_status_bytes(st);
    }
    if (r && (uint64_t)e->bytes && !r->recv)
        cx->ev.bytes += e->bytes;
    if (r && r->recv)
        cx->ev.rbytes += e->bytes;
    if (!r)
        return;
    pas2p_rt.reqs_active--;
    pas2p_rt.msg_recvd += r->recv && e->source >= 0;
    if (r->persistent)
        r->active = 0;
    else
        req_remove(r);
}

static const MPI_Status *status_at(pas2p_cx_t *cx, void *statuses, int i, MPI_Status *tmp)
{
    if (cx->lang == PAS2P_LANG_F) {
        MPI_Fint *f = statuses;
        if (!f || f == MPI_F_STATUSES_IGNORE || f == MPI_F_STATUS_IGNORE)
            return NULL;
        PMPI_Status_f2c(f + (size_t)i * PAS2P_F_STATUS_SIZE, tmp);
        return tmp;
    }
    MPI_Status *s = statuses;
    if (!s || s == MPI_STATUSES_IGNORE || s == MPI_STATUS_IGNORE)
        return NULL;
    return &s[i];
}

void rec_complete(pas2p_cx_t *cx, int n, void *reqs, int lang, int flag, void *index,
                  void *outcount, void *statuses)
{
    (void)reqs;
    (void)lang;
    if (!cx->snap)
        return;
    unsigned c = cx->ev.call;
    if (c == PAS2P_CALL_Test || c == PAS2P_CALL_Testall || c == PAS2P_CALL_Testany ||
        c == PAS2P_CALL_Testsome) { /* its requests were looked at: a later wait for one of
                                       them waits for what a test did not find done */
        for (int i = 0; i < cx->nsnap; i++) {
            req_t *r = cx->snap[i] == MPI_REQUEST_NULL ? NULL : req_slot(cx->snap[i], 0);
            if (r)
                r->tested = 1;
        }
    }
    if (!flag)
        return;
    cx->ev.flags |= PAS2P_EV_FLAG_TRUE;
    MPI_Status tmp;
    int fort = cx->lang == PAS2P_LANG_F, tested[2] = {0, 0};
    if (outcount) { /* Waitsome, Testsome: indices[0..outcount) */
        int m = *(int *)outcount;
        const int *idx = index;
        if (m == MPI_UNDEFINED)
            return;
        for (int k = 0; k < m; k++) {
            int i = idx[k] - fort;
            if (i >= 0 && i < cx->nsnap)
                complete_one(cx, cx->snap[i], status_at(cx, statuses, k, &tmp), tested);
        }
    } else if (index) { /* Waitany, Testany */
        int i = *(int *)index;
        if (i == MPI_UNDEFINED)
            return;
        i -= fort;
        if (i >= 0 && i < cx->nsnap)
            complete_one(cx, cx->snap[i], status_at(cx, statuses, 0, &tmp), tested);
    } else { /* Wait, Waitall, Test, Testall */
        for (int i = 0; i < n && i < cx->nsnap; i++)
            complete_one(cx, cx->snap[i], status_at(cx, statuses, i, &tmp), tested);
    }
    if (tested[0] && tested[1] == tested[0] &&
        (c == PAS2P_CALL_Wait || c == PAS2P_CALL_Waitall || c == PAS2P_CALL_Waitany))
        cx->ev.flags |= PAS2P_EV_TESTED;
}

void rec_request_free(pas2p_cx_t *cx)
{
    if (!cx->snap || cx->nsnap < 1 || cx->snap[0] == MPI_REQUEST_NULL)
        return;
    req_t *r = req_slot(cx->snap[0], 0);
    pas2p_completion_t *e = pas2p_payload(cx, sizeof *e);
    if (!e)
        return;
    cx->ev.aux = 1;
    *e = (pas2p_completion_t){.post = r ? r->post : UINT64_MAX, .index = r ? r->index : 0,
                              .call = r ? r->call : 0, .flags = r ? r->wild : 0,
                              .source = PAS2P_PEER_NONE,
                              .tag = PAS2P_TAG_NONE, .bytes = r ? r->bytes : 0};
    if (r)
        req_remove(r);
}

/* ------------------------------------------------------------------ collectives */
static int my_rank_in(MPI_Comm comm)
{
    int r = -1;
    if (comm == MPI_COMM_WORLD)
        return pas2p_rt.rank;
    PMPI_Comm_rank(comm, &r);
    return r;
}

/* The root of a collective (-1: none) as a world rank, and whether this rank is it
 * (*at_root; 1 too without a root) or takes no part (*idle).  On an intercommunicator the
 * root passes MPI_ROOT, the other ranks of its group MPI_PROC_NULL (they do not know which
 * it is), the other group its rank there: one more PMPI_Allreduce(MPI_MAX) on the
 * intercommunicator, where each side gets the other side's maximum, tells every member the
 * root's world rank, so that the event is the same on all of them, as simulate and replay
 * need (not when the call failed, or with MPI_THREAD_MULTIPLE: the event lock is held). */
static int32_t coll_root(pas2p_cx_t *cx, const comm_t *c, MPI_Comm comm, int root, int *at_root,
                         int *idle, uint64_t *bytes)
{
    *idle = 0;
    if (c && c->mem && root != -1) {
        *at_root = root == MPI_ROOT;
        *idle = root == MPI_PROC_NULL;
        if ((cx->ev.flags & PAS2P_EV_ERROR) || pas2p_rt.use_lock)
            return root >= 0 ? to_world(c, root) : PAS2P_PEER_NONE;
        /* and the other side's largest count (*bytes): the idle ranks are given the
         * message's size, replayed over both groups as one communicator */
        long long mine[2] = {root == MPI_ROOT ? pas2p_rt.rank : root >= 0 ? to_world(c, root) : -1,
                             *idle ? 0 : (long long)*bytes},
                  got[2] = {-1, 0};
        PMPI_Allreduce(mine, got, 2, MPI_LONG_LONG, MPI_MAX, comm);
        if (*idle)
            *bytes = (uint64_t)got[1];
        return got[0] >= 0 ? (int32_t)got[0] : PAS2P_PEER_NONE;
    }
    *at_root = root < 0 || my_rank_in(comm) == root;
    return root >= 0 ? to_world(c, root) : PAS2P_PEER_NONE;
}

void rec_coll(pas2p_cx_t *cx, MPI_Comm comm, int root, int scount, MPI_Datatype stype, int rcount,
              MPI_Datatype rtype)
{
    const comm_t *c = comm_get(comm);
    unsigned call = cx->ev.call;
    cx->ev.comm = comm_id(c);
    int at_root, idle;
    uint64_t size = pas2p_type_bytes(root == MPI_ROOT ? scount : rcount,
                                     root == MPI_ROOT ? stype : rtype);
    cx->ev.peer = coll_root(cx, c, comm, root, &at_root, &idle, &size);
    if (idle) { /* the message's size, neither sent nor received here */
        cx->ev.bytes = cx->ev.rbytes = size;
        return;
    }
    /* arguments MPI declares significant only at the root are not read elsewhere */
    int send_sig = !(call == PAS2P_CALL_Scatter || call == PAS2P_CALL_Iscatter) || at_root;
    int recv_sig = !(call == PAS2P_CALL_Gather || call == PAS2P_CALL_Igather ||
                     call == PAS2P_CALL_Reduce || call == PAS2P_CALL_Ireduce) || at_root;
    cx->ev.bytes = send_sig ? pas2p_type_bytes(scount, stype) : 0;
    cx->ev.rbytes = recv_sig ? pas2p_type_bytes(rcount, rtype) : 0;
}

static void put_counts(pas2p_cx_t *cx, const int *scounts, MPI_Datatype stype, const void *stypes,
                       const int *rcounts, MPI_Datatype rtype, const void *rtypes, int n)
{
    uint32_t ns = scounts ? (uint32_t)n : 0, nr = rcounts ? (uint32_t)n : 0;
    pas2p_vcounts_t *h = pas2p_payload(cx, sizeof *h + 8 * ((size_t)ns + nr));
    if (!h)
        return;
    h->nsend = ns;
    h->nrecv = nr;
    uint64_t *v = (uint64_t *)(h + 1);
    int fort = cx->lang == PAS2P_LANG_F;
    for (uint32_t i = 0; i < ns; i++) {
        MPI_Datatype t = stypes ? (fort ? PMPI_Type_f2c(((const MPI_Fint *)stypes)[i])
                                        : ((const MPI_Datatype *)stypes)[i])
                                : stype;
        v[i] = pas2p_type_bytes(scounts[i], t);
        cx->ev.bytes += v[i];
    }
    for (uint32_t i = 0; i < nr; i++) {
        MPI_Datatype t = rtypes ? (fort ? PMPI_Type_f2c(((const MPI_Fint *)rtypes)[i])
                                        : ((const MPI_Datatype *)rtypes)[i])
                                : rtype;
        v[ns + i] = pas2p_type_bytes(rcounts[i], t);
        cx->ev.rbytes += v[ns + i];
    }
}

void rec_vcoll(pas2p_cx_t *cx, MPI_Comm comm, int root, const int *scounts, int scount,
               MPI_Datatype stype, const int *rcounts, int rcount, MPI_Datatype rtype)
{
    const comm_t *c = comm_get(comm);
    cx->ev.comm = comm_id(c);
    int at_root, idle;
    uint64_t size = 0; /* (an idle rank of a v-collective has no count to replay: 0) */
    cx->ev.peer = coll_root(cx, c, comm, root, &at_root, &idle, &size);
    if (idle)
        return;
    if (root != -1 && !at_root) { /* v-arrays are the root's business */
        scounts = rcounts = NULL;
        if (cx->ev.call == PAS2P_CALL_Gatherv || cx->ev.call == PAS2P_CALL_Igatherv)
            rcount = 0;
    }
    cx->ev.bytes = scounts ? 0 : pas2p_type_bytes(scount, stype);
    cx->ev.rbytes = rcounts ? 0 : pas2p_type_bytes(rcount, rtype);
    if (scounts || rcounts)
        put_counts(cx, scounts, stype, NULL, rcounts, rtype, NULL, c ? c->size : 0);
}

void rec_wcoll(pas2p_cx_t *cx, MPI_Comm comm, const int *scounts, void *stypes,
               const int *rcounts, void *rtypes, int lang)
{
    (void)lang;
    const comm_t *c = comm_get(comm);
    cx->ev.comm = comm_id(c);
    put_counts(cx, scounts, MPI_DATATYPE_NULL, stypes, rcounts, MPI_DATATYPE_NULL, rtypes,
               c ? c->size : 0);
}

/* A neighbourhood collective's neighbours: *nin sources and *nout destinations (communicator
 * ranks, MPI_PROC_NULL kept: a Cartesian edge), in the order MPI gives their counts.  0, or
 * -1 (not a topology, or out of memory; *in and *out freed). */
static int neighbours(MPI_Comm comm, int *nin, int **in, int *nout, int **out)
{
    int topo = MPI_UNDEFINED, me = 0;
    *in = *out = NULL;
    *nin = *nout = 0;
    PMPI_Topo_test(comm, &topo);
    PMPI_Comm_rank(comm, &me);
    if (topo == MPI_CART) { /* per dimension, the rank at -1 then the one at +1 */
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        *in = malloc(sizeof(int) * (size_t)(2 * nd + 1));
        *out = malloc(sizeof(int) * (size_t)(2 * nd + 1));
        if (!*in || !*out)
            goto fail;
        for (int d = 0; d < nd; d++) {
            int lo, hi;
            PMPI_Cart_shift(comm, d, 1, &lo, &hi);
            (*in)[2 * d] = (*out)[2 * d] = lo;
            (*in)[2 * d + 1] = (*out)[2 * d + 1] = hi;
        }
        *nin = *nout = 2 * nd;
        return 0;
    }
    if (topo == MPI_GRAPH) {
        int n = 0;
        PMPI_Graph_neighbors_count(comm, me, &n);
        *in = malloc(sizeof(int) * (size_t)(n + 1));
        *out = malloc(sizeof(int) * (size_t)(n + 1));
        if (!*in || !*out)
            goto fail;
        PMPI_Graph_neighbors(comm, me, n, *in);
        memcpy(*out, *in, sizeof(int) * (size_t)n);
        *nin = *nout = n;
        return 0;
    }
    if (topo == MPI_DIST_GRAPH) {
        int ni = 0, no = 0, weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &ni, &no, &weighted);
        int *wi = malloc(sizeof(int) * (size_t)(ni + 1)), *wo = malloc(sizeof(int) * (size_t)(no + 1));
        *in = malloc(sizeof(int) * (size_t)(ni + 1));
        *out = malloc(sizeof(int) * (size_t)(no + 1));
        if (wi && wo && *in && *out)
            PMPI_Dist_graph_neighbors(comm, ni, *in, wi, no, *out, wo);
        free(wi);
        free(wo);
        if (!*in || !*out)
            goto fail;
        *nin = ni;
        *nout = no;
        return 0;
    }
fail:
    free(*in);
    free(*out);
    *in = *out = NULL;
    return -1;
}

/* v[rank] += the bytes for each of the nnb neighbours nb[k] (counts[k] or count, of
 * types[k] or type; a rank outside [0, n), MPI_PROC_NULL, moves nothing); their sum */
static uint64_t per_neighbour(uint64_t *v, int n, const int *nb, int nnb, int count,
                              MPI_Datatype type, const int *counts, void *types, int fort)
{
    uint64_t sum = 0;
    for (int k = 0; k < nnb; k++) {
        MPI_Datatype t = types ? (fort ? PMPI_Type_f2c(((const MPI_Fint *)types)[k])
                                       : ((const MPI_Datatype *)types)[k])
                               : type;
        uint64_t b = pas2p_type_bytes(counts ? counts[k] : count, t);
        if (nb[k] >= 0 && nb[k] < n) {
            v[nb[k]] += b;
            sum += b;
        }
    }
    return sum;
}

/* A neighbourhood collective: the bytes sent to each out-neighbour (scounts[k] or scount,
 * of stypes[k] or stype) and received from each in-neighbour, summed per rank of the
 * communicator into an alltoallv's payload (0 for a rank that is no neighbour). */
void rec_ncoll(pas2p_cx_t *cx, MPI_Comm comm, int scount, MPI_Datatype stype, const int *scounts,
               void *stypes, int rcount, MPI_Datatype rtype, const int *rcounts, void *rtypes,
               int lang)
{
    const comm_t *c = comm_get(comm);
    cx->ev.comm = comm_id(c);
    int n = c ? c->size : 0, nin, nout, *in, *out;
    if (n <= 0 || neighbours(comm, &nin, &in, &nout, &out))
        return;
    pas2p_vcounts_t *h = pas2p_payload(cx, sizeof *h + 8 * 2 * (size_t)n);
    if (h) {
        h->nsend = h->nrecv = (uint32_t)n;
        uint64_t *v = (uint64_t *)(h + 1);
        memset(v, 0, 8 * 2 * (size_t)n);
        int fort = lang == PAS2P_LANG_F;
        cx->ev.bytes = per_neighbour(v, n, out, nout, scount, stype, scounts, stypes, fort);
        cx->ev.rbytes = per_neighbour(v + n, n, in, nin, rcount, rtype, rcounts, rtypes, fort);
    }
    free(in);
    free(out);
}

void rec_reduce_scatter(pas2p_cx_t *cx, MPI_Comm comm, const int *rcounts, MPI_Datatype dt)
{
    const comm_t *c = comm_get(comm);
    cx->ev.comm = comm_id(c);
    put_counts(cx, rcounts, dt, NULL, NULL, dt, NULL, c ? c->size : 0);
    int me = my_rank_in(comm);
    cx->ev.rbytes = me >= 0 && rcounts ? pas2p_type_bytes(rcounts[me], dt) : 0;
}

/* ------------------------------------------------------------------ communicator creation */
static void comm_register(pas2p_cx_t *cx, MPI_Comm newcomm, comm_t tmp);

/* the event of a call on `on` that made newcomm; 1 when newcomm is this rank's (described
 * in *tmp, to be given an id and registered) */
static int comm_made(pas2p_cx_t *cx, const comm_t *on, MPI_Comm newcomm, comm_t *tmp)
{
    cx->ev.comm = comm_id(on);
    cx->ev.aux = PAS2P_COMM_NONE;
    return newcomm != MPI_COMM_NULL && !(cx->ev.flags & PAS2P_EV_ERROR) &&
           !comm_describe(tmp, newcomm);
}

/* a hash of an intracommunicator's rank order (world ranks) and topology: two copies of
 * a parent with the same layout are interchangeable for every reader of the trace */
static uint64_t layout_of(const comm_t *c, MPI_Comm h)
{
    uint64_t x = 0xcbf29ce484222325ull;
#define LAYOUT_MIX(v) (x = (x ^ (uint64_t)(uint32_t)(v)) * 0x100000001b3ull)
    for (int i = 0; i < c->size; i++)
        LAYOUT_MIX(c->world ? c->world[i] : i);
    int topo = MPI_UNDEFINED, nd = 0;
    PMPI_Topo_test(h, &topo);
    LAYOUT_MIX(topo);
    if (topo == MPI_CART && PMPI_Cartdim_get(h, &nd) == MPI_SUCCESS && nd > 0 && nd <= 64) {
        int dims[64], periods[64], coords[64];
        if (PMPI_Cart_get(h, nd, dims, periods, coords) == MPI_SUCCESS)
            for (int i = 0; i < nd; i++) {
                LAYOUT_MIX(dims[i]);
                LAYOUT_MIX(periods[i]);
            }
    }
#undef LAYOUT_MIX
    return x;
}

/* A call on `parent` made newcomm.  Its place in the parent's creation count is the next
 * one, on every member of the parent (NULL result or not) -- unless newcomm is a copy of
 * the whole parent (the same size: then every member has one) and a freed copy with the
 * same layout gave a place back: the smallest such place, the same on every member, since
 * every member freed that copy.  Its id is then the freed copy's. */
void rec_comm_new(pas2p_cx_t *cx, MPI_Comm parent, MPI_Comm newcomm)
{
    comm_t *p = comm_get(parent), tmp;
    if (!comm_made(cx, p, newcomm, &tmp)) {
        if (p)
            p->seq++;
        return;
    }
    uint32_t seq = 0;
    if (p && !p->mem && !tmp.mem && tmp.size == p->size) {
        tmp.parent = parent;
        tmp.parent_id = p->id;
        tmp.layout = layout_of(&tmp, newcomm);
        uint32_t best = UINT32_MAX;
        for (uint32_t i = 0; i < p->nfree; i++)
            if (p->free_layout[i] == tmp.layout && (best == UINT32_MAX ||
                                                    p->free_place[i] < p->free_place[best]))
                best = i;
        if (best != UINT32_MAX) {
            seq = p->free_place[best];
            p->nfree--;
            p->free_place[best] = p->free_place[p->nfree];
            p->free_layout[best] = p->free_layout[p->nfree];
        } else {
            seq = p->seq++;
        }
        tmp.place = seq;
    } else if (p) {
        seq = p->seq++;
    }
    int nm;
    const int *m = comm_members(&tmp, &nm);
    int lowest = nm ? m[0] : 0;
    for (int i = 1; i < nm; i++)
        if (m[i] < lowest)
            lowest = m[i];
    tmp.id = mix_id(comm_id(p), seq, (uint64_t)lowest);
    comm_register(cx, newcomm, tmp);
}

/* MPI_Comm_create_group is collective over the group only, not the parent: the parent's
 * sequence would differ between its members and the others.  The id comes from the new
 * communicator's membership, the tag, and how many such communicators (same members, same
 * tag) the rank made before: the same on every member, since they make them in one order. */
static uint32_t keyed_id(const comm_t *c, uint64_t salt, int tag)
{
    uint64_t hsh = members_hash(c), key = (hsh ^ salt) ^ ((uint64_t)(uint32_t)tag << 17), k = 0;
    uint32_t n = pas2p_rt.ngroup_keys;
    for (uint32_t i = 0; i < n && i < PAS2P_GROUP_KEYS; i++)
        k += pas2p_rt.group_keys[i] == key;
    if (n < PAS2P_GROUP_KEYS)
        pas2p_rt.group_keys[n] = key;
    pas2p_rt.ngroup_keys = n + 1;
    return mix_id(salt ^ hsh, (uint64_t)(uint32_t)tag, k);
}

/* a communicator whose id is keyed (keyed_id), made by a call on `on` */
static void new_keyed(pas2p_cx_t *cx, MPI_Comm on, int tag, MPI_Comm newcomm, uint64_t salt)
{
    comm_t tmp;
    if (!comm_made(cx, comm_get(on), newcomm, &tmp))
        return;
    tmp.id = keyed_id(&tmp, salt, tag);
    comm_register(cx, newcomm, tmp);
}

void rec_comm_new_group(pas2p_cx_t *cx, MPI_Comm parent, int tag, MPI_Comm newcomm)
{
    new_keyed(cx, parent, tag, newcomm, 0xc0ffeeull);
}

/* MPI_Intercomm_create is collective over each side's local communicator (and the leaders'
 * peer communicator): neither sequence is the same on both sides.  Its id comes from both
 * groups, the tag, and how many such intercommunicators the rank made before, as
 * MPI_Comm_create_group's.  The event is a collective on the rank's local communicator. */
void rec_intercomm_new(pas2p_cx_t *cx, MPI_Comm local, int tag, MPI_Comm newcomm)
{
    new_keyed(cx, local, tag, newcomm, 0x1c0ffeeull);
}

/* newcomm (described in tmp, its id set) into the table, and its definition into the
 * event's payload */
static void comm_register(pas2p_cx_t *cx, MPI_Comm newcomm, comm_t tmp)
{
    comm_t *slot = comm_slot(newcomm, 1);
    if (!slot) {
        comm_release(&tmp);
        return;
    }
    if (slot->h == MPI_COMM_NULL)
        pas2p_rt.ncomms++;
    else
        comm_release(slot);
    *slot = tmp;
    cx->ev.aux = tmp.id;

    int topo = MPI_UNDEFINED, ndims = 0;
    PMPI_Topo_test(newcomm, &topo);
    if (topo == MPI_CART)
        PMPI_Cartdim_get(newcomm, &ndims);
    int nm;
    const int *m = comm_members(&tmp, &nm);
    pas2p_comm_def_t *d =
        pas2p_payload(cx, sizeof *d + sizeof(int32_t) * ((size_t)nm + 3 * (size_t)ndims));
    if (!d)
        return;
    d->size = (uint32_t)nm;
    d->ndims = (uint32_t)ndims;
    int32_t *w = (int32_t *)(d + 1);
    memcpy(w, m, sizeof(int32_t) * (size_t)nm);
    if (ndims > 0) {
        int32_t *dims = w + nm, *periods = dims + ndims, *coords = periods + ndims;
        PMPI_Cart_get(newcomm, ndims, dims, periods, coords);
    }
}

/* Comm_free sets the handle to MPI_COMM_NULL: remember it before the call, forget the
 * communicator after (under the event lock, like every table change). */
void pre_comm_free(pas2p_cx_t *cx, void *comm, int lang)
{
    cx->freed_handle = lang == PAS2P_LANG_F ? PMPI_Comm_f2c(*(MPI_Fint *)comm) : *(MPI_Comm *)comm;
}

void rec_comm_free(pas2p_cx_t *cx, void *comm, int lang)
{
    (void)comm;
    (void)lang;
    MPI_Comm h = cx->freed_handle;
    comm_t *c = (h == MPI_COMM_WORLD || h == MPI_COMM_SELF) ? NULL : comm_slot(h, 0);
    cx->ev.comm = c ? c->id : PAS2P_COMM_NONE;
    if (!c)
        return;
    /* a copy of its whole parent whose every place was given back (it made no
     * communicator, or only copies of itself that were freed the same way: no live id
     * derives from its own): its place goes back to the parent, if the parent is still
     * the one that made it.  Every member frees it, so every member's parent has the same
     * places back. */
    if (c->parent != MPI_COMM_NULL && c->nfree == c->seq) {
        MPI_Comm ph = c->parent;
        comm_t *p = ph == MPI_COMM_WORLD ? &world_info : ph == MPI_COMM_SELF ? &self_info
                                                                             : comm_slot(ph, 0);
        if (p && p->id == c->parent_id && p->nfree < COMM_REUSE) {
            p->free_place[p->nfree] = c->place;
            p->free_layout[p->nfree] = c->layout;
            p->nfree++;
        }
    }
    comm_remove(h);
}
