// Package ciuspt is the CIUS-PT 2.1.2 rule set for Invoice and CreditNote: eSPap's Portuguese rules
// (BR-CIUS-PT, DT-CIUS-PT), the EN16931 rules it republishes (BR, BR-CO, BR-S, BR-E, BR-AA…) and the
// UBL syntax rules (UBL-CR, UBL-SR, UBL-DT), with eSPap's conditions and flags, in its four patterns.
package ciuspt

import "einvoice/ubl/rules"

// Set is the CIUS-PT 2.1.2 rule set.
var Set = rules.NewSet("cius-pt", syntaxPattern(), modelPattern(), datatypePattern(), conditionPattern())
