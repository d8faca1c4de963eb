// SAX front end on libxml2: parses a document held in memory straight into the node array the Go side
// uses. No DOM is built, no DTD is accepted, no entity is loaded, nothing is fetched from the network.
//
// libxml2 is driven through its SAX1 interface, which hands over names as written ("cbc:ID") and
// leaves namespaces to us: its SAX2 interface interns prefix and local name separately, compares end
// tags by both and keeps its own namespace table, which together cost a fifth of its time. The
// namespace processing here makes the checks libxml2's SAX2 parser makes (Namespaces in XML 1.0: QName
// syntax, declared prefixes, the reserved xml and xmlns names, non-empty prefixed declarations, URIs
// libxml2 can parse, no attribute twice by expanded name), and a document that fails one is not
// well-formed, as it is with SAX2.
//
// A parser is kept from one document to the next: libxml2's context (and with it the dictionary where
// libxml2 interns names) and the table that numbers names. Names are then numbered once per parser, not
// once per document, and the Go side learns each one once.
//
// What a document may make libxml2 do is bounded, not only its size: attributes per element and in
// all (see on_start_document and on_start), distinct names (see einv_parse), and nothing is read past
// the first error (see on_error).
#define _GNU_SOURCE // memmem, memrchr
#include "sax.h"
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/uri.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// A name as the parser hands it over: libxml2 interns names as written in its dictionary, and we
// intern namespace URIs there, so the two pointers identify a name without comparing strings. (Were
// two pointers ever to differ for equal strings, the name would only be numbered twice; the Go side
// maps both to the same Name.)
typedef struct {
	const xmlChar *uri, *qname;
	unsigned int index;
} name_slot;

typedef struct {
	int id, last_child, last_elem;
	int ns_start, ns_state; // the namespace bindings in scope before this element's own, and their state
} open_element;

// A namespace binding in scope: the name of its declaration ("xmlns" or "xmlns:prefix", as libxml2
// interned it in its dictionary) and its URI, interned there too (NULL: no namespace, as xmlns=""
// declares), and the binding of the same prefix it hides (-1: none).
typedef struct {
	const xmlChar *declaration, *uri;
	int hides;
} ns_binding;

// The innermost binding of each prefix among the bindings in scope, or -1, by the address of its
// declaration's name: a prefix is resolved in one lookup however many bindings are in scope. Open
// addressing, power-of-two size; an empty slot has declaration NULL.
typedef struct {
	const xmlChar *declaration;
	int binding;
} prefix_slot;

typedef struct {
	const xmlChar *uri, *local;
} att_name;

// The bindings in scope are numbered as states: 0 is none, and declaring a prefix in state s leads to
// one state, the same in every document. Names resolved in a state are remembered by state, so that a
// name is resolved once per parser rather than once per element. An empty slot has id 0.
typedef struct {
	const xmlChar *prefix, *uri;
	int parent, id;
} ns_state;

typedef struct {
	const xmlChar *qname; // NULL: empty slot
	int state, attribute;
	int colon;
	const xmlChar *uri;
	unsigned int name;
} resolved_name;

// The tables hold at most these many entries (a document that declares namespaces over and over fills
// them): past them, bindings are in no numbered state (UNNUMBERED) and names are resolved afresh
// each time, and the tables start afresh with the next document.
enum { MAX_NS_STATES = 1 << 14, MAX_RESOLVED = 1 << 16, UNNUMBERED = -1 };

enum { VALID_URIS = 64 }; // namespace names known to be URIs, by address (a power of two)

struct einv_parser {
	xmlParserCtxtPtr ctxt;
	xmlSAXHandler handler;
	einv_result *r;

	name_slot *names; // open addressing, power-of-two size, empty slots have qname == NULL
	unsigned int names_cap, names_len;

	size_t nodes_cap, attrs_cap, data_cap, new_names_cap, cdata_in_cap;
	int *cdata_in;
	einv_node *nodes;
	einv_attr *attrs;
	unsigned char *data, *new_names;
	xmlChar *text; // see input_in_place
	size_t text_cap;

	open_element *open;
	int depth, open_cap; // open holds open_cap >= lim.max_depth + 1 elements
	ns_binding *ns;
	int ns_len;
	size_t ns_cap;
	prefix_slot *innermost; // see prefix_slot
	unsigned int innermost_cap, innermost_len;
	att_name *att_names; // the attributes of the element being read, by namespace and local name
	size_t att_names_cap;
	int ns_state; // the state of the bindings in scope
	ns_state *states; // open addressing by (parent, prefix, uri), power-of-two size
	unsigned int states_cap, states_len;
	resolved_name *resolved; // open addressing by (qname, state, attribute), power-of-two size
	unsigned int resolved_cap, resolved_len;
	resolved_name unkept; // see resolve_new
	const xmlChar *valid_uris[VALID_URIS]; // see valid_uri
	int run;            // the text node being read, or RUN_NONE, or RUN_BLANK
	size_t blank_start; // with RUN_BLANK: where the run's text starts in data
	einv_limits lim;
	int crowded; // attributes on crowded elements so far (see einv_limits)
	int keep_blanks; // keep whitespace between elements as text nodes (see end_run)
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

static int put_name_part(einv_parser *p, const xmlChar *s, unsigned int n) {
	if (!reserve((void **)&p->new_names, &p->new_names_cap, p->r->new_names_len, n + 4, 1)) return 0;
	memcpy(p->new_names + p->r->new_names_len, &n, 4);
	memcpy(p->new_names + p->r->new_names_len + 4, s, n);
	p->r->new_names_len += n + 4;
	return 1;
}

static size_t slot_of(const name_slot *t, unsigned int cap, const xmlChar *uri, const xmlChar *qname) {
	unsigned long long h = ((unsigned long long)(size_t)qname ^ (unsigned long long)(size_t)uri * 3u) * 0x9E3779B97F4A7C15ull;
	h ^= h >> 29;
	size_t i = h & (cap - 1);
	while (t[i].qname && !(t[i].qname == qname && t[i].uri == uri)) i = (i + 1) & (cap - 1);
	return i;
}

// name_number is the parser's number of a name plus one, numbering it (and recording it among this
// parse's new names) the first time it is seen; 0 when memory runs out.
// qname is the name as written; colon is where its ":" is, or -1.
static unsigned int name_number(einv_parser *p, const xmlChar *uri, const xmlChar *qname, int colon) {
	if (2 * (p->names_len + 1) > p->names_cap) {
		unsigned int cap = p->names_cap ? 2 * p->names_cap : 256;
		name_slot *t = calloc(cap, sizeof *t);
		if (!t) return 0;
		for (unsigned int i = 0; i < p->names_cap; i++)
			if (p->names[i].qname) t[slot_of(t, cap, p->names[i].uri, p->names[i].qname)] = p->names[i];
		free(p->names);
		p->names = t;
		p->names_cap = cap;
	}
	size_t i = slot_of(p->names, p->names_cap, uri, qname);
	if (p->names[i].qname) return p->names[i].index + 1;
	unsigned int prefix_len = colon < 0 ? 0 : (unsigned int)colon, local = colon + 1;
	if (!put_name_part(p, uri, uri ? (unsigned int)strlen((const char *)uri) : 0) || !put_name_part(p, qname, prefix_len) ||
			!put_name_part(p, qname + local, (unsigned int)strlen((const char *)qname + local)))
		return 0;
	p->names[i] = (name_slot){ uri, qname, p->names_len };
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
// before elements, so it is dropped there (and counted: the string value of an element with element
// children then lacks it), unless the parse keeps blanks; it is kept as the whole content of an
// element without element children.
static void end_run(einv_parser *p, int child_starts) {
	if (p->run == RUN_NONE) return;
	if (p->run == RUN_BLANK) {
		if (!p->keep_blanks && (child_starts || p->open[p->depth - 1].last_elem >= 0)) {
			p->r->data_len = p->blank_start;
			p->r->blanks_dropped++;
			p->run = RUN_NONE;
			return;
		}
		if (text_node(p, p->blank_start) < 0) return stop(p, EINV_STOP_OOM);
	}
	link(p, p->run, 0);
	p->run = RUN_NONE;
}

// ns_error records a namespace error, which makes the document not well-formed, and stops the parser.
static void ns_error(einv_parser *p, const char *what, const xmlChar *name) {
	einv_result *r = p->r;
	r->errors++;
	if (r->first_error[0] == 0) {
		r->first_error_line = p->ctxt->input ? p->ctxt->input->line : 0;
		snprintf(r->first_error, sizeof r->first_error, "namespace error: %s%s%s", what, name ? ": " : "", name ? (const char *)name : "");
	}
	xmlStopParser(p->ctxt);
}

// name_start_only reports whether the UTF-8 character at s may go on a name but not start one (XML 1.0
// fifth edition: NameChar less NameStartChar).
static int name_start_only(const xmlChar *s) {
	if (s[0] < 0x80) return s[0] == '-' || s[0] == '.' || (s[0] >= '0' && s[0] <= '9');
	unsigned int c;
	if ((s[0] & 0xE0) == 0xC0) c = (s[0] & 0x1Fu) << 6 | (s[1] & 0x3Fu);
	else if ((s[0] & 0xF0) == 0xE0) c = (s[0] & 0x0Fu) << 12 | (s[1] & 0x3Fu) << 6 | (s[2] & 0x3Fu);
	else return 0;
	return c == 0xB7 || (c >= 0x300 && c <= 0x36F) || c == 0x203F || c == 0x2040;
}

// qname_colon is where a name's ":" is (-1 for none), or -2 when the name, which libxml2 has read as
// an XML Name, is not a QName: a ":" first or last, two of them, or a local part that cannot start a
// name.
static int qname_colon(const xmlChar *name) {
	const xmlChar *c = (const xmlChar *)strchr((const char *)name, ':');
	if (!c) return -1;
	if (c == name || c[1] == 0 || strchr((const char *)c + 1, ':') || name_start_only(c + 1)) return -2;
	return (int)(c - name);
}

static size_t mix(unsigned long long h, unsigned int cap) {
	h *= 0x9E3779B97F4A7C15ull;
	return (size_t)((h ^ h >> 29) & (cap - 1));
}

static size_t prefix_slot_of(const prefix_slot *t, unsigned int cap, const xmlChar *declaration) {
	size_t i = mix((unsigned long long)(size_t)declaration, cap);
	while (t[i].declaration && t[i].declaration != declaration) i = (i + 1) & (cap - 1);
	return i;
}

// innermost is the slot of a prefix by its declaration's name, made (with no binding) if there is
// none; NULL when memory runs out.
static prefix_slot *innermost(einv_parser *p, const xmlChar *declaration) {
	if (2 * (p->innermost_len + 1) > p->innermost_cap) {
		unsigned int cap = p->innermost_cap ? 2 * p->innermost_cap : 32;
		prefix_slot *t = calloc(cap, sizeof *t);
		if (!t) return NULL;
		for (unsigned int i = 0; i < p->innermost_cap; i++)
			if (p->innermost[i].declaration) t[prefix_slot_of(t, cap, p->innermost[i].declaration)] = p->innermost[i];
		free(p->innermost);
		p->innermost = t;
		p->innermost_cap = cap;
	}
	prefix_slot *slot = &p->innermost[prefix_slot_of(p->innermost, p->innermost_cap, declaration)];
	if (!slot->declaration) {
		*slot = (prefix_slot){ declaration, -1 };
		p->innermost_len++;
	}
	return slot;
}

// ns_uri is the namespace of a prefix (the first len bytes of name; len 0: the default namespace) in
// scope; *bound is 0 when the prefix is not declared. The name of a declaration of the prefix, if any
// was read, is in libxml2's dictionary.
static const xmlChar *ns_uri(einv_parser *p, const xmlChar *name, int len, int *bound) {
	*bound = 1;
	if (len == 3 && memcmp(name, "xml", 3) == 0) return p->ctxt->str_xml_ns;
	xmlChar small[256], *declaration = (size_t)len + 6 <= sizeof small ? small : malloc((size_t)len + 6);
	if (!declaration) return stop(p, EINV_STOP_OOM), NULL;
	memcpy(declaration, len ? "xmlns:" : "xmlns", len ? 6 : 5);
	memcpy(declaration + 6, name, (size_t)len);
	const xmlChar *interned = xmlDictExists(p->ctxt->dict, declaration, len ? len + 6 : 5);
	if (declaration != small) free(declaration);
	if (interned && p->innermost_cap) {
		const prefix_slot *slot = &p->innermost[prefix_slot_of(p->innermost, p->innermost_cap, interned)];
		if (slot->declaration && slot->binding >= 0) return p->ns[slot->binding].uri;
	}
	*bound = len == 0; // no default namespace declared: no namespace
	return NULL;
}

static size_t state_slot(const ns_state *t, unsigned int cap, int parent, const xmlChar *prefix, const xmlChar *uri) {
	size_t i = mix((unsigned long long)(size_t)prefix ^ (unsigned long long)(size_t)uri * 3u ^ (unsigned long long)parent * 7u, cap);
	while (t[i].id && !(t[i].parent == parent && t[i].prefix == prefix && t[i].uri == uri)) i = (i + 1) & (cap - 1);
	return i;
}

// next_state is the state after declaring prefix (NULL: the default namespace) as uri in state parent;
// UNNUMBERED past MAX_NS_STATES; 0 when memory runs out.
static int next_state(einv_parser *p, int parent, const xmlChar *prefix, const xmlChar *uri) {
	if (parent == UNNUMBERED) return UNNUMBERED;
	if (p->states_len >= MAX_NS_STATES) {
		const ns_state *known = &p->states[state_slot(p->states, p->states_cap, parent, prefix, uri)];
		return known->id ? known->id : UNNUMBERED;
	}
	if (2 * (p->states_len + 1) > p->states_cap) {
		unsigned int cap = p->states_cap ? 2 * p->states_cap : 64;
		ns_state *t = calloc(cap, sizeof *t);
		if (!t) return 0;
		for (unsigned int i = 0; i < p->states_cap; i++)
			if (p->states[i].id) t[state_slot(t, cap, p->states[i].parent, p->states[i].prefix, p->states[i].uri)] = p->states[i];
		free(p->states);
		p->states = t;
		p->states_cap = cap;
	}
	size_t i = state_slot(p->states, p->states_cap, parent, prefix, uri);
	if (!p->states[i].id) p->states[i] = (ns_state){ prefix, uri, parent, (int)++p->states_len };
	return p->states[i].id;
}

static size_t resolved_slot(const resolved_name *t, unsigned int cap, const xmlChar *qname, int state, int attribute) {
	size_t i = mix((unsigned long long)(size_t)qname ^ (unsigned long long)(2 * state + attribute) * 7u, cap);
	while (t[i].qname && !(t[i].qname == qname && t[i].state == state && t[i].attribute == attribute)) i = (i + 1) & (cap - 1);
	return i;
}

// resolve is an element's (or, with attribute, an attribute's) name resolved in the bindings in scope,
// with its name number; NULL after a namespace error, or when memory runs out (the parser is then
// stopped). A name is resolved once per parser and state: after that, resolving it is one lookup.
static const resolved_name *resolve_new(einv_parser *p, const xmlChar *qname, int attribute);

static inline const resolved_name *resolve(einv_parser *p, const xmlChar *qname, int attribute) {
	if (p->resolved_cap && p->ns_state != UNNUMBERED) {
		resolved_name *e = &p->resolved[resolved_slot(p->resolved, p->resolved_cap, qname, p->ns_state, attribute)];
		if (e->qname) return e;
	}
	return resolve_new(p, qname, attribute);
}

// resolve_new resolves a name not resolved before in this state, and remembers it (unless the state is
// UNNUMBERED or the table is full: the name is then in unkept, until the next name is resolved).
__attribute__((noinline)) static const resolved_name *resolve_new(einv_parser *p, const xmlChar *qname, int attribute) {
	int keep = p->ns_state != UNNUMBERED && p->resolved_len < MAX_RESOLVED;
	if (keep && 2 * (p->resolved_len + 1) > p->resolved_cap) {
		unsigned int cap = p->resolved_cap ? 2 * p->resolved_cap : 256;
		resolved_name *t = calloc(cap, sizeof *t);
		if (!t) return stop(p, EINV_STOP_OOM), NULL;
		for (unsigned int i = 0; i < p->resolved_cap; i++) {
			const resolved_name *e = &p->resolved[i];
			if (e->qname) t[resolved_slot(t, cap, e->qname, e->state, e->attribute)] = *e;
		}
		free(p->resolved);
		p->resolved = t;
		p->resolved_cap = cap;
	}
	resolved_name *e = keep ? &p->resolved[resolved_slot(p->resolved, p->resolved_cap, qname, p->ns_state, attribute)] : &p->unkept;
	int colon = qname_colon(qname), bound = 1;
	if (colon == -2) return ns_error(p, "the name is not a QName", qname), NULL;
	const xmlChar *uri = NULL; // an unprefixed attribute is in no namespace
	if (!attribute || colon > 0) uri = ns_uri(p, qname, colon < 0 ? 0 : colon, &bound);
	if (!bound) return ns_error(p, "the prefix is not declared", qname), NULL;
	unsigned int name = name_number(p, uri, qname, colon);
	if (!name) return stop(p, EINV_STOP_OOM), NULL;
	*e = (resolved_name){ qname, p->ns_state, attribute, colon, uri, name };
	p->resolved_len += keep;
	return e;
}

// valid_uri reports whether xmlParseURI accepts a namespace name (interned in libxml2's dictionary),
// remembering the last accepted ones by address: documents declare the same few namespaces.
static int valid_uri(einv_parser *p, const xmlChar *uri) {
	const xmlChar **slot = &p->valid_uris[mix((unsigned long long)(size_t)uri, VALID_URIS)];
	if (*slot == uri) return 1;
	xmlURIPtr parsed = xmlParseURI((const char *)uri);
	if (!parsed) return 0;
	xmlFreeURI(parsed);
	*slot = uri;
	return 1;
}

static const char xmlns_namespace[] = "http://www.w3.org/2000/xmlns/";

// declare binds the namespace an xmlns or xmlns:prefix attribute declares, with the checks libxml2's
// SAX2 parser makes; 0 after a namespace error. A namespace name that is not a URI ("urn:a b") is an
// error to libxml2 but any string to the official rules' parser: it is noted (the official schema
// verdict, xmllint's, then fails) and the document is read on.
static int declare(einv_parser *p, const xmlChar *attname, const xmlChar *value) {
	xmlParserCtxtPtr c = p->ctxt;
	const xmlChar *prefix = attname[5] == ':' ? attname + 6 : NULL;
	const xmlChar *uri = value[0] ? xmlDictLookup(c->dict, value, -1) : NULL;
	if (value[0] && !uri) return stop(p, EINV_STOP_NAMES), 0; // the dictionary is full
	int xml_prefix = prefix && strcmp((const char *)prefix, "xml") == 0;
	if (xml_prefix && uri != c->str_xml_ns) return ns_error(p, "the xml prefix is bound to another namespace", value), 0;
	if (xml_prefix) return 1; // the xml prefix is always bound: nothing to declare
	if (uri && uri == c->str_xml_ns) return ns_error(p, "the XML namespace cannot be the default or bound to another prefix", attname), 0;
	if (prefix && strcmp((const char *)prefix, "xmlns") == 0) return ns_error(p, "the xmlns prefix cannot be declared", attname), 0;
	if (uri && strcmp((const char *)uri, xmlns_namespace) == 0) return ns_error(p, "the xmlns namespace cannot be bound", attname), 0;
	if (prefix && !uri) return ns_error(p, "a prefix cannot be bound to an empty namespace", attname), 0;
	if (uri && !valid_uri(p, uri) && !p->r->non_uri_line) p->r->non_uri_line = c->input ? c->input->line : 1; // noted, not refused
	prefix_slot *slot;
	if (!reserve((void **)&p->ns, &p->ns_cap, (size_t)p->ns_len, 1, sizeof *p->ns) || !(slot = innermost(p, attname)))
		return stop(p, EINV_STOP_OOM), 0;
	p->ns[p->ns_len] = (ns_binding){ attname, uri, slot->binding };
	slot->binding = p->ns_len++;
	if (!(p->ns_state = next_state(p, p->ns_state, prefix, uri))) return stop(p, EINV_STOP_OOM), 0;
	return 1;
}

static inline int is_declaration(const xmlChar *a) {
	return a[0] == 'x' && a[1] == 'm' && a[2] == 'l' && a[3] == 'n' && a[4] == 's' && (a[5] == 0 || a[5] == ':');
}

static void on_start(void *ctx, const xmlChar *qname, const xmlChar **atts) {
	einv_parser *p = ((xmlParserCtxtPtr)ctx)->_private;
	einv_result *r = p->r;
	end_run(p, 1);
	if (p->depth >= p->lim.max_depth) {
		r->stop_line = ((xmlParserCtxtPtr)ctx)->input->line;
		return stop(p, EINV_STOP_DEEP);
	}
	// The element's own declarations first: they are in scope for its name and attributes.
	int ns_start = p->ns_len, ns_state = p->ns_state, nb_attributes = 0, nb_declarations = 0;
	for (const xmlChar **a = atts; a && a[0]; a += 2) {
		if (!is_declaration(a[0])) {
			nb_attributes++;
			continue;
		}
		nb_declarations++;
		if (a[0][5] == ':' && qname_colon(a[0]) < 0) return ns_error(p, "the name is not a QName", a[0]);
		if (!declare(p, a[0], a[1])) return;
	}
	int written = nb_attributes + nb_declarations;
	if (written > p->lim.crowded && (p->crowded += written) > p->lim.max_crowded) {
		r->stop_line = ((xmlParserCtxtPtr)ctx)->input->line;
		return stop(p, EINV_STOP_CROWDED);
	}
	const resolved_name *en = resolve(p, qname, 0);
	if (!en) return;
	int id = new_node(p);
	if (id < 0 || !reserve((void **)&p->attrs, &p->attrs_cap, r->attrs_len, (size_t)nb_attributes, sizeof *p->attrs) ||
			!reserve((void **)&p->att_names, &p->att_names_cap, 0, (size_t)nb_attributes, sizeof *p->att_names))
		return stop(p, EINV_STOP_OOM);
	einv_node *nd = &p->nodes[id];
	nd->name = en->name;
	nd->line = ((xmlParserCtxtPtr)ctx)->input->line;
	nd->start = (int)r->attrs_len;
	int k = 0;
	for (const xmlChar **a = atts; a && a[0]; a += 2) {
		if (is_declaration(a[0])) continue;
		const resolved_name *an = resolve(p, a[0], 1);
		if (!an) return;
		const xmlChar *local = a[0] + an->colon + 1;
		// libxml2 has refused a name written twice; one local name in one namespace is refused here.
		for (int j = 0; an->uri && j < k; j++)
			if (p->att_names[j].uri == an->uri && strcmp((const char *)p->att_names[j].local, (const char *)local) == 0)
				return ns_error(p, "an attribute is given twice", a[0]);
		size_t n = strlen((const char *)a[1]);
		if (!reserve((void **)&p->data, &p->data_cap, r->data_len, n, 1)) return stop(p, EINV_STOP_OOM);
		memcpy(p->data + r->data_len, a[1], n);
		p->att_names[k++] = (att_name){ an->uri, local };
		p->attrs[r->attrs_len++] = (einv_attr){ an->name, (int)r->data_len, (int)(r->data_len + n) };
		r->data_len += n;
	}
	nd->end = (int)r->attrs_len;
	if (p->depth > 0) link(p, id, 1);
	p->open[p->depth++] = (open_element){ id, -1, -1, ns_start, ns_state };
	r->elements++;
}

static void on_end(void *ctx, const xmlChar *qname) {
	einv_parser *p = ((xmlParserCtxtPtr)ctx)->_private;
	end_run(p, 0);
	open_element *o = &p->open[--p->depth];
	p->nodes[o->id].last = (int)p->r->nodes_len - 1;
	for (; p->ns_len > o->ns_start; p->ns_len--) {
		const ns_binding *b = &p->ns[p->ns_len - 1];
		p->innermost[prefix_slot_of(p->innermost, p->innermost_cap, b->declaration)].binding = b->hides;
	}
	p->ns_state = o->ns_state;
}

// A comment or processing instruction ends the text before it: XPath sees two text nodes around it.
static void on_comment(void *ctx, const xmlChar *value) {
	end_run(((xmlParserCtxtPtr)ctx)->_private, 0);
}

static void on_pi(void *ctx, const xmlChar *target, const xmlChar *data) {
	end_run(((xmlParserCtxtPtr)ctx)->_private, 0);
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
	if (p->run == RUN_NONE && !p->keep_blanks && (ch == c->input->cur || ch + len == c->input->cur) && ch[len] == '<' &&
			ch[len + 1] != '!' && ch[len + 1] != '?' && (ch[len + 1] != '/' || p->open[p->depth - 1].last_elem >= 0) &&
			blank(ch, len)) {
		r->blanks_dropped++;
		return;
	}
	size_t start = p->run == RUN_BLANK ? p->blank_start : p->run == RUN_NONE ? r->data_len : (size_t)p->nodes[p->run].start;
	if ((long)(r->data_len - start) + len > p->lim.max_text) return stop(p, EINV_STOP_TEXT);
	// libxml2's tree builder, which xmllint uses, refuses a text node past XML_MAX_TEXT_LENGTH bytes; the
	// official rules' parser does not. Noted for the schema verdict, read on.
	if ((long)(r->data_len - start) + len > XML_MAX_TEXT_LENGTH && !r->huge_text_line) r->huge_text_line = c->input ? c->input->line : 1;
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

// A CDATA section is text to the rules' parser, but libxml2's schema check, whose verdict is the official
// one, refuses any CDATA section, even an empty or blank one, in an element whose content is elements
// only: the element it is written in is noted for that check (xsd.Validate).
static void on_cdata(void *ctx, const xmlChar *ch, int len) {
	xmlParserCtxtPtr c = ctx;
	einv_parser *p = c->_private;
	einv_result *r = p->r;
	if (p->depth == 0) return;
	int id = p->open[p->depth - 1].id;
	if (r->cdata_in_len == 0 || p->cdata_in[r->cdata_in_len - 1] != id) {
		if (!reserve((void **)&p->cdata_in, &p->cdata_in_cap, r->cdata_in_len, 1, sizeof *p->cdata_in)) return stop(p, EINV_STOP_OOM);
		p->cdata_in[r->cdata_in_len++] = id;
	}
	on_text(ctx, ch, len);
}

// A document type declaration is read (the official tools read it) when it names no external DTD and
// declares no entity and no attribute defaults: nothing is loaded, expanded or added. Anything more
// stops the parser; no DTD is ever loaded (see no_loader).
static void on_doctype(void *ctx, const xmlChar *name, const xmlChar *ext, const xmlChar *sys) {
	einv_parser *p = ((xmlParserCtxtPtr)ctx)->_private;
	if (ext || sys) return stop(p, EINV_STOP_DOCTYPE);
	p->r->doctype = 1;
}

static void on_entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *public_id, const xmlChar *system_id, xmlChar *content) {
	stop(((xmlParserCtxtPtr)ctx)->_private, EINV_STOP_DOCTYPE);
}

static void on_unparsed_entity_decl(void *ctx, const xmlChar *name, const xmlChar *public_id, const xmlChar *system_id, const xmlChar *notation) {
	stop(((xmlParserCtxtPtr)ctx)->_private, EINV_STOP_DOCTYPE);
}

static void on_attribute_decl(void *ctx, const xmlChar *elem, const xmlChar *name, int type, int def, const xmlChar *default_value, xmlEnumerationPtr values) {
	xmlFreeEnumeration(values); // the handler owns it
	stop(((xmlParserCtxtPtr)ctx)->_private, EINV_STOP_DOCTYPE);
}

static xmlEntityPtr on_entity(void *ctx, const xmlChar *name) {
	// Only the five predefined entities exist; anything else is an undeclared entity (a parse error).
	return xmlGetPredefinedEntity(name);
}

// on_error receives libxml2's errors (its SAX1 interface reports them here, as text; the details are in
// the context's lastError). The first one is recorded, and the parser stops there, as libxml2 itself
// stops from version 2.13 on: it would otherwise read on with its handlers silenced, over markup that
// crowded_tag may have read otherwise. The stop leaves libxml2's input in place, since the function
// that raised the error may still be reading it.
static void on_error(void *ctx, const char *msg, ...) {
	xmlParserCtxtPtr c = ctx;
	if (!c || !c->_private) return;
	einv_result *r = ((einv_parser *)c->_private)->r;
	const xmlError *err = &c->lastError;
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
	c->instate = XML_PARSER_EOF;
	c->disableSAX = 2;
}

// Attribute counts. libxml2 checks that no attribute of a start tag is written twice by comparing each
// with every one before it, before any handler sees the tag: 200,000 attributes on one element take
// it most of a minute. So the markup is looked over before libxml2 reads any element, and an element
// with more than max_attributes attributes, or more than max_namespaces namespace declarations, stops
// the parse there. (What the tags libxml2 then reads cost in all is bounded in on_start: einv_limits.)
//
// Each attribute takes at least five bytes (a blank, a name, "=" and two quotes), and no "<" can be
// written inside a start tag, attribute values included: a tag past a limit leaves a run of more than
// five times the limit bytes without a "<". Runs that long are looked for from the end of each window
// backwards, which reads a few bytes per window in a typical document; only a document with such a run
// (a long text, an embedded attachment, or a tag past a limit) has its markup read tag by tag.

// long_run reports whether [s, end) holds n bytes in a row without a "<". Each window of n bytes starts
// just after the last "<" of the window before; a run of n bytes is a window without one.
static int long_run(const xmlChar *s, const xmlChar *end, size_t n) {
	while ((size_t)(end - s) >= n) {
		const xmlChar *lt = memrchr(s, '<', n);
		if (!lt) return 1;
		s = lt + 1;
	}
	return 0;
}

static inline int is_blank(xmlChar c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// past is where the first what (n bytes) at or after s ends, or NULL.
static const xmlChar *past(const xmlChar *s, const xmlChar *end, const char *what, size_t n) {
	const xmlChar *at = memmem(s, (size_t)(end - s), what, n);
	return at ? at + n : NULL;
}

// past_quoted is where the quoted literal at s ends, or NULL.
static const xmlChar *past_quoted(const xmlChar *s, const xmlChar *end) {
	const xmlChar *q = memchr(s + 1, *s, (size_t)(end - s - 1));
	return q ? q + 1 : NULL;
}

// past_declaration is where the markup declaration whose name starts at s ends: its ">", with quoted
// literals passed over; NULL when it does not end.
static const xmlChar *past_declaration(const xmlChar *s, const xmlChar *end) {
	while (s && s < end && *s != '>') s = *s == '"' || *s == '\'' ? past_quoted(s, end) : s + 1;
	return s && s < end ? s + 1 : NULL;
}

// past_doctype is where the document type declaration whose name starts at s ends: as a markup
// declaration, with its internal subset (declarations, comments and processing instructions, to its
// "]") passed over too.
static const xmlChar *past_doctype(const xmlChar *s, const xmlChar *end) {
	while (s && s < end && *s != '>' && *s != '[') s = *s == '"' || *s == '\'' ? past_quoted(s, end) : s + 1;
	if (!s || s == end || *s == '>') return past_declaration(s, end);
	for (s++; s && s < end && *s != ']';) {
		if (*s != '<') s++;
		else if (end - s >= 4 && memcmp(s, "<!--", 4) == 0) s = past(s + 4, end, "-->", 3);
		else if (end - s >= 2 && s[1] == '?') s = past(s + 2, end, "?>", 2);
		else s = past_declaration(s + 1, end);
	}
	return s && s < end ? past_declaration(s + 1, end) : NULL;
}

// crowded_tag is the first start tag in [s, end) with more than max_attributes attributes (*code
// EINV_STOP_ATTRIBUTES) or more than max_namespaces namespace declarations (EINV_STOP_NAMESPACES), read
// as libxml2 reads markup; NULL when there is none. Past the first error in the document the reading
// may differ from libxml2's, which stops there (see on_error).
static const xmlChar *crowded_tag(const xmlChar *s, const xmlChar *end, int max_attributes, int max_namespaces, int *code) {
	while (s && s < end && (s = memchr(s, '<', (size_t)(end - s))) != NULL) {
		const xmlChar *tag = s++;
		if (s == end) break;
		if (*s == '/') continue; // an end tag: nothing in it is markup
		if (*s == '?') {
			s = past(s + 1, end, "?>", 2);
			continue;
		}
		if (*s == '!') {
			if (end - s >= 3 && memcmp(s, "!--", 3) == 0) s = past(s + 3, end, "-->", 3);
			else if (end - s >= 8 && memcmp(s, "![CDATA[", 8) == 0) s = past(s + 8, end, "]]>", 3);
			else s = past_doctype(s + 1, end);
			continue;
		}
		while (s < end && !is_blank(*s) && *s != '/' && *s != '>' && *s != '<') s++; // the element name
		int attributes = 0, namespaces = 0;
		for (;;) {
			while (s < end && is_blank(*s)) s++;
			if (s == end || *s == '>' || *s == '/' || *s == '<') break;
			const xmlChar *name = s;
			while (s < end && !is_blank(*s) && *s != '=' && *s != '>' && *s != '/' && *s != '<' && *s != '"' && *s != '\'') s++;
			size_t n = (size_t)(s - name);
			if (n >= 5 && memcmp(name, "xmlns", 5) == 0 && (n == 5 || name[5] == ':')) namespaces++;
			else attributes++;
			if (attributes > max_attributes || namespaces > max_namespaces) {
				*code = attributes > max_attributes ? EINV_STOP_ATTRIBUTES : EINV_STOP_NAMESPACES;
				return tag;
			}
			while (s < end && is_blank(*s)) s++;
			if (s == end || *s != '=') break;
			for (s++; s < end && is_blank(*s); s++) {}
			if (s == end || (*s != '"' && *s != '\'')) break;
			if (!(s = past_quoted(s, end))) return NULL;
		}
	}
	return NULL;
}

// on_start_document runs when libxml2 has read the XML declaration, before any other markup: the rest of
// the document is looked over for crowded elements (see long_run). A document read through a converter
// has the rest converted first, as libxml2's next read would convert it.
static void on_start_document(void *ctx) {
	xmlParserCtxtPtr c = ctx;
	einv_parser *p = c->_private;
	xmlParserInputPtr in = c->input;
	if (in->buf && in->buf->encoder) {
		while (xmlParserInputBufferGrow(in->buf, 1 << 16) > 0) {}
		size_t at = (size_t)(in->cur - in->base);
		in->base = xmlBufContent(in->buf->buffer);
		in->cur = in->base + at;
		in->end = xmlBufEnd(in->buf->buffer);
	}
	int most = p->lim.max_attributes, most_ns = p->lim.max_namespaces;
	size_t shortest = 5 * (size_t)(most < most_ns ? most : most_ns);
	if (!long_run(in->cur, in->end, shortest)) return;
	int code = 0;
	const xmlChar *tag = crowded_tag(in->cur, in->end, most, most_ns, &code);
	if (!tag) return;
	int line = in->line;
	for (const xmlChar *nl = in->cur; (nl = memchr(nl, '\n', (size_t)(tag - nl))) != NULL; nl++) line++;
	p->r->stop_line = line;
	stop(p, code);
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
	h->initialized = 1; // SAX1: names as written, namespaces left to on_start
	h->startElement = on_start;
	h->endElement = on_end;
	h->characters = on_text;
	h->cdataBlock = on_cdata;
	h->ignorableWhitespace = on_text;
	h->comment = on_comment;
	h->processingInstruction = on_pi;
	h->internalSubset = on_doctype;
	h->entityDecl = on_entity_decl;
	h->unparsedEntityDecl = on_unparsed_entity_decl;
	h->attributeDecl = on_attribute_decl;
	h->getEntity = on_entity;
	h->error = on_error;
	h->startDocument = on_start_document;
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
	free(p->cdata_in);
	free(p->text);
	free(p->open);
	free(p->ns);
	free(p->innermost);
	free(p->att_names);
	free(p->states);
	free(p->resolved);
	free(p);
}

// plain_utf8 reports whether a document is UTF-8 without anything to convert: it starts with "<" (no
// byte-order mark), any encoding its XML declaration names is UTF-8, and it holds no NUL byte. libxml2
// (before 2.11) then reads it in place, from a copy ending in NUL; any other document goes through
// libxml2's input buffers, which detect and convert encodings.
static int plain_utf8(const char *data, int len) {
	if (len < 1 || data[0] != '<' || memchr(data, 0, (size_t)len)) return 0;
#if LIBXML_VERSION >= 21100
	return 0; // later versions read every input through a buffer
#else
	if (len < 6 || memcmp(data, "<?xml", 5) != 0) return 1;
	const char *end = memmem(data, (size_t)(len < 512 ? len : 512), "?>", 2);
	if (!end) return 0;
	const char *e = memmem(data, (size_t)(end - data), "encoding", 8);
	if (!e) return 1;
	e += 8;
	while (e < end && (*e == ' ' || *e == '\t' || *e == '\n' || *e == '\r')) e++;
	if (e == end || *e++ != '=') return 0;
	while (e < end && (*e == ' ' || *e == '\t' || *e == '\n' || *e == '\r')) e++;
	if (e == end || (*e != '"' && *e != '\'')) return 0;
	char quote = *e++;
	const char *v = e;
	while (e < end && *e != quote) e++;
	size_t n = (size_t)(e - v);
	return e < end && ((n == 5 && strncasecmp(v, "UTF-8", 5) == 0) || (n == 4 && strncasecmp(v, "UTF8", 4) == 0));
#endif
}

// input_in_place is an input that reads a copy of the document, kept by the parser from one document
// to the next, with no input buffer of libxml2's in between.
static xmlParserInputPtr input_in_place(einv_parser *p, const char *data, int len) {
	if (!reserve((void **)&p->text, &p->text_cap, 0, (size_t)len + 1, 1)) return NULL;
	memcpy(p->text, data, (size_t)len);
	p->text[len] = 0;
	xmlParserInputPtr in = xmlNewInputStream(p->ctxt);
	if (!in) return NULL;
	in->base = in->cur = p->text;
	in->length = len;
	in->end = p->text + len;
	return in;
}

// input_buffered is an input through libxml2's buffers, which convert other encodings to UTF-8.
static xmlParserInputPtr input_buffered(xmlParserCtxtPtr c, const char *data, int len) {
	xmlParserInputBufferPtr buf = xmlParserInputBufferCreateMem(data, len, XML_CHAR_ENCODING_NONE);
	xmlParserInputPtr in = buf ? xmlNewIOInputStream(c, buf, XML_CHAR_ENCODING_NONE) : NULL;
	if (!in && buf) xmlFreeParserInputBuffer(buf);
	return in;
}

// read_document runs libxml2 over a document with the given handlers, in the parser's context made
// afresh; 0 when memory runs out. The caller reads what it needs of the context, then calls
// end_document.
static int read_document(einv_parser *p, const xmlSAXHandler *handler, const char *data, int len) {
	xmlParserCtxtPtr c = p->ctxt;
	xmlCtxtReset(c);
	xmlParserInputPtr in = plain_utf8(data, len) ? input_in_place(p, data, len) : input_buffered(c, data, len);
	if (!in) return 0;
	inputPush(c, in);
	xmlCtxtUseOptions(c, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	*c->sax = *handler; // after the options, which set some handler fields of their own
	c->sax2 = 0;        // the context was made for SAX2; xmlParseDocument only ever turns it on
	c->_private = p;
	c->userData = c;
	xmlParseDocument(c);
	return 1;
}

// end_document lets the input go (it refers to the caller's memory), and the document libxml2 makes of
// its own when an entity is declared ("expat compatibility", even after the declaration stopped it).
static void end_document(xmlParserCtxtPtr c) {
	xmlParserInputPtr in;
	while ((in = inputPop(c)) != NULL) xmlFreeInputStream(in);
	if (c->myDoc) {
		xmlFreeDoc(c->myDoc);
		c->myDoc = NULL;
	}
	c->_private = NULL;
}

// einv_read_only reads a document as einv_parse does (the same context, input and options) with
// handlers that do nothing: libxml2's own share of a parse, for a benchmark. It reports whether the
// document is well-formed.
int einv_read_only(einv_parser *p, const char *data, int len) {
	static const xmlSAXHandler nothing = { .initialized = 1, .getEntity = on_entity };
	if (!read_document(p, &nothing, data, len)) return 0;
	int ok = p->ctxt->wellFormed;
	end_document(p->ctxt);
	return ok;
}

void einv_parse(einv_parser *p, const char *data, int len, einv_limits lim, int keep_blanks, einv_result *r) {
	memset(r, 0, sizeof *r);
	p->r = r;
	p->depth = 0;
	p->ns_len = 0;
	p->ns_state = 0;
	for (unsigned int i = 0; i < p->innermost_cap; i++) p->innermost[i].binding = -1;
	if (p->states_len >= MAX_NS_STATES || p->resolved_len >= MAX_RESOLVED) {
		free(p->states);
		free(p->resolved);
		p->states = NULL;
		p->resolved = NULL;
		p->states_cap = p->states_len = p->resolved_cap = p->resolved_len = 0;
	}
	p->run = RUN_NONE;
	p->lim = lim;
	p->crowded = 0;
	p->keep_blanks = keep_blanks;
	if (p->open_cap < lim.max_depth + 1) {
		open_element *o = realloc(p->open, sizeof *o * (size_t)(lim.max_depth + 1));
		if (!o) { r->stopped = EINV_STOP_OOM; return; }
		p->open = o;
		p->open_cap = lim.max_depth + 1;
	}

	// libxml2 keeps the names it reads in a dictionary whose hash table stops growing at a few thousand
	// buckets (before 2.12): looking a name up then takes time in proportion to the names it holds, and
	// a document of distinct names would take time quadratic in its size. The dictionary is limited, and
	// a name that does not fit stops the parse (libxml2 reports it as an allocation failure).
	xmlDictSetLimit(p->ctxt->dict, lim.max_name_bytes);
	if (!read_document(p, &p->handler, data, len)) {
		r->stopped = EINV_STOP_OOM;
		return;
	}
	xmlParserCtxtPtr c = p->ctxt;
	if (!r->stopped && r->first_error_code == XML_ERR_NO_MEMORY) r->stopped = EINV_STOP_NAMES;
	r->well_formed = c->wellFormed && c->nsWellFormed;
	// The encoding the document was read in: the converter libxml2 chose (from a byte-order mark, the
	// first bytes or the declaration, the mark winning over a declaration that disagrees), else the
	// declared one. UTF-8 needs no converter.
	const char *declared = NULL, *encoding = NULL;
	if (c->encoding) declared = (const char *)c->encoding;
	else if (c->input && c->input->encoding) declared = (const char *)c->input->encoding;
	if (declared) strncpy(r->declared_encoding, declared, sizeof r->declared_encoding - 1);
	encoding = c->input && c->input->buf && c->input->buf->encoder ? c->input->buf->encoder->name : declared;
	if (encoding) strncpy(r->encoding, encoding, sizeof r->encoding - 1);
	end_document(c);

	r->nodes = p->nodes;
	r->attrs = p->attrs;
	r->data = p->data;
	r->new_names = p->new_names;
	r->cdata_in = p->cdata_in;
	r->names_total = p->names_len;
	r->kept_bytes = p->nodes_cap * sizeof *p->nodes + p->attrs_cap * sizeof *p->attrs + p->data_cap + p->new_names_cap + p->text_cap + p->cdata_in_cap * sizeof *p->cdata_in;
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
