package webhook

// The wrappers every admission passes through before its path's handler,
// in the order it meets them: recoverPanics, closeWhileDraining (both
// around the server's mux), instrument and the client certificate check.

import (
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// recoverPanics is the last resort for every path: a panic is counted,
// logged with its stack and answered 500, rather than dropping the
// connection. The admission handler recovers its own panics first, where it
// still knows the pod (see podHandler.answer).
func recoverPanics(m *metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			m.panics.WithLabelValues("http").Inc()
			klog.ErrorS(nil, "Recovered from a panic", "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			writeStatus(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, "the workload-access webhook failed internally; retry")
		}()
		next.ServeHTTP(w, r)
	})
}

// closeWhileDraining answers with Connection: close once shutdown starts:
// the API server then dials again for its next call, through endpoints that
// no longer list this pod, so its pooled connections leave a draining
// replica one answer at a time rather than being closed under it when the
// listener closes (a request written on a connection as the server closes
// it idle fails, and a POST is not retried).
func (s *Server) closeWhileDraining(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}

// instrument counts and times every request to path.
func (m *metrics) instrument(path string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		verb := verbLabel(r.Method)
		m.httpRequests.WithLabelValues(verb, path, strconv.Itoa(rec.code)).Inc()
		m.httpDuration.WithLabelValues(verb, path).Observe(time.Since(start).Seconds())
	})
}

// verbLabel keeps the verb label to a fixed set: the method is whatever a
// caller sends, and every new value would be a new series.
func verbLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodPost:
		return method
	}
	return "other"
}

// withClientCertificateCheck puts an admission path's handler behind a
// client certificate check when the server has client CAs.
func (s *Server) withClientCertificateCheck(h http.Handler) http.Handler {
	if s.clientCAs == nil {
		return h
	}
	return requireClientCertificate(h)
}

// requireClientCertificate answers 401, before reading the body, a request
// that did not present a certificate that TLS verified against the client
// CAs.
func requireClientCertificate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 {
			writeStatus(w, http.StatusUnauthorized, metav1.StatusReasonUnauthorized,
				"admission reviews are accepted only from a client presenting a certificate signed by the webhook's client CA")
			return
		}
		next.ServeHTTP(w, r)
	})
}
