package store

import (
	"context"
	"database/sql"
	"time"
)

// Counters of events by key, in the database, for the limits the processes of an installation share
// (PostgreSQL): requests per credential, failed authentications, failed sign-ins. Each event is one
// statement that reads and changes the key's row atomically, so processes counting the same key at
// once agree on the total; PostgreSQL serialises them on the row's lock.
//
// A window opens with a key's first event and lasts window; the event that passes limit within it
// blocks the key for block, and the blocked key's events are refused without being counted. The first
// event after the block opens a new window. Times are the callers' clocks, which the processes of an
// installation keep in step anyway (token requests are checked against them).

// CounterLimit is how a counter counts: limit events per window; past it, block.
type CounterLimit struct {
	Limit  int
	Window time.Duration
	Block  time.Duration
}

// countEvent is the one statement of an event, its time the new row's window_start (excluded's). In
// order: a blocked key stays as it is; a key whose window ended, or that is past its limit and no
// longer blocked, starts a new window with this event; any other counts it, and blocks when it passes
// the limit. Its parameters: key, now, window, then limit three times, block.
const countEvent = `INSERT INTO counters AS c (key, window_start, window_ms, events, blocked_until)
	VALUES (?, ?, ?, 1, 0)
	ON CONFLICT (key) DO UPDATE SET
	events = CASE
		WHEN excluded.window_start < c.blocked_until THEN c.events
		WHEN excluded.window_start >= c.window_start + c.window_ms OR c.events > ? THEN 1
		ELSE c.events + 1 END,
	window_start = CASE
		WHEN excluded.window_start < c.blocked_until THEN c.window_start
		WHEN excluded.window_start >= c.window_start + c.window_ms OR c.events > ? THEN excluded.window_start
		ELSE c.window_start END,
	window_ms = excluded.window_ms,
	blocked_until = CASE
		WHEN excluded.window_start < c.blocked_until THEN c.blocked_until
		WHEN excluded.window_start >= c.window_start + c.window_ms OR c.events > ? THEN c.blocked_until
		WHEN c.events + 1 > ? THEN excluded.window_start + ?
		ELSE c.blocked_until END
	RETURNING events, blocked_until`

// CountEvent counts one event of key at now. When the key is (now) past its limit the event is
// refused, and wait tells how long the key stays blocked. key is bounded by the caller (a credential
// id, a client address, a clipped client id).
func (s *Store) CountEvent(ctx context.Context, key string, now time.Time, l CounterLimit) (wait time.Duration, ok bool, err error) {
	_, generation, _ := s.blocks.get(key, now)
	// One statement that commits by itself, taking a writer's turn as a transaction would.
	if err := s.takeTurn(ctx); err != nil {
		return 0, false, err
	}
	var events, blockedUntil int64
	err = s.writer.QueryRowContext(ctx, countEvent, key, now.UnixMilli(), l.Window.Milliseconds(),
		l.Limit, l.Limit, l.Limit, l.Limit, l.Block.Milliseconds()).Scan(&events, &blockedUntil)
	s.endTurn()
	if err != nil {
		return 0, false, err
	}
	if events <= int64(l.Limit) {
		return 0, true, nil
	}
	until := time.UnixMilli(blockedUntil)
	s.blocks.put(key, until, generation, now) // a block counted here holds here at once
	return max(0, until.Sub(now)), false, nil
}

// CounterBlocked tells, without counting, whether key is blocked at now and for how long. What the
// process last read of the key, or a block it counted, is kept for BriefTTL, so that checking a key
// on every request costs no statement: a block another process counted shows here within that time,
// one this process counted at once.
func (s *Store) CounterBlocked(ctx context.Context, key string, now time.Time) (wait time.Duration, blocked bool, err error) {
	until, generation, ok := s.blocks.get(key, now)
	if !ok {
		var blockedUntil int64
		err = s.reader.QueryRowContext(ctx, `SELECT blocked_until FROM counters WHERE key = ?`, key).Scan(&blockedUntil)
		if err != nil && err != sql.ErrNoRows {
			return 0, false, err
		}
		until = time.UnixMilli(blockedUntil) // the epoch when there is no row: not blocked
		s.blocks.put(key, until, generation, now)
	}
	if now.Before(until) {
		return until.Sub(now), true, nil
	}
	return 0, false, nil
}
