// SAX2 front end on libxml2: parses a document held in memory straight into the node array the Go side
// uses. No DOM is built, no DTD is accepted, no entity is loaded, nothing is fetched from the network.
//
// A parser is kept from one document to the next: libxml2's context (and with it the dictionary where
// libxml2 interns names) and the table that numbers names. Names are then numbered once per parser, not
// once per document, and the Go side learns each one once.
#include "sax.h"
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// A name as the parser hands it over: libxml2 interns names in its dictionary, so the three pointers
// identify a name without comparing strings. (Were two pointers ever to differ for equal strings, the
// name would only be numbered twice; the Go side maps both to the same Name.)
typedef struct {
	const xmlChar *uri, *prefix, *local;
	unsigned int index;
} name_slot;

typedef struct {
	int id, last_child, last_elem;
} open_element;

struct einv_parser {
	xmlParserCtxtPtr ctxt;
	xmlSAXHandler handler;
	einv_result *r;

	name_slot *names; // open addressing, power-of-two size, empty slots have local == NULL
	unsigned int names_cap, names_len;

	size_t nodes_cap, attrs_cap, data_cap, new_names_cap;
	einv_node *nodes;
	einv_attr *attrs;
	unsigned char *data, *new_names;

	open_element *open;
	int depth, open_cap, max_depth; // open holds open_cap >= max_depth + 1 elements
	int run;            // the text node being read, or RUN_NONE, or RUN_BLANK
	size_t blank_start; // with RUN_BLANK: where the run's text starts in data
	long max_text;
};

// A run of whitespace gets its node only if it is kept (see end_run): until then it is RUN_BLANK, its
// text already in data.
enum { RUN_NONE = -1, RUN_BLANK = -2 };

static int reserve(void **buf, size_t *cap, size_t len, size_t need, size_t size) {
	if (len + need <= *cap) return 1;
	size_t c = *cap ? *cap : 256;
	while (c < len + need) c *= 2;
	void *b = realloc(*buf, c * size);
	if (!b) return 0;
	*buf = b;
	*cap = c;
	return 1;
}

static void stop(einv_parser *p, int code) {
	if (!p->r->stopped) p->r->stopped = code;
	xmlStopParser(p->ctxt);
}

static int put_name_part(einv_parser *p, const xmlChar *s) {
	unsigned int n = s ? (unsigned int)strlen((const char *)s) : 0;
	if (!reserve((void **)&p->new_names, &p->new_names_cap, p->r->new_names_len, n + 4, 1)) return 0;
	memcpy(p->new_names + p->r->new_names_len, &n, 4);
	memcpy(p->new_names + p->r->new_names_len + 4, s, n);
	p->r->new_names_len += n + 4;
	return 1;
}

static size_t slot_of(const name_slot *t, unsigned int cap, const xmlChar *uri, const xmlChar *prefix, const xmlChar *local) {
	unsigned long long h = ((unsigned long long)(size_t)local ^ (unsigned long long)(size_t)uri * 3u ^
		(unsigned long long)(size_t)prefix * 7u) * 0x9E3779B97F4A7C15ull;
	h ^= h >> 29;
	size_t i = h & (cap - 1);
	while (t[i].local && !(t[i].local == local && t[i].uri == uri && t[i].prefix == prefix)) i = (i + 1) & (cap - 1);
	return i;
}

// name_number is the parser's number of a name plus one, numbering it (and recording it among this
// parse's new names) the first time it is seen; 0 when memory runs out.
static unsigned int name_number(einv_parser *p, const xmlChar *uri, const xmlChar *prefix, const xmlChar *local) {
	if (2 * (p->names_len + 1) > p->names_cap) {
		unsigned int cap = p->names_cap ? 2 * p->names_cap : 256;
		name_slot *t = calloc(cap, sizeof *t);
		if (!t) return 0;
		for (unsigned int i = 0; i < p->names_cap; i++)
			if (p->names[i].local) t[slot_of(t, cap, p->names[i].uri, p->names[i].prefix, p->names[i].local)] = p->names[i];
		free(p->names);
		p->names = t;
		p->names_cap = cap;
	}
	size_t i = slot_of(p->names, p->names_cap, uri, prefix, local);
	if (p->names[i].local) return p->names[i].index + 1;
	if (!put_name_part(p, uri) || !put_name_part(p, prefix) || !put_name_part(p, local)) return 0;
	p->names[i] = (name_slot){ uri, prefix, local, p->names_len };
	return ++p->names_len;
}

// link makes node id the last child of the innermost open element.
static void link(einv_parser *p, int id, int is_element) {
	open_element *top = &p->open[p->depth - 1];
	einv_node *parent = &p->nodes[top->id];
	if (top->last_child < 0) parent->first_child = id;
	else p->nodes[top->last_child].next_sibling = id;
	top->last_child = id;
	if (!is_element) return;
	if (top->last_elem < 0) parent->first_elem = id;
	else p->nodes[top->last_elem].next_elem = id;
	top->last_elem = id;
}

static int new_node(einv_parser *p) {
	einv_result *r = p->r;
	if (!reserve((void **)&p->nodes, &p->nodes_cap, r->nodes_len, 1, sizeof *p->nodes)) return -1;
	int id = (int)r->nodes_len++;
	p->nodes[id] = (einv_node){ .parent = p->depth ? p->open[p->depth - 1].id : -1, .depth = (unsigned short)p->depth,
		.first_child = -1, .next_sibling = -1, .first_elem = -1, .next_elem = -1, .last = id };
	return id;
}

// text_node gives the whitespace run read so far a node, its text starting at start.
static int text_node(einv_parser *p, size_t start) {
	int id = new_node(p);
	if (id < 0) return -1;
	p->nodes[id].start = (int)start;
	p->nodes[id].end = (int)p->r->data_len;
	p->run = id;
	return id;
}

// end_run closes the text run being read. Whitespace-only text carries nothing in UBL between or
// before elements, so it is dropped there; it is kept as the whole content of an element without
// element children.
static void end_run(einv_parser *p, int child_starts) {
	if (p->run == RUN_NONE) return;
	if (p->run == RUN_BLANK) {
		if (child_starts || p->open[p->depth - 1].last_elem >= 0) {
			p->r->data_len = p->blank_start;
			p->run = RUN_NONE;
			return;
		}
		if (text_node(p, p->blank_start) < 0) return stop(p, EINV_STOP_OOM);
	}
	link(p, p->run, 0);
	p->run = RUN_NONE;
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
		int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted, const xmlChar **attrs) {
	einv_parser *p = ((xmlParserCtxtPtr)ctx)->_private;
	einv_result *r = p->r;
	end_run(p, 1);
	if (p->depth >= p->max_depth) {
		r->stop_line = ((xmlParserCtxtPtr)ctx)->input->line;
		return stop(p, EINV_STOP_DEEP);
	}
	unsigned int name = name_number(p, uri, prefix, localname);
	int id = name ? new_node(p) : -1;
	if (id < 0 || !reserve((void **)&p->attrs, &p->attrs_cap, r->attrs_len, (size_t)nb_attributes, sizeof *p->attrs))
		return stop(p, EINV_STOP_OOM);
	einv_node *nd = &p->nodes[id];
	nd->name = name;
	nd->line = ((xmlParserCtxtPtr)ctx)->input->line;
	nd->start = (int)r->attrs_len;
	for (int i = 0; i < nb_attributes; i++) {
		const xmlChar **a = attrs + 5 * i; // localname, prefix, URI, value, end
		size_t n = (size_t)(a[4] - a[3]);
		unsigned int aname = name_number(p, a[2], a[1], a[0]);
		if (!aname || !reserve((void **)&p->data, &p->data_cap, r->data_len, n, 1)) return stop(p, EINV_STOP_OOM);
		memcpy(p->data + r->data_len, a[3], n);
		p->attrs[r->attrs_len++] = (einv_attr){ aname, (int)r->data_len, (int)(r->data_len + n) };
		r->data_len += n;
	}
	nd->end = (int)r->attrs_len;
	if (p->depth > 0) link(p, id, 1);
	p->open[p->depth++] = (open_element){ id, -1, -1 };
	r->elements++;
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri) {
	einv_parser *p = ((xmlParserCtxtPtr)ctx)->_private;
	end_run(p, 0);
	p->nodes[p->open[--p->depth].id].last = (int)p->r->nodes_len - 1;
}

// blank reports whether text is only XML whitespace. In character data the only bytes up to 0x20 are
// the four blanks (the other control characters are not XML characters, and libxml2 refuses the
// document), so it is enough that no byte is above 0x20: eight bytes at a time, the last eight
// overlapping the ones before. Text usually starts with a byte that tells at once.
static inline int blank(const xmlChar *s, int n) {
	const uint64_t add = 0x5F5F5F5F5F5F5F5Full, high = 0x8080808080808080ull; // a byte above 0x20 sets its high bit
	uint64_t w;
	if (n == 0) return 1;
	if (s[0] > 0x20) return 0;
	if (n < 8) {
		for (int i = 1; i < n; i++)
			if (s[i] > 0x20) return 0;
		return 1;
	}
	for (int i = 0; i + 8 < n; i += 8) {
		memcpy(&w, s + i, 8);
		if (((w + add) | w) & high) return 0;
	}
	memcpy(&w, s + n - 8, 8);
	return !(((w + add) | w) & high);
}

static void on_text(void *ctx, const xmlChar *ch, int len) {
	xmlParserCtxtPtr c = ctx;
	einv_parser *p = c->_private;
	einv_result *r = p->r;
	if (p->depth == 0) return; // outside the document element: not possible in well-formed XML
	// Indentation: blanks that run up to a tag, with no text before them. Before a start tag, or an end
	// tag of an element that has element children, end_run would drop them: they are dropped at once,
	// without being copied. (libxml2 hands such text over from its input, positioned at its start or,
	// for spaces and line feeds only, at the "<" after it; what follows the text can then be read.)
	if (p->run == RUN_NONE && (ch == c->input->cur || ch + len == c->input->cur) && ch[len] == '<' && ch[len + 1] != '!' &&
			ch[len + 1] != '?' && (ch[len + 1] != '/' || p->open[p->depth - 1].last_elem >= 0) && blank(ch, len))
		return;
	size_t start = p->run == RUN_BLANK ? p->blank_start : p->run == RUN_NONE ? r->data_len : (size_t)p->nodes[p->run].start;
	if ((long)(r->data_len - start) + len > p->max_text) return stop(p, EINV_STOP_TEXT);
	if (!reserve((void **)&p->data, &p->data_cap, r->data_len, (size_t)len, 1)) return stop(p, EINV_STOP_OOM);
	if (p->run < 0 && blank(ch, len)) {
		if (p->run == RUN_NONE) {
			p->run = RUN_BLANK;
			p->blank_start = r->data_len;
		}
	} else if (p->run < 0 && text_node(p, start) < 0) {
		return stop(p, EINV_STOP_OOM);
	}
	memcpy(p->data + r->data_len, ch, (size_t)len);
	r->data_len += (size_t)len;
	if (p->run >= 0) p->nodes[p->run].end = (int)r->data_len;
}

static void on_doctype(void *ctx, const xmlChar *name, const xmlChar *ext, const xmlChar *sys) {
	stop(((xmlParserCtxtPtr)ctx)->_private, EINV_STOP_DOCTYPE);
}

static xmlEntityPtr on_entity(void *ctx, const xmlChar *name) {
	// Only the five predefined entities exist; anything else is an undeclared entity (a parse error).
	return xmlGetPredefinedEntity(name);
}

static void on_error(void *ctx, xmlErrorPtr err) {
	xmlParserCtxtPtr c = ctx;
	if (!c || !c->_private || !err) return;
	einv_result *r = ((einv_parser *)c->_private)->r;
	if (err->level == XML_ERR_WARNING) return;
	r->errors++;
	if (r->first_error[0] == 0) {
		r->first_error_line = err->line;
		r->first_error_code = err->code;
		r->first_error_domain = err->domain;
		if (err->message) {
			strncpy(r->first_error, err->message, sizeof r->first_error - 1);
			size_t n = strlen(r->first_error);
			while (n > 0 && (r->first_error[n - 1] == '\n' || r->first_error[n - 1] == ' ')) r->first_error[--n] = 0;
		}
	}
}

// No external resource is ever loaded: every attempt to open one fails.
static xmlParserInputPtr no_loader(const char *url, const char *id, xmlParserCtxtPtr ctxt) { return NULL; }

void einv_init(void) {
	xmlInitParser();
	xmlSetExternalEntityLoader(no_loader);
}

einv_parser *einv_parser_new(void) {
	einv_parser *p = calloc(1, sizeof *p);
	if (!p) return NULL;
	p->ctxt = xmlNewParserCtxt();
	if (!p->ctxt) {
		free(p);
		return NULL;
	}
	xmlSAXHandler *h = &p->handler;
	h->initialized = XML_SAX2_MAGIC;
	h->startElementNs = on_start;
	h->endElementNs = on_end;
	h->characters = on_text;
	h->cdataBlock = on_text;
	h->ignorableWhitespace = on_text;
	h->internalSubset = on_doctype;
	h->getEntity = on_entity;
	h->serror = on_error;
	return p;
}

void einv_parser_free(einv_parser *p) {
	if (!p) return;
	xmlFreeParserCtxt(p->ctxt);
	free(p->names);
	free(p->nodes);
	free(p->attrs);
	free(p->data);
	free(p->new_names);
	free(p->open);
	free(p);
}

void einv_parse(einv_parser *p, const char *data, int len, long max_text, int max_depth, einv_result *r) {
	memset(r, 0, sizeof *r);
	p->r = r;
	p->depth = 0;
	p->run = RUN_NONE;
	p->max_text = max_text;
	p->max_depth = max_depth;
	if (p->open_cap < max_depth + 1) {
		open_element *o = realloc(p->open, sizeof *o * (size_t)(max_depth + 1));
		if (!o) { r->stopped = EINV_STOP_OOM; return; }
		p->open = o;
		p->open_cap = max_depth + 1;
	}

	xmlParserCtxtPtr c = p->ctxt;
	xmlCtxtReset(c);
	xmlParserInputBufferPtr buf = xmlParserInputBufferCreateMem(data, len, XML_CHAR_ENCODING_NONE);
	xmlParserInputPtr in = buf ? xmlNewIOInputStream(c, buf, XML_CHAR_ENCODING_NONE) : NULL;
	if (!in) {
		if (buf) xmlFreeParserInputBuffer(buf);
		r->stopped = EINV_STOP_OOM;
		return;
	}
	inputPush(c, in);
	xmlCtxtUseOptions(c, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	*c->sax = p->handler; // after the options, which set some handler fields of their own
	c->_private = p;
	c->userData = c;
	xmlParseDocument(c);

	r->well_formed = c->wellFormed && c->nsWellFormed;
	if (c->encoding) strncpy(r->encoding, (const char *)c->encoding, sizeof r->encoding - 1);
	else if (c->input && c->input->encoding) strncpy(r->encoding, (const char *)c->input->encoding, sizeof r->encoding - 1);
	// The input refers to the caller's memory: let it go now.
	while ((in = inputPop(c)) != NULL) xmlFreeInputStream(in);
	c->_private = NULL;

	r->nodes = p->nodes;
	r->attrs = p->attrs;
	r->data = p->data;
	r->new_names = p->new_names;
	r->names_total = p->names_len;
}

void einv_layout(size_t *node_size, size_t *attr_size, size_t offsets[15]) {
	*node_size = sizeof(einv_node);
	*attr_size = sizeof(einv_attr);
	size_t o[15] = { offsetof(einv_node, name), offsetof(einv_node, prefix), offsetof(einv_node, depth),
		offsetof(einv_node, line), offsetof(einv_node, parent), offsetof(einv_node, first_child),
		offsetof(einv_node, next_sibling), offsetof(einv_node, first_elem), offsetof(einv_node, next_elem),
		offsetof(einv_node, last), offsetof(einv_node, start), offsetof(einv_node, end),
		offsetof(einv_attr, name), offsetof(einv_attr, start), offsetof(einv_attr, end) };
	memcpy(offsets, o, sizeof o);
}
