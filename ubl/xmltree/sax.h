#ifndef EINV_SAX_H
#define EINV_SAX_H

#include <stddef.h>

// One node of the tree, laid out exactly as the Go type node (parse.go checks this at start-up). name
// is the parser's name number plus one (0 for text); the Go side turns it into a Name.
typedef struct {
	unsigned int name;
	unsigned short prefix, depth;
	int line, parent, first_child, next_sibling, first_elem, next_elem, last, start, end;
} einv_node;

// One attribute, laid out as the Go type Attr: its name number plus one (the Go side turns it into a
// Name), and its value as a range of the data buffer.
typedef struct {
	unsigned int name;
	int start, end;
} einv_attr;

enum { EINV_STOP_DOCTYPE = 1, EINV_STOP_TEXT = 2, EINV_STOP_OOM = 3, EINV_STOP_DEEP = 4, EINV_STOP_ATTRIBUTES = 5,
	EINV_STOP_NAMESPACES = 6, EINV_STOP_CROWDED = 7, EINV_STOP_NAMES = 8 };

// What a parse may take (parse.go says why).
typedef struct {
	long max_text; // bytes of one text node
	int max_depth;
	int max_attributes, max_namespaces; // on one element (namespace declarations are counted apart)
	// The elements with more than crowded attributes (namespace declarations included) may have at most
	// max_crowded in all.
	int crowded, max_crowded;
	size_t max_name_bytes; // the limit set on libxml2's dictionary of names (see einv_parse)
} einv_limits;

// The outcome of one parse. The buffers belong to the parser and stay valid until its next parse.
typedef struct {
	einv_node *nodes;
	einv_attr *attrs;
	unsigned char *data;      // text and attribute values
	unsigned char *new_names; // names first seen in this parse: (uri, prefix, local) as length + bytes
	size_t nodes_len, attrs_len, data_len, new_names_len;
	unsigned int names_total; // names the parser has numbered so far, this parse's included
	size_t kept_bytes;        // what the parser's buffers hold on to after this parse
	int elements;
	int stopped;  // why the front end stopped the parser (EINV_STOP_*), 0 if it did not
	int stop_line;
	int well_formed;
	int errors;   // parser errors reported
	int blanks_dropped; // whitespace runs between elements left out of the tree
	int non_uri_line;   // where a namespace name that is not a URI is first declared (see declare), or 0
	int doctype; // the document has a document type declaration (one the parser reads: see on_doctype)
	int huge_text_line; // where a text node first grew past libxml2's tree limit (see on_text), or 0
	int *cdata_in;      // the elements a CDATA section is written in, in document order (see on_cdata)
	size_t cdata_in_len;
	int first_error_line, first_error_code, first_error_domain;
	char first_error[256];
	char encoding[32]; // the encoding the document was read in (see einv_parse), if not plain UTF-8
	char declared_encoding[32]; // the encoding its XML declaration names, if any
} einv_result;

typedef struct einv_parser einv_parser;

void einv_init(void);
einv_parser *einv_parser_new(void);
void einv_parser_free(einv_parser *p);
void einv_parse(einv_parser *p, const char *data, int len, einv_limits lim, int keep_blanks, einv_result *r);
int einv_read_only(einv_parser *p, const char *data, int len);
void einv_layout(size_t *node_size, size_t *attr_size, size_t offsets[15]);

#endif
