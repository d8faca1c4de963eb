package cli

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"time"

	"einvoice/server"
	"einvoice/store"

	"github.com/BurntSushi/toml"
)

// Config is the whole configuration file; each package owns the type of its own section.
type Config struct {
	Server      server.HTTPConfig        `toml:"server"`
	Storage     StorageConfig            `toml:"storage"`
	Security    SecurityConfig           `toml:"security"`
	RateLimit   server.RateLimitConfig   `toml:"rate_limit"`
	Environment server.EnvironmentConfig `toml:"environment"`
	Jobs        server.JobsConfig        `toml:"jobs"`
	Webhooks    server.WebhooksConfig    `toml:"webhooks"`
	Mail        server.MailConfig        `toml:"mail"`
	Portal      server.PortalConfig      `toml:"portal"`
	EDI         server.EDIConfig         `toml:"edi"`
	Log         LogConfig                `toml:"log"`
	AS2         server.AS2Config         `toml:"as2"`
}

// StorageConfig is the [storage] section.
type StorageConfig struct {
	DataDir string `toml:"data_dir"`
	Driver  string `toml:"driver"` // "sqlite" (default) or "postgres"
	DSN     string `toml:"dsn"`    // postgres: the database's address; EINVOICE_DATABASE_URL overrides it
}

// SecurityConfig is the [security] section.
type SecurityConfig struct {
	SecretKey           string        `toml:"secret_key"`
	AccessTokenTTL      time.Duration `toml:"access_token_ttl"`
	TimestampSkew       time.Duration `toml:"timestamp_skew"`
	PublicLinkTTL       time.Duration `toml:"public_link_ttl"`
	FailedAuthPerMinute int           `toml:"failed_auth_per_minute"`
}

// LogConfig is the [log] section.
type LogConfig struct {
	Level  string `toml:"level"`
	Format string `toml:"format"`
}

// Environment variables that override the file.
const (
	envSecretKey    = "EINVOICE_SECRET_KEY"
	envConfig       = "EINVOICE_CONFIG"
	envSMTPPassword = "EINVOICE_SMTP_PASSWORD"
	envIMAPPassword = "EINVOICE_IMAP_PASSWORD"
	envMetricsToken = "EINVOICE_METRICS_TOKEN"
	envDatabaseURL  = "EINVOICE_DATABASE_URL"
)

func defaultConfig() Config {
	return Config{
		Server: server.HTTPConfig{Listen: "127.0.0.1:8080", BodyLimit: 25 << 20,
			RequestTimeout: 60 * time.Second, ShutdownTimeout: 20 * time.Second,
			BodyReadTimeout: 60 * time.Second, LargeBodiesInFlight: 32 << 20, LargeBodyWait: 30 * time.Second, TrustedProxies: []string{}},
		Storage: StorageConfig{DataDir: "data", Driver: "sqlite"},
		Security: SecurityConfig{AccessTokenTTL: 30 * time.Minute, TimestampSkew: 300 * time.Second, PublicLinkTTL: server.DefaultPublicLinkTTL,
			FailedAuthPerMinute: 20},
		RateLimit:   server.RateLimitConfig{RequestsPerMinute: 200, BlockFor: 2 * time.Minute},
		Environment: server.EnvironmentConfig{Mode: "production"},
		Jobs:        server.JobsConfig{MaintenanceInterval: 10 * time.Minute, Timeout: 5 * time.Minute},
		Webhooks:    server.DefaultWebhooks(),
		Mail:        server.DefaultMail(),
		Portal:      server.DefaultPortal(),
		EDI:         server.DefaultEDI(),
		AS2:         server.AS2Config{RequestsPerMinute: server.DefaultAS2RequestsPerMinute},
		Log:         LogConfig{Level: "info", Format: "text"},
	}
}

// loadConfig reads the file at path (none: the defaults), strictly, then applies the environment.
func loadConfig(path string) (Config, error) {
	cfg := defaultConfig()
	if path == "" {
		path = os.Getenv(envConfig)
	}
	if path != "" {
		if err := decodeConfig(path, &cfg); err != nil {
			return cfg, err
		}
	}
	if v := os.Getenv(envSecretKey); v != "" {
		cfg.Security.SecretKey = v
	}
	if v := os.Getenv(envSMTPPassword); v != "" {
		cfg.Mail.SMTP.Password = v
	}
	if v := os.Getenv(envIMAPPassword); v != "" {
		cfg.Mail.Bounces.Password = v
	}
	if v := os.Getenv(envMetricsToken); v != "" {
		cfg.Server.MetricsToken = v
	}
	if v := os.Getenv(envDatabaseURL); v != "" {
		cfg.Storage.DSN = v
	}
	return cfg, cfg.validate()
}

// decodeConfig decodes TOML over cfg and refuses keys it does not know.
func decodeConfig(path string, cfg *Config) error {
	md, err := toml.DecodeFile(path, cfg)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	if unknown := md.Undecoded(); len(unknown) > 0 {
		keys := make([]string, len(unknown))
		for i, k := range unknown {
			keys[i] = k.String()
		}
		return fmt.Errorf("config %s: unknown key %s", path, strings.Join(keys, ", "))
	}
	return nil
}

func (c Config) validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(c.Server.Listen != "", "server.listen must not be empty")
	check(c.Server.BodyLimit > 0, "server.body_limit must be positive")
	check(c.Server.RequestTimeout > 0 && c.Server.ShutdownTimeout > 0 && c.Server.BodyReadTimeout > 0, "server timeouts must be positive")
	check(c.Server.LargeBodiesInFlight >= 0 && c.Server.LargeBodyWait > 0,
		"server.large_bodies_in_flight must not be negative and server.large_body_wait must be positive")
	_, err := server.ParseTrustedProxies(c.Server.TrustedProxies)
	check(err == nil, "server.trusted_proxies: %v", err)
	check(c.Server.MetricsListen == "" || c.Server.MetricsListen != c.Server.Listen, "server.metrics_listen must differ from server.listen")
	check(c.Storage.DataDir != "", "storage.data_dir must not be empty")
	check(c.Storage.Driver == "sqlite" || c.Storage.Driver == "postgres",
		"storage.driver must be sqlite or postgres")
	check(c.Storage.Driver != "postgres" || c.Storage.DSN != "", "storage.driver postgres needs storage.dsn or %s", envDatabaseURL)
	// Every process on one PostgreSQL database must hold the same key: it cannot be generated per folder.
	check(c.Storage.Driver != "postgres" || c.Security.SecretKey != "",
		"storage.driver postgres needs security.secret_key or %s, the same on every process", envSecretKey)
	check(c.Security.SecretKey == "" || len(c.Security.SecretKey) >= store.MinSecretKeyLen,
		"security.secret_key must be at least %d characters", store.MinSecretKeyLen)
	check(c.Security.AccessTokenTTL >= time.Minute, "security.access_token_ttl must be at least 1m")
	check(c.Security.TimestampSkew > 0, "security.timestamp_skew must be positive")
	check(c.Security.PublicLinkTTL >= time.Minute, "security.public_link_ttl must be at least 1m")
	check(c.Security.FailedAuthPerMinute >= 0, "security.failed_auth_per_minute must not be negative")
	check(c.RateLimit.RequestsPerMinute >= 0, "rate_limit.requests_per_minute must not be negative")
	check(c.RateLimit.BlockFor >= 0, "rate_limit.block_for must not be negative")
	check(c.Environment.Mode == "production" || c.Environment.Mode == "test", "environment.mode must be \"production\" or \"test\"")
	check(c.Jobs.MaintenanceInterval > 0 && c.Jobs.Timeout > 0, "jobs intervals and timeout must be positive")
	check(c.Webhooks.Interval > 0 && c.Webhooks.Timeout > 0, "webhooks.interval and webhooks.timeout must be positive")
	check(c.Webhooks.Concurrency >= 1 && c.Webhooks.Concurrency <= 256, "webhooks.concurrency must be between 1 and 256")
	check(len(c.Webhooks.RetrySchedule) <= 100, "webhooks.retry_schedule has at most 100 waits")
	for _, d := range c.Webhooks.RetrySchedule {
		check(d > 0, "webhooks.retry_schedule waits must be positive")
	}
	m := c.Mail
	check(m.Transport == "" || m.Transport == "smtp" || m.Transport == "outbox", "mail.transport must be \"smtp\" or \"outbox\"")
	check(validAddress(m.FromAddress), "mail.from_address %q is not an e-mail address", m.FromAddress)
	check(m.ReplyTo == "" || validAddress(m.ReplyTo), "mail.reply_to %q is not an e-mail address", m.ReplyTo)
	check(m.ReturnPath == "" || validAddress(m.ReturnPath), "mail.return_path %q is not an e-mail address", m.ReturnPath)
	check(m.Interval > 0 && m.Batch >= 1 && m.Batch <= 10000, "mail.interval must be positive and mail.batch between 1 and 10000")
	check(len(m.RetrySchedule) <= 100, "mail.retry_schedule has at most 100 waits")
	for _, d := range m.RetrySchedule {
		check(d > 0, "mail.retry_schedule waits must be positive")
	}
	check(m.SMTP.Timeout > 0 && m.SMTP.Port >= 0 && m.SMTP.Port < 65536, "mail.smtp.timeout must be positive and mail.smtp.port a port")
	check(m.SMTP.TLS == "starttls" || m.SMTP.TLS == "opportunistic" || m.SMTP.TLS == "tls" || m.SMTP.TLS == "none",
		"mail.smtp.tls must be starttls, opportunistic, tls or none")
	check(m.Bounces.MaxSize >= 1<<10 && m.Bounces.Interval > 0, "mail.bounces.max_size must be at least 1024 and mail.bounces.interval positive")
	check(m.Bounces.TLS == "tls" || m.Bounces.TLS == "starttls" || m.Bounces.TLS == "none", "mail.bounces.imap_tls must be tls, starttls or none")
	check(c.Portal.SessionTTL >= time.Minute && c.Portal.LoginFailures > 0 && c.Portal.LoginFailureReset > 0,
		"portal.session_ttl must be at least 1m, portal.login_failures and portal.login_failure_reset positive")
	e := c.EDI
	check(e.Interval > 0 && e.Lease > 0 && e.Timeout > 0 && e.PollInterval > 0, "edi.interval, edi.lease, edi.timeout and edi.poll_interval must be positive")
	check(e.Lease > e.Timeout, "edi.lease must be longer than edi.timeout, so that a delivery under way is not claimed twice")
	check(e.Concurrency >= 1 && e.Concurrency <= 256 && e.Batch >= 1 && e.Batch <= 10000, "edi.concurrency must be between 1 and 256 and edi.batch between 1 and 10000")
	check(len(e.RetrySchedule) <= 100, "edi.retry_schedule has at most 100 waits")
	for _, d := range e.RetrySchedule {
		check(d > 0, "edi.retry_schedule waits must be positive")
	}
	check(c.Log.Format == "text" || c.Log.Format == "json", "log.format must be \"text\" or \"json\"")
	var lvl slog.Level
	check(lvl.UnmarshalText([]byte(c.Log.Level)) == nil, "log.level %q is not a level", c.Log.Level)
	return errors.Join(errs...)
}

// serverConfig is the part of the configuration the service needs.
func (c Config) serverConfig() server.Config {
	return server.Config{
		HTTP: c.Server,
		Auth: server.AuthConfig{AccessTokenTTL: c.Security.AccessTokenTTL, TimestampSkew: c.Security.TimestampSkew,
			PublicLinkTTL: c.Security.PublicLinkTTL, FailedAuthPerMinute: c.Security.FailedAuthPerMinute},
		RateLimit:   c.RateLimit,
		Environment: c.Environment,
		Jobs:        c.Jobs,
		Webhooks:    c.Webhooks,
		Mail:        c.mailConfig(),
		Portal:      c.Portal,
		AS2:         c.AS2,
		EDI:         c.EDI,
	}
}

// mailConfig is the [mail] section with the outbox folder inside the data folder unless set.
func (c Config) mailConfig() server.MailConfig {
	m := c.Mail
	if m.OutboxDir == "" {
		m.OutboxDir = filepath.Join(c.Storage.DataDir, "mail-outbox")
	}
	return m
}

// validAddress accepts a bare e-mail address.
func validAddress(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s
}

// secretKeyFile is the file in the data folder that keeps the key generated when none is configured.
const secretKeyFile = "secret.key"

// secretKey is the configured key, or the one kept in the data folder's secretKeyFile (created on
// first use).
func (c Config) secretKey(log *slog.Logger) ([]byte, error) {
	if c.Security.SecretKey != "" {
		return []byte(c.Security.SecretKey), nil
	}
	path := filepath.Join(c.Storage.DataDir, secretKeyFile)
	b, err := os.ReadFile(path)
	if err == nil {
		key := strings.TrimSpace(string(b))
		if len(key) < store.MinSecretKeyLen {
			return nil, fmt.Errorf("%s holds a key shorter than %d characters", path, store.MinSecretKeyLen)
		}
		return []byte(key), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := randRead(key); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		return nil, err
	}
	log.Warn("no secret key configured: generated one; keep it with the database or set "+envSecretKey, "file", path)
	return []byte(hex.EncodeToString(key)), nil
}

func newLogger(c LogConfig, w *os.File) *slog.Logger {
	var lvl slog.Level
	lvl.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: lvl}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
