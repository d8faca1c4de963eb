// Package codelists holds the code lists the rule sets check values against (currencies, countries,
// units, VAT categories, payment means, identifier schemes, MIME types…), as data files embedded in the
// binary. Each file names its list, the artefact and version it was taken from, and how the rule
// artefact writes the list (space-padded, or comma-terminated), because the official tests look values
// up with contains() on that exact string and the form decides what matches.
package codelists

import (
	"embed"
	"fmt"
	"math/bits"
	"strings"
	"sync"
)

//go:generate go run ./gen -rules ../../../shared/conformance/rules -out .

//go:embed *.txt
var files embed.FS

// List is one code list.
type List struct {
	Name   string
	Source string
	Codes  []string
	text   string              // the list as the rule artefact writes it
	short  []uint64            // the codes of 1 to 8 bytes, packed (see pack), in an open-addressing table
	shift  uint                // a packed code's first slot in short: its hash >> shift
	long   map[string]struct{} // the other codes
	exact  bool                // padded form, no code empty or holding a space: Padded is a set lookup
}

// pack is a code of 1 to 8 bytes, none of them NUL (no XML text has one), as one number: ok is false
// for other strings. Most codes are that short, and a table of numbers is looked up without following
// a pointer to compare strings.
func pack(s string) (k uint64, ok bool) {
	if len(s) == 0 || len(s) > 8 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return 0, false
		}
		k |= uint64(s[i]) << (8 * i)
	}
	return k, true
}

// slot is where a packed code's search in short starts.
func (l *List) slot(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> l.shift }

// Text is the list as one string in the artefact's form (" A B C " or "A,B,C,").
func (l *List) Text() string { return l.text }

// Has reports whether code is one of the codes.
func (l *List) Has(code string) bool {
	if k, ok := pack(code); ok {
		mask := uint64(len(l.short) - 1)
		for i := l.slot(k); ; i = (i + 1) & mask {
			switch l.short[i] {
			case k:
				return true
			case 0:
				return false
			}
		}
	}
	_, ok := l.long[code]
	return ok
}

// Padded is the artefact test contains(' A B C ', concat(' ', v, ' ')). For a value without spaces that
// is the value being one of the codes.
func (l *List) Padded(v string) bool {
	if l.exact && !strings.Contains(v, " ") {
		return l.Has(v)
	}
	return strings.Contains(l.text, " "+v+" ")
}

// Suffixed is the artefact test contains('A,B,C,', concat(v, ',')): a substring test, so "80" matches
// inside "380,", exactly as the official rule does.
func (l *List) Suffixed(v string) bool { return strings.Contains(l.text, v+",") }

// read holds the lists read so far, by file name: many rules check against the same list.
var read = struct {
	sync.Mutex
	lists map[string]*List
}{lists: map[string]*List{}}

// Get returns a list by file name (without .txt), reading it the first time it is asked for; it panics
// when there is none (lists are looked up at start-up). A list is never changed once read, so the same
// one serves every caller.
func Get(name string) *List {
	read.Lock()
	defer read.Unlock()
	if l := read.lists[name]; l != nil {
		return l
	}
	b, err := files.ReadFile(name + ".txt")
	if err != nil {
		panic("codelists: no list " + name)
	}
	l, err := parse(name, string(b))
	if err != nil {
		panic(fmt.Sprintf("codelists: %s: %v", name, err))
	}
	read.lists[name] = l
	return l
}

// parse reads a list file: "# name: …", "# source: …", "# form: padded|comma" and one code per line.
func parse(name, text string) (*List, error) {
	l := &List{Name: name}
	form := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.HasPrefix(line, "# name: "):
			l.Name = strings.TrimPrefix(line, "# name: ")
		case strings.HasPrefix(line, "# source: "):
			l.Source = strings.TrimPrefix(line, "# source: ")
		case strings.HasPrefix(line, "# form: "):
			form = strings.TrimPrefix(line, "# form: ")
		case line == "" || strings.HasPrefix(line, "#"):
		default:
			l.Codes = append(l.Codes, line)
		}
	}
	size := 4 // a power of two, at least twice the codes: a search meets an empty slot soon
	for size < 2*len(l.Codes) {
		size *= 2
	}
	l.short, l.shift, l.long = make([]uint64, size), uint(64-bits.Len(uint(size-1))), map[string]struct{}{}
	l.exact = form == "padded"
	for _, c := range l.Codes {
		if k, ok := pack(c); ok {
			i := l.slot(k)
			for l.short[i] != 0 && l.short[i] != k {
				i = (i + 1) & uint64(size-1)
			}
			l.short[i] = k
		} else {
			l.long[c] = struct{}{}
		}
		l.exact = l.exact && c != "" && !strings.Contains(c, " ")
	}
	switch form {
	case "padded":
		l.text = " " + strings.Join(l.Codes, " ") + " "
	case "comma":
		l.text = strings.Join(l.Codes, ",") + ","
	case "plain":
		l.text = strings.Join(l.Codes, " ")
	default:
		return nil, fmt.Errorf("unknown form %q", form)
	}
	return l, nil
}
