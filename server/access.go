package server

import (
	"context"
	"errors"
	"strings"

	"einvoice/store"
)

// What a portal user may see and do at an entity. Entity users have a role there; support users see
// every entity and may do everything.

// Access is a user acting at one entity, with the role it has there.
type Access struct {
	User   store.User
	Entity store.Entity
	Role   string // admin, operator, viewer, or support
}

// CanAct reports whether the role may act on documents (decide, import, issue, resend).
func (a Access) CanAct() bool { return a.Role != store.RoleViewer }

// CanAdmin reports whether the role may change the entity's settings and users.
func (a Access) CanAdmin() bool { return a.Role == store.RoleAdmin || a.Role == RoleSupport }

// EntityKey is how an entity is named in the portal's forms and cookies: its tax ID with its country.
func EntityKey(e store.Entity) string { return e.Country + e.NIF }

// EntityRole is an entity a user can act for, and the role there.
type EntityRole struct {
	Entity store.Entity
	Role   string
}

// EntitiesOf lists the entities a user can act for: its memberships, or every entity for support.
func (w *Workflow) EntitiesOf(ctx context.Context, u store.User) ([]EntityRole, error) {
	if u.Support {
		all, err := w.store.Entities(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]EntityRole, len(all))
		for i, e := range all {
			out[i] = EntityRole{e, RoleSupport}
		}
		return out, nil
	}
	var out []EntityRole
	for _, m := range u.Memberships {
		e, err := w.store.EntityByID(ctx, m.EntityID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, EntityRole{e, m.Role})
	}
	return out, nil
}

// AccessTo is the user's access to the entity named by key (see EntityKey), or to its first entity
// when key is empty or names none of its own, with every entity the user can act for; CodeNotFound
// when the user has no entity at all.
func (w *Workflow) AccessTo(ctx context.Context, u store.User, key string) (Access, []EntityRole, error) {
	entities, err := w.EntitiesOf(ctx, u)
	if err != nil {
		return Access{}, nil, err
	}
	if len(entities) == 0 {
		return Access{}, nil, fail(CodeNotFound)
	}
	chosen := entities[0]
	for _, er := range entities {
		if strings.EqualFold(EntityKey(er.Entity), key) {
			chosen = er
			break
		}
	}
	return Access{User: u, Entity: chosen.Entity, Role: chosen.Role}, entities, nil
}

// ListDocuments lists one side of the entity's documents (the filter's EntityID is the access's).
func (w *Workflow) ListDocuments(ctx context.Context, a Access, f store.DocumentFilter) ([]store.Document, int, error) {
	f.EntityID = a.Entity.ID
	return w.store.Documents(ctx, f)
}

// CountDocuments counts the entity's documents by side and state.
func (w *Workflow) CountDocuments(ctx context.Context, a Access) (store.DocumentCounts, error) {
	return w.store.CountDocuments(ctx, a.Entity.ID)
}

// SecureCookies reports whether cookies must be Secure: the public URL is https.
func (w *Workflow) SecureCookies() bool {
	return strings.HasPrefix(strings.ToLower(w.cfg.HTTP.PublicURL), "https://")
}
