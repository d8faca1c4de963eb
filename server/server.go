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

	"einvoice/server/edi/upstream"
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

	BodyReadTimeout     time.Duration `toml:"body_read_timeout"`      // for a request body to arrive; 0: no limit
	LargeBodiesInFlight int64         `toml:"large_bodies_in_flight"` // bytes of large bodies handled at once; 0: no limit
	LargeBodyWait       time.Duration `toml:"large_body_wait"`        // a large body's wait for room before 503
	TrustedProxies      []string      `toml:"trusted_proxies"`        // peers whose X-Forwarded-For is believed
	MetricsToken        string        `toml:"metrics_token"`          // bearer token /metrics requires, when set
	MetricsListen       string        `toml:"metrics_listen"`         // serve /metrics there only, when set
}

// AuthConfig is the authentication part of the [security] section.
type AuthConfig struct {
	AccessTokenTTL      time.Duration `toml:"access_token_ttl"`
	TimestampSkew       time.Duration `toml:"timestamp_skew"`
	PublicLinkTTL       time.Duration `toml:"public_link_ttl"`        // how long a public download link works; 0: DefaultPublicLinkTTL
	FailedAuthPerMinute int           `toml:"failed_auth_per_minute"` // per client address and client id; 0: no limit
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
	AS2         AS2Config
	EDI         EDIConfig
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
	edi     ediHub     // the connectors that carry EDI deliveries
	now     func() time.Time
	seals   sealCache // the seals that sign, parsed once

	limiter      counter      // requests per platform credential, by its id
	authFailures authThrottle // failed authentications per client address and client id
	logins       authThrottle // failed portal sign-ins, per client address and username
}

// NewWorkflow builds the workflow layer on an open store, for a front end that does not serve HTTP
// (the admin commands).
func NewWorkflow(cfg Config, st *store.Store, log *slog.Logger) *Workflow {
	w := &Workflow{cfg: cfg, store: st, log: log, metrics: newMetrics(prometheus.NewRegistry()), now: time.Now,
		limiter:      newCounter(st, "rate", cfg.RateLimit.RequestsPerMinute, time.Minute, cfg.RateLimit.BlockFor),
		authFailures: newAuthThrottle(st, "auth", cfg.Auth.FailedAuthPerMinute, time.Minute),
		logins:       newAuthThrottle(st, "login", cfg.Portal.LoginFailures, cfg.Portal.LoginFailureReset)}
	w.jobs = newJobRunner(log, w.metrics, st, cfg.Jobs.Timeout)
	w.RegisterConnector(ConnectorUpstream, upstream.New(w.upstreamConfig, nil))
	w.RegisterConnector(ConnectorAS2, w.AS2Connector())
	return w
}

// Server is the running service: the HTTP front end and the background jobs over the workflow layer.
type Server struct {
	*Workflow
	echo *echo.Echo

	listenAddr  atomic.Pointer[string] // the address Run serves on, for links when no public URL is set
	webhookOnce sync.Once
	webhookHTTP *http.Client
}

// New builds the service on an open store. Call Run to serve, or use Handler in tests.
func New(cfg Config, st *store.Store, log *slog.Logger) *Server {
	s := &Server{Workflow: NewWorkflow(cfg, st, log)}
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
	// On SQLite this process is the only one serving: what a crashed predecessor had claimed is due now.
	// (A stop asked for meanwhile is a clean stop, not this step's failure.)
	if err := s.store.ReleaseLeases(context.WithoutCancel(ctx)); err != nil {
		return err
	}
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
	// Slow headers are cut off here; slow bodies by bodyDeadline, per request.
	newServer := func(h http.Handler) *http.Server {
		return &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       2 * time.Minute,
			ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		}
	}
	servers := []*http.Server{newServer(s.echo)}
	listeners := []net.Listener{ln}
	if addr := s.cfg.HTTP.MetricsListen; addr != "" {
		mln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("the metrics listener: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", s.metricsHandler())
		servers, listeners = append(servers, newServer(mux)), append(listeners, mln)
		s.log.Info("serving metrics", "addr", mln.Addr())
	} else if s.cfg.HTTP.MetricsToken == "" && !isLoopback(ln.Addr()) {
		s.log.Warn("/metrics is open on a non-loopback address; set server.metrics_token or server.metrics_listen", "addr", ln.Addr())
	}
	s.jobs.start()
	served := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { served <- srv.Serve(listeners[i]) }()
	}

	var err error
	select {
	case err = <-served:
	case <-ctx.Done():
		s.log.Info("shutting down")
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.HTTP.ShutdownTimeout)
	for _, srv := range servers {
		err = errors.Join(err, srv.Shutdown(sctx))
	}
	cancel()
	s.jobs.stop()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// isLoopback tells whether a listener's address is a loopback one.
func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// DefaultWebhooks is the default [webhooks] section.
func DefaultWebhooks() WebhooksConfig {
	h := time.Hour
	return WebhooksConfig{Interval: time.Second, Timeout: 10 * time.Second, Concurrency: 8,
		RetrySchedule: []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, h, 2 * h, 6 * h, 12 * h, 24 * h, 48 * h, 72 * h}}
}
