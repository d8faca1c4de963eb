package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
)

// Profile is an entity's company profile: the address and details that documents issued from
// structured data take for their supplier when the request leaves them out.
type Profile struct {
	Street           string `json:"street"`
	AdditionalStreet string `json:"additional_street"`
	BuildingNumber   string `json:"building_number"`
	PostalZone       string `json:"postal_zone"`
	City             string `json:"city"`
	Region           string `json:"region"`
	Country          string `json:"country"`
	ShareCapital     string `json:"share_capital"`
	LegalForm        string `json:"legal_form"`
	Email            string `json:"email"`
	Telephone        string `json:"telephone"`
	IBAN             string `json:"iban"`
	GLN              string `json:"gln"`
	UpdatedAt        string `json:"updated_at,omitempty"`
}

const profileColumns = `street, additional_street, building_number, postal_zone, city, region, country, share_capital,
	legal_form, email, telephone, iban, gln, updated_at`

// ProfileOf reads an entity's profile; an entity that has none has an empty one.
func (s *Store) ProfileOf(ctx context.Context, entityID int64) (Profile, error) {
	var p Profile
	err := s.reader.QueryRowContext(ctx, `SELECT `+profileColumns+` FROM entity_profiles WHERE entity_id = ?`, entityID).
		Scan(&p.Street, &p.AdditionalStreet, &p.BuildingNumber, &p.PostalZone, &p.City, &p.Region, &p.Country,
			&p.ShareCapital, &p.LegalForm, &p.Email, &p.Telephone, &p.IBAN, &p.GLN, &p.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Profile{}, nil
	}
	return p, err
}

// SaveProfile replaces an entity's profile and names the entity name, in one transaction; ErrNotFound
// when there is no such entity.
func (s *Store) SaveProfile(ctx context.Context, entityID int64, name string, p Profile) (Profile, error) {
	defer s.forgetEntities()
	err := s.write(ctx, func(tx *sql.Tx) error {
		p.UpdatedAt = s.timestamp()
		res, err := tx.ExecContext(ctx, `UPDATE entities SET name = ?, updated_at = ? WHERE id = ?`, name, p.UpdatedAt, entityID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO entity_profiles (entity_id, `+profileColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (entity_id) DO UPDATE SET street = excluded.street, additional_street = excluded.additional_street,
			building_number = excluded.building_number, postal_zone = excluded.postal_zone, city = excluded.city,
			region = excluded.region, country = excluded.country, share_capital = excluded.share_capital,
			legal_form = excluded.legal_form, email = excluded.email, telephone = excluded.telephone, iban = excluded.iban,
			gln = excluded.gln, updated_at = excluded.updated_at`,
			entityID, p.Street, p.AdditionalStreet, p.BuildingNumber, p.PostalZone, p.City, p.Region, p.Country,
			p.ShareCapital, p.LegalForm, p.Email, p.Telephone, p.IBAN, p.GLN, p.UpdatedAt)
		return err
	})
	return p, err
}

// Notifications are the e-mails an entity's portal users get about documents: when one is received,
// when one it issued is rejected, and who else gets a copy.
type Notifications struct {
	OnReceived bool     `json:"on_received"`
	OnRejected bool     `json:"on_rejected"`
	CC         []string `json:"cc"`
}

// Notice events: what happened to the document a notice is about.
const (
	NoticeReceived = "received"
	NoticeRejected = "rejected"
)

// NotificationsOf reads an entity's notification settings (all off when never set).
func (s *Store) NotificationsOf(ctx context.Context, entityID int64) (Notifications, error) {
	var n Notifications
	var cc string
	err := s.reader.QueryRowContext(ctx, `SELECT on_received, on_rejected, cc FROM entity_notifications WHERE entity_id = ?`,
		entityID).Scan(&n.OnReceived, &n.OnRejected, &cc)
	if errors.Is(err, sql.ErrNoRows) {
		return Notifications{CC: []string{}}, nil
	}
	n.CC = splitList(cc)
	return n, err
}

// SaveNotifications replaces an entity's notification settings.
func (s *Store) SaveNotifications(ctx context.Context, entityID int64, n Notifications) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO entity_notifications (entity_id, on_received, on_rejected, cc, updated_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (entity_id) DO UPDATE SET on_received = excluded.on_received,
			on_rejected = excluded.on_rejected, cc = excluded.cc, updated_at = excluded.updated_at`,
			entityID, n.OnReceived, n.OnRejected, strings.Join(n.CC, ","), s.timestamp())
		return mapError(err)
	})
}

// EnqueueNotice queues, in the transaction of the change, the notice of event about a document (with
// the reason of a rejection) to an entity's users when the entity asked for it; the addresses are
// read when it is sent.
func (t *Tx) EnqueueNotice(entityID, documentID int64, event, reason string) error {
	payload, err := json.Marshal(map[string]string{"event": event, "reason": reason})
	if err != nil {
		return err
	}
	return t.later(nil, `INSERT INTO outbox (kind, entity_id, document_id, payload, next_attempt_at, created_at, updated_at)
		SELECT 'notice', entity_id, ?, ?, ?, ?, ? FROM entity_notifications
		WHERE entity_id = ? AND (on_received = 1 AND ? = 'received' OR on_rejected = 1 AND ? = 'rejected')`,
		documentID, string(payload), t.now, t.now, t.now, entityID, event, event)
}

// NoticeAddresses are who a notice of an entity goes to: its enabled users whose username is an
// e-mail address (with their language), and the copies of its settings.
func (s *Store) NoticeAddresses(ctx context.Context, entityID int64) (to []Addressee, cc []string, err error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT u.username, u.lang FROM users u JOIN user_entities ue ON ue.user_id = u.id
		WHERE ue.entity_id = ? AND u.disabled = 0 AND u.username LIKE '%_@_%' ORDER BY u.username`, entityID)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var a Addressee
		if err := rows.Scan(&a.Address, &a.Lang); err != nil {
			return nil, nil, err
		}
		to = append(to, a)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	n, err := s.NotificationsOf(ctx, entityID)
	return to, n.CC, err
}

// Addressee is an address and the language its reader prefers ("" for none).
type Addressee struct {
	Address, Lang string
}

// EntityUsers lists the users with a role at an entity, by username, each with all its memberships.
func (s *Store) EntityUsers(ctx context.Context, entityID int64) ([]User, error) {
	return s.listUsers(ctx, `SELECT `+userColumns+` FROM users
		WHERE id IN (SELECT user_id FROM user_entities WHERE entity_id = ?) ORDER BY username`, entityID)
}

// splitList reads a list stored joined by commas.
func splitList(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}
