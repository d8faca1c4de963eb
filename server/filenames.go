package server

import (
	"cmp"
	"path"
	"regexp"
	"strings"

	"einvoice/ubl"
)

// maxFileName is the longest name a received file keeps, in characters.
const maxFileName = 50

var reExtension = regexp.MustCompile(`^\.[a-z0-9]{1,10}$`)

// cleanFileName is the name a file is kept and offered under, whatever name it came with: the last
// element of that name (either slash ends a folder), with letters, digits, dot, dash and underscore
// only, at most maxFileName characters, and an extension from its type when it has none of its own.
// Cleaning a clean name changes nothing, so names stored before are cleaned again on their way out.
func cleanFileName(name, mimeType string) string {
	name = name[strings.LastIndexAny(name, `/\`)+1:]
	stem, ext := name, strings.ToLower(path.Ext(name))
	if reExtension.MatchString(ext) {
		stem = name[:len(name)-len(ext)]
	} else {
		ext = extensionOf(mimeType)
	}
	if r := []rune(stem); len(r) > maxFileName-len(ext) {
		stem = string(r[:maxFileName-len(ext)])
	}
	return safeFileName(stem) + ext
}

// extensionOf is the shortest extension of a type CIUS-PT accepts, or none.
func extensionOf(mimeType string) string {
	best := ""
	for ext, mt := range acceptedMIME {
		if mt == mimeType && (best == "" || len(ext) < len(best) || len(ext) == len(best) && ext < best) {
			best = ext
		}
	}
	return best
}

// embeddedName is the clean name of a file a UBL document embeds: its filename, or its id.
func embeddedName(a ubl.Attachment) string {
	return cleanFileName(cmp.Or(a.Filename, a.ID), cmp.Or(a.MIMEType, "application/octet-stream"))
}
