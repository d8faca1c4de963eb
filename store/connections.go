package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Connection states (spec 3.2).
const (
	ConnAnalyzing = "analyzing"
	ConnApproved  = "approved"
	ConnDeclined  = "declined"
	ConnPending   = "pending"
)

// EntityRef names an entity inside another record.
type EntityRef struct {
	ID       int64  `json:"id"`
	PublicID string `json:"public_id"`
	Name     string `json:"name"`
	Country  string `json:"country"`
	NIF      string `json:"nif"`
}

// Connection lets documents flow between two entities once approved: From asked, To receives the request.
type Connection struct {
	ID                 int64     `json:"id"`
	PublicID           string    `json:"public_id"`
	Reference          string    `json:"reference"`
	From               EntityRef `json:"from"`
	To                 EntityRef `json:"to"`
	State              string    `json:"state"`
	Kind               string    `json:"kind"`
	Person             string    `json:"person"`
	Partner            string    `json:"partner"`
	Observation        string    `json:"observation"`
	Reason             string    `json:"reason,omitempty"`
	ReasonAt           string    `json:"reason_at,omitempty"`
	AdminObservation   string    `json:"admin_observation,omitempty"`
	AdminObservationAt string    `json:"admin_observation_at,omitempty"`
	CreatedAt          string    `json:"created_at"`
	UpdatedAt          string    `json:"updated_at"`
}

// NewConnection is what creating a connection takes.
type NewConnection struct {
	FromEntityID, ToEntityID int64
	State                    string // analyzing when empty
	Kind                     string // standard when empty
	Person, Partner          string
	Observation              string
}

const connectionSelect = `SELECT c.id, c.reference, f.id, f.name, f.country, f.nif, t.id, t.name, t.country, t.nif,
	c.state, c.kind, c.person, c.partner, c.observation, coalesce(c.reason, ''), coalesce(c.reason_at, ''),
	coalesce(c.admin_observation, ''), coalesce(c.admin_observation_at, ''), c.created_at, c.updated_at
	FROM connections c JOIN entities f ON f.id = c.from_entity_id JOIN entities t ON t.id = c.to_entity_id`

func scanConnection(ids *publicIDs, row interface{ Scan(...any) error }) (Connection, error) {
	var c Connection
	err := row.Scan(&c.ID, &c.Reference, &c.From.ID, &c.From.Name, &c.From.Country, &c.From.NIF,
		&c.To.ID, &c.To.Name, &c.To.Country, &c.To.NIF, &c.State, &c.Kind, &c.Person, &c.Partner,
		&c.Observation, &c.Reason, &c.ReasonAt, &c.AdminObservation, &c.AdminObservationAt, &c.CreatedAt, &c.UpdatedAt)
	if err != nil {
		return c, mapError(err)
	}
	c.PublicID = ids.encode(KindConnection, c.ID)
	c.From.PublicID, c.To.PublicID = ids.encode(KindEntity, c.From.ID), ids.encode(KindEntity, c.To.ID)
	return c, nil
}

// CreateConnection stores a connection request; ErrConflict when one exists between the same pair.
func (s *Store) CreateConnection(ctx context.Context, n NewConnection) (Connection, error) {
	if n.State == "" {
		n.State = ConnAnalyzing
	}
	if n.Kind == "" {
		n.Kind = "standard"
	}
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := s.timestamp()
		return tx.QueryRowContext(ctx, `INSERT INTO connections (reference, from_entity_id, to_entity_id, state,
			kind, person, partner, observation, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			"CON-"+strings.ToUpper(RandomToken(5)), n.FromEntityID, n.ToEntityID, n.State, n.Kind,
			n.Person, n.Partner, n.Observation, now, now).Scan(&id)
	})
	if err != nil {
		return Connection{}, err
	}
	return s.ConnectionByID(ctx, id)
}

// ConnectionByID finds a connection by its id.
func (s *Store) ConnectionByID(ctx context.Context, id int64) (Connection, error) {
	return scanConnection(s.ids, s.reader.QueryRowContext(ctx, connectionSelect+` WHERE c.id = ?`, id))
}

// SetConnectionState moves a connection to a new state; a reason is recorded with it when given.
func (s *Store) SetConnectionState(ctx context.Context, id int64, state, reason string) (Connection, error) {
	switch state {
	case ConnAnalyzing, ConnApproved, ConnDeclined, ConnPending:
	default:
		return Connection{}, fmt.Errorf("unknown connection state %q", state)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := s.timestamp()
		var r, rAt any
		if reason != "" {
			r, rAt = reason, now
		}
		res, err := tx.ExecContext(ctx, `UPDATE connections SET state = ?, reason = ?, reason_at = ?, updated_at = ?
			WHERE id = ?`, state, r, rAt, now, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return Connection{}, err
	}
	return s.ConnectionByID(ctx, id)
}

// Connections lists every connection, newest first.
func (s *Store) Connections(ctx context.Context) ([]Connection, error) {
	rows, err := s.reader.QueryContext(ctx, connectionSelect+` ORDER BY c.id DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Connection
	for rows.Next() {
		c, err := scanConnection(s.ids, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ConnectionFilter selects the connections one entity may see (as requester or receiver).
type ConnectionFilter struct {
	EntityID                   int64
	Reference                  string
	ReceiverNIF, CreatedNIF    string
	CreatedAfter, CreatedUntil string // "YYYY-MM-DD"; exclusive bounds as the spec words them
	Ascending                  bool
	Offset, Limit              int
}

// FindConnections returns one page of the filter's connections and how many there are in all.
func (s *Store) FindConnections(ctx context.Context, f ConnectionFilter) ([]Connection, int, error) {
	where := ` WHERE (c.from_entity_id = ? OR c.to_entity_id = ?)`
	args := []any{f.EntityID, f.EntityID}
	add := func(cond string, v string) {
		if v != "" {
			where += " AND " + cond
			args = append(args, v)
		}
	}
	add("c.reference = ?", f.Reference)
	add("t.nif = ?", f.ReceiverNIF)
	add("f.nif = ?", f.CreatedNIF)
	add("c.created_at > ?", f.CreatedAfter)
	if f.CreatedUntil != "" {
		add("c.created_at < ?", f.CreatedUntil)
	}
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM connections c JOIN entities f ON f.id = c.from_entity_id
		JOIN entities t ON t.id = c.to_entity_id`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	order := " ORDER BY c.created_at DESC, c.id DESC"
	if f.Ascending {
		order = " ORDER BY c.created_at, c.id"
	}
	rows, err := s.reader.QueryContext(ctx, connectionSelect+where+order+" LIMIT ? OFFSET ?", append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Connection
	for rows.Next() {
		c, err := scanConnection(s.ids, rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	return out, total, rows.Err()
}
