package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
)

// servingCertificate holds the pair the server presents and swaps in a new one
// when the files change: the kubelet rewrites a mounted Secret in place when
// the operator rotates it, and restarting for that would drop admissions.
type servingCertificate struct {
	certFile, keyFile string
	metrics           *metrics

	current atomic.Pointer[tls.Certificate]
	// certPEM and keyPEM are the bytes current was built from, to tell a
	// rewrite with new content from the kubelet's periodic touch.
	certPEM, keyPEM []byte
	// rejectedCert and rejectedKey are the last pair that failed to load, so a
	// broken pair is reported once, not on every poll.
	rejectedCert, rejectedKey []byte
}

func newServingCertificate(certFile, keyFile string, m *metrics) *servingCertificate {
	return &servingCertificate{certFile: certFile, keyFile: keyFile, metrics: m}
}

// load reads the pair and, when it differs from the one in use and is valid,
// makes it current. A half-written or mismatched pair leaves the old one in
// place: the kubelet swaps both files at once, so the next poll sees both.
func (s *servingCertificate) load() (bool, error) {
	certPEM, err := os.ReadFile(s.certFile)
	if err != nil {
		return false, err
	}
	keyPEM, err := os.ReadFile(s.keyFile)
	if err != nil {
		return false, err
	}
	if bytes.Equal(certPEM, s.certPEM) && bytes.Equal(keyPEM, s.keyPEM) ||
		bytes.Equal(certPEM, s.rejectedCert) && bytes.Equal(keyPEM, s.rejectedKey) {
		return false, nil
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		s.rejectedCert, s.rejectedKey = certPEM, keyPEM
		return false, fmt.Errorf("serving certificate %s and key %s: %w", s.certFile, s.keyFile, err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		s.rejectedCert, s.rejectedKey = certPEM, keyPEM
		return false, fmt.Errorf("serving certificate %s: %w", s.certFile, err)
	}
	pair.Leaf = leaf
	s.certPEM, s.keyPEM = certPEM, keyPEM
	s.current.Store(&pair)
	s.metrics.observeCertificate(leaf)
	klog.InfoS("Loaded serving certificate", "file", s.certFile, "serial", leaf.SerialNumber.String(),
		"issuer", leaf.Issuer.CommonName, "notAfter", leaf.NotAfter.UTC().Format(time.RFC3339))
	return true, nil
}

// watch polls the files until ctx ends. Polling, not inotify: Secret volumes
// change by swapping a symlink, which inotify on the file path misses.
func (s *servingCertificate) watch(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			if _, err := s.load(); err != nil {
				s.metrics.certificateFailures.Inc()
				klog.ErrorS(err, "Keeping the serving certificate in use")
			}
		}
	}
}

func (s *servingCertificate) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := s.current.Load(); c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("no serving certificate loaded yet")
}

func (s *servingCertificate) loaded() bool {
	return s.current.Load() != nil
}
