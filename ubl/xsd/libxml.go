package xsd

/*
#cgo pkg-config: libxml-2.0
#include <stdlib.h>
#include <libxml/uri.h>
#include <libxml/tree.h>
#include <libxml/parserInternals.h>

static int einv_valid_uri(const char *s) {
	xmlURIPtr u = xmlParseURI(s);
	if (u == NULL) return 0;
	xmlFreeURI(u);
	return 1;
}
*/
import "C"

import "unsafe"

// The lexical rules of a few types are libxml2's own productions (its URI-reference parser and its
// NCName check); asking libxml2 itself keeps the verdicts identical.

func validURI(s string) bool {
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return C.einv_valid_uri(cs) == 1
}

func validNCName(s string) bool {
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return C.xmlValidateNCName((*C.xmlChar)(unsafe.Pointer(cs)), 1) == 0
}
