package portal

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"einvoice/server"
	"einvoice/store"
)

// The portal's page-time targets with 100,000 documents stored: a list page of 50 rows under 50 ms of
// server time, a document page under 30 ms. Run with
//
//	go test ./server/portal -run '^$' -bench 'Portal' -benchtime 200x
//
// Each reports the median and the 95th percentile of the handler's time (no network).

const benchDocuments = 100_000

// benchPortal is a service with the portal and 100,000 documents: the supplier issued them all to the
// customer, in every state, each with its XML and two history entries, as creation stores them.
type benchPortal struct {
	srv      *server.Server
	st       *store.Store
	cookie   string // the supplier's session
	docs     []string
	supplier store.Entity
}

func newBenchPortal(b *testing.B) *benchPortal {
	b.Helper()
	srv, st := portalService(b, func(c *server.Config) {
		c.HTTP.RequestTimeout, c.RateLimit.RequestsPerMinute = time.Minute, 1<<30
	})
	ctx := context.Background()
	p := &benchPortal{srv: srv, st: st}
	var err error
	if p.supplier, err = st.CreateEntity(ctx, store.NewEntity{Name: "Fornecedor, Lda.", Country: "PT", NIF: "508025338"}); err != nil {
		b.Fatal(err)
	}
	customer, err := st.CreateEntity(ctx, store.NewEntity{Name: "Cliente, S.A.", Country: "PT", NIF: "500000000"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.CreateConnection(ctx, store.NewConnection{FromEntityID: p.supplier.ID, ToEntityID: customer.ID, State: store.ConnApproved}); err != nil {
		b.Fatal(err)
	}
	if _, err := p.srv.CreateUser(ctx, server.NewUser{Username: "fornecedor", Password: password, Role: store.RoleOperator, EntityID: p.supplier.ID}); err != nil {
		b.Fatal(err)
	}
	sample, err := os.ReadFile(filepath.Join("..", "..", "docs", "sample-invoice.xml"))
	if err != nil {
		b.Fatal(err)
	}
	xml := []byte(typicalInvoice(string(sample)))
	seed, err := p.srv.IssueXML(ctx, p.supplier, xml, server.IssueOptions{}, "pt")
	if err != nil {
		b.Fatal(err)
	}
	files := []store.File{{Role: store.FileXML, Name: "seed.xml", MIME: "application/xml", Content: xml}}
	states := []string{store.StateSent, store.StateAccepted, store.StateRejected, store.StateToSend}
	for start := 2; start <= benchDocuments; start += 5000 {
		err := st.Update(ctx, func(tx *store.Tx) error {
			for i := start; i < start+5000 && i <= benchDocuments; i++ {
				d := seed.Document
				d.ID, d.Number, d.State = 0, fmt.Sprintf("FT SEED/%d", i), states[i%len(states)]
				d.EmissionDate = fmt.Sprintf("2026-%02d-%02d", 1+i%12, 1+i%28)
				d.PayableAmount = fmt.Sprintf("%d.%02d", i%5000, i%100)
				d.Customer.Name = fmt.Sprintf("Cliente %d, S.A.", i%500)
				if err := tx.SaveDocument(&d); err != nil {
					return err
				}
				if err := tx.ReplaceFiles(d.ID, files); err != nil {
					return err
				}
				for _, h := range []store.HistoryEntry{
					{DocumentID: d.ID, Kind: "state", State: store.StateSent, Description: store.StateSent, Data: []byte(`{"previous_state":""}`)},
					{DocumentID: d.ID, Kind: "state", State: d.State, Description: d.State, Data: []byte(`{"reason":"BR-CO-15 falha","previous_state":"sent"}`)},
				} {
					if err := tx.AddHistory(h); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for i := 1; i <= benchDocuments; i += benchDocuments / 100 {
		p.docs = append(p.docs, st.PublicID(store.KindDocument, int64(i)))
	}
	rec := p.serve(b, http.MethodPost, "/portal/login", url.Values{"username": {"fornecedor"}, "password": {password}}.Encode())
	if rec.Code != http.StatusSeeOther {
		b.Fatalf("login: %d", rec.Code)
	}
	p.cookie = regexp.MustCompile(sessionCookie + `=[^;]+`).FindString(rec.Header().Get("Set-Cookie"))
	return p
}

// typicalInvoice is the sample without its signature and its embedded files (tens of kilobytes each).
func typicalInvoice(sample string) string {
	out := regexp.MustCompile(`(?s)<ext:UBLExtensions.*</ext:UBLExtensions>`).ReplaceAllString(sample, "")
	const open, end = "<cac:AdditionalDocumentReference>", "</cac:AdditionalDocumentReference>"
	var kept strings.Builder
	for {
		i := strings.Index(out, open)
		j := strings.Index(out[max(i, 0):], end)
		if i < 0 || j < 0 {
			break
		}
		block := out[i : i+j+len(end)]
		kept.WriteString(out[:i])
		if !strings.Contains(block, "EmbeddedDocumentBinaryObject") {
			kept.WriteString(block)
		}
		out = out[i+j+len(end):]
	}
	kept.WriteString(out)
	return kept.String()
}

func (p *benchPortal) serve(b *testing.B, method, path, form string) *httptest.ResponseRecorder {
	var body io.Reader
	if form != "" {
		body = strings.NewReader(form)
	}
	req := httptest.NewRequest(method, path, body)
	if form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if p.cookie != "" {
		req.Header.Set("Cookie", p.cookie)
	}
	rec := httptest.NewRecorder()
	p.srv.Handler().ServeHTTP(rec, req)
	return rec
}

// timePages serves the pages path(i) names, asserting 200, and reports the median and 95th percentile.
func (p *benchPortal) timePages(b *testing.B, path func(i int) string) {
	var times []time.Duration
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		rec := p.serve(b, http.MethodGet, path(i), "")
		times = append(times, time.Since(start))
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: %d", path(i), rec.Code)
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(times[len(times)*95/100].Microseconds())/1000, "p95-ms")
}

// BenchmarkPortalPages is the list pages (50 rows and the total: paging, each filter and sort) and
// the document page (the UBL rendered, its files, history and signatures).
func BenchmarkPortalPages(b *testing.B) {
	p := newBenchPortal(b)
	for _, list := range []struct{ name, path string }{
		{"list", "/portal/issued?page=%d"},
		{"list-sort-amount", "/portal/issued?sort=amount&page=%d"},
		{"list-sort-name", "/portal/issued?sort=name&page=%d"},
		{"list-state", "/portal/issued?state=rejected&page=%d"},
		{"list-name", "/portal/issued?q=Cliente+4&page=%d"},
		{"list-number", "/portal/issued?number=SEED%%2F9&page=%d"},
		{"list-dates", "/portal/issued?from=2026-03-01&to=2026-05-31&sort=-number&page=%d"},
		{"list-tosend", "/portal/tosend?page=%d"},
	} {
		b.Run(list.name, func(b *testing.B) {
			p.timePages(b, func(i int) string { return fmt.Sprintf(list.path, 1+i%20) })
		})
	}
	b.Run("document", func(b *testing.B) {
		p.timePages(b, func(i int) string { return "/portal/documents/" + p.docs[i%len(p.docs)] })
	})
}
