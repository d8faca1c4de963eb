package server

import (
	"context"
	"fmt"
	"strings"

	"einvoice/store"
)

// The audit log: every change of the support operations (support.go, users.go) adds a row naming who
// made it. Front ends say who acts by putting an Actor in the context (the portal its signed-in user,
// the admin commands "cli"), so the operations keep their signatures and every front end is recorded
// alike; a change made with no actor (the demo's seeding) is the system's.

// Kinds of actor.
const (
	ActorPortal = "portal"
	ActorCLI    = "cli"
	ActorSystem = "system"
)

// Actor is who makes a change: a portal user by username, or the admin commands.
type Actor struct {
	Kind string // ActorPortal, ActorCLI or ActorSystem
	Name string // the portal user's username; the kind for the others
}

type actorKey struct{}

// WithActor is ctx carrying who acts, for the audit log.
func WithActor(ctx context.Context, a Actor) context.Context {
	if a.Name == "" {
		a.Name = a.Kind
	}
	return context.WithValue(ctx, actorKey{}, a)
}

// actorOf is the context's actor; the system when there is none.
func actorOf(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return Actor{Kind: ActorSystem, Name: ActorSystem}
}

// audit records a change the context's actor made. It is called right after the change succeeded, on
// the same path; when the row cannot be written the operation reports that error, so that no change
// goes unrecorded without anyone being told.
func (w *Workflow) audit(ctx context.Context, action, subject string, detail ...any) error {
	a := actorOf(ctx)
	err := w.store.AddAudit(context.WithoutCancel(ctx), store.AuditEntry{ActorKind: a.Kind, Actor: a.Name, Action: action,
		Subject: subject, Detail: auditDetail(detail...)})
	if err != nil {
		w.log.Error("audit log", "action", action, "subject", subject, "err", err)
	}
	return err
}

// auditDetail writes key/value pairs as key=value, quoting values with spaces.
func auditDetail(kv ...any) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		v := fmt.Sprint(kv[i+1])
		if v == "" || strings.ContainsAny(v, " \t\"=") {
			v = fmt.Sprintf("%q", v)
		}
		fmt.Fprintf(&b, "%v=%s", kv[i], v)
	}
	return b.String()
}

// entitySubject names an entity in the audit log by its tax ID.
func (w *Workflow) entitySubject(ctx context.Context, id int64) string {
	if e, err := w.store.EntityByID(ctx, id); err == nil {
		return EntityKey(e)
	}
	return fmt.Sprintf("entity %d", id)
}

// Bounds of the audit log's pages.
const (
	defaultAuditRows = 50
	maxAuditRows     = 500
)

// AuditLog is one page of the audit log, newest first, and how many entries the filter selects.
func (w *Workflow) AuditLog(ctx context.Context, f store.AuditFilter) ([]store.AuditEntry, int, error) {
	if f.Limit <= 0 {
		f.Limit = defaultAuditRows
	}
	f.Limit = min(f.Limit, maxAuditRows)
	f.Offset = max(f.Offset, 0)
	return w.store.AuditLog(ctx, f)
}
