package store

import (
	"sync"
	"time"
)

// The access tokens authentication looked up are kept briefly: every API request presents one. A
// token's answer changes only when it expires (checked on every use) or its credential is disabled:
// DisableCredential empties the cache, and a credential disabled by another process (the admin
// commands, on the same database) loses its tokens within tokenCacheTTL. Only tokens found valid are
// kept, and at most tokenCacheSize of them, so unknown tokens cannot fill it.
const (
	tokenCacheTTL  = time.Second
	tokenCacheSize = 10000
)

type tokenCache struct {
	mu     sync.Mutex
	tokens map[[32]byte]cachedToken // by the token's hash
}

type cachedToken struct {
	token AccessToken
	until time.Time
}

// get is a token kept and still valid at now.
func (c *tokenCache) get(hash [32]byte, now time.Time) (AccessToken, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tokens[hash]
	if !ok || !now.Before(t.until) || t.token.ExpiresAt.Unix() <= now.Unix() {
		return AccessToken{}, false
	}
	return t.token, true
}

func (c *tokenCache) put(hash [32]byte, t AccessToken, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tokens == nil || len(c.tokens) >= tokenCacheSize {
		c.tokens = map[[32]byte]cachedToken{}
	}
	c.tokens[hash] = cachedToken{token: t, until: now.Add(tokenCacheTTL)}
}

func (c *tokenCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tokens = nil
}
