// Package server is the einvoice service: the Echo routes and middleware (request id, metrics, recover,
// body limits, authentication, acting entity, scopes, rate limit), thin handlers, the error envelopes and
// code registry, the document workflows and the background job table.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"einvoice/store"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
)

// HTTPConfig is the [server] section of the configuration.
type HTTPConfig struct {
	Listen          string        `toml:"listen"`
	PublicURL       string        `toml:"public_url"`
	BodyLimit       int64         `toml:"body_limit"`
	RequestTimeout  time.Duration `toml:"request_timeout"`
	ShutdownTimeout time.Duration `toml:"shutdown_timeout"`
}

// AuthConfig is the authentication part of the [security] section.
type AuthConfig struct {
	AccessTokenTTL time.Duration `toml:"access_token_ttl"`
	TimestampSkew  time.Duration `toml:"timestamp_skew"`
	PublicLinkTTL  time.Duration `toml:"public_link_ttl"` // how long a public download link works; 0: DefaultPublicLinkTTL
}

// RateLimitConfig is the [rate_limit] section: requests per platform credential.
type RateLimitConfig struct {
	RequestsPerMinute int           `toml:"requests_per_minute"`
	BlockFor          time.Duration `toml:"block_for"`
}

// EnvironmentConfig is the [environment] section.
type EnvironmentConfig struct {
	Mode string `toml:"mode"` // "production" or "test"
}

// JobsConfig is the [jobs] section: how often the background jobs run.
type JobsConfig struct {
	MaintenanceInterval time.Duration `toml:"maintenance_interval"`
	Timeout             time.Duration `toml:"timeout"`
}

// WebhooksConfig is the [webhooks] section: how document events are delivered.
type WebhooksConfig struct {
	Interval      time.Duration   `toml:"interval"`       // how often the delivery job looks for due events
	Timeout       time.Duration   `toml:"timeout"`        // one request to a receiver
	Concurrency   int             `toml:"concurrency"`    // requests under way at once
	RetrySchedule []time.Duration `toml:"retry_schedule"` // waits between attempts; its length + 1 is the number of attempts
}

// Config is everything the server needs from the configuration file.
type Config struct {
	HTTP        HTTPConfig
	Auth        AuthConfig
	RateLimit   RateLimitConfig
	Environment EnvironmentConfig
	Jobs        JobsConfig
	Webhooks    WebhooksConfig
	Mail        MailConfig
	Portal      PortalConfig
}

// TestMode reports whether the installation runs as a test environment.
func (c Config) TestMode() bool { return c.Environment.Mode == "test" }

// Workflow is the service's one workflow layer: every change of state (issuing and editing, receiving,
// decisions, process states, tokens, and the support team's configuration) is one of its methods,
// taking plain values and returning a result or an error the error registry maps to the API's
// envelopes. API handlers, the admin commands and, as they come, the portal and the EDI connectors all
// call these methods; none of them changes state on its own.
type Workflow struct {
	cfg     Config
	store   *store.Store
	log     *slog.Logger
	metrics *metrics
	jobs    *jobRunner // wakes the background jobs after a commit; they run only under Server.Run
	now     func() time.Time
	logins  *loginThrottle // failed portal sign-ins
}

// NewWorkflow builds the workflow layer on an open store, for a front end that does not serve HTTP
// (the admin commands).
func NewWorkflow(cfg Config, st *store.Store, log *slog.Logger) *Workflow {
	w := &Workflow{cfg: cfg, store: st, log: log, metrics: newMetrics(prometheus.NewRegistry()), now: time.Now,
		logins: newLoginThrottle(cfg.Portal)}
	w.jobs = newJobRunner(log, w.metrics, cfg.Jobs.Timeout)
	return w
}

// Server is the running service: the HTTP front end and the background jobs over the workflow layer.
type Server struct {
	*Workflow
	echo    *echo.Echo
	limiter *rateLimiter

	listenAddr  atomic.Pointer[string] // the address Run serves on, for links when no public URL is set
	webhookOnce sync.Once
	webhookHTTP *http.Client
}

// New builds the service on an open store. Call Run to serve, or use Handler in tests.
func New(cfg Config, st *store.Store, log *slog.Logger) *Server {
	s := &Server{
		Workflow: NewWorkflow(cfg, st, log),
		limiter:  newRateLimiter(cfg.RateLimit.RequestsPerMinute, time.Minute, cfg.RateLimit.BlockFor),
	}
	s.echo = s.routes()
	return s
}

// Handler is the HTTP handler of the whole service.
func (s *Server) Handler() http.Handler { return s.echo }

// Run serves on ln and runs the background jobs until ctx is cancelled, then stops gracefully:
// in-flight requests finish (up to the shutdown timeout) and the jobs stop before Run returns.
func (s *Server) Run(ctx context.Context, ln net.Listener) error {
	addr := ln.Addr().String()
	s.listenAddr.Store(&addr)
	if err := s.scheduleJobs(); err != nil {
		return err
	}
	if s.cfg.Mail.Bounces.Listen != "" {
		bounces, err := s.listenBounces(s.cfg.Mail.Bounces.Listen)
		if err != nil {
			return fmt.Errorf("the bounce listener: %w", err)
		}
		defer bounces.Close()
		s.log.Info("accepting returned mail", "addr", bounces.Addr())
	}
	s.jobs.start()
	srv := &http.Server{
		Handler:           s.echo,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	var err error
	select {
	case err = <-served:
	case <-ctx.Done():
		s.log.Info("shutting down")
		sctx, cancel := context.WithTimeout(context.Background(), s.cfg.HTTP.ShutdownTimeout)
		err = srv.Shutdown(sctx)
		cancel()
	}
	s.jobs.stop()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// DefaultWebhooks is the default [webhooks] section.
func DefaultWebhooks() WebhooksConfig {
	h := time.Hour
	return WebhooksConfig{Interval: time.Second, Timeout: 10 * time.Second, Concurrency: 8,
		RetrySchedule: []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, h, 2 * h, 6 * h, 12 * h, 24 * h, 48 * h, 72 * h}}
}
