package webhook

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The API server can present a client certificate to webhooks (a
// kubeconfig named in its WebhookAdmission configuration); OpenShift's
// kube-apiserver presents none today (docs/security.md). When the server is
// given the CA that signs that certificate, TLS verifies a certificate a
// client presents against it, and requireClientCertificate refuses an
// admission review from a client that presented none. Health, readiness and
// /metrics never ask for one: the kubelet and Prometheus have none.

// loadClientCAs reads the PEM bundle of client CAs at path.
func loadClientCAs(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the client CA bundle: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("the client CA bundle %s holds no PEM certificate", path)
	}
	return pool, nil
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
