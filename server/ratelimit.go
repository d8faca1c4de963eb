package server

import (
	"context"
	"sync"
	"time"

	"einvoice/store"
)

// counter counts events per key (a platform credential, a client address) in fixed windows and
// refuses a key past its limit for a while (the incumbent's request limit: 200 a minute, then 2
// minutes blocked). Where the counts live follows the database: in this process's memory
// (rateLimiter) when the process owns it (SQLite), so a request costs no write; in the database
// (storeCounter) when several processes share it (PostgreSQL), so a limit holds across all of them.
type counter interface {
	// allow counts one event of key at now; when refused it tells how long to wait.
	allow(ctx context.Context, key string, now time.Time) (wait time.Duration, ok bool, err error)
	// blocked tells, without counting, whether key is blocked at now and for how long.
	blocked(ctx context.Context, key string, now time.Time) (wait time.Duration, blocked bool, err error)
}

// countRequest counts one request of key: nil when it is allowed, 429 e334 with its Retry-After when
// the key is past its limit.
func countRequest(ctx context.Context, c counter, key string, now time.Time) error {
	wait, ok, err := c.allow(ctx, key, now)
	if err != nil {
		return err
	}
	if !ok {
		return retryLater(CodeRateLimited, wait)
	}
	return nil
}

// newCounter is the counter of limit events per window, then block, for the store's database; name
// keeps its keys apart from other counters' in the database. A limit of 0 or less counts nothing.
func newCounter(st *store.Store, name string, limit int, window, block time.Duration) counter {
	if limit <= 0 {
		return noLimit{}
	}
	if st.Shared() {
		return storeCounter{st: st, prefix: name + ":", limit: store.CounterLimit{Limit: limit, Window: window, Block: block}}
	}
	return newRateLimiter(limit, window, block)
}

// noLimit allows every event and blocks no key.
type noLimit struct{}

func (noLimit) allow(context.Context, string, time.Time) (time.Duration, bool, error) {
	return 0, true, nil
}
func (noLimit) blocked(context.Context, string, time.Time) (time.Duration, bool, error) {
	return 0, false, nil
}

// storeCounter keeps its counts in the database (store.CountEvent, store.CounterBlocked).
type storeCounter struct {
	st     *store.Store
	prefix string
	limit  store.CounterLimit
}

func (s storeCounter) allow(ctx context.Context, key string, now time.Time) (time.Duration, bool, error) {
	return s.st.CountEvent(ctx, s.prefix+key, now, s.limit)
}

func (s storeCounter) blocked(ctx context.Context, key string, now time.Time) (time.Duration, bool, error) {
	return s.st.CounterBlocked(ctx, s.prefix+key, now)
}

// rateLimiter keeps its counts in this process's memory.
type rateLimiter struct {
	limit   int
	window  time.Duration
	blockOf time.Duration

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	windowStart  time.Time
	count        int
	blockedUntil time.Time
}

// maxIdleBuckets is how many keys are kept before idle ones are forgotten.
const maxIdleBuckets = 10000

func newRateLimiter(limit int, window, block time.Duration) *rateLimiter {
	return &rateLimiter{limit: limit, window: window, blockOf: block, buckets: map[string]*bucket{}}
}

func (r *rateLimiter) allow(_ context.Context, key string, now time.Time) (wait time.Duration, ok bool, err error) {
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
		return b.blockedUntil.Sub(now), false, nil
	}
	if now.Sub(b.windowStart) >= r.window {
		b.windowStart, b.count = now, 0
	}
	b.count++
	if b.count > r.limit {
		b.blockedUntil = now.Add(r.blockOf)
		b.windowStart, b.count = b.blockedUntil, 0
		return r.blockOf, false, nil
	}
	return 0, true, nil
}

func (r *rateLimiter) blocked(_ context.Context, key string, now time.Time) (wait time.Duration, blocked bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.buckets[key]; b != nil && now.Before(b.blockedUntil) {
		return b.blockedUntil.Sub(now), true, nil
	}
	return 0, false, nil
}

func (r *rateLimiter) forgetIdle(now time.Time) {
	for id, b := range r.buckets {
		if now.Sub(b.windowStart) >= r.window && now.After(b.blockedUntil) {
			delete(r.buckets, id)
		}
	}
}
