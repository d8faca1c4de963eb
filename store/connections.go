package store

import (
	"context"
	"database/sql"
	"errors"
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

// EntityRef names an entity inside another record. ID is 0 for a party outside this installation.
type EntityRef struct {
	ID       int64  `json:"id"`
	PublicID string `json:"public_id"`
	Name     string `json:"name"`
	Country  string `json:"country"`
	NIF      string `json:"nif"`
}

// External tells whether the party is outside this installation (an external tax ID).
func (r EntityRef) External() bool { return r.ID == 0 }

// Connection lets documents flow between two parties once approved: From asked, To receives the
// request. One of them may be an external tax ID, reached through an AS2 partner or an upstream broker.
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
	Upstream           string    `json:"upstream,omitempty"`
	OperatorEntityID   int64     `json:"operator_entity_id,omitempty"`
	OperatorEmail      string    `json:"operator_email,omitempty"`
	Observation        string    `json:"observation"`
	Reason             string    `json:"reason,omitempty"`
	ReasonAt           string    `json:"reason_at,omitempty"`
	AdminObservation   string    `json:"admin_observation,omitempty"`
	AdminObservationAt string    `json:"admin_observation_at,omitempty"`
	CreatedAt          string    `json:"created_at"`
	UpdatedAt          string    `json:"updated_at"`
}

// NewConnection is what creating a connection takes: each side an entity here (its id) or, with id 0,
// an external tax ID.
type NewConnection struct {
	FromEntityID, ToEntityID int64
	FromExternal, ToExternal PartyKey // the side whose entity id is 0
	State                    string   // analyzing when empty
	Kind                     string   // standard when empty
	Person, Partner          string
	Upstream                 string
	OperatorEntityID         int64
	OperatorEmail            string
	Observation              string
}

// ConnectionChange is what the support team changes on a connection; nil leaves a field as it is.
type ConnectionChange struct {
	State            string  // required
	Reason           string  // recorded with the state when given
	AdminObservation *string // the support team's note
	Partner          *string
	Upstream         *string
}

const connectionSelect = `SELECT c.id, c.reference, coalesce(f.id, 0), coalesce(f.name, c.from_name),
	coalesce(f.country, c.from_country), coalesce(f.nif, c.from_nif), coalesce(t.id, 0), coalesce(t.name, c.to_name),
	coalesce(t.country, c.to_country), coalesce(t.nif, c.to_nif), c.state, c.kind, c.person, c.partner, c.upstream,
	coalesce(c.operator_entity_id, 0), c.operator_email, c.observation, coalesce(c.reason, ''), coalesce(c.reason_at, ''),
	coalesce(c.admin_observation, ''), coalesce(c.admin_observation_at, ''), c.created_at, c.updated_at
	FROM connections c LEFT JOIN entities f ON f.id = c.from_entity_id LEFT JOIN entities t ON t.id = c.to_entity_id`

func scanConnection(ids *publicIDs, row interface{ Scan(...any) error }) (Connection, error) {
	var c Connection
	err := row.Scan(&c.ID, &c.Reference, &c.From.ID, &c.From.Name, &c.From.Country, &c.From.NIF,
		&c.To.ID, &c.To.Name, &c.To.Country, &c.To.NIF, &c.State, &c.Kind, &c.Person, &c.Partner, &c.Upstream,
		&c.OperatorEntityID, &c.OperatorEmail, &c.Observation, &c.Reason, &c.ReasonAt, &c.AdminObservation,
		&c.AdminObservationAt, &c.CreatedAt, &c.UpdatedAt)
	if err != nil {
		return c, mapError(err)
	}
	c.PublicID = ids.encode(KindConnection, c.ID)
	for _, r := range []*EntityRef{&c.From, &c.To} {
		if !r.External() {
			r.PublicID = ids.encode(KindEntity, r.ID)
		}
	}
	return c, nil
}

// CreateConnection stores a connection request; ErrConflict when one exists between the same pair.
func (s *Store) CreateConnection(ctx context.Context, n NewConnection) (Connection, error) {
	var c Connection
	err := s.Update(ctx, func(tx *Tx) error {
		var err error
		c, err = tx.CreateConnection(n)
		return err
	})
	return c, err
}

// CreateConnection stores a connection request in the transaction.
func (t *Tx) CreateConnection(n NewConnection) (Connection, error) {
	if n.State == "" {
		n.State = ConnAnalyzing
	}
	if n.Kind == "" {
		n.Kind = "standard"
	}
	var id int64
	err := t.queryRow(`INSERT INTO connections (reference, from_entity_id, from_country, from_nif,
		from_name, to_entity_id, to_country, to_nif, to_name, state, kind, person, partner, upstream, operator_entity_id,
		operator_email, observation, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id`,
		"CON-"+strings.ToUpper(RandomToken(5)), nullID(n.FromEntityID), n.FromExternal.Country, n.FromExternal.NIF,
		n.FromExternal.Name, nullID(n.ToEntityID), n.ToExternal.Country, n.ToExternal.NIF, n.ToExternal.Name, n.State,
		n.Kind, n.Person, n.Partner, n.Upstream, nullID(n.OperatorEntityID), n.OperatorEmail, n.Observation,
		t.now, t.now).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		// The pair is connected already. No statement failed, so that the transaction goes on (on
		// PostgreSQL, a failed statement ends it).
		return Connection{}, ErrConflict
	} else if err != nil {
		return Connection{}, mapError(err)
	}
	return t.ConnectionByID(id)
}

// ConnectionByID finds a connection by its id.
func (s *Store) ConnectionByID(ctx context.Context, id int64) (Connection, error) {
	return scanConnection(s.ids, s.reader.QueryRowContext(ctx, connectionSelect+` WHERE c.id = ?`, id))
}

// ConnectionByID finds a connection by its id in the transaction.
func (t *Tx) ConnectionByID(id int64) (Connection, error) {
	return scanConnection(t.ids, t.queryRow(connectionSelect+` WHERE c.id = ?`, id))
}

// SetConnectionState moves a connection to a new state; a reason is recorded with it when given.
func (s *Store) SetConnectionState(ctx context.Context, id int64, state, reason string) (Connection, error) {
	var c Connection
	err := s.Update(ctx, func(tx *Tx) error {
		var err error
		c, err = tx.ChangeConnection(id, ConnectionChange{State: state, Reason: reason})
		return err
	})
	return c, err
}

// ChangeConnection applies the support team's change to a connection.
func (t *Tx) ChangeConnection(id int64, ch ConnectionChange) (Connection, error) {
	switch ch.State {
	case ConnAnalyzing, ConnApproved, ConnDeclined, ConnPending:
	default:
		return Connection{}, fmt.Errorf("unknown connection state %q", ch.State)
	}
	var r, rAt any
	if ch.Reason != "" {
		r, rAt = ch.Reason, t.now
	}
	set := `state = ?, reason = ?, reason_at = ?, updated_at = ?`
	args := []any{ch.State, r, rAt, t.now}
	if ch.AdminObservation != nil {
		var obs, obsAt any
		if *ch.AdminObservation != "" {
			obs, obsAt = *ch.AdminObservation, t.now
		}
		set += `, admin_observation = ?, admin_observation_at = ?`
		args = append(args, obs, obsAt)
	}
	if ch.Partner != nil {
		set += `, partner = ?`
		args = append(args, *ch.Partner)
	}
	if ch.Upstream != nil {
		set += `, upstream = ?`
		args = append(args, *ch.Upstream)
	}
	res, err := t.exec(`UPDATE connections SET `+set+` WHERE id = ?`, append(args, id)...)
	if err != nil {
		return Connection{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Connection{}, ErrNotFound
	}
	return t.ConnectionByID(id)
}

// Connections lists every connection, newest first.
func (s *Store) Connections(ctx context.Context) ([]Connection, error) {
	rows, err := s.reader.QueryContext(ctx, connectionSelect+` ORDER BY c.id DESC`)
	return scanConnections(s.ids, rows, err)
}

func scanConnections(ids *publicIDs, rows *sql.Rows, err error) ([]Connection, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Connection
	for rows.Next() {
		c, err := scanConnection(ids, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ConnectionFilter selects the connections one entity may see (as requester, receiver or the EDI
// operator that asked for it).
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
	where := ` WHERE (c.from_entity_id = ? OR c.to_entity_id = ? OR c.operator_entity_id = ?)`
	args := []any{f.EntityID, f.EntityID, f.EntityID}
	add := func(cond string, v string) {
		if v != "" {
			where += " AND " + cond
			args = append(args, v)
		}
	}
	add("c.reference = ?", f.Reference)
	add("coalesce(t.nif, c.to_nif) = ?", f.ReceiverNIF)
	add("coalesce(f.nif, c.from_nif) = ?", f.CreatedNIF)
	add("c.created_at > ?", f.CreatedAfter)
	if f.CreatedUntil != "" {
		add("c.created_at < ?", f.CreatedUntil)
	}
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM connections c LEFT JOIN entities f ON f.id = c.from_entity_id
		LEFT JOIN entities t ON t.id = c.to_entity_id`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	order := " ORDER BY c.created_at DESC, c.id DESC"
	if f.Ascending {
		order = " ORDER BY c.created_at, c.id"
	}
	rows, err := s.reader.QueryContext(ctx, connectionSelect+where+order+" LIMIT ? OFFSET ?", append(args, f.Limit, f.Offset)...)
	out, err := scanConnections(s.ids, rows, err)
	return out, total, err
}
