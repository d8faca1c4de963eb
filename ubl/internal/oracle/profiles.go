package oracle

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

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

// PeppolOrder is the PEPPOL BIS Ordering 3 T01 inventory in conformance, with the helper functions its
// tests call written here from what they check (the identifiers' check-digit schemes, and u:slack's
// tolerance with its xs:decimal parameters, which make an empty or non-decimal argument an error). The
// structure pattern's rules without asserts are read from structure, the engine's table of that
// pattern (ubl/rules/peppol/t01-structure.txt): so the transcription checks the structure rules'
// order and contexts against the corpus, and everything else independently.
func PeppolOrder(conformance, structure string) (Profile, error) {
	empty, err := emptyRules(structure, "#3")
	if err != nil {
		return Profile{}, err
	}
	return Profile{
		EmptyRules: empty,
		Rules:      filepath.Join(conformance, "rules", "peppol-order-t01.csv"),
		Variables:  filepath.Join(conformance, "rules", "peppol-order-t01-variables.csv"),
		Namespaces: map[string]string{
			"ubl": "urn:oasis:names:specification:ubl:schema:xsd:Order-2",
			"cac": nsCAC, "cbc": nsCBC, "xs": nsXS,
			"u": "urn:einvoice:oracle:functions",
		},
		Functions: peppolFunctions,
	}, nil
}

// emptyRules reads the rules without checks of a structure table: lines "rule N CONTEXT" with no
// indented check line after them. The table writes the Order namespace's prefix as ord:.
func emptyRules(path, pattern string) ([]EmptyRule, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []EmptyRule
	var last *EmptyRule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "rule "):
			if last != nil {
				out = append(out, *last)
			}
			fields := strings.Fields(line)
			if len(fields) != 3 {
				return nil, fmt.Errorf("%s: %q", path, line)
			}
			n, err := strconv.Atoi(fields[1])
			if err != nil {
				return nil, fmt.Errorf("%s: %q", path, line)
			}
			last = &EmptyRule{Pattern: pattern, Number: n, Context: strings.ReplaceAll(fields[2], "ord:", "ubl:")}
		case strings.HasPrefix(line, "  "):
			last = nil // the rule has checks
		}
	}
	if last != nil {
		out = append(out, *last)
	}
	return out, sc.Err()
}

const peppolFunctions = `
<xsl:key name="k_lineId" match="cac:LineItem" use="cbc:ID"/>
<xsl:function name="u:slack" as="xs:boolean">
  <xsl:param name="exp" as="xs:decimal"/>
  <xsl:param name="val" as="xs:decimal"/>
  <xsl:param name="slack" as="xs:decimal"/>
  <xsl:sequence select="$exp + $slack ge $val and $exp - $slack le $val"/>
</xsl:function>
<!-- The digits of s before its last one, from the right. -->
<xsl:function name="u:bodyFromRight" as="xs:integer*">
  <xsl:param name="s"/>
  <xsl:sequence select="reverse(for $c in string-to-codepoints(substring($s, 1, string-length($s) - 1)) return $c - 48)"/>
</xsl:function>
<xsl:function name="u:lastDigit">
  <xsl:param name="s"/>
  <xsl:sequence select="number(substring($s, string-length($s), 1))"/>
</xsl:function>
<xsl:function name="u:gln" as="xs:boolean">
  <xsl:param name="val"/>
  <xsl:variable name="d" select="u:bodyFromRight($val)"/>
  <xsl:variable name="sum" select="sum(for $i in 1 to count($d) return $d[$i] * (if ($i mod 2 = 1) then 3 else 1))"/>
  <xsl:sequence select="(10 - $sum mod 10) mod 10 = u:lastDigit($val)"/>
</xsl:function>
<xsl:function name="u:mod11" as="xs:boolean">
  <xsl:param name="val"/>
  <xsl:variable name="d" select="u:bodyFromRight($val)"/>
  <xsl:variable name="sum" select="sum(for $i in 1 to count($d) return $d[$i] * (($i - 1) mod 6 + 2))"/>
  <xsl:sequence select="number($val) gt 0 and (11 - $sum mod 11) mod 11 = u:lastDigit($val)"/>
</xsl:function>
<xsl:function name="u:mod97-0208" as="xs:boolean">
  <xsl:param name="val"/>
  <xsl:sequence select="number(substring($val, 9, 2)) = number(string(97 - xs:integer(substring($val, 1, 8)) mod 97))"/>
</xsl:function>
<xsl:function name="u:abn" as="xs:boolean">
  <xsl:param name="val"/>
  <xsl:variable name="d" select="for $c in string-to-codepoints(substring($val, 1, 11)) return $c - 48"/>
  <xsl:variable name="w" select="(10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19)"/>
  <xsl:sequence select="(sum(for $i in 1 to 11 return $d[$i] * $w[$i]) - 10) mod 89 = 0"/>
</xsl:function>
<xsl:function name="u:checkSEOrgnr" as="xs:boolean">
  <xsl:param name="number" as="xs:string"/>
  <xsl:choose>
    <xsl:when test="not(matches($number, '^\d+$'))"><xsl:sequence select="false()"/></xsl:when>
    <xsl:otherwise>
      <xsl:variable name="main" select="reverse(for $c in string-to-codepoints(substring($number, 1, 9)) return xs:integer(codepoints-to-string($c)))"/>
      <xsl:variable name="sum" select="sum(for $i in 1 to count($main) return
        if ($i mod 2 = 1) then ($main[$i] * 2) mod 10 + ($main[$i] * 2) idiv 10 else $main[$i])"/>
      <xsl:sequence select="(10 - $sum mod 10) mod 10 = xs:integer(substring($number, 10, 1))"/>
    </xsl:otherwise>
  </xsl:choose>
</xsl:function>
<xsl:function name="u:checkCodiceIPA" as="xs:boolean">
  <xsl:param name="arg" as="xs:string?"/>
  <xsl:sequence select="string-length($arg) = 6 and matches($arg, '^[A-Za-z0-9]*$')"/>
</xsl:function>
<xsl:function name="u:letters" as="xs:boolean">
  <xsl:param name="s"/>
  <xsl:sequence select="matches($s, '^[A-Za-z]*$')"/>
</xsl:function>
<xsl:function name="u:checkCF" as="xs:boolean">
  <xsl:param name="arg" as="xs:string?"/>
  <xsl:sequence select="
    if (string-length($arg) = 16) then
      u:letters(substring($arg, 1, 6)) and substring($arg, 7, 2) castable as xs:integer and
      u:letters(substring($arg, 9, 1)) and substring($arg, 10, 2) castable as xs:integer and
      substring($arg, 15, 1) castable as xs:integer and u:letters(substring($arg, 16, 1))
    else if (string-length($arg) = 11) then $arg castable as xs:integer
    else false()"/>
</xsl:function>
<xsl:function name="u:checkPIVAseIT" as="xs:boolean">
  <xsl:param name="arg" as="xs:string"/>
  <xsl:variable name="country" select="substring($arg, 1, 2)"/>
  <xsl:variable name="code" select="substring($arg, 3)"/>
  <xsl:sequence select="
    if ($country = ('IT', 'it')) then
      string-length($code) = 11 and $code castable as xs:integer and
      sum(for $i in 1 to 11 return
        for $d in xs:integer(substring($code, $i, 1)) return
          if ($i mod 2 = 0) then ($d * 2) mod 10 + ($d * 2) idiv 10 else $d) mod 10 = 0
    else true()"/>
</xsl:function>
`
