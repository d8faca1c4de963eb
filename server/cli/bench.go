package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"einvoice/server"
	"einvoice/ubl"
	"einvoice/ubl/pdf"

	"github.com/shopspring/decimal"
)

// The bench command is a load client for a running server: it creates documents over HTTP with
// concurrent clients, as an integrator would, and reports the rate, the latencies and, given the
// server's process id, the server's CPU time per document; then it times single reads. Given several
// API addresses (processes of one installation on one PostgreSQL) it sends the creations to each in
// turn, as a round-robin load balancer would.

const benchUsage = `usage: einvoice bench [--data DIR | --credentials FILE] [--api URL --client-id ID --client-secret SECRET
                      --issuer KEY --issuer-nif NIF --recipient KEY --recipient-nif NIF]
                      [--documents N] [--clients C] [--lines L] [--sign] [--reads N] [--pid PID[,PID...]]
                      [--db-pid PID]

--api may list several processes of one installation, separated by commas: the creations go to each
in turn and --pid lists their process ids. --db-pid is PostgreSQL's postmaster, whose CPU time (with
its backends') is reported apart.

The server must not rate-limit the bench: run it with a configuration that has
  [rate_limit]
  requests_per_minute = 0
for example: einvoice --new-config > bench.toml, edit that line, einvoice serve --demo --config bench.toml
`

// benchConfig is what one run needs.
type benchConfig struct {
	apis                       []string // .../api/v1/pt of each process; the reads go to the first
	clientID, clientSecret     string
	issuerKey, issuerNIF       string
	recipientKey, recipientNIF string
	documents, clients, lines  int
	reads                      int
	sign                       bool
	pids                       []int // the servers' processes
	dbPID                      int   // PostgreSQL's postmaster
}

// benchCmd is `einvoice bench`.
func benchCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, benchUsage) }
	dataDir := fs.String("data", "data", "the demo's data folder, where serve --demo wrote "+server.DemoCredentialsFile)
	credsFile := fs.String("credentials", "", "a credentials file as serve --demo writes it (default: in --data)")
	var cfg benchConfig
	api := fs.String("api", "", "the API base, http://host:port/api/v1/pt, or several separated by commas (default: the credentials file's)")
	fs.StringVar(&cfg.clientID, "client-id", "", "OAuth client id (default: the credentials file's)")
	fs.StringVar(&cfg.clientSecret, "client-secret", "", "OAuth client secret (default: the credentials file's)")
	fs.StringVar(&cfg.issuerKey, "issuer", "", "public key of the issuing entity (default: the file's first entity)")
	fs.StringVar(&cfg.issuerNIF, "issuer-nif", "", "the issuer's NIF (default: the file's first entity)")
	fs.StringVar(&cfg.recipientKey, "recipient", "", "public key of the receiving entity (default: the file's second)")
	fs.StringVar(&cfg.recipientNIF, "recipient-nif", "", "the recipient's NIF (default: the file's second entity)")
	fs.IntVar(&cfg.documents, "documents", 2000, "documents to create (0: only time reads of stored documents)")
	fs.IntVar(&cfg.clients, "clients", 4, "concurrent clients")
	fs.IntVar(&cfg.lines, "lines", 2, "invoice lines (2 make an invoice of 5.6 KB)")
	fs.BoolVar(&cfg.sign, "sign", false, "let the service sign: XAdES on the XML and PAdES on an embedded visual PDF")
	fs.IntVar(&cfg.reads, "reads", 500, "single reads of each kind timed after the creations (0: none)")
	pids := fs.String("pid", "", "the server's process id, or the processes' separated by commas, to report their CPU time per document (Linux)")
	fs.IntVar(&cfg.dbPID, "db-pid", 0, "PostgreSQL's postmaster process id, to report the database's CPU time per document (Linux)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || cfg.documents < 0 || cfg.clients < 1 || cfg.lines < 1 || cfg.reads < 0 {
		fmt.Fprint(stderr, benchUsage)
		return 2
	}
	for _, p := range strings.FieldsFunc(*pids, func(r rune) bool { return r == ',' }) {
		pid, err := strconv.Atoi(p)
		if err != nil || pid <= 0 {
			fmt.Fprintf(stderr, "einvoice bench: --pid %q is not a process id\n", p)
			return 2
		}
		cfg.pids = append(cfg.pids, pid)
	}
	cfg.apis = strings.FieldsFunc(*api, func(r rune) bool { return r == ',' })
	if err := cfg.complete(*credsFile, *dataDir); err != nil {
		fmt.Fprintln(stderr, "einvoice bench:", err)
		fmt.Fprint(stderr, benchUsage)
		return 2
	}
	if err := runBench(context.Background(), cfg, stdout); err != nil {
		fmt.Fprintln(stderr, "einvoice bench:", err)
		return 1
	}
	return 0
}

// complete fills what the flags left out from the credentials file.
func (c *benchConfig) complete(credsFile, dataDir string) error {
	if credsFile == "" {
		credsFile = filepath.Join(dataDir, server.DemoCredentialsFile)
	}
	var creds server.DemoCredentials
	if raw, err := os.ReadFile(credsFile); err == nil {
		if err := json.Unmarshal(raw, &creds); err != nil {
			return fmt.Errorf("%s: %w", credsFile, err)
		}
	}
	or := func(v *string, def string) {
		if *v == "" {
			*v = def
		}
	}
	if len(c.apis) == 0 && creds.APIBase != "" {
		c.apis = []string{creds.APIBase}
	}
	or(&c.clientID, creds.ClientID)
	or(&c.clientSecret, creds.ClientSecret)
	if len(creds.Entities) > 0 {
		or(&c.issuerKey, creds.Entities[0].PublicKey)
		or(&c.issuerNIF, creds.Entities[0].NIF)
	}
	if len(creds.Entities) > 1 {
		or(&c.recipientKey, creds.Entities[1].PublicKey)
		or(&c.recipientNIF, creds.Entities[1].NIF)
	}
	if len(c.apis) == 0 {
		return fmt.Errorf("no --api (and no credentials file at %s)", credsFile)
	}
	for i := range c.apis {
		c.apis[i] = strings.TrimRight(c.apis[i], "/")
	}
	for _, v := range []struct{ name, value string }{
		{"--client-id", c.clientID}, {"--client-secret", c.clientSecret},
		{"--issuer", c.issuerKey}, {"--issuer-nif", c.issuerNIF}, {"--recipient-nif", c.recipientNIF},
	} {
		if v.value == "" {
			return fmt.Errorf("no %s (and no credentials file at %s)", v.name, credsFile)
		}
	}
	return nil
}

// storedDocument is a document the reads can ask for.
type storedDocument struct{ id, number string }

// runBench creates the documents, then times the reads.
func runBench(ctx context.Context, cfg benchConfig, out io.Writer) error {
	c := &benchClient{cfg: cfg, http: &http.Client{
		Timeout:   time.Minute,
		Transport: &http.Transport{MaxIdleConnsPerHost: cfg.clients + 1, DisableCompression: true},
	}}
	if err := c.getToken(ctx); err != nil {
		return err
	}
	var docs []storedDocument
	var err error
	if cfg.documents > 0 {
		docs, err = c.createAll(ctx, out)
	} else {
		docs, err = c.sampleReceived(ctx, 20)
	}
	if err != nil || cfg.reads == 0 {
		return err
	}
	return c.timeReads(ctx, out, docs)
}

// createAll creates cfg.documents invoices with cfg.clients concurrent clients and reports the rate,
// the latencies and the server's CPU time.
func (c *benchClient) createAll(ctx context.Context, out io.Writer) ([]storedDocument, error) {
	cfg := c.cfg
	template, err := benchInvoice(cfg.issuerNIF, cfg.recipientNIF, cfg.lines, cfg.sign)
	if err != nil {
		return nil, err
	}
	run := strconv.FormatUint(rand.Uint64()>>16, 36) // numbers unique to this run
	// One creation first: it checks the set-up and warms the server up.
	if _, _, err := c.create(ctx, template, "FT B"+run+"/0"); err != nil {
		return nil, err
	}
	signing := "without signing"
	if cfg.sign {
		signing = "signed by the service (XAdES on the XML, PAdES on the embedded PDF)"
	}
	fmt.Fprintf(out, "creating %d invoices of %d bytes (%d lines), %s, with %d concurrent clients, on %d server processes\n",
		cfg.documents, len(template), cfg.lines, signing, cfg.clients, len(cfg.apis))

	serverBefore, err := processesCPU(cfg.pids)
	if err != nil {
		return nil, err
	}
	dbBefore, err := processesCPU([]int{cfg.dbPID})
	if err != nil {
		return nil, err
	}
	var (
		next      atomic.Int64
		mu        sync.Mutex
		latencies []time.Duration
		docs      []storedDocument
		firstErr  error
	)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	start := time.Now()
	for range cfg.clients {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(cfg.documents) || runCtx.Err() != nil {
					return
				}
				number := "FT B" + run + "/" + strconv.FormatInt(i, 10)
				id, took, err := c.create(runCtx, template, number)
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					cancel()
				} else {
					latencies, docs = append(latencies, took), append(docs, storedDocument{id, number})
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	serverAfter, err := processesCPU(cfg.pids)
	if err != nil {
		return nil, err
	}
	dbAfter, err := processesCPU([]int{cfg.dbPID})
	if err != nil {
		return nil, err
	}
	if firstErr != nil {
		return nil, fmt.Errorf("after %d documents: %w", len(latencies), firstErr)
	}
	n := len(latencies)
	fmt.Fprintf(out, "  %d documents in %.2f s: %.0f documents/s\n", n, elapsed.Seconds(), float64(n)/elapsed.Seconds())
	fmt.Fprintf(out, "  latency p50 %s  p95 %s  p99 %s\n", ms(percentile(latencies, 50)), ms(percentile(latencies, 95)), ms(percentile(latencies, 99)))
	perDocument := func(what string, cpu time.Duration) {
		fmt.Fprintf(out, "  %s CPU %.3f ms per document (%.2f cores busy)\n",
			what, float64(cpu.Microseconds())/1000/float64(n), cpu.Seconds()/elapsed.Seconds())
	}
	if len(cfg.pids) > 0 {
		perDocument("server", serverAfter-serverBefore)
	}
	if cfg.dbPID != 0 {
		perDocument("database", dbAfter-dbBefore)
	}
	return docs, nil
}

// sampleReceived collects the documents of random pages of the recipient's received list.
func (c *benchClient) sampleReceived(ctx context.Context, pages int) ([]storedDocument, error) {
	if c.cfg.recipientKey == "" {
		return nil, errors.New("--documents 0 reads the stored documents through the recipient's list: it needs --recipient")
	}
	var docs []storedDocument
	lastPage := 1
	for i := range pages {
		var list struct {
			Response struct {
				LastPage int `json:"last_page"`
				Data     []struct {
					ID     string `json:"id"`
					Number string `json:"number"`
				} `json:"data"`
			} `json:"response"`
		}
		page := 1
		if i > 0 {
			page = 1 + rand.IntN(lastPage)
		}
		if _, err := c.getInto(ctx, c.cfg.recipientKey, "/apps/documents?page="+strconv.Itoa(page), &list); err != nil {
			return nil, err
		}
		lastPage = max(list.Response.LastPage, 1)
		for _, d := range list.Response.Data {
			docs = append(docs, storedDocument{d.ID, d.Number})
		}
	}
	if len(docs) == 0 {
		return nil, errors.New("the recipient has no received documents to read")
	}
	return docs, nil
}

// timeReads times single reads of each kind, one at a time, and reports their percentiles.
func (c *benchClient) timeReads(ctx context.Context, out io.Writer, docs []storedDocument) error {
	fmt.Fprintf(out, "single reads, one client, %d of each\n", c.cfg.reads)
	rnd := rand.New(rand.NewPCG(1, 2))
	pick := func() storedDocument { return docs[rnd.IntN(len(docs))] }
	reads := []struct {
		name   string
		entity string
		path   func(i int) string
	}{
		{"GET /apps/documents/{id}", c.cfg.issuerKey, func(int) string { return "/apps/documents/" + pick().id }},
		{"GET /apps/documents (received, pages 1-100)", c.cfg.recipientKey, func(i int) string {
			return "/apps/documents?page=" + strconv.Itoa(1+i%100)
		}},
		{"GET /apps/documents?number=…", c.cfg.recipientKey, func(int) string {
			return "/apps/documents?number=" + url.QueryEscape(pick().number)
		}},
		{"GET /apps/states-report/documents (pages 1-100)", c.cfg.issuerKey, func(i int) string {
			return "/apps/states-report/documents?page=" + strconv.Itoa(1+i%100)
		}},
		{"GET /apps/states-report/documents?document_id=…", c.cfg.issuerKey, func(int) string {
			return "/apps/states-report/documents?document_id=" + pick().id
		}},
	}
	for _, r := range reads {
		if r.entity == "" {
			fmt.Fprintf(out, "  %-50s skipped: no --recipient\n", r.name)
			continue
		}
		var times []time.Duration
		for i := range c.cfg.reads {
			took, err := c.getInto(ctx, r.entity, r.path(i), nil)
			if err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
			times = append(times, took)
		}
		fmt.Fprintf(out, "  %-50s p50 %s  p95 %s\n", r.name, ms(percentile(times, 50)), ms(percentile(times, 95)))
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Microseconds())/1000) }

// percentile is the p-th percentile (nearest rank) of d; it sorts d.
func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := (len(d)*p+99)/100 - 1
	return d[max(i, 0)]
}

// processesCPU is the CPU time the processes and their descendants have used so far: each one's user
// and system time, and that of its children it has waited for, from /proc/PID/stat (in clock ticks of
// 1/100 s, Linux's USER_HZ). A process id 0 counts nothing. PostgreSQL's postmaster counts its
// backends this way, those running and those that have exited.
func processesCPU(pids []int) (time.Duration, error) {
	var total time.Duration
	for _, pid := range pids {
		if pid == 0 {
			continue
		}
		cpu, err := treeCPU(pid)
		if err != nil {
			return 0, fmt.Errorf("--pid %d: %w", pid, err)
		}
		total += cpu
	}
	return total, nil
}

// treeCPU is processCPU of pid and of every process below it.
func treeCPU(pid int) (time.Duration, error) {
	cpu, err := processCPU(pid)
	if err != nil {
		return 0, err
	}
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		raw, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(raw)) {
			child, _ := strconv.Atoi(f)
			// A child that exits meanwhile is counted by its parent once waited for.
			if c, err := treeCPU(child); err == nil {
				cpu += c
			}
		}
	}
	return cpu, nil
}

// processCPU is the process's user and system time with its waited-for children's.
func processCPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: the fields are counted after its end.
	fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(fields) < 15 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	var ticks int64
	for _, f := range fields[11:15] { // utime, stime, cutime and cstime, fields 14 to 17 of stat(5)
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += v
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

// benchClient calls the API with one access token.
type benchClient struct {
	cfg   benchConfig
	http  *http.Client
	token string
	next  atomic.Uint64 // the creations' turn among cfg.apis
}

// getToken is the signed client-credentials grant.
func (c *benchClient) getToken(ctx context.Context) error {
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	nonce := strconv.FormatUint(rand.Uint64(), 36)
	body, _ := json.Marshal(map[string]string{
		"grant_type": "client_credentials", "client_id": c.cfg.clientID, "timestamp": ts, "nonce": nonce,
		"signature": server.RequestSignature(c.cfg.clientID, ts, nonce, []byte(c.cfg.clientSecret)),
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.apis[0]+"/oauth2/token", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if _, err := c.do(req, http.StatusOK, &tok); err != nil {
		return fmt.Errorf("token: %w", err)
	}
	c.token = tok.AccessToken
	return nil
}

// create posts one invoice, numbered number, and returns its id and how long the call took.
func (c *benchClient) create(ctx context.Context, template []byte, number string) (string, time.Duration, error) {
	xml := bytes.Replace(template, []byte(benchNumber), []byte(number), 1)
	path := "/apps/documentsUBL"
	if !c.cfg.sign {
		path += "?disable_xml_sign=1&disable_pdf_sign=1"
	}
	api := c.cfg.apis[c.next.Add(1)%uint64(len(c.cfg.apis))]
	req, err := c.request(ctx, http.MethodPost, api, c.cfg.issuerKey, path, bytes.NewReader(xml))
	if err != nil {
		return "", 0, err
	}
	req.Header.Set("Content-Type", "application/xml")
	var created struct {
		Response struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		} `json:"response"`
	}
	took, err := c.do(req, http.StatusCreated, &created)
	return created.Response.Data.ID, took, err
}

// getInto reads path as entity, decodes the answer into v (when not nil) and returns how long it took.
func (c *benchClient) getInto(ctx context.Context, entity, path string, v any) (time.Duration, error) {
	req, err := c.request(ctx, http.MethodGet, c.cfg.apis[0], entity, path, nil)
	if err != nil {
		return 0, err
	}
	return c.do(req, http.StatusOK, v)
}

func (c *benchClient) request(ctx context.Context, method, api, entity, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, api+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("entity", entity)
	return req, nil
}

// errRateLimited says what to change when the server answers 429.
var errRateLimited = errors.New("the server rate-limits this client (429): run it with [rate_limit] requests_per_minute = 0 in its configuration")

// do sends req, expects status, decodes the body into v (when not nil) and returns the time from
// sending the request to having read the whole answer.
func (c *benchClient) do(req *http.Request, status int, v any) (time.Duration, error) {
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return 0, errRateLimited
	case resp.StatusCode != status:
		return 0, fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, bytes.TrimSpace(body))
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			return 0, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
		}
	}
	return took, nil
}

// benchNumber stands for the invoice number in the template; each creation replaces it.
const benchNumber = "BENCH-NUMBER-PLACEHOLDER"

// benchInvoice is a CIUS-PT invoice from the issuer to the recipient with the given number of lines,
// checked here as the server will check it. withPDF embeds its visual PDF as the invoice's
// representation, which the service then signs (PAdES).
func benchInvoice(issuerNIF, recipientNIF string, lines int, withPDF bool) ([]byte, error) {
	today := time.Now().UTC()
	rate := decimal.NewFromInt(23)
	d := &ubl.Document{
		Kind:            ubl.KindInvoice,
		CustomizationID: "urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:2.1.1",
		Number:          benchNumber,
		IssueDate:       today.Format(time.DateOnly),
		DueDate:         today.AddDate(0, 0, 30).Format(time.DateOnly),
		TypeCode:        "FT",
		Currency:        "EUR",
		AccountingCost:  "CO-2026/17",
		Seller: ubl.Party{
			Name: "Fornecedor", LegalName: "Fornecedor", VATID: "PT" + issuerNIF,
			LegalID: &ubl.Identifier{Value: "PT" + issuerNIF},
			Address: ubl.Address{Street: "Rua das Flores 10", City: "Lisboa", PostalZone: "1200-195", Country: "PT"},
		},
		Buyer: ubl.Party{
			Name: "Cliente", LegalName: "Cliente", VATID: "PT" + recipientNIF,
			LegalID: &ubl.Identifier{Value: "PT" + recipientNIF},
			Address: ubl.Address{Street: "Avenida da Liberdade 1", City: "Porto", PostalZone: "4000-001", Country: "PT"},
		},
		Delivery:     &ubl.Delivery{Address: ubl.Address{Street: "Avenida da Liberdade 1", City: "Porto", PostalZone: "4000-001", Country: "PT"}},
		PaymentMeans: []ubl.PaymentMeans{{Code: "30", Accounts: []ubl.Account{{ID: "PT50000201231234567890154"}}}},
	}
	for i := range lines {
		price := decimal.NewFromInt(int64(10 + i)).Add(decimal.New(50, -2))
		d.Lines = append(d.Lines, ubl.Line{
			ID: strconv.Itoa(i + 1), Quantity: decimal.NewFromInt(int64(i + 1)), Unit: "C62",
			Item: ubl.Item{
				Name: fmt.Sprintf("Artigo %d", i+1), Description: "Material de escritório", SellerID: fmt.Sprintf("A-%d", i+1),
				VAT: ubl.TaxCategory{ID: "S", Percent: &rate, Scheme: "VAT"},
			},
			Price: ubl.Price{Net: &price},
		})
	}
	ubl.Complete(d)
	if withPDF {
		visual, err := pdf.Render(d, pdf.Options{})
		if err != nil {
			return nil, err
		}
		d.Attachments = append(d.Attachments, ubl.Attachment{
			ID: "PDF-1", Description: "INVOICE_REPRESENTATION", MIMEType: "application/pdf", Filename: "invoice.pdf",
			Content: base64.StdEncoding.EncodeToString(visual),
		})
	}
	xml, err := ubl.Generate(d)
	if err != nil {
		return nil, err
	}
	result, _, err := ubl.Check(context.Background(), xml, ubl.Auto, "en")
	if err != nil {
		return nil, err
	}
	if f, rejected := result.FirstFatal(); rejected {
		return nil, fmt.Errorf("the bench's invoice is not valid: %s %s", f.Rule, f.Message)
	}
	return xml, nil
}
