package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"einvoice/store"

	"github.com/robfig/cron/v3"
)

// jobRunner runs the background jobs on robfig/cron: each run has a timeout, a panic is recovered and
// logged, a run never overlaps the previous run of the same job, every run is logged and counted, and
// stop waits for running jobs after cancelling them.
//
// Several processes may share one PostgreSQL database: a singleton job then runs on one of them at a
// time (under the store's lock of its name; a process that does not get it skips that run), the
// delivery jobs run everywhere and claim their rows, and a trigger after a commit reaches the other
// processes too (announce, and heard on their side).
type jobRunner struct {
	cron    *cron.Cron
	log     *slog.Logger
	metrics *metrics
	store   *store.Store
	timeout time.Duration
	process string // this process's name in its announcements
	ctx     context.Context
	cancel  context.CancelFunc

	mu         sync.Mutex
	busy       map[string]bool
	again      map[string]bool // asked to run while running: run once more when done
	jobs       map[string]job
	toAnnounce map[string]bool // triggered jobs the other processes have not been told of yet
	announcing bool            // a goroutine is telling them
	wg         sync.WaitGroup  // runs started by trigger, and the announcing goroutine
}

// job is one kind of background work. A quiet job runs often: its runs are logged at debug level. A
// singleton runs on one process of the installation at a time.
type job struct {
	name      string
	run       func(ctx context.Context) error
	quiet     bool
	singleton bool
}

// jobsChannel is where the processes of an installation tell each other which job has work.
const jobsChannel = "einvoice_jobs"

func newJobRunner(log *slog.Logger, m *metrics, st *store.Store, timeout time.Duration) *jobRunner {
	ctx, cancel := context.WithCancel(context.Background())
	return &jobRunner{
		cron: cron.New(cron.WithLogger(cron.DiscardLogger)), log: log, metrics: m, store: st, timeout: timeout,
		process: store.RandomToken(8), ctx: ctx, cancel: cancel,
		busy: map[string]bool{}, again: map[string]bool{}, jobs: map[string]job{}, toAnnounce: map[string]bool{},
	}
}

// every schedules j at a fixed interval.
func (r *jobRunner) every(interval time.Duration, j job) error {
	if interval <= 0 {
		return fmt.Errorf("job %s: interval must be positive", j.name)
	}
	r.mu.Lock()
	r.jobs[j.name] = j
	r.mu.Unlock()
	_, err := r.cron.AddFunc(fmt.Sprintf("@every %s", interval), func() { r.runOnce(j, false) })
	return err
}

// trigger runs a scheduled job now, in the background, because a commit left work for it, and tells
// the other processes of the installation to run theirs.
func (r *jobRunner) trigger(name string) {
	r.wake(name)
	r.announce(name)
}

// wake runs a scheduled job now, in the background: when a run is under way it runs once more after
// it, so that work added during a run is not left to the schedule.
func (r *jobRunner) wake(name string) {
	r.mu.Lock()
	j, ok := r.jobs[name]
	if !ok || r.ctx.Err() != nil {
		r.mu.Unlock()
		return
	}
	if r.busy[name] {
		r.again[name] = true
		r.mu.Unlock()
		return
	}
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		r.runOnce(j, true)
	}()
}

// announce tells the other processes sharing the database that job name has work. One goroutine sends
// the announcements, one per job however often it was triggered meanwhile, so that a busy process
// does not send a notification per commit.
func (r *jobRunner) announce(name string) {
	if !r.store.Shared() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx.Err() != nil {
		return
	}
	r.toAnnounce[name] = true
	if r.announcing {
		return
	}
	r.announcing = true
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			r.mu.Lock()
			names := slices.Sorted(maps.Keys(r.toAnnounce))
			clear(r.toAnnounce)
			r.announcing = len(names) > 0
			r.mu.Unlock()
			if len(names) == 0 {
				return
			}
			for _, n := range names {
				if err := r.store.Notify(r.ctx, jobsChannel, r.process+":"+n); err != nil && r.ctx.Err() == nil {
					r.log.Warn("announcing a job to the other processes", "job", n, "err", err)
				}
			}
		}
	}()
}

// heard wakes the job another process announced; this process's own announcements come back too and
// are left alone.
func (r *jobRunner) heard(payload string) {
	process, name, ok := strings.Cut(payload, ":")
	if ok && process != r.process {
		r.wake(name)
	}
}

// runOnce runs j now unless a run of it is under way; a triggered run that finds one under way asks it
// to run again.
func (r *jobRunner) runOnce(j job, triggered bool) {
	r.mu.Lock()
	if r.busy[j.name] || r.ctx.Err() != nil {
		if triggered {
			r.again[j.name] = true
		}
		r.mu.Unlock()
		r.metrics.jobRuns.WithLabelValues(j.name, "skipped").Inc()
		return
	}
	r.busy[j.name] = true
	r.mu.Unlock()
	for {
		r.runBody(j)
		r.mu.Lock()
		again := r.again[j.name] && r.ctx.Err() == nil
		delete(r.again, j.name)
		if !again {
			delete(r.busy, j.name)
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
	}
}

// runBody is one run: timeout, the lock of a singleton, panic recovery, metrics and a log line. A
// singleton whose lock another process holds is not run: that process runs it.
func (r *jobRunner) runBody(j job) {
	ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
	defer cancel()
	if j.singleton {
		release, ok, err := r.store.TryLock(ctx, j.name)
		if err != nil {
			r.metrics.jobRuns.WithLabelValues(j.name, "error").Inc()
			r.log.Error("job lock", "job", j.name, "err", err)
			return
		}
		if !ok {
			r.metrics.jobRuns.WithLabelValues(j.name, "elsewhere").Inc()
			return
		}
		defer release()
	}
	start := time.Now()
	outcome := "ok"
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				outcome = "panic"
				err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
			}
		}()
		return j.run(ctx)
	}()
	elapsed := time.Since(start)
	if err != nil && outcome == "ok" {
		outcome = "error"
	}
	r.metrics.jobRuns.WithLabelValues(j.name, outcome).Inc()
	r.metrics.jobDuration.WithLabelValues(j.name).Observe(elapsed.Seconds())
	switch {
	case err != nil:
		r.log.Error("job run", "job", j.name, "outcome", outcome, "duration", elapsed, "err", err)
	case j.quiet:
		r.log.Debug("job run", "job", j.name, "outcome", outcome, "duration", elapsed)
	default:
		r.log.Info("job run", "job", j.name, "outcome", outcome, "duration", elapsed)
	}
}

// start runs the schedule, and wakes the jobs the other processes sharing the database announce.
func (r *jobRunner) start() {
	r.cron.Start()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.store.Listen(r.ctx, jobsChannel, r.heard)
	}()
}

// stop cancels running jobs and waits for them (and the listening to the other processes) to return.
func (r *jobRunner) stop() {
	// Cancelled under the lock: a trigger adds to the wait group under it, before this or not at all.
	r.mu.Lock()
	r.cancel()
	r.mu.Unlock()
	<-r.cron.Stop().Done()
	r.wg.Wait()
}

// leaseMargin is how much longer a delivery job's claim on its rows lasts than a run may: time for the
// outcomes of a run cut off at the jobs timeout to be written.
const leaseMargin = time.Minute

// claimTimes are the now and the lease end of a delivery job's claim of due rows: rows due at now are
// taken, and left to no other run until the lease ends, when a run that died with them is over.
func (s *Server) claimTimes() (now, leaseUntil string) {
	t := s.now().UTC()
	return t.Format(store.TimeLayout), t.Add(s.cfg.Jobs.Timeout + leaseMargin).Format(store.TimeLayout)
}

// scheduleJobs is the job table. The delivery jobs claim their rows and run on every process; the
// others would do the same work twice side by side (read the same mailbox or upstream) and are
// singletons.
func (s *Server) scheduleJobs() error {
	return errors.Join(
		s.jobs.every(s.cfg.Jobs.MaintenanceInterval, job{name: "maintenance", run: s.maintenance, singleton: true}),
		s.jobs.every(s.cfg.Webhooks.Interval, job{name: jobWebhooks, run: s.deliverWebhooks, quiet: true}),
		s.jobs.every(s.cfg.Mail.Interval, job{name: jobEmails, run: s.deliverEmails, quiet: true}),
		s.jobs.every(s.cfg.Mail.Interval, job{name: jobNotices, run: s.deliverNotices, quiet: true}),
		s.jobs.every(s.cfg.Mail.Interval, job{name: jobConnectionMail, run: s.deliverConnectionMail, quiet: true}),
		s.jobs.every(s.cfg.EDI.Interval, job{name: jobEDI, run: s.deliverEDI, quiet: true}),
		s.jobs.every(s.cfg.EDI.PollInterval, job{name: jobEDIPoll, run: s.pollEDI, quiet: true, singleton: true}),
		s.scheduleBounceMailbox(),
	)
}

// scheduleBounceMailbox reads the IMAP mailbox of returned mail, when one is configured.
func (s *Server) scheduleBounceMailbox() error {
	if s.cfg.Mail.Bounces.Host == "" {
		return nil
	}
	return s.jobs.every(s.cfg.Mail.Bounces.Interval, job{name: jobBounces, run: s.readBounceMailbox, singleton: true})
}

// as2LedgerKept is how long the AS2 message ids (and MICs) exchanged with partners are kept: long
// past any asynchronous MDN or resend. A message repeated later than that is still dropped by the
// EDI layer, which keeps every received message id with what it made.
const as2LedgerKept = 30 * 24 * time.Hour

// maintenance forgets expired access tokens, old nonces and old AS2 message ids, and lets SQLite
// refresh its statistics.
func (s *Server) maintenance(ctx context.Context) error {
	n, err := s.store.PurgeExpired(ctx, s.now().Add(-2*s.cfg.Auth.TimestampSkew))
	if err != nil {
		return err
	}
	if n > 0 {
		s.log.Info("maintenance: purged expired tokens and nonces", "rows", n)
	}
	if n, err = s.store.ForgetAS2Messages(ctx, s.now().Add(-as2LedgerKept)); err != nil {
		return err
	} else if n > 0 {
		s.log.Info("maintenance: forgot old AS2 message ids", "rows", n)
	}
	return s.store.Optimize(ctx)
}
