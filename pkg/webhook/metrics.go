package webhook

import (
	"crypto/x509"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

const metricsNamespace = "workload_access_webhook"

// latencyBuckets resolve the sub-millisecond admissions a cached mutator
// makes as well as the seconds a SubjectAccessReview can take.
var latencyBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// metrics are the webhook's Prometheus series. The HTTP set mirrors what
// amazon-eks-pod-identity-webhook exports (request count by verb, path and
// code; request latency); the admission set adds what that webhook lacks:
// outcome, denials and latency per mutator.
type metrics struct {
	registry *prometheus.Registry

	httpRequests        *prometheus.CounterVec
	httpDuration        *prometheus.HistogramVec
	admissions          *prometheus.CounterVec
	denials             *prometheus.CounterVec
	mutatorDuration     *prometheus.HistogramVec
	inFlight            prometheus.Gauge
	openConnections     prometheus.Gauge
	panics              *prometheus.CounterVec
	outlineFallbacks    prometheus.Counter
	certificateExpiry   prometheus.Gauge
	certificateReloads  prometheus.Counter
	certificateFailures prometheus.Counter
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "http_requests_total",
			Help: "HTTP requests served, by verb (GET, POST or other), path and status code.",
		}, []string{"verb", "path", "code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: metricsNamespace, Name: "http_request_duration_seconds",
			Help: "Time to answer an HTTP request, by verb and path.", Buckets: latencyBuckets,
		}, []string{"verb", "path"}),
		admissions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "admission_requests_total",
			Help: "Pods each mutator decided on, by result: patched, unchanged or denied.",
		}, []string{"mutator", "result"}),
		denials: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "admission_denials_total",
			Help: "Pods refused, by mutator and reason.",
		}, []string{"mutator", "reason"}),
		mutatorDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: metricsNamespace, Name: "admission_mutator_duration_seconds",
			Help: "Time each mutator took to decide on one pod.", Buckets: latencyBuckets,
		}, []string{"mutator"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: metricsNamespace, Name: "admission_requests_in_flight",
			Help: "Admission requests being answered now; beyond the cap, requests are refused with 429.",
		}),
		openConnections: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: metricsNamespace, Name: "open_connections",
			Help: "Connections open to the admission listener: the API server keeps its own open between calls and sends one admission at a time on each (HTTP/1.1), and probes.",
		}),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "panics_recovered_total",
			Help: "Panics recovered while answering, by where: a mutator's name, handler (the admission handler itself) or http (any other path).",
		}, []string{"source"}),
		outlineFallbacks: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "admission_whole_pod_patches_total",
			Help: "Patches between mutators that the pod's outline could not follow, so the whole pod was patched and decoded again for the next mutator (none is expected).",
		}),
		certificateExpiry: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: metricsNamespace, Name: "serving_certificate_expiration_timestamp_seconds",
			Help: "When the serving certificate in use expires (Unix time).",
		}),
		certificateReloads: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "serving_certificate_reloads_total",
			Help: "Serving certificate pairs loaded from disk, the first one included.",
		}),
		certificateFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "serving_certificate_reload_failures_total",
			Help: "Attempts to load a changed serving certificate pair that failed; the previous pair stays in use.",
		}),
	}
	m.registry.MustRegister(m.httpRequests, m.httpDuration, m.admissions, m.denials, m.mutatorDuration, m.inFlight, m.openConnections, m.panics, m.outlineFallbacks,
		m.certificateExpiry, m.certificateReloads, m.certificateFailures,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// initPanicSites creates every panic series at zero: a series that first
// appears at 1 shows Prometheus no increase, and the first panic would not
// alert.
func (m *metrics) initPanicSites(mutators []mutation.Mutator) {
	for _, mutator := range mutators {
		m.panics.WithLabelValues(mutator.Name())
	}
	m.panics.WithLabelValues("handler")
	m.panics.WithLabelValues("http")
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// countConnection is the admission server's ConnState hook: every
// connection is new once and ends once, closed or hijacked.
func (m *metrics) countConnection(_ net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		m.openConnections.Inc()
	case http.StateClosed, http.StateHijacked:
		m.openConnections.Dec()
	}
}

func (m *metrics) observeCertificate(leaf *x509.Certificate) {
	m.certificateReloads.Inc()
	m.certificateExpiry.Set(float64(leaf.NotAfter.Unix()))
}
