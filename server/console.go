package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"einvoice/store"
)

// What the support console reads (every entity's), the support team's review of a connection, and an
// entity's own request for a connection.

// Entities lists every entity by name.
func (w *Workflow) Entities(ctx context.Context) ([]store.Entity, error) {
	return w.store.Entities(ctx)
}

// Entity reads one entity with its recipient rules.
func (w *Workflow) Entity(ctx context.Context, id int64) (store.Entity, []string, error) {
	e, err := w.existingEntity(ctx, id)
	if err != nil {
		return e, nil, err
	}
	rules, err := w.store.RecipientRules(ctx, id)
	return e, rules, err
}

// Credentials lists the OAuth clients and platform tokens, and the entities each may act for.
func (w *Workflow) Credentials(ctx context.Context) (clients, tokens []store.Credential, auths []store.CredentialEntity, err error) {
	if clients, err = w.store.Credentials(ctx, store.KindClient); err != nil {
		return
	}
	if tokens, err = w.store.Credentials(ctx, store.KindPlatform); err != nil {
		return
	}
	auths, err = w.store.Authorizations(ctx)
	return
}

// Connections is one page of every entity's connections in a state (every state when empty), newest
// first, and how many there are in all.
func (w *Workflow) Connections(ctx context.Context, state string, offset, limit int) ([]store.Connection, int, error) {
	return w.store.ConnectionsInState(ctx, state, max(offset, 0), min(max(limit, 1), 200))
}

// EntityConnections is one page of the connections an entity asked for or was asked for, newest
// first, and how many there are in all.
func (w *Workflow) EntityConnections(ctx context.Context, entityID int64, offset, limit int) ([]store.Connection, int, error) {
	return w.store.FindConnections(ctx, store.ConnectionFilter{EntityID: entityID, Offset: max(offset, 0), Limit: min(max(limit, 1), 200)})
}

// Seals lists every entity's seal (without keys).
func (w *Workflow) Seals(ctx context.Context) ([]store.Seal, error) { return w.store.Seals(ctx) }

// Emails lists the e-mails of documents, newest first.
func (w *Workflow) Emails(ctx context.Context, f store.EmailFilter) ([]store.Email, error) {
	f.Limit = min(max(f.Limit, 1), 1000)
	return w.store.Emails(ctx, f)
}

// ReviewConnection is the support team's decision on a connection: its state, the reason shown to the
// requester, and the team's own observation (spec 2.2 admin_observation; empty leaves it as it is).
// partner and upstream, when not nil, set the AS2 partner or upstream broker it goes through ("" for
// none).
func (w *Workflow) ReviewConnection(ctx context.Context, id int64, state, reason, observation string, partner, upstream *string) (store.Connection, error) {
	d := ConnectionDecision{State: state, Reason: reason, Partner: partner, Upstream: upstream}
	if observation != "" {
		d.AdminObservation = &observation
	}
	return w.DecideConnection(ctx, id, d)
}

// RequestConnection is an entity asking for a connection to another entity of this installation, by
// its tax ID ("PT508025338", or the number alone for Portugal); the support team reviews it.
func (w *Workflow) RequestConnection(ctx context.Context, fromEntityID int64, toNIF, observation string) (store.Connection, error) {
	country, nif := splitTaxID(toNIF, "PT")
	errs := FieldErrors{}
	validTaxID(errs, country, nif)
	if len(errs) > 0 {
		return store.Connection{}, fieldError("nif", CodeInvalidValue)
	}
	to, err := w.store.EntityByNIF(ctx, country, nif)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return store.Connection{}, fieldError("nif", CodeNoSuchTaxID)
		}
		return store.Connection{}, err
	}
	if to.ID == fromEntityID {
		return store.Connection{}, fieldError("nif", CodeInvalidValue)
	}
	return w.CreateConnection(ctx, store.NewConnection{FromEntityID: fromEntityID, ToEntityID: to.ID, State: store.ConnAnalyzing,
		Observation: observation})
}

// OutboxMessage is one .eml file the outbox transport wrote (mail.outbox_dir, the demo's transport).
type OutboxMessage struct {
	File    string `json:"file"` // its name in the folder
	Date    string `json:"date"`
	To      string `json:"to"`
	Subject string `json:"subject"`
	Size    int64  `json:"size"`
}

// maxOutboxMessage bounds the part of an .eml file read.
const maxOutboxMessage = 1 << 20

// OutboxMessages lists the newest .eml files of the outbox folder; CodeNoOutbox when there is none.
func (w *Workflow) OutboxMessages(limit int) (dir string, out []OutboxMessage, err error) {
	dir = w.cfg.Mail.OutboxDir
	if dir == "" {
		return "", nil, fail(CodeNoOutbox)
	}
	root, err := os.OpenRoot(dir)
	if os.IsNotExist(err) {
		return dir, []OutboxMessage{}, nil
	}
	if err != nil {
		return dir, nil, err
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return dir, nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(b.Name(), a.Name()) })
	out = []OutboxMessage{}
	for _, e := range entries {
		if len(out) >= limit || !strings.HasSuffix(e.Name(), ".eml") || !e.Type().IsRegular() {
			continue
		}
		m, _, err := readOutboxMessage(root, e.Name(), false)
		if err != nil {
			return dir, nil, err
		}
		out = append(out, m)
	}
	return dir, out, nil
}

// OutboxFile reads one .eml file of the outbox folder by name (at most its first MiB); CodeNotFound
// for a name that is not one of its files.
func (w *Workflow) OutboxFile(name string) (OutboxMessage, []byte, error) {
	dir := w.cfg.Mail.OutboxDir
	if dir == "" {
		return OutboxMessage{}, nil, fail(CodeNoOutbox)
	}
	if !strings.HasSuffix(name, ".eml") || filepath.Base(name) != name || strings.HasPrefix(name, ".") {
		return OutboxMessage{}, nil, fail(CodeNotFound)
	}
	root, err := os.OpenRoot(dir)
	if os.IsNotExist(err) {
		return OutboxMessage{}, nil, fail(CodeNotFound)
	} else if err != nil {
		return OutboxMessage{}, nil, err
	}
	defer root.Close()
	m, raw, err := readOutboxMessage(root, name, true)
	if os.IsNotExist(err) {
		return m, nil, fail(CodeNotFound)
	}
	return m, raw, err
}

// readOutboxMessage reads the headers of an .eml file of the outbox folder, and its first MiB when
// withRaw. Only regular files are read, and only within the folder: a link to a file elsewhere is as
// if it were not there.
func readOutboxMessage(root *os.Root, name string, withRaw bool) (OutboxMessage, []byte, error) {
	if st, err := root.Lstat(name); err != nil {
		return OutboxMessage{}, nil, err
	} else if !st.Mode().IsRegular() {
		return OutboxMessage{}, nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	f, err := root.Open(name)
	if err != nil {
		return OutboxMessage{}, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return OutboxMessage{}, nil, err
	}
	var raw []byte
	var r io.Reader = io.LimitReader(f, maxOutboxMessage)
	if withRaw {
		if raw, err = io.ReadAll(r); err != nil {
			return OutboxMessage{}, nil, err
		}
		r = bytes.NewReader(raw)
	}
	msg, err := mail.ReadMessage(bufio.NewReader(r))
	if err != nil {
		return OutboxMessage{}, nil, fmt.Errorf("%s: %w", name, err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		subject = msg.Header.Get("Subject")
	}
	return OutboxMessage{File: name, Date: msg.Header.Get("Date"), To: msg.Header.Get("To"), Subject: subject,
		Size: st.Size()}, raw, nil
}

// EDIStates are the states of an EDI delivery, in the order a queue is worked.
var EDIStates = []string{store.EDIQueued, store.EDIAwaiting, store.EDIDone, store.EDIFailed}

// maxEDIRows bounds a listing of the EDI delivery queue.
const maxEDIRows = 1000

// EDIDeliveries lists the EDI delivery queue, newest first: up to limit (at most 1000) deliveries, in
// state when it names one, else in any.
func (w *Workflow) EDIDeliveries(ctx context.Context, state string, limit int) ([]store.EDIDelivery, error) {
	if state != "" && !slices.Contains(EDIStates, state) {
		return nil, fieldError("state", CodeInvalidValue)
	}
	return w.store.EDIDeliveries(ctx, store.EDIFilter{State: state, Limit: max(1, min(limit, maxEDIRows))})
}
