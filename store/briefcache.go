package store

import (
	"sync"
	"time"
)

// What authentication reads on every API request is kept briefly: the access token or platform token
// it presents, and the entity it acts for with the credential's authorisation for it. Either answer changes only when
// the token expires (checked on every use), or when its credential, the entity or the authorisation
// changes: the store's own changes empty the caches, and changes made by another process (the admin
// commands on the same database, another server on PostgreSQL) take effect within briefTTL. Only
// answers that let a request through are kept, and at most briefSize of each, so unknown keys cannot
// fill them.
const (
	briefTTL  = time.Second
	briefSize = 10000
)

// briefCache keeps values for briefTTL.
type briefCache[K comparable, V any] struct {
	mu      sync.Mutex
	entries map[K]briefEntry[V]
}

type briefEntry[V any] struct {
	value V
	until time.Time
}

// get is the value kept for key, when it was kept less than briefTTL before now.
func (c *briefCache[K, V]) get(key K, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !now.Before(e.until) {
		var zero V
		return zero, false
	}
	return e.value, true
}

func (c *briefCache[K, V]) put(key K, v V, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= briefSize {
		c.entries = map[K]briefEntry[V]{}
	}
	c.entries[key] = briefEntry[V]{value: v, until: now.Add(briefTTL)}
}

func (c *briefCache[K, V]) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = nil
}

// entityAccessKey is what EntityAccess looks up: an entity's public key and a credential.
type entityAccessKey struct {
	publicKey  string
	credential int64
}

// entityAccess is EntityAccess's answer.
type entityAccess struct {
	entity Entity
	access Access
}

// forgetEntities empties the entity answers kept for authentication; the store's changes of entities
// and authorisations call it after their commit (a lookup meanwhile may have kept the old answer).
func (s *Store) forgetEntities() { s.entityAccess.clear() }
