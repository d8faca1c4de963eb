#ifndef EINV_SAX_H
#define EINV_SAX_H

#include <stddef.h>

// Event records: NAME defines the document's next name number (URI, prefix, local name); START refers
// to names by number.
enum { EINV_START = 1, EINV_END = 2, EINV_TEXT = 3, EINV_NAME = 4 };
enum { EINV_STOP_DOCTYPE = 1, EINV_STOP_TEXT = 2, EINV_STOP_OOM = 3 };

typedef struct {
	unsigned char *buf;
	size_t len, cap;
	int oom;
	int stopped;          // why the front end stopped the parser (EINV_STOP_*), 0 if it did not
	int well_formed;
	int errors;           // parser errors reported
	int first_error_line, first_error_code, first_error_domain;
	char first_error[256];
	char encoding[32];    // declared encoding, if any
} einv_result;

void einv_parse(const char *data, int len, long max_text, einv_result *r);
void einv_free(einv_result *r);
void einv_init(void);

#endif
