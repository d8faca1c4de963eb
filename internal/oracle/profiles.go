package oracle

import "path/filepath"

// UBL 2.1's namespaces, by the prefixes the inventories use.
const (
	nsCAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
	nsCBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
	nsEXT = "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2"
	nsXS  = "http://www.w3.org/2001/XMLSchema"
)

// CIUSPT is the CIUS-PT 2.1.2 inventory in conformance (the folder ../shared/conformance).
func CIUSPT(conformance string) Profile {
	return Profile{
		Rules:     filepath.Join(conformance, "rules", "cius-pt-2.1.2.csv"),
		Variables: filepath.Join(conformance, "rules", "cius-pt-2.1.2-variables.csv"),
		Namespaces: map[string]string{
			"ubl": "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
			"cn":  "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
			"cac": nsCAC, "cbc": nsCBC, "ext": nsEXT, "xs": nsXS,
		},
	}
}
