package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"einvoice/server"
	"einvoice/store"
	"einvoice/ubl/taxid"
)

// adminCommand is one `einvoice admin <noun> <verb>` (or a command of one word, without verb): it declares its flags on fs and returns a function
// that runs once they are parsed. Every command has --config, --data and --json.
type adminCommand struct {
	noun, verb, help string
	flags            func(fs *flag.FlagSet) func(a *adminEnv) error
}

// adminEnv is what a running admin command has: the workflow layer for changes, the store for reads,
// the output and the --json switch.
type adminEnv struct {
	ctx    context.Context
	cfg    Config
	st     *store.Store
	wf     *server.Workflow
	out    io.Writer
	asJSON bool
}

// usageError is a command-line mistake: reported with exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// admin runs `einvoice admin <noun> <verb> [flags]` on the configured data folder. It works while the
// server runs: SQLite serialises the writes of both processes.
func admin(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		printAdminUsage(stdout)
		return 0
	}
	if len(args) == 0 {
		printAdminUsage(stderr)
		return 2
	}
	cmd, ok := findAdminCommand(args[0], "") // a command of one word: `migrate-store`
	flagArgs := args[1:]
	if !ok && len(args) > 1 {
		cmd, ok = findAdminCommand(args[0], args[1])
		flagArgs = args[2:]
	}
	if !ok && len(args) > 2 { // a noun of two words: `as2 partner create`
		cmd, ok = findAdminCommand(args[0]+" "+args[1], args[2])
		flagArgs = args[3:]
	}
	if !ok {
		fmt.Fprintf(stderr, "einvoice admin: unknown command %q\n", strings.Join(args[:min(2, len(args))], " "))
		printAdminUsage(stderr)
		return 2
	}
	fs := flag.NewFlagSet(strings.TrimSpace("admin "+cmd.noun+" "+cmd.verb), flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "configuration file")
	dataDir := fs.String("data", "", "data folder (overrides storage.data_dir)")
	asJSON := fs.Bool("json", false, "print JSON")
	runCmd := cmd.flags(fs)
	if err := fs.Parse(flagArgs); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "einvoice admin: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	ctx := server.WithActor(context.Background(), server.Actor{Kind: server.ActorCLI})
	cfg, st, err := openInstallation(ctx, *configPath, *dataDir, true)
	var ce configError
	if errors.As(err, &ce) {
		fmt.Fprintln(stderr, "einvoice:", err)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "einvoice admin:", err)
		return exitCode(err)
	}
	defer st.Close()
	wf := server.NewWorkflow(cfg.serverConfig(), st, newLogger(cfg.Log, os.Stderr))
	err = runCmd(&adminEnv{ctx: ctx, cfg: cfg, st: st, wf: wf, out: stdout, asJSON: *asJSON})
	if err == nil {
		return 0
	}
	msg, code := explain(err)
	fmt.Fprintln(stderr, "einvoice admin:", msg)
	return code
}

// explain is the message and exit code of a failed admin command: a value in the wrong form (a usage
// error, or a field the workflow finds missing or invalid) exits with 2; anything the workflow refuses
// or that fails exits with 1.
func explain(err error) (string, int) {
	var fe server.FieldErrors
	if !errors.As(err, &fe) {
		return err.Error(), exitCode(err)
	}
	code := 2
	var parts []string
	for _, field := range slices.Sorted(maps.Keys(fe)) {
		p := fe[field]
		if !server.FormCode(p.Code) {
			code = 1
		}
		text := strings.TrimSuffix(p.Code.Msg("en"), ".")
		part := "--" + strings.ReplaceAll(field, "_", "-") + ": " + strings.ToLower(text[:1]) + text[1:]
		if p.Details != nil {
			part += " (" + detailsText(p.Details) + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; "), code
}

func exitCode(err error) int {
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func detailsText(v any) string {
	switch d := v.(type) {
	case []string:
		return "one of " + strings.Join(d, ", ")
	case map[string]int:
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(d)) {
			kv = append(kv, fmt.Sprintf("%s %d", k, d[k]))
		}
		return strings.Join(kv, ", ")
	}
	return fmt.Sprint(v)
}

// reword replaces a workflow refusal with the given code by a sentence naming what the command meant.
func reword(err error, code *server.Code, format string, args ...any) error {
	if err != nil && server.ErrorCode(err) == code {
		return fmt.Errorf(format, args...)
	}
	return err
}

func findAdminCommand(noun, verb string) (adminCommand, bool) {
	for _, c := range adminCommands {
		if c.noun == noun && c.verb == verb {
			return c, true
		}
	}
	return adminCommand{}, false
}

func printAdminUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: einvoice admin <noun> <verb> [--flags] [--json] [--data DIR] [--config FILE]")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range adminCommands {
		fmt.Fprintf(tw, "  %s %s\t%s\n", c.noun, c.verb, c.help)
	}
	tw.Flush()
}

// adminCommands is the table of every admin command.
var adminCommands = []adminCommand{
	{"entity", "create", "--name N --nif NIF [--country PT] [--pays-received] [--transactions N] [--test-entity]", entityCreate},
	{"entity", "list", "", entityList},
	{"entity", "show", "--nif NIF [--country PT]", entityShow},
	{"entity", "update", "--nif NIF [--name N] [--pays-received on|off] [--transactions N] [--process-states on|off] [--signs-itself on|off] [--test-entity on|off] [--mail-from-name N] [--mail-from A] [--mail-reply-to A] [--mail-xml on|off]", entityUpdate},
	{"client", "create", "--name N [--scopes a,b]  (prints client_id and secret once)", clientCreate},
	{"client", "list", "", credentialList(store.KindClient)},
	{"client", "disable", "--client CLIENT_ID", clientDisable},
	{"client", "authorize", "--client CLIENT_ID --nif NIF [--country PT]", clientAuthorize},
	{"token", "create", "--name N [--scopes a,b]  (legacy platform token, printed once)", tokenCreate},
	{"token", "list", "", credentialList(store.KindPlatform)},
	{"token", "revoke", "--id ID", tokenRevoke},
	{"token", "authorize", "--id ID --nif NIF [--country PT]  (the entity's handshake is still needed)", tokenAuthorize},
	{"connection", "create", "--from NIF --to NIF [--partner NAME | --upstream NAME] [--name N] [--state analyzing|approved|declined|pending] [--observation T]  (a tax ID that is no entity here is external: it needs --partner or --upstream)", connectionCreate},
	{"connection", "approve", "--id ID [--reason R] [--admin-observation T] [--partner NAME | --upstream NAME]", connectionSetState(store.ConnApproved)},
	{"connection", "decline", "--id ID --reason R [--admin-observation T]", connectionSetState(store.ConnDeclined)},
	{"connection", "pending", "--id ID [--reason R] [--admin-observation T]  (waits for something from the requester)", connectionSetState(store.ConnPending)},
	{"connection", "list", "", connectionList},
	{"upstream", "create", "--name N --url BASE --client-id ID [--secret-file F | --secret-env VAR] [--public-key-file F | --public-key-env VAR]  (else asked)", upstreamCreate},
	{"upstream", "list", "", upstreamList},
	{"upstream", "delete", "--name N", upstreamDelete},
	{"edi", "list", "[--state queued|awaiting|done|failed] [--limit N]  EDI deliveries, newest first: partner, message id, attempts, last error", ediList},
	{"processstate", "create", "add a process state an entity can set on received documents", processStateCreate},
	{"processstate", "list", "", processStateList},
	{"processstate", "delete", "", processStateDelete},
	{"webhook", "create", "post an entity's document events to a URL", webhookCreate},
	{"webhook", "list", "", webhookList},
	{"webhook", "delete", "", webhookDelete},
	{"webhook", "attempts", "the latest delivery attempts, with status, latency and error", webhookAttempts},
	{"rule", "list", "fields an entity requires on the documents it receives", ruleList},
	{"rule", "add", "require a field on what an entity receives: " + strings.Join(server.RecipientRuleNames, ", "), ruleSet(true)},
	{"rule", "remove", "stop requiring a field", ruleSet(false)},
	{"emails", "list", "[--nif NIF] [--state queued|sent|failed|returned] [--limit N]  e-mails of documents, newest first", emailsList},
	{"emails", "outbox", "[--limit N]  the .eml files the outbox transport wrote (demo mode)", emailsOutbox},
	{"user", "create", "--username U --role admin|operator|viewer --entity NIF | --role support  [--password-file F]  (else asked)", userCreate},
	{"user", "grant", "--username U --entity NIF --role admin|operator|viewer  (a role at one more entity)", userGrant},
	{"user", "list", "portal users and their roles", userList},
	{"user", "disable", "--username U  (ends its sessions)", userSetDisabled(true)},
	{"user", "enable", "--username U", userSetDisabled(false)},
	{"user", "reset-password", "--username U [--password-file F]  (else asked; ends its sessions)", userResetPassword},
	{"seal", "import", "--nif NIF --file F.p12 [--password-file F | --password-env VAR]  (else asked)", sealImport},
	{"seal", "list", "[--nif NIF]  subject, issuer, validity; warns 30 days before expiry", sealList},
	{"seal", "delete", "--nif NIF  (the service stops signing for the entity)", sealDelete},
	{"migrate-store", "", "--to postgres [--dsn DSN]  copy this SQLite installation into an empty PostgreSQL database (stop the server first)", migrateStore},
	{"audit", "list", "[--actor U] [--action A] [--subject S] [--from DATE] [--to DATE] [--limit N] [--page N]  support changes, newest first", auditList},
}

// taxIDFlags declares --nif and --country; the NIF may carry its country prefix ("PT500000000").
func taxIDFlags(fs *flag.FlagSet, name string) func() (country, nif string, err error) {
	nif := fs.String(name, "", "tax ID (NIF), with or without country prefix")
	country := fs.String("country", "PT", "ISO 3166 alpha-2 country of the tax ID")
	return func() (string, string, error) { return parseTaxID(name, *nif, *country) }
}

func parseTaxID(flagName, raw, defaultCountry string) (string, string, error) {
	if raw == "" {
		return "", "", usagef("--%s is required", flagName)
	}
	country, nif := taxid.Split(raw)
	if country == "" {
		country = strings.ToUpper(defaultCountry)
	}
	if !taxid.ValidCountry(country) {
		return "", "", usagef("--country %q is not an ISO 3166 alpha-2 code", country)
	}
	if country == "PT" {
		if err := taxid.ValidNIF(nif); err != nil {
			return "", "", fmt.Errorf("NIF %s: %w", nif, err)
		}
	} else if nif == "" || len(nif) > 20 {
		return "", "", fmt.Errorf("tax ID %q is not valid", raw)
	}
	return country, nif, nil
}

// entityFlags declares --nif (and --country) and finds the entity they name.
func entityFlags(fs *flag.FlagSet) func(a *adminEnv) (store.Entity, error) {
	taxID := taxIDFlags(fs, "nif")
	return func(a *adminEnv) (store.Entity, error) {
		country, nif, err := taxID()
		if err != nil {
			return store.Entity{}, err
		}
		return a.entity(country, nif)
	}
}

// entityByTaxID finds the entity of a tax ID given to a flag (a country prefix, or else defaultCountry).
func (a *adminEnv) entityByTaxID(flagName, raw, defaultCountry string) (store.Entity, error) {
	country, nif, err := parseTaxID(flagName, raw, defaultCountry)
	if err != nil {
		return store.Entity{}, err
	}
	return a.entity(country, nif)
}

func (a *adminEnv) entity(country, nif string) (store.Entity, error) {
	e, err := a.st.EntityByNIF(a.ctx, country, nif)
	if errors.Is(err, store.ErrNotFound) {
		return e, fmt.Errorf("no entity with tax ID %s%s", country, nif)
	}
	return e, err
}

// print writes v as JSON with --json, else the text lines.
func (a *adminEnv) print(v any, text func(w io.Writer)) error {
	if a.asJSON {
		enc := json.NewEncoder(a.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	tw := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
	text(tw)
	return tw.Flush()
}

func printEntity(w io.Writer, e store.Entity) {
	fmt.Fprintf(w, "id\t%d\nname\t%s\ntax ID\t%s%s\npublic key\t%s\npays received\t%s\ntransactions\t%d\n"+
		"process states\t%s\nsigns itself\t%s\nsigns through the service\t%s\ntest entity\t%s\n"+
		"mail from\t%s <%s>\nmail reply-to\t%s\nmail with XML\t%s\ncreated\t%s\n",
		e.ID, e.Name, e.Country, e.NIF, e.PublicKey, onOff(e.PaysReceived), e.Transactions,
		onOff(e.ProcessStatesEnabled), onOff(e.SignsItself), onOff(e.ServiceSigning), onOff(e.TestEntity),
		e.Mail.FromName, e.Mail.FromAddress, e.Mail.ReplyTo, onOff(e.Mail.AttachXML), e.CreatedAt)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// optionalString is a flag that may be given empty (to clear a setting): nil when not given.
type optionalString struct{ v *string }

func (f *optionalString) String() string {
	if f.v == nil {
		return ""
	}
	return *f.v
}

func (f *optionalString) Set(s string) error {
	s = strings.TrimSpace(s)
	f.v = &s
	return nil
}

// onOffFlag is an optional on|off flag: nil when not given.
type onOffFlag struct{ v *bool }

func (f *onOffFlag) String() string {
	if f.v == nil {
		return ""
	}
	return onOff(*f.v)
}

func (f *onOffFlag) Set(s string) error {
	switch strings.ToLower(s) {
	case "on", "true", "1", "yes":
		b := true
		f.v = &b
	case "off", "false", "0", "no":
		b := false
		f.v = &b
	default:
		return fmt.Errorf("want on or off, not %q", s)
	}
	return nil
}

func entityCreate(fs *flag.FlagSet) func(*adminEnv) error {
	name := fs.String("name", "", "entity name")
	taxID := taxIDFlags(fs, "nif")
	pays := fs.Bool("pays-received", false, "the entity pays a transaction for each document it receives")
	transactions := fs.Int64("transactions", 0, "transaction balance")
	test := fs.Bool("test-entity", false, "one of the test entities of a test installation")
	return func(a *adminEnv) error {
		country, nif, err := taxID()
		if err != nil {
			return err
		}
		e, err := a.wf.CreateEntity(a.ctx, store.NewEntity{Name: *name, Country: country, NIF: nif,
			PaysReceived: *pays, Transactions: *transactions, TestEntity: *test})
		if err != nil {
			return reword(err, server.CodeExists, "an entity with tax ID %s%s exists already", country, nif)
		}
		return a.print(e, func(w io.Writer) { printEntity(w, e) })
	}
}

func entityList(*flag.FlagSet) func(*adminEnv) error {
	return func(a *adminEnv) error {
		es, err := a.st.Entities(a.ctx)
		if err != nil {
			return err
		}
		if es == nil {
			es = []store.Entity{}
		}
		return a.print(es, func(w io.Writer) {
			fmt.Fprintln(w, "ID\tTAX ID\tNAME\tPUBLIC KEY\tTRANSACTIONS\tTEST")
			for _, e := range es {
				fmt.Fprintf(w, "%d\t%s%s\t%s\t%s\t%d\t%s\n", e.ID, e.Country, e.NIF, e.Name, e.PublicKey, e.Transactions, onOff(e.TestEntity))
			}
		})
	}
}

func entityShow(fs *flag.FlagSet) func(*adminEnv) error {
	entity := entityFlags(fs)
	return func(a *adminEnv) error {
		e, err := entity(a)
		if err != nil {
			return err
		}
		return a.print(e, func(w io.Writer) { printEntity(w, e) })
	}
}

func entityUpdate(fs *flag.FlagSet) func(*adminEnv) error {
	entity := entityFlags(fs)
	var name, mailFromName, mailFrom, mailReplyTo optionalString
	fs.Var(&name, "name", "new name")
	var pays, processStates, signsItself, test, mailXML onOffFlag
	fs.Var(&pays, "pays-received", "on|off: pays a transaction per received document")
	fs.Var(&processStates, "process-states", "on|off: custom process states feature")
	fs.Var(&signsItself, "signs-itself", "on|off: the entity signs its documents itself (incoming signatures are verified)")
	fs.Var(&test, "test-entity", "on|off: one of the test entities")
	transactions := fs.String("transactions", "", "new transaction balance")
	fs.Var(&mailFromName, "mail-from-name", "display name of the entity's e-mails (empty: the installation's, else the entity's name)")
	fs.Var(&mailFrom, "mail-from", "From address of the entity's e-mails (empty: the installation's)")
	fs.Var(&mailReplyTo, "mail-reply-to", "Reply-To of the entity's e-mails (empty: the installation's)")
	fs.Var(&mailXML, "mail-xml", "on|off: send the XML with the PDF")
	return func(a *adminEnv) error {
		e, err := entity(a)
		if err != nil {
			return err
		}
		ch := store.EntityChanges{Name: name.v, PaysReceived: pays.v, ProcessStatesEnabled: processStates.v, SignsItself: signsItself.v,
			TestEntity: test.v, MailFromName: mailFromName.v, MailFromAddress: mailFrom.v, MailReplyTo: mailReplyTo.v, MailAttachXML: mailXML.v}
		if *transactions != "" {
			n, err := strconv.ParseInt(*transactions, 10, 64)
			if err != nil {
				return usagef("--transactions must be a whole number")
			}
			ch.Transactions = &n
		}
		if e, err = a.wf.UpdateEntity(a.ctx, e.ID, ch); err != nil {
			return err
		}
		return a.print(e, func(w io.Writer) { printEntity(w, e) })
	}
}

// scopesFlag declares --scopes (default: all).
func scopesFlag(fs *flag.FlagSet) func() []string {
	raw := fs.String("scopes", strings.Join(server.AllScopes, ","), "comma-separated: "+strings.Join(server.AllScopes, ", "))
	return func() []string { return commaList(*raw) }
}

// commaList splits a comma-separated flag, dropping empty items.
func commaList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func clientCreate(fs *flag.FlagSet) func(*adminEnv) error {
	name := fs.String("name", "", "client name (the integrator's application)")
	scopes := scopesFlag(fs)
	return func(a *adminEnv) error {
		c, secret, err := a.wf.CreateClient(a.ctx, *name, scopes())
		if err != nil {
			return err
		}
		v := struct {
			store.Credential
			ClientSecret string `json:"client_secret"`
		}{c, secret}
		return a.print(v, func(w io.Writer) {
			fmt.Fprintf(w, "client_id\t%s\nclient_secret\t%s\nscopes\t%s\n", c.ClientID, secret, strings.Join(c.Scopes, ","))
			fmt.Fprintln(w, "\nThe secret is shown only now. Authorise the client for entities with `einvoice admin client authorize`.")
		})
	}
}

func credentialList(kind string) func(*flag.FlagSet) func(*adminEnv) error {
	return func(*flag.FlagSet) func(*adminEnv) error {
		return func(a *adminEnv) error {
			cs, err := a.st.Credentials(a.ctx, kind)
			if err != nil {
				return err
			}
			if cs == nil {
				cs = []store.Credential{}
			}
			return a.print(cs, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tCLIENT ID\tNAME\tSCOPES\tDISABLED\tCREATED")
				for _, c := range cs {
					fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\n", c.ID, c.ClientID, c.Name, strings.Join(c.Scopes, ","), onOff(c.Disabled), c.CreatedAt)
				}
			})
		}
	}
}

func clientDisable(fs *flag.FlagSet) func(*adminEnv) error {
	clientID := fs.String("client", "", "client_id")
	return func(a *adminEnv) error {
		c, err := a.wf.DisableClient(a.ctx, *clientID)
		if err != nil {
			return reword(err, server.CodeNotFound, "no client %q", *clientID)
		}
		return a.print(map[string]any{"client_id": c.ClientID, "disabled": true}, func(w io.Writer) {
			fmt.Fprintf(w, "client %s disabled; its access tokens are revoked\n", c.ClientID)
		})
	}
}

func clientAuthorize(fs *flag.FlagSet) func(*adminEnv) error {
	clientID := fs.String("client", "", "client_id")
	entity := entityFlags(fs)
	return func(a *adminEnv) error {
		e, err := entity(a)
		if err != nil {
			return err
		}
		c, err := a.wf.AuthorizeClient(a.ctx, *clientID, e.ID)
		if err != nil {
			return reword(err, server.CodeNotFound, "no client %q", *clientID)
		}
		return a.printAuthorized(c, e)
	}
}

func (a *adminEnv) printAuthorized(c store.Credential, e store.Entity) error {
	return a.print(map[string]any{"credential_id": c.ID, "entity": e.Country + e.NIF, "authorized": true}, func(w io.Writer) {
		fmt.Fprintf(w, "%s %q may now act for %s (%s%s)\n", c.Kind, c.Name, e.Name, e.Country, e.NIF)
	})
}

func tokenCreate(fs *flag.FlagSet) func(*adminEnv) error {
	name := fs.String("name", "", "token name (the integrating platform)")
	scopes := scopesFlag(fs)
	return func(a *adminEnv) error {
		c, token, err := a.wf.CreatePlatformToken(a.ctx, *name, scopes())
		if err != nil {
			return err
		}
		v := struct {
			store.Credential
			Token string `json:"token"`
		}{c, token}
		return a.print(v, func(w io.Writer) {
			fmt.Fprintf(w, "id\t%d\ntoken\t%s\n", c.ID, token)
			fmt.Fprintln(w, "\nThe token is shown only now. Authorise it for entities with `einvoice admin token authorize`.")
		})
	}
}

func tokenRevoke(fs *flag.FlagSet) func(*adminEnv) error {
	id := fs.Int64("id", 0, "token id (from token list)")
	return func(a *adminEnv) error {
		c, err := a.wf.RevokePlatformToken(a.ctx, *id)
		if err != nil {
			return reword(err, server.CodeNotFound, "no platform token with id %d", *id)
		}
		return a.print(map[string]any{"id": c.ID, "revoked": true}, func(w io.Writer) {
			fmt.Fprintf(w, "platform token %d revoked\n", c.ID)
		})
	}
}

func tokenAuthorize(fs *flag.FlagSet) func(*adminEnv) error {
	id := fs.Int64("id", 0, "token id (from token list)")
	entity := entityFlags(fs)
	return func(a *adminEnv) error {
		e, err := entity(a)
		if err != nil {
			return err
		}
		c, err := a.wf.AuthorizePlatformToken(a.ctx, *id, e.ID)
		if err != nil {
			return reword(err, server.CodeNotFound, "no platform token with id %d", *id)
		}
		return a.printAuthorized(c, e)
	}
}

func ruleList(fs *flag.FlagSet) func(*adminEnv) error {
	entity := entityFlags(fs)
	return func(a *adminEnv) error {
		e, err := entity(a)
		if err != nil {
			return err
		}
		rules, err := a.st.RecipientRules(a.ctx, e.ID)
		if err != nil {
			return err
		}
		return a.printRules(rules)
	}
}

func (a *adminEnv) printRules(rules []string) error {
	if rules == nil {
		rules = []string{}
	}
	return a.print(rules, func(w io.Writer) {
		for _, r := range rules {
			fmt.Fprintln(w, r)
		}
	})
}

func ruleSet(on bool) func(fs *flag.FlagSet) func(*adminEnv) error {
	return func(fs *flag.FlagSet) func(*adminEnv) error {
		entity := entityFlags(fs)
		rule := fs.String("rule", "", strings.Join(server.RecipientRuleNames, " | "))
		return func(a *adminEnv) error {
			e, err := entity(a)
			if err != nil {
				return err
			}
			rules, err := a.wf.SetRecipientRule(a.ctx, e.ID, *rule, on)
			if err != nil {
				return err
			}
			return a.printRules(rules)
		}
	}
}
