package server

import (
	"sync"
	"time"
)

// rateLimiter counts events per key (a platform credential, a client address) in fixed windows; a key
// that passes the limit is blocked for a while (the incumbent's request limit: 200 a minute, then 2
// minutes blocked).
type rateLimiter[K comparable] struct {
	limit   int
	window  time.Duration
	blockOf time.Duration

	mu      sync.Mutex
	buckets map[K]*bucket
}

type bucket struct {
	windowStart  time.Time
	count        int
	blockedUntil time.Time
}

// maxIdleBuckets is how many keys are kept before idle ones are forgotten.
const maxIdleBuckets = 10000

func newRateLimiter[K comparable](limit int, window, block time.Duration) *rateLimiter[K] {
	return &rateLimiter[K]{limit: limit, window: window, blockOf: block, buckets: map[K]*bucket{}}
}

// allow counts one event of the key at now; when refused it tells how long to wait.
func (r *rateLimiter[K]) allow(key K, now time.Time) (wait time.Duration, ok bool) {
	if r.limit <= 0 {
		return 0, true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.buckets[key]
	if b == nil {
		if len(r.buckets) > maxIdleBuckets {
			r.forgetIdle(now)
		}
		b = &bucket{windowStart: now}
		r.buckets[key] = b
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

// blocked tells, without counting, whether the key is blocked at now and for how long.
func (r *rateLimiter[K]) blocked(key K, now time.Time) (wait time.Duration, ok bool) {
	if r.limit <= 0 {
		return 0, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.buckets[key]; b != nil && now.Before(b.blockedUntil) {
		return b.blockedUntil.Sub(now), true
	}
	return 0, false
}

func (r *rateLimiter[K]) forgetIdle(now time.Time) {
	for id, b := range r.buckets {
		if now.Sub(b.windowStart) >= r.window && now.After(b.blockedUntil) {
			delete(r.buckets, id)
		}
	}
}
