package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are what /metrics exposes in Prometheus text format.
type metrics struct {
	registry    *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	jobRuns     *prometheus.CounterVec
	jobDuration *prometheus.HistogramVec
	largeBodies prometheus.Gauge
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		registry: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "einvoice_http_requests_total", Help: "HTTP requests by method, route and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "einvoice_http_request_duration_seconds",
			Help:    "HTTP request latency by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
		jobRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "einvoice_job_runs_total", Help: "Background job runs by job and outcome (ok, error, panic, skipped).",
		}, []string{"job", "outcome"}),
		jobDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "einvoice_job_duration_seconds", Help: "Background job run time.",
		}, []string{"job"}),
		largeBodies: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "einvoice_large_body_bytes_in_flight", Help: "Bytes of large request bodies being handled (see server.large_bodies_in_flight).",
		}),
	}
	reg.MustRegister(m.requests, m.latency, m.jobRuns, m.jobDuration, m.largeBodies,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observeRequest(method, route string, status int, d time.Duration) {
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// metricsHandler serves /metrics. With [server] metrics_token set it asks for that bearer token,
// compared in constant time; without, it is open, as scrapers expect by default (it then belongs on
// a loopback or internal address: the main listener's default, or metrics_listen).
func (s *Server) metricsHandler() http.Handler {
	h := promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{})
	if s.cfg.HTTP.MetricsToken == "" {
		return h
	}
	want := sha256.Sum256([]byte(s.cfg.HTTP.MetricsToken))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bearer, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		got := sha256.Sum256([]byte(strings.TrimSpace(bearer)))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
