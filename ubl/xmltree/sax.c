// SAX2 front end on libxml2: parses a document held in memory and writes a compact event stream that
// the Go side turns into a tree in one pass. No DOM is built, no DTD is accepted, no entity is loaded,
// nothing is fetched from the network.
#include "sax.h"
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <stdlib.h>
#include <string.h>

// A name as the parser hands it over: libxml2 interns names in its dictionary, so the three pointers
// identify a name without comparing strings. (Were two pointers ever to differ for equal strings, the
// name would only be defined twice; the Go side maps both to the same Name.)
typedef struct {
	const xmlChar *uri, *prefix, *local;
	unsigned int index;
} name_slot;

typedef struct {
	xmlParserCtxtPtr ctxt;
	einv_result *r;
	long text_in_node;   // bytes of text in the current run of character data
	long max_text;
	size_t text_len_at; // offset of the length of the text record being extended, 0 when none
	name_slot *names;   // open addressing, power-of-two size, empty slots have local == NULL
	unsigned int names_cap, names_len;
} state;

static int grow(einv_result *r, size_t need) {
	if (r->len + need <= r->cap) return 1;
	size_t cap = r->cap ? r->cap : 4096;
	while (cap < r->len + need) cap *= 2;
	unsigned char *b = realloc(r->buf, cap);
	if (!b) { r->oom = 1; return 0; }
	r->buf = b; r->cap = cap;
	return 1;
}

static void put_u32(einv_result *r, unsigned int v) {
	if (!grow(r, 4)) return;
	memcpy(r->buf + r->len, &v, 4); r->len += 4;
}

static void put_bytes(einv_result *r, const xmlChar *s, int n) {
	if (!grow(r, (size_t)n + 4)) return;
	memcpy(r->buf + r->len, &n, 4); r->len += 4;
	memcpy(r->buf + r->len, s, (size_t)n); r->len += (size_t)n;
}

static void put_str(einv_result *r, const xmlChar *s) { put_bytes(r, s ? s : (const xmlChar *)"", s ? (int)strlen((const char *)s) : 0); }

static void stop(state *st, int code) {
	if (!st->r->stopped) st->r->stopped = code;
	xmlStopParser(st->ctxt);
}

static size_t slot_of(const name_slot *t, unsigned int cap, const xmlChar *uri, const xmlChar *prefix, const xmlChar *local) {
	unsigned long long h = ((unsigned long long)(size_t)local ^ (unsigned long long)(size_t)uri * 3u ^
		(unsigned long long)(size_t)prefix * 7u) * 0x9E3779B97F4A7C15ull;
	h ^= h >> 29;
	size_t i = h & (cap - 1);
	while (t[i].local && !(t[i].local == local && t[i].uri == uri && t[i].prefix == prefix)) i = (i + 1) & (cap - 1);
	return i;
}

// name_index numbers a name for this document, writing an EINV_NAME record the first time it is
// seen; it returns -1 when memory runs out.
static long name_index(state *st, const xmlChar *uri, const xmlChar *prefix, const xmlChar *local) {
	if (2 * (st->names_len + 1) > st->names_cap) {
		unsigned int cap = st->names_cap ? 2 * st->names_cap : 256;
		name_slot *t = calloc(cap, sizeof *t);
		if (!t) return -1;
		for (unsigned int i = 0; i < st->names_cap; i++)
			if (st->names[i].local) t[slot_of(t, cap, st->names[i].uri, st->names[i].prefix, st->names[i].local)] = st->names[i];
		free(st->names);
		st->names = t; st->names_cap = cap;
	}
	size_t i = slot_of(st->names, st->names_cap, uri, prefix, local);
	if (st->names[i].local) return st->names[i].index;
	einv_result *r = st->r;
	if (!grow(r, 1)) return -1;
	r->buf[r->len++] = EINV_NAME;
	put_str(r, uri);
	put_str(r, prefix);
	put_str(r, local);
	if (r->oom) return -1;
	st->names[i] = (name_slot){ uri, prefix, local, st->names_len };
	return st->names_len++;
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
		int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted, const xmlChar **attrs) {
	state *st = ((xmlParserCtxtPtr)ctx)->_private;
	einv_result *r = st->r;
	st->text_in_node = 0;
	st->text_len_at = 0;
	// Names first (their records must precede the element's), kept on the stack for the usual few
	// attributes.
	long small[16], *idx = small;
	if (nb_attributes + 1 > 16 && !(idx = malloc(sizeof *idx * (size_t)(nb_attributes + 1)))) return stop(st, EINV_STOP_OOM);
	idx[0] = name_index(st, uri, prefix, localname);
	for (int i = 0; i < nb_attributes; i++) idx[i + 1] = name_index(st, attrs[5 * i + 2], attrs[5 * i + 1], attrs[5 * i]);
	int failed = 0;
	for (int i = 0; i <= nb_attributes; i++) failed |= idx[i] < 0;
	if (failed || !grow(r, 1)) {
		if (idx != small) free(idx);
		return stop(st, EINV_STOP_OOM);
	}
	r->buf[r->len++] = EINV_START;
	put_u32(r, (unsigned int)xmlSAX2GetLineNumber(ctx));
	put_u32(r, (unsigned int)idx[0]);
	put_u32(r, (unsigned int)nb_attributes);
	for (int i = 0; i < nb_attributes; i++) {
		const xmlChar **a = attrs + 5 * i; // localname, prefix, URI, value, end
		put_u32(r, (unsigned int)idx[i + 1]);
		put_bytes(r, a[3], (int)(a[4] - a[3]));
	}
	if (idx != small) free(idx);
	if (r->oom) stop(st, EINV_STOP_OOM);
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri) {
	state *st = ((xmlParserCtxtPtr)ctx)->_private;
	st->text_in_node = 0;
	st->text_len_at = 0;
	if (!grow(st->r, 1)) return stop(st, EINV_STOP_OOM);
	st->r->buf[st->r->len++] = EINV_END;
}

static void on_text(void *ctx, const xmlChar *ch, int len) {
	state *st = ((xmlParserCtxtPtr)ctx)->_private;
	st->text_in_node += len;
	if (st->text_in_node > st->max_text) return stop(st, EINV_STOP_TEXT);
	einv_result *r = st->r;
	if (!grow(r, (size_t)len + 5)) return stop(st, EINV_STOP_OOM);
	if (st->text_len_at) { // the previous event was text: extend it, so a run is one record
		int n;
		memcpy(&n, r->buf + st->text_len_at, 4);
		n += len;
		memcpy(r->buf + st->text_len_at, &n, 4);
		memcpy(r->buf + r->len, ch, (size_t)len);
		r->len += (size_t)len;
		return;
	}
	r->buf[r->len++] = EINV_TEXT;
	st->text_len_at = r->len;
	put_bytes(r, ch, len);
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
	einv_result *r = ((state *)c->_private)->r;
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

void einv_parse(const char *data, int len, long max_text, einv_result *r) {
	memset(r, 0, sizeof *r);
	xmlSAXHandler h;
	memset(&h, 0, sizeof h);
	h.initialized = XML_SAX2_MAGIC;
	h.startElementNs = on_start;
	h.endElementNs = on_end;
	h.characters = on_text;
	h.cdataBlock = on_text;
	h.ignorableWhitespace = on_text;
	h.internalSubset = on_doctype;
	h.getEntity = on_entity;
	h.serror = on_error;

	xmlParserCtxtPtr ctxt = xmlCreateMemoryParserCtxt(data, len);
	if (!ctxt) { r->oom = 1; return; }
	state st = { ctxt, r, 0, max_text, 0, NULL, 0, 0 };
	xmlSAXHandlerPtr old = ctxt->sax;
	ctxt->sax = &h;
	ctxt->_private = &st;
	ctxt->userData = ctxt;
	xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	ctxt->sax = &h; // xmlCtxtUseOptions may reset handler fields; keep ours
	xmlParseDocument(ctxt);
	r->well_formed = ctxt->wellFormed && ctxt->nsWellFormed;
	if (ctxt->encoding) strncpy(r->encoding, (const char *)ctxt->encoding, sizeof r->encoding - 1);
	else if (ctxt->input && ctxt->input->encoding) strncpy(r->encoding, (const char *)ctxt->input->encoding, sizeof r->encoding - 1);
	ctxt->sax = old;
	ctxt->_private = NULL;
	xmlFreeParserCtxt(ctxt);
	free(st.names);
}

void einv_init(void) {
	xmlInitParser();
	xmlSetExternalEntityLoader(no_loader);
}

void einv_free(einv_result *r) { free(r->buf); r->buf = NULL; }
