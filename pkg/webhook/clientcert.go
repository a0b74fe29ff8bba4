package webhook

import (
	"crypto/x509"
	"fmt"
	"os"
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
