/* The prediction result file (pas2p_pet.h, prediction.rng): written by every prediction
 * path, printed by `pas2p show`. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pas2p_pet.h"
#include "prediction_rng.h" /* generated: const char pas2p_prediction_rng[] */
#include "pas2p_xml.h"

void pas2p_prediction_stamp(pas2p_prediction_t *p)
{
    if (gethostname(p->host, sizeof p->host))
        snprintf(p->host, sizeof p->host, "unknown");
    p->host[sizeof p->host - 1] = 0;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(p->date, sizeof p->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void pas2p_prediction_begin(pas2p_prediction_t *p, const char *method, const char *sig_path,
                            const pas2p_signature_t *sig, double wall_s)
{
    snprintf(p->method, sizeof p->method, "%s", method);
    if (!realpath(sig_path, p->signature))
        snprintf(p->signature, sizeof p->signature, "%s", sig_path);
    snprintf(p->application, sizeof p->application, "%s", sig->command);
    p->wall_s = wall_s;
    pas2p_prediction_stamp(p);
}

#define W(call)                                                                                   \
    do {                                                                                          \
        if ((call) < 0)                                                                           \
            goto fail;                                                                            \
    } while (0)
#define STR(name, v) W(xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST(v)))
/* the schema's doubles: finite values only (a NAN never reaches the file), each with the
 * fewest digits (9 at least) that read back as the same double: `pas2p show` of the file
 * prints what `predict` printed (PET 17.332275 s was written as 17.3322755 and shown as
 * 17.332276: the CI's ASan suite saw it) */
static char *real_text(char *buf, size_t len, double v)
{
    if (!isfinite(v))
        v = 0;
    for (int digits = 9; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}
#define REAL(name, v)                                                                             \
    do {                                                                                          \
        char real_[32];                                                                           \
        STR(name, real_text(real_, sizeof real_, (v)));                                           \
    } while (0)

int pas2p_prediction_write(const pas2p_prediction_t *p, const char *path, char *err, size_t errlen)
{
    char tmp[4200];
    xmlTextWriterPtr w = pas2p_xml_create(path, "pas2p-prediction", PAS2P_PREDICTION_VERSION,
                                          tmp, err, errlen);
    if (!w)
        return -1;
    const pas2p_pet_t *t = &p->pet;
    W(xmlTextWriterStartElement(w, BAD_CAST "run"));
    STR("method", p->method);
    STR("signature", p->signature);
    STR("application", p->application);
    STR("target", p->target);
    STR("host", p->host);
    STR("date", p->date);
    REAL("wall_s", p->wall_s);
    STR("stop", p->stop);
    W(xmlTextWriterEndElement(w));
    W(xmlTextWriterStartElement(w, BAD_CAST "result"));
    W(xmlTextWriterWriteFormatAttribute(w, BAD_CAST "rank", "%u", t->rank));
    REAL("pet_s", t->pet_s);
    REAL("set_s", t->set_s);
    if (t->aet_s > 0) {
        REAL("aet_s", t->aet_s);
        REAL("pete", t->pete);
    }
    REAL("ratio", t->ratio);
    REAL("relevant_s", t->relevant_s);
    REAL("remainder_base_s", t->remainder_base_s);
    REAL("remainder_s", t->remainder_s);
    for (uint32_t i = 0; i < t->nphases; i++) {
        const pas2p_pet_phase_t *q = &t->phases[i];
        W(xmlTextWriterStartElement(w, BAD_CAST "phase"));
        W(xmlTextWriterWriteFormatAttribute(w, BAD_CAST "id", "%u", q->id));
        W(xmlTextWriterWriteFormatAttribute(w, BAD_CAST "weight", "%llu",
                                            (unsigned long long)q->weight));
        REAL("base_s", q->base_s);
        REAL("target_s", q->target_s);
        if (isfinite(q->ratio))
            REAL("ratio", q->ratio);
        REAL("contribution_s", q->contribution_s);
        STR("measured", q->estimated ? "no" : "yes");
        if (q->for_messages)
            STR("relevant", q->for_messages == 2 ? "cover" : "messages");
        if (q->nvalues) {
            W(xmlTextWriterWriteFormatAttribute(w, BAD_CAST "values", "%u", q->nvalues));
            REAL("lo_s", q->lo_s);
            REAL("hi_s", q->hi_s);
        }
        if (q->early_s > 0)
            REAL("early_s", q->early_s);
        if (q->paired_first) {
            W(xmlTextWriterWriteFormatAttribute(w, BAD_CAST "paired_first", "%u", q->paired_first));
            W(xmlTextWriterWriteFormatAttribute(w, BAD_CAST "paired_n", "%u", q->paired_n));
            REAL("paired_ratio", q->paired_ratio);
            if (q->paired_runs > 1)
                W(xmlTextWriterWriteFormatAttribute(w, BAD_CAST "paired_runs", "%u",
                                                    q->paired_runs));
            if (q->paired_base > 0)
                REAL("paired_base", q->paired_base);
            if (q->paired_how) { /* (pas2p_times_pair: some pairs left out, or about to be) */
                W(xmlTextWriterWriteFormatAttribute(w, BAD_CAST "paired_used", "%u",
                                                    q->paired_used));
                W(xmlTextWriterWriteFormatAttribute(w, BAD_CAST "paired_from", "%u",
                                                    q->paired_from));
                W(xmlTextWriterWriteFormatAttribute(w, BAD_CAST "paired_how", "%u",
                                                    q->paired_how));
                if (q->paired_how & PAS2P_PAIR_AFTER_CHANGE)
                    REAL("paired_before", q->paired_before);
            }
        }
        W(xmlTextWriterEndElement(w));
    }
    W(xmlTextWriterEndElement(w));
    if (p->note[0])
        W(xmlTextWriterWriteElement(w, BAD_CAST "note", BAD_CAST p->note));
    W(xmlTextWriterEndElement(w));
    return pas2p_xml_commit(w, 1, tmp, path, err, errlen);
fail:
    return pas2p_xml_commit(w, 0, tmp, path, err, errlen);
}

int pas2p_prediction_read(const char *path, pas2p_prediction_t *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    xmlDocPtr doc;
    int rc = pas2p_xml_load(path, "prediction", "pas2p-prediction", PAS2P_PREDICTION_VERSION,
                            pas2p_prediction_rng, &doc, err, errlen);
    if (rc)
        return rc;
    pas2p_pet_t *t = &p->pet;
    t->pete = NAN;
    rc = 0;
    for (xmlNodePtr n = xmlDocGetRootElement(doc)->children; n && !rc; n = n->next) {
        if (pas2p_xml_is(n, "run")) {
            pas2p_xml_attr_s(n, "method", p->method, sizeof p->method);
            pas2p_xml_attr_s(n, "signature", p->signature, sizeof p->signature);
            pas2p_xml_attr_s(n, "application", p->application, sizeof p->application);
            pas2p_xml_attr_s(n, "target", p->target, sizeof p->target);
            pas2p_xml_attr_s(n, "host", p->host, sizeof p->host);
            pas2p_xml_attr_s(n, "date", p->date, sizeof p->date);
            pas2p_xml_attr_s(n, "stop", p->stop, sizeof p->stop);
            p->wall_s = pas2p_xml_attr_d(n, "wall_s");
        } else if (pas2p_xml_is(n, "note")) {
            xmlChar *c = xmlNodeGetContent(n);
            snprintf(p->note, sizeof p->note, "%s", c ? (const char *)c : "");
            xmlFree(c);
        } else if (pas2p_xml_is(n, "result")) {
            t->rank = (uint32_t)pas2p_xml_attr_u(n, "rank");
            t->pet_s = pas2p_xml_attr_d(n, "pet_s");
            t->set_s = pas2p_xml_attr_d(n, "set_s");
            t->aet_s = pas2p_xml_attr_d(n, "aet_s");
            if (pas2p_xml_attr(n, "pete"))
                t->pete = pas2p_xml_attr_d(n, "pete");
            t->ratio = pas2p_xml_attr_d(n, "ratio");
            t->relevant_s = pas2p_xml_attr_d(n, "relevant_s");
            t->remainder_base_s = pas2p_xml_attr_d(n, "remainder_base_s");
            t->remainder_s = pas2p_xml_attr_d(n, "remainder_s");
            uint32_t np = pas2p_xml_count(n, "phase");
            t->phases = calloc(np ? np : 1, sizeof *t->phases);
            if (!t->phases) {
                pas2p_xml_err(err, errlen, "%s: out of memory", path);
                rc = -1;
                break;
            }
            for (xmlNodePtr k = n->children; k; k = k->next) {
                if (!pas2p_xml_is(k, "phase"))
                    continue;
                pas2p_pet_phase_t *q = &t->phases[t->nphases++];
                q->id = (uint32_t)pas2p_xml_attr_u(k, "id");
                q->weight = pas2p_xml_attr_u(k, "weight");
                q->base_s = pas2p_xml_attr_d(k, "base_s");
                q->target_s = pas2p_xml_attr_d(k, "target_s");
                q->ratio = pas2p_xml_attr(k, "ratio") ? pas2p_xml_attr_d(k, "ratio") : NAN;
                q->contribution_s = pas2p_xml_attr_d(k, "contribution_s");
                q->estimated = !strcmp(pas2p_xml_attr(k, "measured"), "no");
                q->for_messages = !pas2p_xml_attr(k, "relevant") ? 0
                                  : !strcmp(pas2p_xml_attr(k, "relevant"), "cover") ? 2 : 1;
                q->early_s = pas2p_xml_attr(k, "early_s") ? pas2p_xml_attr_d(k, "early_s") : 0;
                if (pas2p_xml_attr(k, "paired_first")) {
                    q->paired_first = (uint32_t)pas2p_xml_attr_u(k, "paired_first");
                    q->paired_n = (uint32_t)pas2p_xml_attr_u(k, "paired_n");
                    q->paired_ratio = pas2p_xml_attr_d(k, "paired_ratio");
                    q->paired_runs = (uint32_t)pas2p_xml_attr_u(k, "paired_runs");
                    q->paired_base = pas2p_xml_attr(k, "paired_base")
                                         ? pas2p_xml_attr_d(k, "paired_base") : 0;
                    q->paired_used = pas2p_xml_attr(k, "paired_used")
                                         ? (uint32_t)pas2p_xml_attr_u(k, "paired_used")
                                         : q->paired_n;
                    q->paired_from = (uint32_t)pas2p_xml_attr_u(k, "paired_from");
                    q->paired_how = (unsigned)pas2p_xml_attr_u(k, "paired_how");
                    q->paired_before = pas2p_xml_attr(k, "paired_before")
                                           ? pas2p_xml_attr_d(k, "paired_before") : 0;
                }
                if (pas2p_xml_attr(k, "values")) {
                    q->nvalues = (uint32_t)pas2p_xml_attr_u(k, "values");
                    q->lo_s = pas2p_xml_attr_d(k, "lo_s");
                    q->hi_s = pas2p_xml_attr_d(k, "hi_s");
                }
                t->nestimated += (uint32_t)q->estimated;
            }
        }
    }
    xmlFreeDoc(doc);
    if (rc)
        pas2p_prediction_free(p);
    return rc;
}

void pas2p_prediction_free(pas2p_prediction_t *p)
{
    pas2p_pet_free(&p->pet);
}

void pas2p_prediction_print(const pas2p_prediction_t *p, FILE *out)
{
    fprintf(out, "method = %s\n", p->method);
    if (p->target[0])
        fprintf(out, "target = %s\n", p->target);
    fprintf(out, "stop = %s\n", p->stop);
    if (p->note[0])
        fprintf(out, "note: %s\n", p->note);
    fprintf(out, "wall = %.6f s\n", p->wall_s);
    pas2p_pet_print_for(&p->pet, p->method, out);
    /* the application ran SET before it stopped, unfinished: a PET below that cannot be (the
     * timed phases ran faster than the rest of the run, e.g. ranks sharing cores that
     * spin-wait: CP2K at np 4 on 2 cores, PET 6.30 s after 6.90 s).  Within 5 % it can: an
     * EP-like run stops in its last cheap calls, after SET ~ AET, and SET also holds the
     * ranks' skew at the start (NAS EP's shape on a loaded machine: PET 0.200 s, SET 0.204) */
    if (!strcmp(p->method, "predict") && !strncmp(p->stop, "early", 5) &&
        p->pet.set_s > 1.05 * p->pet.pet_s)
        fprintf(out, "warning: PET (%.6f s) is below the %.6f s the run had taken when it stopped "
                "(SET): the timed phases ran faster than the rest of the run; this PET is too "
                "low\n", p->pet.pet_s, p->pet.set_s);
    /* --to-end: the run's own time is known; a PET far from it says the timed occurrences
     * were not the run's mean (ftn_ring at np 4 on 2 cores: PET 0.25 s for a run of 0.65 s) */
    else if (!strcmp(p->method, "predict") && !strncmp(p->stop, "to the end", 10) &&
             p->pet.aet_s > 0 && fabs(p->pet.pet_s - p->pet.aet_s) > 0.10 * p->pet.aet_s)
        fprintf(out, "warning: PET is %+.1f %% off this run's own time (%.6f s, --to-end): the "
                "phases' occurrences timed before SET ran %s than the run did on average, or "
                "the base's did (see each phase's values, range and notes)\n",
                (p->pet.pet_s - p->pet.aet_s) / p->pet.aet_s * 100, p->pet.aet_s,
                p->pet.pet_s > p->pet.aet_s ? "slower" : "faster");
    /* a run that went to its end took SET, its own execution time: a PET far from it says
     * the timed occurrences were not the run's mean (few values and one hiccup: NAS LU S
     * on a loaded machine, PET 0.097 s for a run of 0.032 s) */
    else if (!strcmp(p->method, "predict") && !strncmp(p->stop, "none", 4) && p->pet.set_s > 0 &&
             fabs(p->pet.pet_s - p->pet.set_s) > 0.10 * p->pet.set_s)
        fprintf(out, "warning: this run went to its end in %.6f s (SET, its own execution time) "
                "and PET is %+.1f %% off it: the phases' timed occurrences ran %s than the run "
                "did on average (see each phase's values and range); trust SET for this run\n",
                p->pet.set_s, (p->pet.pet_s - p->pet.set_s) / p->pet.set_s * 100,
                p->pet.pet_s > p->pet.set_s ? "slower" : "faster");
}

int pas2p_prediction_check_base(const char *base_dir, const char *method, const char *sig_path,
                                const char *mode, char *err, size_t errlen)
{
    char path[PATH_MAX + 32], sig_abs[PATH_MAX], why[4400];
    pas2p_prediction_t p;
    memset(&p, 0, sizeof p);
    snprintf(path, sizeof path, "%.4000s/prediction.xml", base_dir);
    int rc = pas2p_prediction_read(path, &p, why, sizeof why);
    if (rc) {
        snprintf(err, errlen, "--relative %.1000s: %.2000s (give the -o directory of a %s on the "
                 "base machine)", base_dir, rc == -2 ? "not a prediction file" : why, method);
        pas2p_prediction_free(&p);
        return -1;
    }
    if (!realpath(sig_path, sig_abs))
        snprintf(sig_abs, sizeof sig_abs, "%s", sig_path);
    const char *bad = strcmp(p.method, method) ? "is not a"
                      : strcmp(p.signature, sig_abs) ? "ran another signature in its"
                      : !strstr(p.stop, mode) ? "has other settings in its"
                      : NULL;
    if (bad)
        snprintf(err, errlen, "--relative %.1000s: that run %s %s (%s of %.1000s; %.300s)", base_dir,
                 bad, method, p.method, p.signature, p.stop);
    pas2p_prediction_free(&p);
    return bad ? -1 : 0;
}
