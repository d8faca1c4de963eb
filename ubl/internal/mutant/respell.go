package mutant

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Respellings is how many forms Respell knows.
const Respellings = 16

const (
	nsBasic     = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
	nsAggregate = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
)

var (
	basicStart     = regexp.MustCompile(`<cbc:([A-Za-z]+)`)
	basicEnd       = regexp.MustCompile(`</cbc:([A-Za-z]+)>`)
	aggregateStart = regexp.MustCompile(`<cac:([A-Za-z]+)`)
	aggregateEnd   = regexp.MustCompile(`</cac:([A-Za-z]+)>`)
	componentDecls = regexp.MustCompile(`\sxmlns:(cbc|cac)="[^"]*"`)
	betweenTags    = regexp.MustCompile(`>\s+<`)
	emptyElement   = regexp.MustCompile(`<([A-Za-z][\w:.-]*)((?:\s+[^<>]*?)?)\s*/>`)
	doubleQuoted   = regexp.MustCompile(`(\s[A-Za-z_][\w:.-]*)="([^"']*)"`)
	xmlDeclaration = regexp.MustCompile(`^\s*<\?xml[^>]*\?>`)
	textRun        = regexp.MustCompile(`>([^<&\s][^<&]*)<`)                              // text that starts after a tag and runs to one, no reference in it
	documentStart  = regexp.MustCompile(`<([A-Za-z][\w.-]*)(\s[^>]*?)?\sxmlns="([^"]*)"`) // the first unprefixed element declaring a default namespace
	attribute      = regexp.MustCompile(`(\s[A-Za-z_][\w:.-]*)="([^"&<]+)"`)
	markup         = regexp.MustCompile(`(?s)<!--.*?-->|<\?.*?\?>`)
	swapPrefixes   = strings.NewReplacer("xmlns:cbc=", "xmlns:cac=", "xmlns:cac=", "xmlns:cbc=", "cbc:", "cac:", "cac:", "cbc:")
)

// Respell writes a UBL document again in another form XML allows for the same content, as other
// software writes its documents: the namespaces of cbc and cac elements bound otherwise (the default
// namespace, another prefix declared on each element, the two prefixes swapped, no declaration on the
// document element), CRLF line ends, no whitespace between tags or other indentation, empty elements
// written out and attributes single-quoted, another XML declaration with a comment and a processing
// instruction before the document element, a character reference for the first character of each text,
// each text as a CDATA section, the document element under a prefix, attributes written with blanks
// around "=" and a character reference, a comment or a processing instruction inside each text. form is
// 0 to Respellings-1. The names, values and structure are unchanged, so a validator must answer as it
// does for the document; where a form changes what a rule reads (a comment that splits nothing,
// whitespace between elements), the official rules say what the answer is, which is why tests put
// respelled documents to them rather than assume.
func Respell(doc []byte, form int) []byte {
	switch form {
	case 0: // cbc elements in the default namespace, declared on each
		doc = basicStart.ReplaceAll(doc, []byte(`<$1 xmlns="`+nsBasic+`"`))
		return basicEnd.ReplaceAll(doc, []byte(`</$1>`))
	case 1: // cac elements with a prefix of their own, declared on each
		doc = aggregateStart.ReplaceAll(doc, []byte(`<a:$1 xmlns:a="`+nsAggregate+`"`))
		return aggregateEnd.ReplaceAll(doc, []byte(`</a:$1>`))
	case 2: // both, and neither prefix declared on the document element
		return componentDecls.ReplaceAll(Respell(Respell(doc, 0), 1), nil)
	case 3: // cac elements in the default namespace, declared on each (their cbc children keep the prefix)
		doc = aggregateStart.ReplaceAll(doc, []byte(`<$1 xmlns="`+nsAggregate+`"`))
		return aggregateEnd.ReplaceAll(doc, []byte(`</$1>`))
	case 4: // the cbc and cac prefixes swapped, declarations with them
		return []byte(swapPrefixes.Replace(string(doc)))
	case 5: // CRLF line ends
		return bytes.ReplaceAll(bytes.ReplaceAll(doc, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
	case 6: // no whitespace between tags
		return betweenTags.ReplaceAll(doc, []byte("><"))
	case 7: // empty elements written with an end tag, attributes in single quotes
		doc = emptyElement.ReplaceAll(doc, []byte("<$1$2></$1>"))
		return doubleQuoted.ReplaceAll(doc, []byte("$1='$2'"))
	case 8: // another declaration, a comment and a PI before the document element, comments between elements
		doc = bytes.TrimLeft(xmlDeclaration.ReplaceAll(doc, nil), " \t\r\n")
		doc = bytes.Replace(doc, []byte("><"), []byte("><!-- c --><"), 3)
		head := "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>\n<!-- made elsewhere -->\n<?app x?>\n"
		return append([]byte(head), doc...)
	case 9: // indented again, with tabs
		return bytes.ReplaceAll(betweenTags.ReplaceAll(doc, []byte("><")), []byte("><"), []byte(">\n\t\t<"))
	case 10: // the first character of each text as a character reference
		return replaceTexts(doc, func(text []byte) []byte {
			r, size := utf8.DecodeRune(text)
			return append(fmt.Appendf(nil, "&#%d;", r), text[size:]...)
		})
	case 11: // each text as a CDATA section
		return replaceTexts(doc, func(text []byte) []byte {
			return append(append([]byte("<![CDATA["), text...), "]]>"...)
		})
	case 12: // the document element under a prefix of its own (the default namespace still declared for the rest)
		m := documentStart.FindSubmatchIndex(doc)
		if m == nil {
			return doc
		}
		name := string(doc[m[2]:m[3]])
		end := bytes.LastIndex(doc, []byte("</"+name+">"))
		if end < 0 {
			return doc
		}
		var out []byte
		out = append(out, doc[:m[0]]...)
		out = append(out, "<doc:"...)
		out = append(out, doc[m[2]:m[7]]...)
		out = append(out, `" xmlns:doc="`...)
		out = append(out, doc[m[6]:m[7]]...)
		out = append(out, doc[m[7]:end]...)
		out = append(out, "</doc:"+name+">"...)
		return append(out, doc[end+len(name)+3:]...)
	case 14, 15: // a comment (14) or a processing instruction (15) after the first character of each text
		inside := []byte("<!-- c -->")
		if form == 15 {
			inside = []byte("<?app x?>")
		}
		return replaceTexts(doc, func(text []byte) []byte {
			_, size := utf8.DecodeRune(text)
			return append(append(append([]byte{}, text[:size]...), inside...), text[size:]...)
		})
	case 13: // attributes with blanks around "=" and their first character as a character reference
		return outsideMarkup(doc, func(part []byte) []byte {
			return attribute.ReplaceAllFunc(part, func(m []byte) []byte {
				sub := attribute.FindSubmatch(m)
				r, size := utf8.DecodeRune(sub[2])
				return fmt.Appendf(nil, "%s \t= \"&#x%X;%s\"", sub[1], r, sub[2][size:])
			})
		})
	}
	panic("mutant: no respelling form")
}

// replaceTexts rewrites, outside comments and processing instructions, each text that runs from a tag
// to the next with no reference or leading blank in it.
func replaceTexts(doc []byte, rewrite func(text []byte) []byte) []byte {
	return outsideMarkup(doc, func(part []byte) []byte {
		return textRun.ReplaceAllFunc(part, func(m []byte) []byte {
			return append(append([]byte{'>'}, rewrite(m[1:len(m)-1])...), '<')
		})
	})
}

// outsideMarkup rewrites the parts of a document outside comments and processing instructions (the
// XML declaration among them).
func outsideMarkup(doc []byte, rewrite func(part []byte) []byte) []byte {
	var out []byte
	last := 0
	for _, m := range markup.FindAllIndex(doc, -1) {
		out = append(out, rewrite(doc[last:m[0]])...)
		out = append(out, doc[m[0]:m[1]]...)
		last = m[1]
	}
	return append(out, rewrite(doc[last:])...)
}
