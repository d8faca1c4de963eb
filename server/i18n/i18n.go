// Package i18n is the one catalogue of the service's Portuguese and English text: the portal's words,
// and the texts the API, the e-mails and the command line share. Portuguese is the default language;
// English is chosen by a user's preference, the API's path or the browser's Accept-Language.
//
// Leaf packages (mailer, web, ubl) never import this one: the server looks texts up here and hands them
// over, so that a leaf stays free of language choices.
package i18n

import (
	"fmt"
	"strconv"
	"strings"
)

// The languages, as their codes.
const (
	PT = "pt"
	EN = "en"
)

// Text is one entry in both languages.
type Text struct{ PT, EN string }

// In is the text in lang (Portuguese for anything but "en").
func (t Text) In(lang string) string {
	if lang == EN {
		return t.EN
	}
	return t.PT
}

// T is the catalogue's text for key in lang, formatted with args (fmt verbs) when any are given. An
// unknown key comes back as itself, so that a missing entry shows instead of vanishing; a test checks
// every key the templates use.
func T(lang, key string, args ...any) string {
	t, ok := catalogue[key]
	if !ok {
		return key
	}
	if len(args) == 0 {
		return t.In(lang)
	}
	return fmt.Sprintf(t.In(lang), args...)
}

// Add puts an entry into the catalogue at start-up, for texts declared beside what they belong to (the
// API's codes are registered with their status). A key added twice is a programming error.
func Add(key string, t Text) {
	if _, dup := catalogue[key]; dup {
		panic("i18n: " + key + " added twice")
	}
	catalogue[key] = t
}

// Has reports whether the catalogue has key.
func Has(key string) bool { _, ok := catalogue[key]; return ok }

// Keys returns every key of the catalogue, for tests.
func Keys() []string {
	keys := make([]string, 0, len(catalogue))
	for k := range catalogue {
		keys = append(keys, k)
	}
	return keys
}

// Lookup is the entry for key.
func Lookup(key string) (Text, bool) { t, ok := catalogue[key]; return t, ok }

// Negotiate picks the language of an Accept-Language header: English when the browser prefers English
// to Portuguese, Portuguese otherwise.
func Negotiate(acceptLanguage string) string {
	best, bestQ := PT, -1.0
	for i, part := range strings.Split(acceptLanguage, ",") {
		if i >= 20 {
			break
		}
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		primary, _, _ := strings.Cut(strings.ToLower(tag), "-")
		if (primary == PT || primary == EN) && q > bestQ {
			best, bestQ = primary, q
		}
	}
	return best
}
