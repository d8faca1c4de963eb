package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"einvoice/mailer/mailertest"
	"einvoice/store"
	"einvoice/store/storetest"
	"einvoice/ubl"
)

// benchEnv is a service on a real database (an SQLite file, or PostgreSQL when EINVOICE_TEST_POSTGRES
// names a test server) with the issuer and a connected customer.
func benchEnv(b *testing.B) *docEnv {
	b.Helper()
	t := &testing.T{}
	cfg := testConfig()
	cfg.HTTP.BodyLimit = 32 << 20
	cfg.RateLimit.RequestsPerMinute = 1 << 30
	ctx := context.Background()
	st := storetest.Open(b, []byte("bench secret key 0123456789"))
	env := &docEnv{testEnv: &testEnv{t: t, st: st, srv: New(cfg, st, slog.New(slog.NewTextHandler(io.Discard, nil)))}}
	mk := func(name, nif string) store.Entity {
		e, err := st.CreateEntity(ctx, store.NewEntity{Name: name, Country: "PT", NIF: nif})
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	env.entity, env.customer = mk("Fornecedor", "508025338"), mk("Cliente Publico", "500000000")
	if _, err := st.CreateConnection(ctx, store.NewConnection{FromEntityID: env.entity.ID, ToEntityID: env.customer.ID, State: store.ConnApproved}); err != nil {
		b.Fatal(err)
	}
	cred, token, err := st.CreatePlatformToken(ctx, "bench", AllScopes)
	if err != nil {
		b.Fatal(err)
	}
	env.bearer, env.tokenID = token, cred.ID
	for _, e := range []store.Entity{env.entity, env.customer} {
		st.Authorize(ctx, cred.ID, e.ID)
		st.SetHandshake(ctx, cred.ID, e.ID, true)
	}
	return env
}

// typicalXML is a 9 KB CIUS-PT invoice (the corpus median) with the given number.
func typicalXML(b *testing.B, env *docEnv, number string) string {
	var in documentData
	lines := make([]string, 12)
	for i := range lines {
		lines[i] = fmt.Sprintf(`{"name": "Artigo %d", "description": "Material de escritório", "quantity": "%d.000", "price": "%d.50",
			"seller_number": "A-%d", "taxes": [{"tax_percent": "23.00"}]}`, i, i+1, i+3, i)
	}
	body := strings.Replace(invoiceJSON(number, env.customer.NIF, ""), `"lines": [`, `"lines": [`+strings.Join(lines, ",")+",", 1)
	if err := decodeInto([]byte(body), &in); err != nil {
		b.Fatal(err)
	}
	m, err := buildDocument(&in, env.entity)
	if err != nil {
		b.Fatal(err)
	}
	xml, err := ubl.Generate(m)
	if err != nil {
		b.Fatal(err)
	}
	return string(xml)
}

func (e *docEnv) postXML(b *testing.B, xml string) {
	req := httptest.NewRequest("POST", "/api/v1/en/apps/documentsUBL", strings.NewReader(xml))
	req.Header.Set("Content-Type", "application/xml")
	req.Header.Set("Authorization", "Bearer "+e.bearer)
	req.Header.Set("entity", e.entity.PublicKey)
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != 201 {
		b.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
}

// processCPU is the CPU time (user and system) the test process has used so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per operation since start: on a shared machine it moves
// less than the wall-clock figures.
func reportCPU(b *testing.B, start time.Duration, ops int64) {
	b.ReportMetric(float64((processCPU(b)-start).Microseconds())/1000/float64(ops), "cpu-ms/op")
}

func medianOf(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

// BenchmarkCreateDocumentUBL is POST /apps/documentsUBL end to end (validation, issuer check, store,
// route, history, event, outbox, response) through the real router on a real database, one request
// at a time. It reports the median.
func BenchmarkCreateDocumentUBL(b *testing.B) {
	env := benchEnv(b)
	template := typicalXML(b, env, "BENCH-NUMBER")
	b.SetBytes(int64(len(template)))
	var times []time.Duration
	n := 0
	cpu := processCPU(b)
	for b.Loop() {
		n++
		xml := strings.Replace(template, "BENCH-NUMBER", fmt.Sprintf("FT B/%d", n), 1)
		start := time.Now()
		env.postXML(b, xml)
		times = append(times, time.Since(start))
	}
	reportCPU(b, cpu, int64(n))
	b.ReportMetric(float64(medianOf(times).Microseconds())/1000, "median-ms")
}

// BenchmarkCreateDocumentUBLSigned is the same with a seal: the XML is signed (XAdES-BES) before it is
// stored.
func BenchmarkCreateDocumentUBLSigned(b *testing.B) {
	env := benchEnv(b)
	if err := KeepSeal(context.Background(), env.st, env.entity.ID, issuerSeal()); err != nil {
		b.Fatal(err)
	}
	template := typicalXML(b, env, "BENCH-NUMBER")
	var times []time.Duration
	n := 0
	cpu := processCPU(b)
	for b.Loop() {
		n++
		start := time.Now()
		env.postXML(b, strings.Replace(template, "BENCH-NUMBER", fmt.Sprintf("FT S/%d", n), 1))
		times = append(times, time.Since(start))
	}
	reportCPU(b, cpu, int64(n))
	b.ReportMetric(float64(medianOf(times).Microseconds())/1000, "median-ms")
}

// BenchmarkCreateDocumentUBLParallel is the sustained rate with as many concurrent clients as cores
// (and a few more, as a busy integrator would send): documents a second.
func BenchmarkCreateDocumentUBLParallel(b *testing.B) {
	env := benchEnv(b)
	template := typicalXML(b, env, "BENCH-NUMBER")
	var n atomic.Int64
	b.SetParallelism(4)
	start, cpu := time.Now(), processCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			env.postXML(b, strings.Replace(template, "BENCH-NUMBER", fmt.Sprintf("FT P/%d", n.Add(1)), 1))
		}
	})
	reportCPU(b, cpu, n.Load())
	b.ReportMetric(float64(n.Load())/time.Since(start).Seconds(), "docs/s")
}

// seedDocuments stores n delivered documents from the issuer to the customer, each with its XML and
// a states-report event, as creation would (directly, to be quick).
func seedDocuments(b *testing.B, env *docEnv, n int) {
	env.postXML(b, typicalXML(b, env, "FT SEED/1"))
	ctx := context.Background()
	seed, err := env.st.DocumentByID(ctx, 1)
	if err != nil {
		b.Fatal(err)
	}
	files := []store.File{{Role: store.FileXML, Name: "seed.xml", MIME: "application/xml", Content: []byte(typicalXML(b, env, "FT SEED/1"))}}
	for start := 2; start <= n; start += 5000 {
		err := env.st.Update(ctx, func(tx *store.Tx) error {
			for i := start; i < start+5000 && i <= n; i++ {
				d := seed
				d.ID, d.Number = 0, fmt.Sprintf("FT SEED/%d", i)
				if err := tx.SaveDocument(&d); err != nil {
					return err
				}
				if err := tx.ReplaceFiles(d.ID, files); err != nil {
					return err
				}
				if err := tx.AddStateEvent(store.StateEvent{EntityID: d.IssuerID, DocumentID: d.ID, State: d.State, EDIState: d.EDIState}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// timeGets runs GET requests for paths as the entity and reports the median.
func timeGets(b *testing.B, env *docEnv, as store.Entity, path func(i int) string) {
	var times []time.Duration
	i := 0
	for b.Loop() {
		i++
		req := httptest.NewRequest("GET", path(i), nil)
		req.Header.Set("Authorization", "Bearer "+env.bearer)
		req.Header.Set("entity", as.PublicKey)
		rec := httptest.NewRecorder()
		start := time.Now()
		env.srv.Handler().ServeHTTP(rec, req)
		times = append(times, time.Since(start))
		if rec.Code != 200 {
			b.Fatalf("%d %s", rec.Code, rec.Body.String())
		}
	}
	b.ReportMetric(float64(medianOf(times).Microseconds())/1000, "median-ms")
}

const seeded = 100000

// BenchmarkGetDocument is GET /apps/documents/{id} with 100,000 documents stored.
func BenchmarkGetDocument(b *testing.B) {
	env := benchEnv(b)
	seedDocuments(b, env, seeded)
	timeGets(b, env, env.entity, func(i int) string {
		return "/api/v1/en/apps/documents/" + env.st.PublicID(store.KindDocument, int64(1+(i*7919)%seeded))
	})
}

// BenchmarkListReceived is GET /apps/documents (a page of 15, with the total) for a recipient of
// 100,000 documents, on changing pages and with a number filter.
func BenchmarkListReceived(b *testing.B) {
	env := benchEnv(b)
	seedDocuments(b, env, seeded)
	timeGets(b, env, env.customer, func(i int) string {
		if i%2 == 0 {
			return fmt.Sprintf("/api/v1/en/apps/documents?number=FT+SEED%%2F%d", i%seeded+1)
		}
		return fmt.Sprintf("/api/v1/en/apps/documents?page=%d", 1+i%100)
	})
}

// BenchmarkStatesReport is GET /apps/states-report/documents for an issuer with 100,000 unread events.
func BenchmarkStatesReport(b *testing.B) {
	env := benchEnv(b)
	seedDocuments(b, env, seeded)
	timeGets(b, env, env.entity, func(i int) string {
		if i%2 == 0 {
			return fmt.Sprintf("/api/v1/en/apps/states-report/documents?document_id=%d", i%seeded+1)
		}
		return fmt.Sprintf("/api/v1/en/apps/states-report/documents?page=%d", 1+i%100)
	})
}

// BenchmarkDeliver1000Emails is the mail job sending 1,000 queued e-mails (the invoice's PDF attached)
// to an SMTP server on loopback, batches of 100 over one connection each (target: under 30 s):
//
//	go test ./server -run XXX -bench Deliver1000Emails -benchtime 3x
func BenchmarkDeliver1000Emails(b *testing.B) {
	env := benchEnv(b)
	smtpServer := mailertest.StartSMTP(b)
	env.srv.cfg.Mail = DefaultMail()
	env.srv.cfg.Mail.SMTP.Host, env.srv.cfg.Mail.SMTP.Port, env.srv.cfg.Mail.SMTP.TLS = smtpServer.Host, smtpServer.Port, "none"
	env.postXML(b, typicalXML(b, env, "FT MAIL/1"))
	doc, err := env.st.DocumentByID(context.Background(), 1)
	if err != nil {
		b.Fatal(err)
	}
	round := 0
	for b.Loop() {
		b.StopTimer()
		round++
		doc.EmailAddresses = nil
		for i := 0; i < 1000; i++ {
			doc.EmailAddresses = append(doc.EmailAddresses, fmt.Sprintf("cliente%d-%d@example.com", round, i))
		}
		if err := env.st.Update(context.Background(), func(tx *store.Tx) error { return env.srv.queueEmails(tx, &doc, "pt") }); err != nil {
			b.Fatal(err)
		}
		before, connections := len(smtpServer.Received()), smtpServer.Connections()
		b.StartTimer()
		if err := env.srv.deliverEmails(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if n := len(smtpServer.Received()) - before; n != 1000 {
			b.Fatalf("%d delivered", n)
		}
		b.ReportMetric(float64(smtpServer.Connections()-connections), "connections")
		b.StartTimer()
	}
}
