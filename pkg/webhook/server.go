// Package webhook is the admission server: TLS with a hot-reloaded serving
// certificate, AdmissionReview decoding, the mutators in order, health,
// readiness and metrics. What to inject is the mutators' business
// (pkg/webhook/<mutator>), and what they read from the cluster is
// pkg/webhook/clusterreads; this package knows none of it. One admission
// passes through middleware.go, intake.go, handler.go, reviewdecode.go,
// mutatorchain.go, responseencode.go and response.go, in that order, each
// once (docs/admission.md, "One admission's walk").
package webhook

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/grants"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// Paths the server answers on.
const (
	MutatePodsPath = "/mutate-pods"
	HealthzPath    = "/healthz"
	ReadyzPath     = "/readyz"
	MetricsPath    = "/metrics"
)

// Limits that keep one replica answering whatever its clients do. The API
// server waits at most 30 s for any webhook (timeoutSeconds is capped
// there; ours are 5 and 3), so nobody reads an answer written later.
const (
	// DefaultMaxInFlight caps concurrent admissions. At the ~5,000 admissions/s
	// one replica answers on 2 cores (docs/performance.md), 128 is ~25 ms of
	// queued work; more in flight means waiting on the API server
	// (SubjectAccessReviews), which more concurrency does not speed up.
	DefaultMaxInFlight = 128

	// maxInFlightGrants caps concurrent access grant checks, each of which
	// may ask many SubjectAccessReviews; these objects are written rarely.
	maxInFlightGrants = 16

	defaultReadHeaderTimeout = 10 * time.Second
	// defaultReadTimeout bounds reading a whole request, 4 MiB at most.
	defaultReadTimeout = 15 * time.Second
	// defaultWriteTimeout bounds the handler and the write of its answer.
	defaultWriteTimeout = 30 * time.Second
	// defaultIdleTimeout matches the idle timeout of Go's (and so the API
	// server's) HTTP client, which retries a request that meets a
	// connection closed while idle.
	defaultIdleTimeout = 90 * time.Second
	// maxHeaderBytes is plenty for the API server's requests and a bearer
	// token on /metrics.
	maxHeaderBytes = 64 << 10
)

// Config is what the server needs to run.
type Config struct {
	// ListenAddress is host:port for HTTPS.
	ListenAddress string
	// MetricsListenAddress, when set, is host:port where /metrics is served
	// instead of ListenAddress, so that network policy can admit
	// Prometheus to metrics without admitting it to the admission paths.
	MetricsListenAddress string
	// CertFile and KeyFile are the serving pair, re-read every CertReloadInterval.
	CertFile, KeyFile  string
	CertReloadInterval time.Duration
	// ShutdownDelay is how long /readyz fails before the listener closes on
	// shutdown, so endpoints drop this pod before it stops answering; it
	// must outlast the readiness probe's failureThreshold × periodSeconds
	// (pkg/cmd/webhook's drain test holds the Deployment to it).
	ShutdownDelay time.Duration
	// ShutdownTimeout bounds the wait for in-flight admissions to finish.
	ShutdownTimeout time.Duration
	// MinTLSVersion and CipherSuites follow the cluster's TLS security
	// profile; zero and nil mean TLS 1.2 and Go's defaults.
	MinTLSVersion uint16
	CipherSuites  []uint16
	// ClientCAFile, when set, is the PEM bundle of CAs that sign the API
	// server's client certificate: the admission paths then refuse a
	// client that presents none (see clientcert.go). Empty accepts reviews
	// from any client, as OpenShift's kube-apiserver presents none.
	ClientCAFile string

	// MetricsGuard decides who reads /metrics; required, so metrics are
	// never served to anyone who asks.
	MetricsGuard MetricsGuard

	// MaxInFlight caps concurrent admissions; requests beyond it are
	// answered 429 at once. Zero means DefaultMaxInFlight.
	MaxInFlight int
	// ReadTimeout, WriteTimeout and IdleTimeout bound each request and
	// connection; zero means the defaults above.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration

	Mutators []mutation.Mutator
	// AccessGrants checks ScopeTemplates, ScopeInstances, APIAccessPolicies
	// and IAMRoleRequests on ValidateAccessGrantsPath; nil leaves the path
	// unserved (the API server then refuses them: the webhook fails closed).
	AccessGrants *grants.Checker
	// Collectors are the mutators' own metrics (cache lookups), served on
	// /metrics with the server's.
	Collectors []prometheus.Collector
	// CachesSynced are the informers the mutators read; the server is not
	// ready until all have synced.
	CachesSynced []cache.InformerSynced
}

// Server is a configured admission server.
type Server struct {
	config  Config
	metrics *metrics
	cert    *servingCertificate
	// clientCAs verify client certificates; nil asks for none.
	clientCAs *x509.CertPool
	pods      *podHandler
	draining  atomic.Bool
}

// New checks the configuration and builds the server.
func New(config Config) (*Server, error) {
	if config.CertFile == "" || config.KeyFile == "" {
		return nil, errors.New("a serving certificate and key file are required")
	}
	if config.CertReloadInterval <= 0 {
		return nil, errors.New("the certificate reload interval must be positive")
	}
	if config.MetricsGuard == nil {
		return nil, errors.New("a metrics guard is required")
	}
	if config.MaxInFlight < 0 {
		return nil, errors.New("the in-flight admission cap must not be negative")
	}
	config.MaxInFlight = cmp.Or(config.MaxInFlight, DefaultMaxInFlight)
	config.ReadTimeout = cmp.Or(config.ReadTimeout, defaultReadTimeout)
	config.WriteTimeout = cmp.Or(config.WriteTimeout, defaultWriteTimeout)
	config.IdleTimeout = cmp.Or(config.IdleTimeout, defaultIdleTimeout)
	m := newMetrics()
	m.initPanicSites(config.Mutators)
	for _, c := range config.Collectors {
		if err := m.registry.Register(c); err != nil {
			return nil, fmt.Errorf("registering a mutator's metrics: %w", err)
		}
	}
	var clientCAs *x509.CertPool
	if config.ClientCAFile != "" {
		var err error
		if clientCAs, err = loadClientCAs(config.ClientCAFile); err != nil {
			return nil, err
		}
	}
	pods := newPodHandler(config.Mutators, m)
	pods.intake = newIntake(config.MaxInFlight, config.ReadTimeout, m)
	return &Server{
		config:    config,
		metrics:   m,
		cert:      newServingCertificate(config.CertFile, config.KeyFile, m),
		pods:      pods,
		clientCAs: clientCAs,
	}, nil
}

// Handler routes the server's paths; it is what the listener serves.
// Admissions are counted (the overload answer included); each handler reads
// the body before it takes one of its path's slots (see intake).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(MutatePodsPath, s.metrics.instrument(MutatePodsPath, s.withClientCertificateCheck(s.pods)))
	if s.config.AccessGrants != nil {
		grantsHandler := &grantsHandler{checker: s.config.AccessGrants, metrics: s.metrics, timeout: accessGrantsTimeout,
			intake: newIntake(maxInFlightGrants, s.config.ReadTimeout, s.metrics)}
		mux.Handle(ValidateAccessGrantsPath, s.metrics.instrument(ValidateAccessGrantsPath, s.withClientCertificateCheck(grantsHandler)))
	}
	mux.HandleFunc(HealthzPath, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc(ReadyzPath, func(w http.ResponseWriter, _ *http.Request) {
		if reason := s.notReady(); reason != "" {
			http.Error(w, reason, http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	if s.config.MetricsListenAddress == "" {
		mux.Handle(MetricsPath, s.config.MetricsGuard(s.metrics.handler()))
	}
	return recoverPanics(s.metrics, s.closeWhileDraining(mux))
}

// MetricsHandler serves /metrics alone, for the metrics listener.
func (s *Server) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(MetricsPath, s.config.MetricsGuard(s.metrics.handler()))
	return recoverPanics(s.metrics, mux)
}

// httpServer is a server of handler, with every limit set.
func (s *Server) httpServer(handler http.Handler) *http.Server {
	server := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: min(defaultReadHeaderTimeout, s.config.ReadTimeout),
		ReadTimeout:       s.config.ReadTimeout,
		WriteTimeout:      s.config.WriteTimeout,
		IdleTimeout:       s.config.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		TLSConfig:         s.tlsConfig(),
	}
	if !slices.Contains(server.TLSConfig.NextProtos, "h2") {
		server.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){} // HTTP/1.1 only
	}
	return server
}

func (s *Server) tlsConfig() *tls.Config {
	config := &tls.Config{
		MinVersion:     max(s.config.MinTLSVersion, tls.VersionTLS12),
		CipherSuites:   s.config.CipherSuites,
		GetCertificate: s.cert.getCertificate,
		NextProtos:     []string{"h2", "http/1.1"},
	}
	if s.clientCAs != nil {
		// Asked, never required: the kubelet's probes and Prometheus
		// present none. A certificate presented must verify.
		config.ClientAuth = tls.VerifyClientCertIfGiven
		config.ClientCAs = s.clientCAs
	}
	// HTTP/2 refuses to start without one of its required suites; a custom
	// profile may leave them out, and then HTTP/1.1 it is.
	if len(config.CipherSuites) > 0 && !slices.Contains(config.CipherSuites, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) &&
		!slices.Contains(config.CipherSuites, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256) {
		config.NextProtos = []string{"http/1.1"}
	}
	return config
}

// notReady says why the server should not get traffic, or "" when it should.
func (s *Server) notReady() string {
	switch {
	case s.draining.Load():
		return "shutting down"
	case !s.cert.loaded():
		return "no serving certificate loaded"
	}
	for _, synced := range s.config.CachesSynced {
		if !synced() {
			return "informer caches are not synced"
		}
	}
	return ""
}

// Run serves until ctx ends, then drains: it fails readiness and closes each
// connection after its next answer, keeps serving for ShutdownDelay, stops
// accepting connections and lets in-flight admissions finish within
// ShutdownTimeout.
func (s *Server) Run(ctx context.Context) error {
	if _, err := s.cert.load(); err != nil {
		return err
	}
	listener, err := net.Listen("tcp", s.config.ListenAddress)
	if err != nil {
		return err
	}
	var metricsListener net.Listener
	if s.config.MetricsListenAddress != "" {
		if metricsListener, err = net.Listen("tcp", s.config.MetricsListenAddress); err != nil {
			listener.Close()
			return err
		}
	}
	return s.ServeWithMetrics(ctx, listener, metricsListener)
}

// Serve is Run on a listener the caller opened, /metrics included unless
// MetricsListenAddress is set.
func (s *Server) Serve(ctx context.Context, listener net.Listener) error {
	return s.ServeWithMetrics(ctx, listener, nil)
}

// ServeWithMetrics is Serve with /metrics on metricsListener when it is not
// nil.
func (s *Server) ServeWithMetrics(ctx context.Context, listener, metricsListener net.Listener) error {
	if !s.cert.loaded() {
		if _, err := s.cert.load(); err != nil {
			return err
		}
	}
	watchCtx, stopWatching := context.WithCancel(context.Background())
	defer stopWatching()
	go s.cert.watch(watchCtx, s.config.CertReloadInterval)

	server := s.httpServer(s.Handler())
	server.ConnState = s.metrics.countConnection
	served := make(chan error, 1)
	go func() {
		served <- server.ServeTLS(listener, "", "")
	}()
	klog.InfoS("Serving admission reviews", "address", listener.Addr().String(), "mutators", len(s.config.Mutators))
	if metricsListener != nil {
		metricsServer := s.httpServer(s.MetricsHandler())
		go func() {
			if err := metricsServer.ServeTLS(metricsListener, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
				klog.ErrorS(err, "The metrics listener stopped", "address", metricsListener.Addr().String())
			}
		}()
		// Metrics stop with the process: nothing drains a scrape.
		defer metricsServer.Close()
		klog.InfoS("Serving metrics", "address", metricsListener.Addr().String())
	}

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	s.draining.Store(true)
	klog.InfoS("Shutting down: failing readiness before closing the listener", "delay", s.config.ShutdownDelay)
	time.Sleep(s.config.ShutdownDelay)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), s.config.ShutdownTimeout)
	defer cancel()
	if err := server.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("in-flight admissions did not finish within %v: %w", s.config.ShutdownTimeout, err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	klog.InfoS("Drained and stopped")
	return nil
}
