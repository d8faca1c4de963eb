package store

import (
	"context"
	"database/sql"
	"strings"
)

// AuditEntry is one change the support team made, as the audit log keeps it.
type AuditEntry struct {
	ID        int64  `json:"id"`
	CreatedAt string `json:"created_at"`
	ActorKind string `json:"actor_kind"` // portal, cli or system
	Actor     string `json:"actor"`      // the portal user's username, or cli or system
	Action    string `json:"action"`
	Subject   string `json:"subject"`
	Detail    string `json:"detail"`
}

// AddAudit appends an entry to the audit log; its time is the store's clock.
func (s *Store) AddAudit(ctx context.Context, e AuditEntry) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO audit_log (created_at, actor_kind, actor, action, subject, detail)
			VALUES (?, ?, ?, ?, ?, ?)`, s.timestamp(), e.ActorKind, e.Actor, e.Action, e.Subject, e.Detail)
		return err
	})
}

// AuditFilter selects audit entries; empty fields select everything.
type AuditFilter struct {
	Actor   string // a username, cli or system
	Action  string // an action, or its prefix ending in "." (entity. for every entity action)
	Subject string // part of the subject
	From    string // "YYYY-MM-DD", inclusive
	To      string // "YYYY-MM-DD", inclusive
	Offset  int
	Limit   int
}

// AuditLog returns one page of the filter's entries, newest first, and how many there are in all.
func (s *Store) AuditLog(ctx context.Context, f AuditFilter) ([]AuditEntry, int, error) {
	where, args := ` WHERE 1 = 1`, []any{}
	add := func(v, cond string, arg ...any) {
		if v != "" {
			where += " AND " + cond
			args = append(args, arg...)
		}
	}
	add(f.Actor, "actor = ?", f.Actor)
	if strings.HasSuffix(f.Action, ".") {
		add(f.Action, "substr(action, 1, ?) = ?", len(f.Action), f.Action)
	} else {
		add(f.Action, "action = ?", f.Action)
	}
	add(f.Subject, "instr(subject, ?) > 0", f.Subject)
	add(f.From, "created_at >= ?", f.From)
	add(f.To, "substr(created_at, 1, 10) <= ?", f.To) // its date at most To
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM audit_log`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT id, created_at, actor_kind, actor, action, subject, detail FROM audit_log`+
		where+` ORDER BY id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []AuditEntry{}
	for rows.Next() {
		var e AuditEntry
		if err := rows.Scan(&e.ID, &e.CreatedAt, &e.ActorKind, &e.Actor, &e.Action, &e.Subject, &e.Detail); err != nil {
			return nil, 0, err
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}
