package server

import (
	"sync"
	"time"
)

// rateLimiter counts requests per platform credential in fixed windows; a credential that passes the
// limit is blocked for a while (the incumbent: 200 a minute, then 2 minutes blocked).
type rateLimiter struct {
	limit   int
	window  time.Duration
	blockOf time.Duration

	mu      sync.Mutex
	buckets map[int64]*bucket
}

type bucket struct {
	windowStart  time.Time
	count        int
	blockedUntil time.Time
}

func newRateLimiter(limit int, window, block time.Duration) *rateLimiter {
	return &rateLimiter{limit: limit, window: window, blockOf: block, buckets: map[int64]*bucket{}}
}

// allow counts one request of the credential at now; when refused it tells how long to wait.
func (r *rateLimiter) allow(credentialID int64, now time.Time) (wait time.Duration, ok bool) {
	if r.limit <= 0 {
		return 0, true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.buckets[credentialID]
	if b == nil {
		if len(r.buckets) > 10000 {
			r.forgetIdle(now)
		}
		b = &bucket{windowStart: now}
		r.buckets[credentialID] = b
	}
	if now.Before(b.blockedUntil) {
		return b.blockedUntil.Sub(now), false
	}
	if now.Sub(b.windowStart) >= r.window {
		b.windowStart, b.count = now, 0
	}
	b.count++
	if b.count > r.limit {
		b.blockedUntil = now.Add(r.blockOf)
		b.windowStart, b.count = b.blockedUntil, 0
		return r.blockOf, false
	}
	return 0, true
}

func (r *rateLimiter) forgetIdle(now time.Time) {
	for id, b := range r.buckets {
		if now.Sub(b.windowStart) >= r.window && now.After(b.blockedUntil) {
			delete(r.buckets, id)
		}
	}
}
