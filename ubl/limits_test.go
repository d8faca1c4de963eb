package ubl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"einvoice/ubl/xmltree"
	"einvoice/ubl/xsd"
)

// withRootAttributes is a valid generated invoice whose document element has n attributes, or n
// namespace declarations (its own, and more of prefixes nothing uses).
func withRootAttributes(n int, declarations bool) []byte {
	doc := string(generatedInvoice(3))
	if declarations {
		root, _, _ := strings.Cut(doc[strings.Index(doc, "<Invoice "):], ">")
		n -= strings.Count(root, "xmlns")
	}
	var b strings.Builder
	for i := range n {
		if declarations {
			fmt.Fprintf(&b, ` xmlns:p%d="urn:example:%d"`, i, i)
		} else {
			fmt.Fprintf(&b, ` a%d="%d"`, i, i)
		}
	}
	return []byte(strings.Replace(doc, "<Invoice ", "<Invoice"+b.String()+" ", 1))
}

// An element with too many attributes or namespace declarations is refused with the parser's finding,
// and no verdict.
func TestAttributeAndNamespaceBombsAreRefused(t *testing.T) {
	cases := map[string][]byte{
		"200,000 attributes":                 withRootAttributes(200_000, false),
		"100,000 namespace declarations":     withRootAttributes(100_000, true),
		"one attribute too many":             withRootAttributes(xmltree.MaxAttributes+1, false),
		"one namespace declaration too many": withRootAttributes(xmltree.MaxNamespaceDeclarations+1, true),
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			r := Validate(doc, Auto, "en")
			if !r.Rejected() || r.NoVerdict == "" || r.Root != nil || len(r.Findings) != 1 || r.Findings[0].Rule != RuleParse {
				t.Fatalf("not refused with %s alone: %+v", RuleParse, r.Findings)
			}
		})
	}
}

// A document at the limits is judged as any other: 1,000 unused namespace declarations change nothing,
// 1,000 undeclared attributes are schema errors.
func TestElementsAtTheLimitsAreJudged(t *testing.T) {
	if r := Validate(withRootAttributes(xmltree.MaxNamespaceDeclarations, true), Auto, "en"); r.Rejected() || len(r.Warning) != 0 {
		t.Fatalf("1,000 declarations: %+v", r.Findings)
	}
	r := Validate(withRootAttributes(xmltree.MaxAttributes, false), Auto, "en")
	if r.Root == nil || r.NoVerdict != "" || r.XSDValid || r.XSDErrors == 0 {
		t.Fatalf("1,000 attributes: xsd %v (%d errors), no verdict %q", r.XSDValid, r.XSDErrors, r.NoVerdict)
	}
	for _, f := range r.Findings {
		if f.Rule == RuleParse {
			t.Fatalf("1,000 attributes refused by the parser: %s", f.Message)
		}
	}
}

// A validation whose context is done stops with ErrStopped (and the context's error), whether the
// context was done before it started or ends while it runs.
func TestCheckStopsWhenItsContextIsDone(t *testing.T) {
	doc := generatedInvoice(3000)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	short, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	for name, c := range map[string]struct {
		ctx  context.Context
		want error
	}{
		"canceled": {canceled, context.Canceled},
		"expired":  {expired, context.DeadlineExceeded},
		"short":    {short, context.DeadlineExceeded},
	} {
		t.Run(name, func(t *testing.T) {
			r, d, err := Check(c.ctx, doc, Auto, "en")
			if !errors.Is(err, ErrStopped) || !errors.Is(err, c.want) || r != nil || d != nil {
				t.Fatalf("err %v, result %v, model %v", err, r != nil, d != nil)
			}
		})
	}
	r, d, err := Check(context.Background(), generatedInvoice(3), Auto, "en")
	if err != nil || r.Rejected() || d == nil {
		t.Fatalf("without a deadline: err %v, model %v, findings %+v", err, d != nil, r.Findings)
	}
}

// The schema check and the rules look at their context as they go, not only before they start.
func TestStagesStopWhenTheirContextIsDone(t *testing.T) {
	tr, err := xmltree.Parse(generatedInvoice(500), xmltree.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if errs, err := xsd.ValidateContext(ctx, tr); !errors.Is(err, context.Canceled) || errs != nil {
		t.Fatalf("schema check: %v, %d errors", err, len(errs))
	}
	if findings, err := ruleSets[CIUSPT].RunContext(ctx, tr); !errors.Is(err, context.Canceled) || findings != nil {
		t.Fatalf("rules: %v, %d findings", err, len(findings))
	}
	if errs, err := xsd.ValidateContext(context.Background(), tr); err != nil || len(errs) != 0 {
		t.Fatalf("schema check without a deadline: %v %v", err, errs)
	}
}

// BenchmarkValidateBombs is full validation of the attribute and namespace bombs on an
// invoice's document element: refused by the parser, at about the cost of reading their bytes.
func BenchmarkValidateBombs(b *testing.B) {
	for _, c := range []struct {
		name string
		doc  []byte
	}{
		{"200000-attributes", withRootAttributes(200_000, false)},
		{"100000-namespace-declarations", withRootAttributes(100_000, true)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.doc)))
			b.ReportAllocs()
			for b.Loop() {
				if r := Validate(c.doc, Auto, "en"); r.NoVerdict == "" {
					b.Fatal("not refused")
				}
			}
		})
	}
}
