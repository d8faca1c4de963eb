package ciuspt

// Patterns still being written: empty until their rules land (the conformance test counts only the
// rule ids a set implements as settled).

import "einvoice/ubl/rules"

func syntaxPattern() *rules.Pattern { return rules.NewPattern("UBL-syntax") }
