// Package peppol is the PEPPOL BIS Ordering 3 rule set for the Order transaction (T01), release
// 2026.5: the common rules (PEPPOL-COMMON-R, patterns #1 and #2), the structure rules (PEPPOL-T01-B,
// pattern #3, from t01-structure.txt) and the transaction rules (PEPPOL-T01-R and -CL, pattern #4),
// with their flags.
package peppol

import "einvoice/ubl/rules"

// Set is the PEPPOL BIS Ordering 3 T01 rule set.
var Set = rules.NewSet("peppol-order", append(commonPatterns(), structurePattern(), transactionPattern())...)
