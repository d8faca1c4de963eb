package store

import (
	"sync"
	"time"
)

// What authentication reads on every API request is kept briefly: the access token or platform token
// it presents, and the entity it acts for with the credential's authorisation for it. Either answer
// changes only when the token expires (checked on every use), or when its credential, the entity or
// the authorisation changes: the store's own changes empty the caches, and changes made by another
// process (the admin commands on the same database, another server on PostgreSQL) take effect within
// BriefTTL. Only answers that let a request through are kept, and at most briefSize of each, so
// unknown keys cannot fill them.
const (
	// BriefTTL is how long a process keeps what it read (see above), and what it read of a shared
	// counter's block (CounterBlocked).
	BriefTTL  = time.Second
	briefSize = 10000
)

// briefCache keeps values for BriefTTL. A reader takes the cache's generation before it reads the
// database and offers what it read with it: a value read before a clear is not kept after it.
type briefCache[K comparable, V any] struct {
	mu         sync.Mutex
	entries    map[K]briefEntry[V]
	generation uint64 // how many times the cache was cleared
}

type briefEntry[V any] struct {
	value V
	until time.Time
}

// get is the value kept for key, when it was kept less than BriefTTL before now; otherwise the
// generation to offer a value read now with.
func (c *briefCache[K, V]) get(key K, now time.Time) (v V, generation uint64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !now.Before(e.until) {
		return v, c.generation, false
	}
	return e.value, c.generation, true
}

// put keeps v for key, unless the cache was cleared since generation.
func (c *briefCache[K, V]) put(key K, v V, generation uint64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if generation != c.generation {
		return
	}
	if c.entries == nil || len(c.entries) >= briefSize {
		c.entries = map[K]briefEntry[V]{}
	}
	c.entries[key] = briefEntry[V]{value: v, until: now.Add(BriefTTL)}
}

func (c *briefCache[K, V]) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = nil
	c.generation++
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
// and authorisations call it after their commit, so that a look-up that read the old row before it
// cannot keep it.
func (s *Store) forgetEntities() { s.entityAccess.clear() }
