package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
)

// jobRunner runs the background jobs on robfig/cron: each run has a timeout, a panic is recovered and
// logged, a run never overlaps the previous run of the same job, every run is logged and counted, and
// stop waits for running jobs after cancelling them.
type jobRunner struct {
	cron    *cron.Cron
	log     *slog.Logger
	metrics *metrics
	timeout time.Duration
	ctx     context.Context
	cancel  context.CancelFunc

	mu    sync.Mutex
	busy  map[string]bool
	again map[string]bool // asked to run while running: run once more when done
	jobs  map[string]job
	wg    sync.WaitGroup // runs started by trigger
}

// job is one kind of background work. A quiet job runs often: its runs are logged at debug level.
type job struct {
	name  string
	run   func(ctx context.Context) error
	quiet bool
}

func newJobRunner(log *slog.Logger, m *metrics, timeout time.Duration) *jobRunner {
	ctx, cancel := context.WithCancel(context.Background())
	return &jobRunner{
		cron: cron.New(cron.WithLogger(cron.DiscardLogger)), log: log, metrics: m, timeout: timeout,
		ctx: ctx, cancel: cancel, busy: map[string]bool{}, again: map[string]bool{}, jobs: map[string]job{},
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

// trigger runs a scheduled job now, in the background, because there is work for it: when a run is
// under way it runs once more after it, so that work added during a run is not left to the schedule.
func (r *jobRunner) trigger(name string) {
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

// runBody is one run: timeout, panic recovery, metrics and a log line.
func (r *jobRunner) runBody(j job) {
	ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
	defer cancel()
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

func (r *jobRunner) start() { r.cron.Start() }

// stop cancels running jobs and waits for them to return.
func (r *jobRunner) stop() {
	r.cancel()
	<-r.cron.Stop().Done()
	r.wg.Wait()
}

// scheduleJobs is the job table.
func (s *Server) scheduleJobs() error {
	return errors.Join(
		s.jobs.every(s.cfg.Jobs.MaintenanceInterval, job{name: "maintenance", run: s.maintenance}),
		s.jobs.every(s.cfg.Webhooks.Interval, job{name: jobWebhooks, run: s.deliverWebhooks, quiet: true}),
		s.jobs.every(s.cfg.Mail.Interval, job{name: jobEmails, run: s.deliverEmails, quiet: true}),
		s.jobs.every(s.cfg.Mail.Interval, job{name: jobNotices, run: s.deliverNotices, quiet: true}),
		s.jobs.every(s.cfg.Mail.Interval, job{name: jobConnectionMail, run: s.deliverConnectionMail, quiet: true}),
		s.jobs.every(s.cfg.EDI.Interval, job{name: jobEDI, run: s.deliverEDI, quiet: true}),
		s.jobs.every(s.cfg.EDI.PollInterval, job{name: jobEDIPoll, run: s.pollEDI, quiet: true}),
		s.scheduleBounceMailbox(),
	)
}

// scheduleBounceMailbox reads the IMAP mailbox of returned mail, when one is configured.
func (s *Server) scheduleBounceMailbox() error {
	if s.cfg.Mail.Bounces.Host == "" {
		return nil
	}
	return s.jobs.every(s.cfg.Mail.Bounces.Interval, job{name: jobBounces, run: s.readBounceMailbox})
}

// maintenance forgets expired access tokens and old nonces and lets SQLite refresh its statistics.
func (s *Server) maintenance(ctx context.Context) error {
	n, err := s.store.PurgeExpired(ctx, s.now().Add(-2*s.cfg.Auth.TimestampSkew))
	if err != nil {
		return err
	}
	if n > 0 {
		s.log.Info("maintenance: purged expired tokens and nonces", "rows", n)
	}
	return s.store.Optimize(ctx)
}
