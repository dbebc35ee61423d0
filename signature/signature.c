/* The signature file: writing (xmlTextWriter), reading (validated against the RelaxNG
 * schema embedded from signature/signature.rng), and printing (`pas2p show`: cmd_show.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>

#include "pas2p_signature.h"
#include "pas2p_trace.h" /* call names */
#include "signature_rng.h" /* generated: const char pas2p_signature_rng[] */
#include "pas2p_xml.h"

/* ------------------------------------------------------------------ writing */
#define W(call)                                                                                   \
    do {                                                                                          \
        if ((call) < 0)                                                                           \
            goto fail;                                                                            \
    } while (0)
#define ATTR(name, ...) W(xmlTextWriterWriteFormatAttribute(w, BAD_CAST name, __VA_ARGS__))

static int write_ints(xmlTextWriterPtr w, const char *name, const int32_t *v, uint32_t n)
{
    size_t cap = (size_t)n * 12 + 1, len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return -1;
    buf[0] = 0;
    for (uint32_t i = 0; i < n; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%d", i ? "," : "", v[i]);
    int rc = xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST buf);
    free(buf);
    return rc;
}

/* one <event>: e's shape, with the timings `t` (e's own, or a repeat's means) */
static int write_event(xmlTextWriterPtr w, const pas2p_sig_event_t *e, const pas2p_sig_event_t *t)
{
    W(xmlTextWriterStartElement(w, BAD_CAST "event"));
    ATTR("call", "%s", pas2p_call_name(e->call) ? pas2p_call_name(e->call) : "?");
    ATTR("peer", "%d", e->peer);
    ATTR("tag", "%d", e->tag);
    ATTR("comm", "%u", e->comm);
    ATTR("bytes", "%" PRIu64, e->bytes);
    ATTR("rbytes", "%" PRIu64, e->rbytes);
    if (e->size_max) {
        ATTR("size_min", "%" PRIu64, e->size_min);
        ATTR("size_max", "%" PRIu64, e->size_max);
    }
    ATTR("compute_s", "%.9g", t->compute_s);
    ATTR("instructions", "%.9g", t->instructions);
    if (t->wait_s != 0)
        ATTR("wait_s", "%.9g", t->wait_s);
    if (e->polled)
        ATTR("polled", "%u", e->polled);
    if (e->cancelled)
        ATTR("cancelled", "%d", 1);
    if (e->completes)
        ATTR("completes", "%u", e->completes);
    if (e->pcompletes)
        ATTR("polled_completes", "%u", e->pcompletes);
    if (e->occ_start)
        ATTR("occurrence_start", "%d", 1);
    if (e->peer2 != -1 || e->tag2 != -1) {
        ATTR("peer2", "%d", e->peer2);
        ATTR("tag2", "%d", e->tag2);
    }
    if (e->aux)
        ATTR("aux", "%u", e->aux);
    if (e->nstarts) { /* "Send_init:PEER:TAG:BYTES:COMM ..." */
        char *v = malloc(96 * (size_t)e->nstarts + 1);
        if (!v)
            return -1;
        size_t n = 0;
        for (uint32_t j = 0; j < e->nstarts; j++) {
            const pas2p_sig_start_t *q = &e->starts[j];
            const char *nm = pas2p_call_name(q->call);
            n += (size_t)snprintf(v + n, 96, "%s%s:%d:%d:%" PRIu64 ":%u", j ? " " : "",
                                  nm ? nm + 4 : "?", q->peer, q->tag, q->bytes, q->comm);
        }
        int wrc = xmlTextWriterWriteAttribute(w, BAD_CAST "starts", BAD_CAST v);
        free(v);
        W(wrc);
    }
    W(xmlTextWriterEndElement(w));
    return 0;
fail:
    return -1;
}

/* Long phases (a phase of weight 1 that is most of an irregular run: murasaki's 400 000
 * MPI_Issend per rank, kept in flight 1000 deep, so that no cut closes before the end) are
 * written with their repeats folded: a run of COPIES of the same body of up to REPEAT_BODY
 * events (the same shape: call, peers, tags, communicator, sizes, polls, completions; each
 * event's computation close to the first copy's) is one <repeat count="N"> holding the body
 * once, its computation and wait each the mean over the copies.  A reader unfolds it (signature/FORMAT.md): the same events, the same sums, the
 * computation spread evenly over at most REPEAT_COUNT copies.  Without it the signature of
 * such a run was larger than its trace (320 MB for a 257 MB trace) and slow to read. */
#define REPEAT_MIN_EVENTS 4096 /* shorter phases are written event by event */
#define REPEAT_BODY 16
#define REPEAT_COUNT 256
#define REPEAT_SLACK_S 1e-5 /* computations this close, or */
#define REPEAT_SLACK 0.25   /* this close relatively, are one mean (similar_time) */

static int same_shape(const pas2p_sig_event_t *a, const pas2p_sig_event_t *b)
{
    return a->call == b->call && a->peer == b->peer && a->tag == b->tag &&
           a->peer2 == b->peer2 && a->tag2 == b->tag2 && a->comm == b->comm &&
           a->aux == b->aux && a->bytes == b->bytes && a->rbytes == b->rbytes &&
           a->size_min == b->size_min && a->size_max == b->size_max &&
           a->polled == b->polled && a->cancelled == b->cancelled &&
           a->completes == b->completes && a->pcompletes == b->pcompletes && !a->nstarts &&
           !b->nstarts && a->occ_start == b->occ_start;
}

/* computations close enough to be written as their mean: a copy that computed much longer
 * (a preemption, a page fault: what decides a critical path) stays an event of its own */
static int similar_time(double a, double b)
{
    double d = a > b ? a - b : b - a, m = a > b ? a : b;
    return d <= REPEAT_SLACK_S || d <= REPEAT_SLACK * m;
}

/* the most events that copies of one body starting at ev[0] cover (count copies of *len
 * events; count 1: none repeats) */
static uint32_t repeat_at(const pas2p_sig_event_t *ev, uint32_t n, uint32_t *len)
{
    uint32_t best = 1;
    *len = 1;
    for (uint32_t L = 1; L <= REPEAT_BODY && 2 * L <= n; L++) {
        uint32_t c = 1;
        while (c < REPEAT_COUNT && (c + 1) * L <= n) {
            uint32_t j = 0;
            while (j < L && same_shape(&ev[c * L + j], &ev[j]) &&
                   similar_time(ev[c * L + j].compute_s, ev[j].compute_s))
                j++;
            if (j < L)
                break;
            c++;
        }
        if (c > 1 && c * L > best * *len) {
            best = c;
            *len = L;
        }
    }
    return best;
}

static int write_events(xmlTextWriterPtr w, const pas2p_sig_phase_t *p)
{
    for (uint32_t k = 0; k < p->nevents;) {
        uint32_t len = 1, c = p->nevents >= REPEAT_MIN_EVENTS
                                  ? repeat_at(&p->events[k], p->nevents - k, &len) : 1;
        if (c < 2) {
            W(write_event(w, &p->events[k], &p->events[k]));
            k++;
            continue;
        }
        W(xmlTextWriterStartElement(w, BAD_CAST "repeat"));
        ATTR("count", "%u", c);
        for (uint32_t j = 0; j < len; j++) {
            pas2p_sig_event_t m = {0};
            for (uint32_t i = 0; i < c; i++) {
                const pas2p_sig_event_t *x = &p->events[k + i * len + j];
                m.compute_s += x->compute_s;
                m.instructions += x->instructions;
                m.wait_s += x->wait_s;
            }
            m.compute_s /= c;
            m.instructions /= c;
            m.wait_s /= c;
            W(write_event(w, &p->events[k + j], &m));
        }
        W(xmlTextWriterEndElement(w));
        k += c * len;
    }
    return 0;
fail:
    return -1;
}

int pas2p_signature_write(const pas2p_signature_t *s, const char *path, char *err, size_t errlen)
{
    char tmp[4200];
    xmlTextWriterPtr w = pas2p_xml_create(path, "pas2p-signature", PAS2P_SIGNATURE_VERSION, tmp,
                                          err, errlen);
    if (!w)
        return -1;

    W(xmlTextWriterStartElement(w, BAD_CAST "application"));
    W(xmlTextWriterWriteAttribute(w, BAD_CAST "command", BAD_CAST s->command));
    ATTR("np", "%u", s->np);
    ATTR("aet_s", "%.9g", s->aet_s);
    W(xmlTextWriterWriteAttribute(w, BAD_CAST "counters", BAD_CAST s->counters));
    W(xmlTextWriterWriteAttribute(w, BAD_CAST "tracer", BAD_CAST s->tracer));
    W(xmlTextWriterWriteAttribute(w, BAD_CAST "hosts", BAD_CAST s->hosts));
    if (s->mpi_threads > 1)
        ATTR("mpi_threads", "%u", s->mpi_threads);
    if (s->program[0])
        W(xmlTextWriterWriteAttribute(w, BAD_CAST "program", BAD_CAST s->program));
    W(xmlTextWriterEndElement(w));

    W(xmlTextWriterStartElement(w, BAD_CAST "thresholds"));
    ATTR("relevance", "%.9g", s->relevance);
    ATTR("compute_similarity", "%.9g", s->compute_similarity);
    ATTR("compute_similarity_time", "%.9g", s->compute_similarity_time);
    ATTR("size_tolerance", "%.9g", s->size_tolerance);
    if (s->size_floor)
        ATTR("size_floor", "%" PRIu64, s->size_floor);
    if (s->inline_events)
        ATTR("inline_events", "%u", s->inline_events);
    W(xmlTextWriterEndElement(w));

    W(xmlTextWriterStartElement(w, BAD_CAST "analysis"));
    ATTR("representative_rank", "%u", s->representative);
    ATTR("events", "%" PRIu64, s->events);
    ATTR("pet_s", "%.9g", s->pet_s);
    ATTR("relevant_s", "%.9g", s->relevant_s);
    ATTR("remainder_s", "%.9g", s->remainder_s);
    ATTR("coverage", "%.9g", s->coverage);
    ATTR("structure", "%s", s->spmd ? "spmd" : "per-rank");
    ATTR("phases", "%s", s->global ? "global" : "local");
    if (s->global && s->characteristic_comm != UINT32_MAX)
        ATTR("characteristic_comm", "%u", s->characteristic_comm);
    if (s->anchored)
        ATTR("located", "%s", "anchors");
    if (s->global && s->runs)
        ATTR("completion_runs", "%s", "folded");
    if (s->global && s->tests)
        ATTR("completion_tests", "%s", "polls");
    if (s->global && s->probes)
        ATTR("probes", "%s", "polls");
    if (s->global && s->waits)
        ATTR("completion_waits", "%s",
             s->waits > 2 ? "flagged" : s->waits > 1 ? "tested" : "after-tests");
    W(xmlTextWriterEndElement(w));

    for (uint32_t i = 0; i < s->ncomms; i++) {
        const pas2p_sig_comm_t *c = &s->comms[i];
        W(xmlTextWriterStartElement(w, BAD_CAST "communicator"));
        ATTR("id", "%u", c->id);
        ATTR("parent", "%u", c->parent);
        ATTR("call", "%s", pas2p_call_name(c->call) ? pas2p_call_name(c->call) : "?");
        W(write_ints(w, "members", c->members, c->size));
        if (c->ndims) {
            W(write_ints(w, "dims", c->dims, c->ndims));
            W(write_ints(w, "periods", c->periods, c->ndims));
        }
        W(xmlTextWriterEndElement(w));
    }
    for (uint32_t r = 0; r < s->nranks; r++) {
        const pas2p_sig_rank_t *R = &s->ranks[r];
        W(xmlTextWriterStartElement(w, BAD_CAST "rank"));
        ATTR("id", "%u", R->rank);
        ATTR("elapsed_s", "%.9g", R->elapsed_s);
        ATTR("events", "%" PRIu64, R->events);
        if (R->kernel_rate > 0)
            ATTR("kernel_rate", "%.6g", R->kernel_rate);
        if (R->compute_blocked > 0)
            ATTR("compute_blocked", "%.3f", R->compute_blocked);
        if (R->untraced_s > 0)
            ATTR("untraced_s", "%.6f", R->untraced_s);
        for (uint32_t i = 0; i < R->nphases; i++) {
            const pas2p_sig_phase_t *p = &R->phases[i];
            W(xmlTextWriterStartElement(w, BAD_CAST "phase"));
            ATTR("id", "%u", p->id);
            ATTR("weight", "%" PRIu64, p->weight);
            ATTR("relevant", "%s", p->relevant ? "yes" : "no");
            ATTR("time_mean_s", "%.9g", p->time_mean_s);
            ATTR("time_median_s", "%.9g", p->time_median_s);
            ATTR("time_min_s", "%.9g", p->time_min_s);
            ATTR("time_max_s", "%.9g", p->time_max_s);
            ATTR("time_sd_s", "%.9g", p->time_sd_s);
            ATTR("compute_mean_s", "%.9g", p->compute_mean_s);
            ATTR("instructions_mean", "%.9g", p->instructions_mean);
            if (p->variable)
                ATTR("variable", "%s", "yes");
            if (p->skel_occ > 1)
                ATTR("skeleton_occurrences", "%u", p->skel_occ);
            if (p->runs > 1) {
                ATTR("runs", "%u", p->runs);
                ATTR("runs_time_mean_s", "%.9g", p->runs_time_mean_s);
            }
            for (uint32_t k = 0; k < p->nocc; k++) {
                W(xmlTextWriterStartElement(w, BAD_CAST "occurrence"));
                ATTR("start", "%" PRIu64, p->occ_start[k]);
                ATTR("end", "%" PRIu64, p->occ_end[k]);
                if (p->occ_time_s[k] > 0)
                    ATTR("time_s", "%.9g", p->occ_time_s[k]);
                if (p->runs > 1 && p->occ_runs_time_s[k] > 0)
                    ATTR("runs_time_s", "%.9g", p->occ_runs_time_s[k]);
                if (s->anchored) {
                    ATTR("anchor_start", "%" PRIu64 ":%" PRIu64, p->occ_astart[k] >> 32,
                         p->occ_astart[k] & 0xffffffffu);
                    ATTR("anchor_end", "%" PRIu64 ":%" PRIu64, p->occ_aend[k] >> 32,
                         p->occ_aend[k] & 0xffffffffu);
                }
                W(xmlTextWriterEndElement(w));
            }
            W(write_events(w, p));
            W(xmlTextWriterEndElement(w));
        }
        W(xmlTextWriterEndElement(w));
    }
    W(xmlTextWriterEndElement(w));
    return pas2p_xml_commit(w, 1, tmp, path, err, errlen);
fail:
    return pas2p_xml_commit(w, 0, tmp, path, err, errlen);
}

/* ------------------------------------------------------------------ reading */
/* "A:O" (the schema checked its form) as A << 32 | O; 0 when absent */
static uint64_t anchor_pos(const char *s)
{
    if (!s)
        return 0;
    char *end;
    uint64_t a = strtoull(s, &end, 10), o = *end == ':' ? strtoull(end + 1, NULL, 10) : 0;
    return a << 32 | (o & 0xffffffffu);
}

static int32_t *parse_ints(const char *s, uint32_t *n)
{
    uint32_t cnt = s && *s ? 1 : 0;
    for (const char *p = s; p && *p; p++)
        cnt += *p == ',';
    int32_t *v = malloc(sizeof *v * (cnt ? cnt : 1));
    if (!v)
        return NULL;
    const char *p = s;
    for (uint32_t i = 0; i < cnt; i++) {
        char *end;
        v[i] = (int32_t)strtol(p, &end, 10);
        p = *end == ',' ? end + 1 : end;
    }
    *n = cnt;
    return v;
}

/* an event's `starts` ("Send_init:1:5:4096:0 Recv_init:0:5:4096:0"): 0, -1 out of memory,
 * -4 not such a list */
static int read_starts(const char *v, pas2p_sig_event_t *x)
{
    if (!v)
        return 0;
    uint32_t n = 1;
    for (const char *c = v; *c; c++)
        n += *c == ' ';
    if (!(x->starts = calloc(n, sizeof *x->starts)))
        return -1;
    const char *c = v;
    for (uint32_t j = 0; j < n; j++) {
        char name[32];
        int used = 0;
        unsigned long long bytes;
        unsigned comm;
        pas2p_sig_start_t *q = &x->starts[j];
        if (sscanf(c, "%20[A-Za-z_]:%d:%d:%llu:%u%n", name, &q->peer, &q->tag, &bytes, &comm,
                   &used) != 5)
            return -4;
        char full[40];
        snprintf(full, sizeof full, "MPI_%s", name);
        q->call = (uint32_t)pas2p_call_by_name(full);
        if (!q->call || !(q->call == PAS2P_CALL_Recv_init ||
                          (q->call >= PAS2P_CALL_Send_init && q->call <= PAS2P_CALL_Rsend_init)))
            return -4;
        q->bytes = bytes;
        q->comm = comm;
        c += used;
        if (*c == ' ')
            c++;
        else if (*c || j + 1 < n)
            return -4;
    }
    x->nstarts = n;
    return 0;
}

/* a top-level element other than <rank>: application, thresholds, analysis, communicator
 * (appended to s->comms, which grows: *cap).  0, or -1 out of memory */
static int fill_top(xmlNodePtr n, pas2p_signature_t *s, uint32_t *cap)
{
    if (pas2p_xml_is(n, "application")) {
        pas2p_xml_attr_s(n, "command", s->command, sizeof s->command);
        pas2p_xml_attr_s(n, "counters", s->counters, sizeof s->counters);
        pas2p_xml_attr_s(n, "tracer", s->tracer, sizeof s->tracer);
        pas2p_xml_attr_s(n, "hosts", s->hosts, sizeof s->hosts);
        pas2p_xml_attr_s(n, "program", s->program, sizeof s->program);
        s->np = (uint32_t)pas2p_xml_attr_u(n, "np");
        s->aet_s = pas2p_xml_attr_d(n, "aet_s");
        uint64_t mt = pas2p_xml_attr_u(n, "mpi_threads");
        s->mpi_threads = mt > UINT32_MAX ? UINT32_MAX : (uint32_t)mt;
    } else if (pas2p_xml_is(n, "thresholds")) {
        s->relevance = pas2p_xml_attr_d(n, "relevance");
        s->compute_similarity = pas2p_xml_attr_d(n, "compute_similarity");
        s->compute_similarity_time = pas2p_xml_attr_d(n, "compute_similarity_time");
        s->size_tolerance = pas2p_xml_attr_d(n, "size_tolerance");
        s->size_floor = pas2p_xml_attr_u(n, "size_floor");
        s->inline_events = (uint32_t)pas2p_xml_attr_u(n, "inline_events");
    } else if (pas2p_xml_is(n, "analysis")) {
        s->representative = (uint32_t)pas2p_xml_attr_u(n, "representative_rank");
        s->events = pas2p_xml_attr_u(n, "events");
        s->pet_s = pas2p_xml_attr_d(n, "pet_s");
        s->relevant_s = pas2p_xml_attr_d(n, "relevant_s");
        s->remainder_s = pas2p_xml_attr_d(n, "remainder_s");
        s->coverage = pas2p_xml_attr_d(n, "coverage");
        const char *st = pas2p_xml_attr(n, "structure");
        s->spmd = st && !strcmp(st, "spmd");
        const char *ph = pas2p_xml_attr(n, "phases");
        s->global = ph && !strcmp(ph, "global");
        s->characteristic_comm = pas2p_xml_attr(n, "characteristic_comm")
                                     ? (uint32_t)pas2p_xml_attr_u(n, "characteristic_comm")
                                     : UINT32_MAX;
        const char *lo = pas2p_xml_attr(n, "located");
        s->anchored = lo && !strcmp(lo, "anchors");
        const char *ru = pas2p_xml_attr(n, "completion_runs");
        s->runs = s->global && ru && !strcmp(ru, "folded");
        const char *te = pas2p_xml_attr(n, "completion_tests");
        s->tests = s->global && te && !strcmp(te, "polls");
        const char *pr = pas2p_xml_attr(n, "probes");
        s->probes = s->global && pr && !strcmp(pr, "polls");
        const char *wa = pas2p_xml_attr(n, "completion_waits");
        s->waits = !s->global || !wa            ? 0
                   : !strcmp(wa, "flagged") ? 3
                   : !strcmp(wa, "tested")  ? 2
                                            : !strcmp(wa, "after-tests");
    } else if (pas2p_xml_is(n, "communicator")) {
        if (s->ncomms == *cap) {
            uint32_t c = *cap ? 2 * *cap : 8;
            pas2p_sig_comm_t *v = realloc(s->comms, c * sizeof *v);
            if (!v)
                return -1;
            s->comms = v;
            *cap = c;
        }
        pas2p_sig_comm_t *c = &s->comms[s->ncomms++];
        memset(c, 0, sizeof *c);
        c->id = (uint32_t)pas2p_xml_attr_u(n, "id");
        c->parent = (uint32_t)pas2p_xml_attr_u(n, "parent");
        c->call = pas2p_call_by_name(pas2p_xml_attr(n, "call") ? pas2p_xml_attr(n, "call") : "");
        c->members = parse_ints(pas2p_xml_attr(n, "members"), &c->size);
        if (!c->members)
            return -1;
        if (pas2p_xml_attr(n, "dims")) {
            uint32_t nd = 0, np = 0;
            c->dims = parse_ints(pas2p_xml_attr(n, "dims"), &nd);
            c->periods = parse_ints(pas2p_xml_attr(n, "periods"), &np);
            if (!c->dims || !c->periods)
                return -1;
            c->ndims = nd < np ? nd : np;
        }
    }
    return 0;
}

/* a <rank> element's own attributes */
/* rank/compute_blocked as used: a share below 1 (a crafted 5 would make a replay wait 5x
 * each computation), 0 when absent or out of range */
static double blocked_share(double b)
{
    return b > 0 && b < 1 ? b : 0;
}

/* a <phase> element into p (zeroed); its events only when `events` (else only their calls
 * checked: nevents 0).  0; -1 out of memory, -2 an unknown call, -3 an occurrence without
 * anchors in an anchored signature, -4 a bad `starts` */
/* 1 if the <event> names an MPI call this pas2p knows */
static int known_call(xmlNodePtr e)
{
    const char *c = pas2p_xml_attr(e, "call");
    return pas2p_call_by_name(c ? c : "") != 0;
}

/* one <event> into x: 0, or read_phase's codes */
static int parse_event(xmlNodePtr e, pas2p_sig_event_t *x)
{
    x->call = pas2p_call_by_name(pas2p_xml_attr(e, "call") ? pas2p_xml_attr(e, "call") : "");
    x->peer = pas2p_xml_attr_i(e, "peer", -1);
    x->tag = pas2p_xml_attr_i(e, "tag", -1);
    x->peer2 = pas2p_xml_attr_i(e, "peer2", -1);
    x->tag2 = pas2p_xml_attr_i(e, "tag2", -1);
    x->comm = (uint32_t)pas2p_xml_attr_u(e, "comm");
    x->aux = (uint32_t)pas2p_xml_attr_u(e, "aux");
    x->bytes = pas2p_xml_attr_u(e, "bytes");
    x->rbytes = pas2p_xml_attr_u(e, "rbytes");
    x->size_min = pas2p_xml_attr_u(e, "size_min");
    x->size_max = pas2p_xml_attr_u(e, "size_max");
    x->compute_s = pas2p_xml_attr_d(e, "compute_s");
    x->instructions = pas2p_xml_attr_d(e, "instructions");
    x->wait_s = pas2p_xml_attr_d(e, "wait_s");
    uint64_t pd = pas2p_xml_attr_u(e, "polled");
    x->polled = pd > UINT32_MAX ? UINT32_MAX : (uint32_t)pd;
    x->cancelled = pas2p_xml_attr_u(e, "cancelled") != 0;
    uint64_t cw = pas2p_xml_attr_u(e, "completes");
    x->completes = cw > UINT32_MAX ? 0 : (uint32_t)cw;
    uint64_t pc = pas2p_xml_attr_u(e, "polled_completes");
    x->pcompletes = pc > UINT32_MAX ? 0 : (uint32_t)pc;
    x->occ_start = pas2p_xml_attr_u(e, "occurrence_start") != 0;
    if (!x->call)
        return -2; /* an MPI call this pas2p does not know */
    return read_starts(pas2p_xml_attr(e, "starts"), x);
}

/* A <phase>, read as a stream (read_stream): its attributes from the reader on its start
 * tag, then each child (<occurrence>, <event>, <repeat>) expanded alone and freed as the
 * reader moves on, so that memory follows the events built, not the phase's tree (Ray's
 * one phase, its whole run, 78 MB of XML: 1.45 GB in simulate as one tree).  The events
 * only when `events` (else their calls checked: nevents 0); at most `most` in all (the
 * rank's calls).  0; -1 out of memory, -2 an unknown call, -3 an occurrence without
 * anchors in an anchored signature, -4 a bad `starts`, -5 more events than `most` */
typedef struct {
    pas2p_sig_phase_t *p;
    int anchored, events;
    uint64_t most, total; /* events in the phase so far, repeats counted out */
    uint32_t cap;         /* p->events' room */
} phase_fill_t;

static double reader_attr_d(xmlTextReaderPtr r, const char *name, double dflt);
static uint64_t reader_attr_u(xmlTextReaderPtr r, const char *name, uint64_t dflt);

static int reader_has(xmlTextReaderPtr r, const char *name, const char *want)
{
    xmlChar *v = xmlTextReaderGetAttribute(r, BAD_CAST name);
    int yes = v && (!want || !strcmp((const char *)v, want));
    xmlFree(v);
    return yes;
}

static void phase_attrs(xmlTextReaderPtr r, pas2p_sig_phase_t *p)
{
    p->id = (uint32_t)reader_attr_u(r, "id", 0);
    p->weight = reader_attr_u(r, "weight", 0);
    p->relevant = reader_has(r, "relevant", "yes");
    p->time_mean_s = reader_attr_d(r, "time_mean_s", 0);
    p->time_median_s = reader_attr_d(r, "time_median_s", 0);
    p->time_min_s = reader_attr_d(r, "time_min_s", 0);
    p->time_max_s = reader_attr_d(r, "time_max_s", 0);
    p->time_sd_s = reader_attr_d(r, "time_sd_s", 0);
    p->compute_mean_s = reader_attr_d(r, "compute_mean_s", 0);
    p->instructions_mean = reader_attr_d(r, "instructions_mean", 0);
    p->variable = reader_has(r, "variable", NULL);
    uint64_t so = reader_attr_u(r, "skeleton_occurrences", 1);
    p->skel_occ = so >= 1 && so <= UINT32_MAX ? (uint32_t)so : 1;
    p->runs = (uint32_t)reader_attr_u(r, "runs", 0);
    p->runs_time_mean_s = p->runs > 1 ? reader_attr_d(r, "runs_time_mean_s", 0) : 0;
}

/* room for n more events: 0, or -1 out of memory */
static int phase_room(phase_fill_t *F, uint64_t n)
{
    pas2p_sig_phase_t *p = F->p;
    if ((uint64_t)p->nevents + n <= F->cap)
        return 0;
    uint64_t c = F->cap ? F->cap : 64;
    while (c < (uint64_t)p->nevents + n)
        c *= 2;
    if (c > UINT32_MAX)
        c = UINT32_MAX;
    pas2p_sig_event_t *v = realloc(p->events, c * sizeof *v);
    if (!v)
        return -1;
    memset(v + F->cap, 0, (c - F->cap) * sizeof *v); /* (as calloc: padding too) */
    p->events = v;
    F->cap = (uint32_t)c;
    return 0;
}

/* one child of the phase */
static int phase_child(phase_fill_t *F, xmlNodePtr e)
{
    pas2p_sig_phase_t *p = F->p;
    int rc;
    if (pas2p_xml_is(e, "occurrence")) {
        if (p->nocc >= PAS2P_SIG_OCC)
            return 0;
        p->occ_start[p->nocc] = pas2p_xml_attr_u(e, "start");
        p->occ_end[p->nocc] = pas2p_xml_attr_u(e, "end");
        p->occ_time_s[p->nocc] = pas2p_xml_attr_d(e, "time_s");
        p->occ_runs_time_s[p->nocc] = p->runs > 1 ? pas2p_xml_attr_d(e, "runs_time_s") : 0;
        if (F->anchored && (!pas2p_xml_attr(e, "anchor_start") || !pas2p_xml_attr(e, "anchor_end")))
            return -3; /* located by anchors, but this one is not */
        p->occ_astart[p->nocc] = anchor_pos(pas2p_xml_attr(e, "anchor_start"));
        p->occ_aend[p->nocc] = anchor_pos(pas2p_xml_attr(e, "anchor_end"));
        p->nocc++;
        return 0;
    }
    if (pas2p_xml_is(e, "event")) {
        if (++F->total > F->most || F->total > UINT32_MAX)
            return -5;
        if (!F->events)
            return known_call(e) ? 0 : -2; /* (refused all the same) */
        if (phase_room(F, 1))
            return -1;
        return parse_event(e, &p->events[p->nevents++]);
    }
    if (!pas2p_xml_is(e, "repeat"))
        return 0;
    /* a <repeat>: its body, then copies of it */
    uint64_t c = pas2p_xml_attr_u(e, "count"), body = pas2p_xml_count(e, "event");
    if (c == 0 || body == 0 || c > F->most / body) /* (no overflow: a crafted count) */
        return -5;
    F->total += body * c;
    if (F->total > F->most || F->total > UINT32_MAX)
        return -5;
    if (!F->events) {
        for (xmlNodePtr b = e->children; b; b = b->next)
            if (pas2p_xml_is(b, "event") && !known_call(b))
                return -2;
        return 0;
    }
    if (phase_room(F, body * c))
        return -1;
    uint32_t first = p->nevents;
    for (xmlNodePtr b = e->children; b; b = b->next)
        if (pas2p_xml_is(b, "event") && (rc = parse_event(b, &p->events[p->nevents++])))
            return rc;
    uint32_t len = p->nevents - first;
    for (uint64_t k = 1; k < c; k++)
        for (uint32_t j = 0; j < len; j++) {
            pas2p_sig_event_t *x = &p->events[p->nevents++];
            *x = p->events[first + j];
            if (x->nstarts) { /* each copy owns its list (pas2p_signature_free) */
                x->starts = malloc(x->nstarts * sizeof *x->starts);
                if (!x->starts) {
                    x->nstarts = 0;
                    return -1;
                }
                memcpy(x->starts, p->events[first + j].starts, x->nstarts * sizeof *x->starts);
            }
        }
    return 0;
}

/* the phase the reader is on (its start tag) into p (zeroed), the reader left past its end
 * tag; 0 or phase_child's codes; *ret the reader's last status */
static int read_phase(xmlTextReaderPtr r, int anchored, int events, uint64_t most,
                      pas2p_sig_phase_t *p, int *ret)
{
    phase_fill_t F = {.p = p, .anchored = anchored, .events = events, .most = most};
    phase_attrs(r, p);
    int f = 0, depth = xmlTextReaderDepth(r);
    if (xmlTextReaderIsEmptyElement(r)) {
        *ret = xmlTextReaderRead(r);
    } else {
        *ret = xmlTextReaderRead(r);
        while (*ret == 1) {
            int d = xmlTextReaderDepth(r), t = xmlTextReaderNodeType(r);
            if (d <= depth) {
                if (t == XML_READER_TYPE_END_ELEMENT)
                    *ret = xmlTextReaderRead(r);
                break;
            }
            if (t == XML_READER_TYPE_ELEMENT && d == depth + 1) {
                xmlNodePtr n = xmlTextReaderExpand(r);
                if (!n) {
                    *ret = -1;
                    break;
                }
                if ((f = phase_child(&F, n)))
                    break;
                *ret = xmlTextReaderNext(r);
                continue;
            }
            *ret = xmlTextReaderRead(r);
        }
    }
    if (!p->events) /* (never NULL: an empty phase has room for none) */
        p->events = calloc(1, sizeof *p->events);
    if (!f && !p->events)
        f = -1;
    return f;
}

/* read_phase's codes as a one-line reason (f != 0) */
static void fill_error(int f, const char *path, char *err, size_t errlen)
{
    if (f == -2)
        pas2p_xml_err(err, errlen, "%s: names an MPI call this pas2p does not know", path);
    else if (f == -4)
        pas2p_xml_err(err, errlen, "%s: an event's `starts` is not a list of persistent "
                      "requests (Send_init:PEER:TAG:BYTES:COMM ...)", path);
    else if (f == -3)
        pas2p_xml_err(err, errlen, "%s: located by anchors, but an occurrence has no "
                      "anchor_start/anchor_end", path);
    else if (f == -5)
        pas2p_xml_err(err, errlen, "%s: a phase holds more events than its rank made (a "
                      "<repeat> of count 0, or too large)", path);
    else
        pas2p_xml_err(err, errlen, "%s: out of memory", path);
}


/* the reader's first error, as one line; and the first that is not XML at all (a parser
 * error rather than the schema's), which is the one said when there is one */
typedef struct {
    char msg[400], parse[400];
} rank_errors_t;

static void one_line(char *out, size_t n, const xmlError *e)
{
    snprintf(out, n, "line %d: %s", e->line, e->message);
    for (char *c = out; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    size_t k = strlen(out);
    while (k && out[k - 1] == ' ')
        out[--k] = 0;
}

static void on_reader_error(void *ctx, xmlErrorPtr e)
{
    rank_errors_t *x = ctx;
    if (!e || !e->message)
        return;
    if (!x->msg[0])
        one_line(x->msg, sizeof x->msg, e);
    if (!x->parse[0] && e->domain == XML_FROM_PARSER)
        one_line(x->parse, sizeof x->parse, e);
}

static double reader_attr_d(xmlTextReaderPtr r, const char *name, double dflt)
{
    xmlChar *v = xmlTextReaderGetAttribute(r, BAD_CAST name);
    double d = v ? strtod((const char *)v, NULL) : dflt;
    xmlFree(v);
    return d;
}

static uint64_t reader_attr_u(xmlTextReaderPtr r, const char *name, uint64_t dflt)
{
    xmlChar *v = xmlTextReaderGetAttribute(r, BAD_CAST name);
    uint64_t u = v ? strtoull((const char *)v, NULL, 10) : dflt;
    xmlFree(v);
    return u;
}

/* The streaming reader: rank `rank`'s table (RANKS_ALL: every rank's), with the phases'
 * events or not */
#define RANKS_ALL UINT32_MAX

static int read_stream(const char *path, uint32_t rank, int events, pas2p_signature_t *s,
                       char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        pas2p_xml_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    fclose(fp);
    rank_errors_t xe = {{0}, {0}};
    xmlRelaxNGPtr schema = pas2p_xml_schema(pas2p_signature_rng);
    xmlTextReaderPtr r = schema ? xmlReaderForFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOBLANKS)
                                : NULL;
    int rc = -1, f = 0, ret = -1;
    if (!r || xmlTextReaderRelaxNGSetSchema(r, schema)) {
        pas2p_xml_err(err, errlen, "%s: cannot read (out of memory, or the schema does not load)", path);
        goto out;
    }
    xmlTextReaderSetStructuredErrorHandler(r, on_reader_error, &xe);
    /* the root element and its version */
    while ((ret = xmlTextReaderRead(r)) == 1 && xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT)
        ;
    if (ret != 1) {
        pas2p_xml_err(err, errlen, "%s: not XML (%s)", path,
                      xe.parse[0] ? xe.parse : xe.msg[0] ? xe.msg : "no element");
        goto out;
    }
    const char *root = (const char *)xmlTextReaderConstName(r);
    if (!root || strcmp(root, "pas2p-signature")) {
        pas2p_xml_err(err, errlen, "%s: not a pas2p signature (root element <%s>)", path, root ? root : "none");
        goto out;
    }
    s->version = (uint32_t)reader_attr_u(r, "version", 0);
    if (s->version != PAS2P_SIGNATURE_VERSION) {
        pas2p_xml_err(err, errlen, "%s: signature version %u, this pas2p reads version %u", path,
                      s->version, PAS2P_SIGNATURE_VERSION);
        goto out;
    }
    uint32_t ccap = 0, pcap = 0, rcap = 0;
    pas2p_sig_rank_t *R = NULL;
    ret = xmlTextReaderRead(r);
    while (ret == 1) {
        int depth = xmlTextReaderDepth(r);
        if (xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT || depth < 1 || depth > 2) {
            ret = xmlTextReaderRead(r);
            continue;
        }
        const char *name = (const char *)xmlTextReaderConstName(r);
        int is_rank = depth == 1 && name && !strcmp(name, "rank");
        if (is_rank && rank != RANKS_ALL && (R || reader_attr_u(r, "id", UINT64_MAX) != rank)) {
            ret = xmlTextReaderNext(r); /* another rank's table: read past, not kept */
            continue;
        }
        if (is_rank) { /* a table kept: its attributes, then its phases one at a time */
            if (s->nranks == rcap) {
                uint32_t c = rcap ? 2 * rcap : (rank == RANKS_ALL ? 16 : 1);
                pas2p_sig_rank_t *v = realloc(s->ranks, c * sizeof *v);
                if (!v) {
                    f = -1;
                    break;
                }
                s->ranks = v;
                rcap = c;
            }
            R = &s->ranks[s->nranks++];
            memset(R, 0, sizeof *R);
            pcap = 0;
            R->rank = (uint32_t)reader_attr_u(r, "id", 0);
            R->elapsed_s = reader_attr_d(r, "elapsed_s", 0);
            R->events = reader_attr_u(r, "events", 0);
            R->kernel_rate = reader_attr_d(r, "kernel_rate", 0);
            R->compute_blocked = blocked_share(reader_attr_d(r, "compute_blocked", 0));
            R->untraced_s = reader_attr_d(r, "untraced_s", 0);
            if (!(R->untraced_s > 0 && R->untraced_s <= R->elapsed_s))
                R->untraced_s = 0; /* (said only as a note: an odd value is none) */
            ret = xmlTextReaderRead(r);
            continue;
        }
        if (depth == 2 && R && name && !strcmp(name, "phase")) {
            if (R->nphases == pcap) {
                uint32_t c = pcap ? 2 * pcap : 16;
                pas2p_sig_phase_t *v = realloc(R->phases, c * sizeof *v);
                if (!v) {
                    f = -1;
                    break;
                }
                R->phases = v;
                pcap = c;
            }
            memset(&R->phases[R->nphases], 0, sizeof *R->phases);
            f = read_phase(r, s->anchored, events, R->events, &R->phases[R->nphases++], &ret);
            if (f)
                break;
            continue;
        }
        xmlNodePtr n = depth == 1 ? xmlTextReaderExpand(r) : NULL;
        if (!n) {
            ret = depth == 1 ? -1 : xmlTextReaderRead(r);
            continue;
        }
        f = fill_top(n, s, &ccap);
        if (f)
            break;
        ret = xmlTextReaderNext(r);
    }
    if (f)
        fill_error(f, path, err, errlen);
    else if (xe.parse[0])
        pas2p_xml_err(err, errlen, "%s: not XML (%s)", path, xe.parse);
    else if (ret != 0 || xmlTextReaderIsValid(r) != 1)
        pas2p_xml_err(err, errlen, "%s: not a valid signature (%s)", path, xe.msg[0] ? xe.msg : "schema");
    else if (!R && rank != RANKS_ALL)
        pas2p_xml_err(err, errlen, "%s: has no phase table for rank %u", path, rank);
    else if (rank == RANKS_ALL && (s->nranks == 0 || s->representative >= s->nranks))
        pas2p_xml_err(err, errlen, "%s: representative rank %u has no phase table", path, s->representative);
    else
        rc = 0;
out:
    if (r)
        xmlFreeTextReader(r);
    if (schema)
        xmlRelaxNGFree(schema);
    if (rc)
        pas2p_signature_free(s);
    return rc;
}

/* every rank's table, as a stream too: the file was loaded whole (libxml2's tree, ~18x the
 * file: Ray's 78 MB signature took 1.45 GB in simulate, its 1.8 GB one with 27 452 phases
 * was killed by the OOM killer at 24 GB); memory now follows the tables built */
int pas2p_signature_read(const char *path, pas2p_signature_t *s, char *err, size_t errlen)
{
    return read_stream(path, RANKS_ALL, 1, s, err, errlen);
}

int pas2p_signature_read_rank(const char *path, uint32_t rank, pas2p_signature_t *s, char *err,
                              size_t errlen)
{
    if (rank == RANKS_ALL) {
        memset(s, 0, sizeof *s);
        pas2p_xml_err(err, errlen, "%s: has no phase table for rank %u", path, rank);
        return -1;
    }
    return read_stream(path, rank, 1, s, err, errlen);
}

int pas2p_signature_read_tables(const char *path, pas2p_signature_t *s, char *err, size_t errlen)
{
    return read_stream(path, RANKS_ALL, 0, s, err, errlen);
}

/* a call's part in the run's communication: 1 when it sends, receives or takes part in a
 * collective (its bytes: what it sends; a receive's rbytes may be its buffer's capacity,
 * and what it receives is a sender's bytes) */
static int communicates(const pas2p_sig_event_t *e)
{
    switch (pas2p_call_class(e->call)) {
    case PAS2P_CLASS_SEND:
    case PAS2P_CLASS_RECV:
    case PAS2P_CLASS_SENDRECV:
    case PAS2P_CLASS_COLLECTIVE:
    case PAS2P_CLASS_START:
        return 1;
    default:
        return 0;
    }
}

/* the messages of a phase of a rank (weight x calls that communicate), for sorting */
typedef struct {
    double m;
    uint32_t id;
} msgs_key_t;

static int by_msgs(const void *a, const void *b)
{
    const msgs_key_t *x = a, *y = b;
    return x->m < y->m ? 1 : x->m > y->m ? -1 : (x->id > y->id) - (x->id < y->id);
}

/* Then the messages left out are bounded: while the phases replayed (relevant, or marked)
 * hold under PAS2P_COMM_COVER of a rank's messages, the least covered rank's phase with the
 * most messages not replayed yet is marked, on every rank.  Each phase under the share
 * above, together they could hold much of the run's communication: deal.II's step-40
 * (106 phases) left 25 % of its collectives and 14 % of its sends in phases under 1 % each,
 * estimated from the replayed phases' time ratio, which has no latency in it: with its two
 * ranks on two hosts of a GbE cluster the signature's simulation was 4 % below the full
 * trace's, and within 0.2 % with every phase replayed. */
static void cover_messages(pas2p_signature_t *s, uint8_t *mark, uint32_t maxid)
{
    uint32_t R = s->nranks;
    double *tot = calloc(R ? R : 1, sizeof *tot), *got = calloc(R ? R : 1, sizeof *got);
    double *byid = calloc(((size_t)maxid + 1) * (R ? R : 1), sizeof *byid);
    msgs_key_t **big = calloc(R ? R : 1, sizeof *big);
    uint32_t *next = calloc(R ? R : 1, sizeof *next), *nbig = calloc(R ? R : 1, sizeof *nbig);
    int ok = tot && got && byid && big && next && nbig;
    for (uint32_t r = 0; ok && r < R; r++) {
        const pas2p_sig_rank_t *Rk = &s->ranks[r];
        if (!(big[r] = malloc((Rk->nphases ? Rk->nphases : 1) * sizeof **big))) {
            ok = 0;
            break;
        }
        for (uint32_t k = 0; k < Rk->nphases; k++) {
            const pas2p_sig_phase_t *p = &Rk->phases[k];
            double m = 0;
            for (uint32_t j = 0; j < p->nevents; j++)
                m += communicates(&p->events[j]) ? (double)p->weight : 0;
            tot[r] += m;
            byid[(size_t)p->id * R + r] += m;
            if (p->relevant || mark[p->id])
                got[r] += m;
            else if (m > 0)
                big[r][nbig[r]++] = (msgs_key_t){.m = m, .id = p->id};
        }
        qsort(big[r], nbig[r], sizeof **big, by_msgs);
    }
    while (ok) {
        uint32_t w = UINT32_MAX;
        double least = PAS2P_COMM_COVER;
        for (uint32_t r = 0; r < R; r++)
            if (tot[r] > 0 && got[r] < least * tot[r] && next[r] < nbig[r]) {
                least = got[r] / tot[r];
                w = r;
            }
        if (w == UINT32_MAX)
            break;
        uint32_t id = big[w][next[w]++].id;
        if (mark[id])
            continue;
        mark[id] = 1;
        for (uint32_t r = 0; r < R; r++)
            got[r] += byid[(size_t)id * R + r];
    }
    for (uint32_t r = 0; big && r < R; r++)
        free(big[r]);
    free(tot), free(got), free(byid), free(big), free(next), free(nbig);
}

uint32_t pas2p_signature_relevant_comm(pas2p_signature_t *s, double share)
{
    if (!s->global || !(share > 0))
        return 0;
    uint32_t maxid = 0;
    for (uint32_t r = 0; r < s->nranks; r++)
        for (uint32_t k = 0; k < s->ranks[r].nphases; k++)
            if (s->ranks[r].phases[k].id > maxid)
                maxid = s->ranks[r].phases[k].id;
    uint8_t *mark = calloc((size_t)maxid + 1, 1);
    if (!mark)
        return 0; /* (no more phases replayed: the prediction is the relevant phases') */
    for (uint32_t r = 0; r < s->nranks; r++) {
        const pas2p_sig_rank_t *R = &s->ranks[r];
        double msgs = 0, bytes = 0;
        for (uint32_t k = 0; k < R->nphases; k++)
            for (uint32_t j = 0; j < R->phases[k].nevents; j++) {
                const pas2p_sig_event_t *e = &R->phases[k].events[j];
                if (communicates(e)) {
                    msgs += (double)R->phases[k].weight;
                    bytes += (double)R->phases[k].weight * (double)e->bytes;
                }
            }
        for (uint32_t k = 0; k < R->nphases; k++) {
            const pas2p_sig_phase_t *p = &R->phases[k];
            double m = 0, b = 0;
            for (uint32_t j = 0; j < p->nevents; j++)
                if (communicates(&p->events[j])) {
                    m += (double)p->weight;
                    b += (double)p->weight * (double)p->events[j].bytes;
                }
            if (!p->relevant && p->weight &&
                ((m > 0 && m >= share * msgs) || (b > 0 && b >= share * bytes)))
                mark[p->id] = 1;
        }
    }
    cover_messages(s, mark, maxid);
    uint32_t n = 0;
    for (uint32_t id = 0; id <= maxid; id++)
        n += mark[id];
    for (uint32_t r = 0; r < s->nranks; r++)
        for (uint32_t k = 0; k < s->ranks[r].nphases; k++)
            if (mark[s->ranks[r].phases[k].id])
                s->ranks[r].phases[k].relevant = 2;
    free(mark);
    return n;
}

/* a phase of a rank, for sorting by id or by share of the rank's time */
typedef struct {
    double share; /* weight x mean time */
    uint32_t id, k;
} phase_key_t;

static int by_id(const void *a, const void *b)
{
    uint32_t x = ((const phase_key_t *)a)->id, y = ((const phase_key_t *)b)->id;
    return (x > y) - (x < y);
}

static int by_share(const void *a, const void *b)
{
    const phase_key_t *x = a, *y = b;
    return x->share < y->share ? 1 : x->share > y->share ? -1 : (x->id > y->id) - (x->id < y->id);
}

/* the index of the phase with that id in a rank's keys sorted by id, or -1 */
static long phase_by_id(const phase_key_t *ids, uint32_t n, uint32_t id)
{
    long lo = 0, hi = (long)n - 1;
    while (lo <= hi) {
        long mid = (lo + hi) / 2;
        if (ids[mid].id == id)
            return (long)ids[mid].k;
        if (ids[mid].id < id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int pas2p_signature_untraced_note(const pas2p_signature_t *s, char *out, size_t len)
{
    const pas2p_sig_rank_t *most = NULL;
    for (uint32_t r = 0; r < s->nranks; r++) {
        const pas2p_sig_rank_t *R = &s->ranks[r];
        if (R->untraced_s > 0 && R->elapsed_s > 0 &&
            (!most || R->untraced_s / R->elapsed_s > most->untraced_s / most->elapsed_s))
            most = R;
    }
    if (!most || most->untraced_s < 0.01 * most->elapsed_s)
        return 0;
    snprintf(out, len, "rank %u spent %.3g s, %.1f %% of its run, in MPI calls that were counted "
             "and not traced (one-sided communication, MPI-IO): its phases carry that time as "
             "computation, so replay and simulate replay it as computation (replay --compute "
             "kernel as CPU work; --compute sleep waits it out) and do not model those calls "
             "on the target", most->rank, most->untraced_s, 100 * most->untraced_s / most->elapsed_s);
    return 1;
}

uint32_t pas2p_signature_relevant_cover(pas2p_signature_t *s, double cover, double *before)
{
    if (before)
        *before = 1;
    if (!s->global || !(cover > 0) || !s->nranks)
        return 0;
    uint32_t n = 0;
    phase_key_t **ids = calloc(s->nranks, sizeof *ids), **big = calloc(s->nranks, sizeof *big);
    double *total = calloc(s->nranks, sizeof *total), *got = calloc(s->nranks, sizeof *got);
    int ok = ids && big && total && got;
    for (uint32_t r = 0; ok && r < s->nranks; r++) {
        const pas2p_sig_rank_t *R = &s->ranks[r];
        ids[r] = malloc((R->nphases ? R->nphases : 1) * sizeof **ids);
        big[r] = malloc((R->nphases ? R->nphases : 1) * sizeof **big);
        if (!ids[r] || !big[r]) {
            ok = 0;
            break;
        }
        for (uint32_t k = 0; k < R->nphases; k++) {
            const pas2p_sig_phase_t *p = &R->phases[k];
            double sh = (double)p->weight * p->time_mean_s;
            ids[r][k] = big[r][k] = (phase_key_t){.share = sh, .id = p->id, .k = k};
            total[r] += sh;
            got[r] += p->relevant ? sh : 0;
        }
        qsort(ids[r], R->nphases, sizeof **ids, by_id);
        qsort(big[r], R->nphases, sizeof **big, by_share);
        if (before && total[r] > 0 && got[r] / total[r] < *before)
            *before = got[r] / total[r];
    }
    /* the least covered rank takes its largest phase not replayed yet, marked on every rank
     * that has it, until every rank is covered (next[r]: where rank r's list goes on) */
    uint32_t *next = ok ? calloc(s->nranks, sizeof *next) : NULL;
    while (next) {
        uint32_t w = UINT32_MAX;
        double least = cover;
        for (uint32_t r = 0; r < s->nranks; r++)
            if (total[r] > 0 && got[r] < least * total[r] && next[r] < s->ranks[r].nphases) {
                least = got[r] / total[r];
                w = r;
            }
        if (w == UINT32_MAX)
            break;
        const pas2p_sig_rank_t *R = &s->ranks[w];
        const pas2p_sig_phase_t *p = &R->phases[big[w][next[w]++].k];
        if (p->relevant || !p->weight)
            continue;
        n++;
        for (uint32_t q = 0; q < s->nranks; q++) {
            long k = phase_by_id(ids[q], s->ranks[q].nphases, p->id);
            pas2p_sig_phase_t *x = k >= 0 ? &s->ranks[q].phases[k] : NULL;
            if (x && !x->relevant) {
                x->relevant = 3;
                got[q] += (double)x->weight * x->time_mean_s;
            }
        }
    }
    free(next);
    for (uint32_t r = 0; ids && big && r < s->nranks; r++) {
        free(ids[r]);
        free(big[r]);
    }
    free(ids);
    free(big);
    free(total);
    free(got);
    return n;
}

const pas2p_sig_rank_t *pas2p_signature_uncalibrated(const pas2p_signature_t *s)
{
    for (uint32_t r = 0; r < s->nranks; r++)
        if (!(s->ranks[r].kernel_rate > 0))
            return &s->ranks[r];
    return NULL;
}

void pas2p_signature_free(pas2p_signature_t *s)
{
    for (uint32_t i = 0; s->comms && i < s->ncomms; i++) {
        free(s->comms[i].members);
        free(s->comms[i].dims);
        free(s->comms[i].periods);
    }
    free(s->comms);
    for (uint32_t r = 0; s->ranks && r < s->nranks; r++) {
        for (uint32_t i = 0; s->ranks[r].phases && i < s->ranks[r].nphases; i++) {
            pas2p_sig_phase_t *p = &s->ranks[r].phases[i];
            for (uint32_t k = 0; p->events && k < p->nevents; k++)
                free(p->events[k].starts);
            free(p->events);
        }
        free(s->ranks[r].phases);
    }
    free(s->ranks);
    s->comms = NULL;
    s->ranks = NULL;
    s->ncomms = s->nranks = 0;
}

/* ------------------------------------------------------------------ printing */
void pas2p_signature_print_table(const pas2p_signature_t *s, uint32_t ri, FILE *out)
{
    const pas2p_sig_rank_t *R = &s->ranks[ri];
    fprintf(out, "\n# rank %u phases (relevant: weight x PhaseET >= %.2f %% of AET)\n", R->rank,
            s->relevance * 100);
    fprintf(out, "%5s %6s %14s %10s %12s %12s %12s %8s  %-3s %s\n", "phase", "events",
            "instructions", "weight", "PhaseET_s", "median_s", "W*PhaseET_s", "%AET", "rel", "calls");
    for (uint32_t i = 0; i < R->nphases; i++) {
        const pas2p_sig_phase_t *p = &R->phases[i];
        double wt = (double)p->weight * p->time_mean_s;
        char calls[96];
        size_t len = 0;
        calls[0] = 0;
        for (uint32_t k = 0; k < p->nevents && k < 4 && len < sizeof calls; k++) {
            const char *nm = pas2p_call_name(p->events[k].call);
            len += (size_t)snprintf(calls + len, sizeof calls - len, "%s%s", k ? " " : "",
                                    nm ? nm + 4 : "?");
        }
        if (p->nevents > 4 && len < sizeof calls)
            snprintf(calls + len, sizeof calls - len, " ...");
        char ins[32];
        if (p->instructions_mean > 0)
            snprintf(ins, sizeof ins, "%.0f", p->instructions_mean);
        else
            snprintf(ins, sizeof ins, "-");
        uint32_t k = p->skel_occ > 1 ? p->skel_occ : 1; /* (events: one occurrence's) */
        fprintf(out, "%5u %6u %14s %10" PRIu64 " %12.6f %12.6f %12.6f %8.2f  %-3s %s\n", p->id,
                (p->nevents + k / 2) / k, ins, p->weight, p->time_mean_s, p->time_median_s, wt,
                s->aet_s > 0 ? 100 * wt / s->aet_s : 0, p->relevant ? "yes" : "", calls);
    }
}

void pas2p_signature_print_global(const pas2p_signature_t *s, FILE *out)
{
    uint32_t maxid = 0;
    for (uint32_t r = 0; r < s->nranks; r++)
        for (uint32_t i = 0; i < s->ranks[r].nphases; i++)
            if (s->ranks[r].phases[i].id > maxid)
                maxid = s->ranks[r].phases[i].id;
    fprintf(out, "\n# global phases: one slice of the run on every rank (share: the rank's W x "
            "PhaseET over the slowest rank's; - : no call there)\n");
    fprintf(out, "%5s %10s %12s %12s %8s  %-3s  %s\n", "phase", "weight", "PhaseET_s",
            "W*PhaseET_s", "%AET", "rel", "share per rank");
    for (uint32_t id = 1; id <= maxid; id++) {
        uint64_t weight = 0;
        double worst = 0;
        int rel = 0, seen = 0;
        for (uint32_t r = 0; r < s->nranks; r++)
            for (uint32_t i = 0; i < s->ranks[r].nphases; i++) {
                const pas2p_sig_phase_t *p = &s->ranks[r].phases[i];
                if (p->id != id)
                    continue;
                seen = 1;
                weight = p->weight;
                rel |= p->relevant;
                if (p->time_mean_s > worst)
                    worst = p->time_mean_s;
            }
        if (!seen)
            continue;
        double wt = (double)weight * worst;
        fprintf(out, "%5u %10" PRIu64 " %12.6f %12.6f %8.2f  %-3s ", id, weight, worst, wt,
                s->aet_s > 0 ? 100 * wt / s->aet_s : 0, rel ? "yes" : "");
        for (uint32_t r = 0; r < s->nranks; r++) {
            const pas2p_sig_phase_t *p = NULL;
            for (uint32_t i = 0; i < s->ranks[r].nphases && !p; i++)
                if (s->ranks[r].phases[i].id == id)
                    p = &s->ranks[r].phases[i];
            if (r == 16 && s->nranks > 17) {
                fprintf(out, " ... (%u ranks: --rank R)", s->nranks);
                break;
            }
            if (p && worst > 0)
                fprintf(out, " %3.0f%%", 100 * p->time_mean_s / worst);
            else if (p) /* (a phase of no time on any rank, MPI_Init alone: all alike) */
                fprintf(out, " %3.0f%%", 100.0);
            else
                fprintf(out, " %4s", "-");
        }
        fputc('\n', out);
    }
}

int pas2p_signature_peek(const char *path, char *command, size_t len, uint32_t *np,
                         char *program, size_t plen)
{
    xmlTextReaderPtr r = xmlReaderForFile(path, NULL, XML_PARSE_NONET);
    int rc = -1;
    for (int k = 0; r && k < 8 && xmlTextReaderRead(r) == 1; k++) {
        if (xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT)
            continue;
        const xmlChar *name = xmlTextReaderConstName(r);
        if (!name || strcmp((const char *)name, "application"))
            continue;
        xmlChar *c = xmlTextReaderGetAttribute(r, BAD_CAST "command");
        xmlChar *n = xmlTextReaderGetAttribute(r, BAD_CAST "np");
        xmlChar *p = xmlTextReaderGetAttribute(r, BAD_CAST "program");
        if (c && n) {
            snprintf(command, len, "%s", (const char *)c);
            *np = (uint32_t)strtoul((const char *)n, NULL, 10);
            snprintf(program, plen, "%s", p ? (const char *)p : "");
            rc = 0;
        }
        xmlFree(c);
        xmlFree(n);
        xmlFree(p);
        break;
    }
    if (r)
        xmlFreeTextReader(r);
    return rc;
}
