#ifndef FIELDPACK_CLIBXML2_SHIM_H
#define FIELDPACK_CLIBXML2_SHIM_H
// Debian builds libxml2 with ICU; Swift's Foundation ships its own ICU module, and a module that
// sees both fails a clean build ("'UErrorCode' has different definitions"). Hide ICU from libxml2's
// headers before including anything else: fieldpack never uses libxml2's ICU-backed encodings.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/parserInternals.h>

/// The global `xmlFree` is a mutable C variable, which Swift 6 rejects; call it through here.
static inline void fp_xml_free(void *pointer) { xmlFree(pointer); }
/// The element depth past which libxml2's tree builder stops a parse (`xmlParserMaxDepth`, a
/// mutable C global Swift 6 rejects).
static inline unsigned int fp_xml_max_depth(void) { return xmlParserMaxDepth; }
/// libxml2's dotted version, e.g. "2.9.14".
static inline const char *fp_xml_version(void) { return LIBXML_DOTTED_VERSION; }
#endif
