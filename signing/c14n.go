package signing

/*
#cgo pkg-config: libxml-2.0
#include <stdlib.h>
#include <libxml/parser.h>
#include <libxml/c14n.h>

// einv_exc_c14n reads a document (no network, no DTD) and writes its exclusive canonical form without
// comments into *out, which the caller frees with einv_c14n_free. 0: done; 1: not well-formed; 2: the
// document has a document type declaration; 3: libxml2 could not canonicalise it.
static int einv_exc_c14n(const char *buf, int len, xmlChar **out, int *outLen) {
	xmlDocPtr doc = xmlReadMemory(buf, len, NULL, NULL,
		XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_HUGE);
	if (doc == NULL) return 1;
	if (doc->intSubset != NULL || doc->extSubset != NULL) {
		xmlFreeDoc(doc);
		return 2;
	}
	*outLen = xmlC14NDocDumpMemory(doc, NULL, XML_C14N_EXCLUSIVE_1_0, NULL, 0, out);
	xmlFreeDoc(doc);
	return *outLen < 0 ? 3 : 0;
}

static void einv_c14n_free(xmlChar *p) { xmlFree(p); }
*/
import "C"

import (
	"crypto/sha256"
	"errors"
	"unsafe"
)

// The documents this service signs are canonicalised by libxml2 (the canonicaliser xmlsec1 uses), in
// C: no Go tree of the document is built, copied or written (`go test ./signing -bench SignXML`).

func init() { C.xmlInitParser() }

// Errors of canonicalisation.
var (
	errC14NNotWellFormed = errors.New("the XML is not well-formed")
	errC14NDoctype       = errors.New("an XML document with a document type declaration is not signed")
)

// excC14NDigest is the SHA-256 digest of a document's exclusive canonical form without comments
// (the whole document: the document element and any processing instructions around it).
func excC14NDigest(doc []byte) ([32]byte, error) {
	if len(doc) == 0 || len(doc) > 1<<30 {
		return [32]byte{}, errC14NNotWellFormed
	}
	var out *C.xmlChar
	var n C.int
	switch C.einv_exc_c14n((*C.char)(unsafe.Pointer(&doc[0])), C.int(len(doc)), &out, &n) {
	case 0:
	case 2:
		return [32]byte{}, errC14NDoctype
	case 1:
		return [32]byte{}, errC14NNotWellFormed
	default:
		return [32]byte{}, errors.New("libxml2 could not canonicalise the XML")
	}
	defer C.einv_c14n_free(out)
	return sha256.Sum256(unsafe.Slice((*byte)(unsafe.Pointer(out)), int(n))), nil
}
