/* The XML plumbing every XML file pas2p reads or writes shares (the signature and the
 * prediction result here, SimGrid platforms in simbackend/), on libxml2.  Reading: no
 * network, no external entities; for pas2p's own files the root element and version are
 * checked, then the whole document is validated against an embedded RelaxNG schema; errors
 * become one line naming the file.  Writing: xmlTextWriter to a temporary file renamed into
 * place, so a reader never sees half a file. */
#ifndef PAS2P_XML_H
#define PAS2P_XML_H

#include <stddef.h>
#include <stdint.h>

#include <libxml/relaxng.h>
#include <libxml/tree.h>
#include <libxml/xmlwriter.h>

__attribute__((format(printf, 3, 4))) void pas2p_xml_err(char *err, size_t n, const char *fmt, ...);

/* Parses PATH (no network, no external entities, no DTD fetch).  0 with *doc set
 * (xmlFreeDoc it), or -1 with "PATH: cannot open: ..." or "PATH: not XML (line N: ...)". */
int pas2p_xml_parse(const char *path, xmlDocPtr *doc, char *err, size_t errlen);

/* Loads PATH, a `kind` file (e.g. "signature") with root element ROOT, version VERSION,
 * valid against the RelaxNG schema RNG.  0 with *doc set (xmlFreeDoc it), -2 when the root
 * element is another one, -1 otherwise; err holds a one-line reason naming PATH. */
int pas2p_xml_load(const char *path, const char *kind, const char *root, unsigned version,
                   const char *rng, xmlDocPtr *doc, char *err, size_t errlen);

/* Compiles the embedded RelaxNG schema RNG (xmlRelaxNGFree it); NULL if it does not load
 * (out of memory: the schemas are tested). */
xmlRelaxNGPtr pas2p_xml_schema(const char *rng);

/* Opens PATH's temporary sibling for writing, document started, root element ROOT open with
 * its version attribute.  NULL with err set on failure.  tmp (>= 4200 bytes) receives the
 * temporary name. */
xmlTextWriterPtr pas2p_xml_create(const char *path, const char *root, unsigned version,
                                  char *tmp, char *err, size_t errlen);
/* Ends the document, closes, renames into place.  ok = 0 means a write already failed:
 * discard.  0, or -1 with err set. */
int pas2p_xml_commit(xmlTextWriterPtr w, int ok, const char *tmp, const char *path, char *err,
                     size_t errlen);

/* Attribute access on a validated document (the schema guarantees the types). */
const char *pas2p_xml_attr(xmlNodePtr n, const char *name);
double pas2p_xml_attr_d(xmlNodePtr n, const char *name);
uint64_t pas2p_xml_attr_u(xmlNodePtr n, const char *name);
int32_t pas2p_xml_attr_i(xmlNodePtr n, const char *name, int32_t dflt);
void pas2p_xml_attr_s(xmlNodePtr n, const char *name, char *out, size_t len);
int pas2p_xml_is(xmlNodePtr n, const char *name);
uint32_t pas2p_xml_count(xmlNodePtr n, const char *name);

#endif
