package store

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// SQLite's WAL is copied into the database file by a goroutine of the store's own, not by whichever
// commit passes SQLite's threshold: a checkpoint of a busy WAL takes tens of milliseconds (over a
// hundred with signed documents, whose files are large), and the write that ran it held up every
// write queued behind it. Once a second the checkpointer copies what it can beside the writes
// (PASSIVE, on a connection of its own). Only a write that begins with the whole WAL copied starts
// the WAL from its beginning again, and writes that keep coming always find one under way when a
// copy ends; so once the WAL holds restartFrames pages, the writer connection copies, between two
// writes, the little committed since the last copy, and the next write starts the WAL afresh.

// checkpointEvery is how often the WAL is copied into the database beside the writes.
const checkpointEvery = time.Second

// restartFrames is how many pages the WAL may hold (32 MB) before the writer copies the rest of it
// too, so that the next write starts it afresh.
const restartFrames = 8000

// checkpointer runs the checkpoints of one SQLite store until stopped.
type checkpointer struct {
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// startCheckpoints starts the checkpoints of s, every interval, over db (a connection of their own),
// with the writer's copy once the WAL holds restart pages.
func (s *Store) startCheckpoints(db *sql.DB, interval time.Duration, restart int) *checkpointer {
	c := &checkpointer{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer db.Close()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-tick.C:
			}
			if frames, err := walCheckpoint(db); err == nil && frames >= restart {
				walCheckpoint(s.writer)
			}
		}
	}()
	return c
}

// close stops the checkpoints and waits for the one under way; closing again does nothing.
func (c *checkpointer) close() {
	c.stopOnce.Do(func() { close(c.stop) })
	<-c.done
}

// walCheckpoint copies into the database the WAL's frames that no reader still needs, without waiting
// for readers or writers, and tells how many frames the WAL holds.
func walCheckpoint(db *sql.DB) (frames int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var busy, copied int
	err = db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	return frames, err
}
