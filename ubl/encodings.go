package ubl

import "strings"

// The official rules run on Java's XML parser, which knows fewer encoding names than libxml2: a
// document it cannot read gets no verdict from the official rules, though xmllint (the official schema
// verdict) reads it. These are the names it reads, checked against the JDK's parser
// (TestEncodingNamesAsTheOfficialParser); libxml2 also reads "UTF8", "CP1252", "ISO8859-1" and more.
var officialEncodingNames = func() map[string]bool {
	names := map[string]bool{}
	for _, n := range strings.Fields(`UTF-8 UTF-16 UTF-16BE UTF-16LE ISO-10646-UCS-2
		US-ASCII ASCII ANSI_X3.4-1968 ANSI_X3.4-1986 ISO-IR-6 ISO646-US US IBM367 CP367 CSASCII
		ISO-8859-1 ISO_8859-1 ISO-IR-100 LATIN1 L1 IBM819 CP819 CSISOLATIN1
		ISO-8859-2 ISO_8859-2 LATIN2 L2 ISO-8859-3 ISO-8859-4 ISO-8859-5 ISO-8859-6 ISO-8859-7 ISO-8859-8
		ISO-8859-9 LATIN5 L5 ISO-8859-13 ISO-8859-15 ISO_8859-15 LATIN-9
		WINDOWS-1250 WINDOWS-1251 WINDOWS-1252 WINDOWS-1253 WINDOWS-1254 WINDOWS-1255 WINDOWS-1256 WINDOWS-1257 WINDOWS-1258
		KOI8-R SHIFT_JIS EUC-JP ISO-2022-JP GB2312 GBK GB18030 BIG5 EUC-KR ISO-2022-KR TIS-620 IBM437 CP437 IBM850 CP850`) {
		names[n] = true
	}
	return names
}()

// officialParserReads reports whether the official rules' parser reads a document whose XML declaration
// names the encoding declared ("" for none) and that libxml2 read in encoding read: it must know the
// name, and it refuses a UTF-8 declaration on a document whose byte-order mark says UTF-16.
func officialParserReads(declared, read string) bool {
	if declared == "" {
		return true
	}
	name := strings.ToUpper(declared)
	return officialEncodingNames[name] && !(name == "UTF-8" && strings.HasPrefix(strings.ToUpper(read), "UTF-16"))
}
