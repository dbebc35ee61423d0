/* SimGrid platform files as pas2p needs them (pas2p_platform.h): the hosts, their cores and
 * speeds, read with libxml2 through pas2p_xml.h (no network, no DTD fetch).  SimGrid itself parses the file
 * again when it simulates; this reader only names the hosts ranks are mapped to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "pas2p_platform.h"
#include "pas2p_xml.h"

double pas2p_parse_speed(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0))
        return -1;
    static const struct {
        const char *unit;
        double mult;
    } u[] = {{"f", 1}, {"kf", 1e3}, {"Mf", 1e6}, {"Gf", 1e9}, {"Tf", 1e12}, {"Pf", 1e15},
             {"Ef", 1e18}, {"", 1}};
    size_t len = strcspn(end, ",");
    for (size_t i = 0; i < sizeof u / sizeof *u; i++)
        if (strlen(u[i].unit) == len && !strncmp(end, u[i].unit, len))
            return v * u[i].mult;
    return -1;
}

static int add_host(pas2p_platform_t *p, const char *name, double speed, int cores)
{
    if (p->nhosts % 64 == 0) {
        pas2p_host_t *h = realloc(p->hosts, (p->nhosts + 64) * sizeof *h);
        if (!h)
            return -1;
        p->hosts = h;
    }
    pas2p_host_t *h = &p->hosts[p->nhosts++];
    snprintf(h->name, sizeof h->name, "%s", name);
    h->speed = speed;
    h->cores = cores > 0 ? cores : 1;
    return 0;
}

/* <cluster prefix radical="0-15,20" suffix speed core>: hosts prefix N suffix */
static int add_cluster(pas2p_platform_t *p, xmlNodePtr n, char *err, size_t errlen, const char *path)
{
    const char *pre = pas2p_xml_attr(n, "prefix"), *suf = pas2p_xml_attr(n, "suffix"), *rad = pas2p_xml_attr(n, "radical"),
               *sp = pas2p_xml_attr(n, "speed"), *co = pas2p_xml_attr(n, "core");
    double speed = sp ? pas2p_parse_speed(sp) : -1;
    if (!rad || speed <= 0) {
        snprintf(err, errlen, "%s: cluster '%s' has no radical or no valid speed", path,
                 pas2p_xml_attr(n, "id") ? pas2p_xml_attr(n, "id") : "?");
        return -1;
    }
    const char *q = rad;
    while (*q) {
        char *end;
        long a = strtol(q, &end, 10), b = a;
        if (end == q)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long k = a; k <= b; k++) {
            char name[256];
            snprintf(name, sizeof name, "%.120s%ld%.120s", pre ? pre : "", k, suf ? suf : "");
            if (add_host(p, name, speed, co ? atoi(co) : 1))
                return -1;
        }
        q = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            break;
    }
    return 0;
}

/* <prop id="pas2p_speed_unit" value="kernel"/> among a host's or cluster's children */
static int says_kernel(xmlNodePtr n)
{
    for (n = n->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, "prop"))
            continue;
        const char *id = pas2p_xml_attr(n, "id"), *v = pas2p_xml_attr(n, "value");
        if (id && v && !strcmp(id, PAS2P_SPEED_UNIT_PROP) && !strcmp(v, "kernel"))
            return 1;
    }
    return 0;
}

static int walk(pas2p_platform_t *p, xmlNodePtr n, char *err, size_t errlen, const char *path)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (!strcmp((const char *)n->name, "host") || !strcmp((const char *)n->name, "cluster"))
            p->kernel_unit |= says_kernel(n);
        if (!strcmp((const char *)n->name, "host")) {
            const char *id = pas2p_xml_attr(n, "id"), *sp = pas2p_xml_attr(n, "speed"), *co = pas2p_xml_attr(n, "core");
            double speed = sp ? pas2p_parse_speed(sp) : -1;
            if (!id || speed <= 0) {
                snprintf(err, errlen, "%s: host '%s' has no valid speed", path, id ? id : "?");
                return -1;
            }
            if (add_host(p, id, speed, co ? atoi(co) : 1))
                return -1;
        } else if (!strcmp((const char *)n->name, "cluster")) {
            if (add_cluster(p, n, err, errlen, path))
                return -1;
        } else if (walk(p, n->children, err, errlen, path)) {
            return -1;
        }
    }
    return 0;
}

/* 1 if name is a <router>'s or a zone's (<zone>, <cluster>) id anywhere under n */
static int other_netpoint(xmlNodePtr n, const char *name)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        const char *id = pas2p_xml_attr(n, "id"), *el = (const char *)n->name;
        if (id && !strcmp(id, name) &&
            (!strcmp(el, "router") || !strcmp(el, "zone") || !strcmp(el, "cluster")))
            return 1;
        if (other_netpoint(n->children, name))
            return 1;
    }
    return 0;
}

/* Every <route>'s src and dst is a host or router of the platform (a cluster's router,
 * named ..._router..., is taken as one).  SimGrid aborts on one that is not, exit 134, its
 * list of existing netpoints in its log only (PENNANT's tester: exit 1, no host named). */
static int check_routes(const pas2p_platform_t *p, xmlNodePtr root, xmlNodePtr n, char *err,
                        size_t errlen, const char *path)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (!strcmp((const char *)n->name, "route")) {
            const char *ends[2] = {pas2p_xml_attr(n, "src"), pas2p_xml_attr(n, "dst")};
            for (int k = 0; k < 2; k++) {
                const char *e = ends[k];
                if (!e || pas2p_platform_find(p, e) >= 0 || strstr(e, "_router") ||
                    other_netpoint(root, e))
                    continue;
                char hosts[160] = "";
                for (size_t h = 0, len = 0; h < p->nhosts && len < sizeof hosts - 1; h++)
                    len += (size_t)snprintf(hosts + len, sizeof hosts - len, "%s%s",
                                            h ? ", " : "", p->hosts[h].name);
                snprintf(err, errlen, "%s:%ld: route %s '%s' is no host or router of the platform "
                         "(hosts: %s%s)", path, xmlGetLineNo(n), k ? "dst" : "src", e, hosts,
                         strlen(hosts) >= sizeof hosts - 1 ? "..." : "");
                return -1;
            }
        } else if (check_routes(p, root, n->children, err, errlen, path)) {
            return -1;
        }
    }
    return 0;
}

int pas2p_platform_read(const char *path, pas2p_platform_t *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    xmlDocPtr doc;
    if (pas2p_xml_parse(path, &doc, err, errlen))
        return -1;
    int rc = -1;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    const char *ver = root ? pas2p_xml_attr(root, "version") : NULL;
    if (!root || strcmp((const char *)root->name, "platform")) {
        snprintf(err, errlen, "%s: not a SimGrid platform (root element <%s>)", path,
                 root ? (const char *)root->name : "none");
    } else if (!ver || strcmp(ver, "4.1")) {
        snprintf(err, errlen, "%s: SimGrid platform version %s; pas2p reads version 4.1 "
                 "(simgrid_update_xml converts older files)", path, ver ? ver : "(none)");
    } else if (walk(p, root->children, err, errlen, path) == 0) {
        if (p->nhosts == 0)
            snprintf(err, errlen, "%s: the platform has no host", path);
        else if (!check_routes(p, root, root->children, err, errlen, path))
            rc = 0;
    }
    xmlFreeDoc(doc);
    if (rc)
        pas2p_platform_free(p);
    return rc;
}

void pas2p_platform_free(pas2p_platform_t *p)
{
    free(p->hosts);
    p->hosts = NULL;
    p->nhosts = 0;
}

int pas2p_platform_find(const pas2p_platform_t *p, const char *name)
{
    for (size_t i = 0; i < p->nhosts; i++)
        if (!strcmp(p->hosts[i].name, name))
            return (int)i;
    return -1;
}

int pas2p_platform_map(const pas2p_platform_t *p, uint32_t np, int block, int *out, char *err,
                       size_t errlen)
{
    uint64_t slots = 0;
    for (size_t i = 0; i < p->nhosts; i++)
        slots += (uint64_t)p->hosts[i].cores;
    if (slots < np) {
        snprintf(err, errlen, "the platform has %llu host cores for %u ranks: give a larger "
                 "platform (or a hostfile that places several ranks on a host)",
                 (unsigned long long)slots, np);
        return -1;
    }
    int *used = calloc(p->nhosts ? p->nhosts : 1, sizeof *used);
    if (!used) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t h = 0;
    for (uint32_t r = 0; r < np; r++) {
        if (block) { /* fill a host's cores, then the next host */
            while (used[h] == p->hosts[h].cores)
                h++;
        } else { /* one rank per host in turn, skipping full hosts */
            while (used[h] == p->hosts[h].cores)
                h = (h + 1) % p->nhosts;
        }
        out[r] = (int)h;
        used[h]++;
        if (!block)
            h = (h + 1) % p->nhosts;
    }
    free(used);
    return 0;
}

/* ------------------------------------------------------------------ what-if */

/* "1.25GBps" x f -> "f*1.25GBps" keeping the unit; comma lists (pstates) element-wise */
static int scale_value(const char *in, double f, char *out, size_t len)
{
    size_t n = 0;
    out[0] = 0;
    const char *p = in;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p)
            return -1;
        size_t ul = strcspn(end, ",");
        n += (size_t)snprintf(out + n, len > n ? len - n : 0, "%s%.9g%.*s", n ? "," : "", v * f,
                              (int)ul, end);
        p = end + ul;
        if (*p == ',')
            p++;
    }
    return n < len ? 0 : -1;
}

static int scale_attrs(xmlNodePtr n, const char *const *names, double f)
{
    if (f == 1)
        return 0;
    for (const char *const *a = names; *a; a++) {
        const char *v = pas2p_xml_attr(n, *a);
        char buf[512];
        if (!v)
            continue;
        if (scale_value(v, f, buf, sizeof buf))
            return -1;
        xmlSetProp(n, BAD_CAST * a, BAD_CAST buf);
    }
    return 0;
}

static int scale_walk(xmlNodePtr n, double speed, double bw, double lat)
{
    static const char *const sp[] = {"speed", NULL};
    static const char *const bws[] = {"bandwidth", "bw", "bb_bw", "loopback_bw", NULL};
    static const char *const lats[] = {"latency", "lat", "bb_lat", "loopback_lat", NULL};
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        const char *nm = (const char *)n->name;
        int host = !strcmp(nm, "host") || !strcmp(nm, "cluster");
        int net = !strcmp(nm, "link") || !strcmp(nm, "cluster") || !strcmp(nm, "backbone");
        if ((host && scale_attrs(n, sp, speed)) || (net && scale_attrs(n, bws, bw)) ||
            (net && scale_attrs(n, lats, lat)) || scale_walk(n->children, speed, bw, lat))
            return -1;
    }
    return 0;
}

int pas2p_platform_scale(const char *in, const char *out, double speed, double bw, double lat,
                         char *err, size_t errlen)
{
    xmlDocPtr doc;
    if (pas2p_xml_parse(in, &doc, err, errlen))
        return -1;
    int rc = -1;
    if (scale_walk(xmlDocGetRootElement(doc), speed, bw, lat))
        snprintf(err, errlen, "%s: a speed, bandwidth or latency pas2p cannot scale", in);
    else if (xmlSaveFormatFileEnc(out, doc, "UTF-8", 1) < 0)
        snprintf(err, errlen, "%s: cannot write", out);
    else
        rc = 0;
    xmlFreeDoc(doc);
    return rc;
}
