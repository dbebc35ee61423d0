/* XML file plumbing shared by pas2p's XML files (pas2p_xml.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include <libxml/xmlreader.h>

#include "pas2p_xml.h"

void pas2p_xml_err(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

/* libxml2 prints some errors itself (I/O): ours are the one-line messages we build */
static void xml_quiet(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

typedef struct {
    char msg[400];
} xml_errors_t;

static void on_xml_error(void *ctx, const xmlError *e)
{
    xml_errors_t *x = ctx;
    if (x->msg[0] || !e || !e->message)
        return; /* the first error is the one to report */
    snprintf(x->msg, sizeof x->msg, "line %d: %s", e->line, e->message);
    size_t n = strlen(x->msg);
    while (n && (x->msg[n - 1] == '\n' || x->msg[n - 1] == ' '))
        x->msg[--n] = 0;
    for (char *c = x->msg; *c; c++) /* libxml2 messages may span lines: ours are one line */
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

static void on_xml_error_v(void *ctx, xmlErrorPtr e)
{
    on_xml_error(ctx, e);
}

int pas2p_xml_parse(const char *path, xmlDocPtr *out, char *err, size_t errlen)
{
    xml_errors_t xe = {{0}};
    xmlSetStructuredErrorFunc(&xe, on_xml_error_v);
    xmlSetGenericErrorFunc(NULL, xml_quiet);
    /* no network, no external entities or DTDs: these files are plain data */
    *out = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOBLANKS);
    xmlSetStructuredErrorFunc(NULL, NULL);
    xmlSetGenericErrorFunc(NULL, NULL);
    if (*out)
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        pas2p_xml_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    else
        pas2p_xml_err(err, errlen, "%s: not XML (%s)", path, xe.msg[0] ? xe.msg : "parse error");
    if (f)
        fclose(f);
    return -1;
}

xmlRelaxNGPtr pas2p_xml_schema(const char *rng)
{
    xmlRelaxNGParserCtxtPtr pc = xmlRelaxNGNewMemParserCtxt(rng, (int)strlen(rng));
    xmlRelaxNGPtr schema = pc ? xmlRelaxNGParse(pc) : NULL;
    if (pc)
        xmlRelaxNGFreeParserCtxt(pc);
    return schema;
}

/* the root element's name into name (len), reading no further than its start tag: 0, or -1
 * (not XML as far as it goes: the full parse says why) */
static int root_name_of(const char *path, char *name, size_t len)
{
    xmlTextReaderPtr r = xmlReaderForFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                                          XML_PARSE_NOWARNING);
    if (!r)
        return -1;
    int ret;
    while ((ret = xmlTextReaderRead(r)) == 1 && xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT)
        ;
    const char *n = ret == 1 ? (const char *)xmlTextReaderConstName(r) : NULL;
    if (n)
        snprintf(name, len, "%s", n);
    xmlFreeTextReader(r);
    return n ? 0 : -1;
}

int pas2p_xml_load(const char *path, const char *kind, const char *root_name, unsigned version,
                   const char *rng, xmlDocPtr *out, char *err, size_t errlen)
{
    *out = NULL;
    /* another kind of file is said before it is loaded whole: `pas2p show` tries a
     * signature as a prediction first, and Ray's 78 MB signature took 1.37 GB as a tree
     * to find out its root was not <pas2p-prediction> */
    char first[128];
    if (!root_name_of(path, first, sizeof first) && strcmp(first, root_name)) {
        pas2p_xml_err(err, errlen, "%s: not a pas2p %s (root element <%s>)", path, kind, first);
        return -2;
    }
    xmlDocPtr doc;
    if (pas2p_xml_parse(path, &doc, err, errlen))
        return -1;
    xml_errors_t xe = {{0}};
    xmlSetStructuredErrorFunc(&xe, on_xml_error_v);
    xmlSetGenericErrorFunc(NULL, xml_quiet);
    int rc = -1;
    xmlRelaxNGPtr schema = NULL;
    xmlRelaxNGValidCtxtPtr vc = NULL;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    if (!root || strcmp((const char *)root->name, root_name)) {
        pas2p_xml_err(err, errlen, "%s: not a pas2p %s (root element <%s>)", path, kind,
                      root ? (const char *)root->name : "none");
        rc = root ? -2 : -1;
        goto out;
    }
    const char *ver = pas2p_xml_attr(root, "version");
    if (!ver || strtoul(ver, NULL, 10) != version) {
        pas2p_xml_err(err, errlen, "%s: %s version %s, this pas2p reads version %u", path, kind,
                      ver ? ver : "(none)", version);
        goto out;
    }
    schema = pas2p_xml_schema(rng);
    vc = schema ? xmlRelaxNGNewValidCtxt(schema) : NULL;
    if (!vc) {
        pas2p_xml_err(err, errlen, "internal error: the %s schema does not load", kind);
        goto out;
    }
    xe.msg[0] = 0;
    xmlRelaxNGSetValidStructuredErrors(vc, on_xml_error_v, &xe);
    if (xmlRelaxNGValidateDoc(vc, doc) != 0) {
        pas2p_xml_err(err, errlen, "%s: not a valid %s (%s)", path, kind, xe.msg[0] ? xe.msg : "schema");
        goto out;
    }
    *out = doc;
    doc = NULL;
    rc = 0;
out:
    if (vc)
        xmlRelaxNGFreeValidCtxt(vc);
    if (schema)
        xmlRelaxNGFree(schema);
    if (doc)
        xmlFreeDoc(doc);
    xmlSetStructuredErrorFunc(NULL, NULL);
    xmlSetGenericErrorFunc(NULL, NULL);
    return rc;
}

xmlTextWriterPtr pas2p_xml_create(const char *path, const char *root, unsigned version,
                                  char *tmp, char *err, size_t errlen)
{
    snprintf(tmp, 4200, "%.4000s.%ld.tmp", path, (long)getpid());
    xmlSetGenericErrorFunc(NULL, xml_quiet);
    errno = 0;
    xmlTextWriterPtr w = xmlNewTextWriterFilename(tmp, 0);
    xmlSetGenericErrorFunc(NULL, NULL);
    if (!w) {
        pas2p_xml_err(err, errlen, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
        return NULL;
    }
    xmlTextWriterSetIndent(w, 1);
    if (xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL) < 0 ||
        xmlTextWriterStartElement(w, BAD_CAST root) < 0 ||
        xmlTextWriterWriteFormatAttribute(w, BAD_CAST "version", "%u", version) < 0) {
        xmlFreeTextWriter(w);
        remove(tmp);
        pas2p_xml_err(err, errlen, "%s: cannot write (disk full?)", path);
        return NULL;
    }
    return w;
}

int pas2p_xml_commit(xmlTextWriterPtr w, int ok, const char *tmp, const char *path, char *err,
                     size_t errlen)
{
    if (ok && xmlTextWriterEndDocument(w) < 0)
        ok = 0;
    xmlFreeTextWriter(w); /* flushes and closes */
    if (ok) { /* the flush at close can fail too: check what landed */
        FILE *f = fopen(tmp, "r");
        ok = f && fseek(f, 0, SEEK_END) == 0 && ftell(f) > 0;
        if (f)
            fclose(f);
    }
    if (!ok) {
        remove(tmp);
        pas2p_xml_err(err, errlen, "%s: cannot write (disk full?)", path);
        return -1;
    }
    if (rename(tmp, path)) {
        pas2p_xml_err(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

const char *pas2p_xml_attr(xmlNodePtr n, const char *name)
{
    for (xmlAttrPtr a = n->properties; a; a = a->next)
        if (!strcmp((const char *)a->name, name) && a->children && a->children->content)
            return (const char *)a->children->content;
    return NULL;
}

double pas2p_xml_attr_d(xmlNodePtr n, const char *name)
{
    const char *v = pas2p_xml_attr(n, name);
    return v ? strtod(v, NULL) : 0;
}

uint64_t pas2p_xml_attr_u(xmlNodePtr n, const char *name)
{
    const char *v = pas2p_xml_attr(n, name);
    return v ? strtoull(v, NULL, 10) : 0;
}

int32_t pas2p_xml_attr_i(xmlNodePtr n, const char *name, int32_t dflt)
{
    const char *v = pas2p_xml_attr(n, name);
    return v ? (int32_t)strtol(v, NULL, 10) : dflt;
}

void pas2p_xml_attr_s(xmlNodePtr n, const char *name, char *out, size_t len)
{
    const char *v = pas2p_xml_attr(n, name);
    snprintf(out, len, "%s", v ? v : "");
}

int pas2p_xml_is(xmlNodePtr n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

uint32_t pas2p_xml_count(xmlNodePtr n, const char *name)
{
    uint32_t c = 0;
    for (xmlNodePtr k = n->children; k; k = k->next)
        c += pas2p_xml_is(k, name);
    return c;
}
