// Package issuerfront serves a service account issuer published to a local
// S3 gateway over HTTPS on port 443 with a test CA, as a CDN or an S3
// website endpoint would on AWS: versitygw's IAM registers OIDC providers
// only for https:// URLs without a port. test/stschain and run-local use it.
package issuerfront

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // IAM's OIDC thumbprint is SHA-1 by definition
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// Front is the issuer's HTTPS address: a reverse proxy on address:443 to
// the S3 gateway, as a CDN or an S3 website endpoint is on AWS, serving a
// certificate of its own test CA. Requests keep their Host, so the
// operator's signed uploads through it verify at the gateway.
type Front struct {
	// URL is https://<address>.
	URL string
	// CAFile holds the CA certificate (PEM), for SSL_CERT_FILE.
	CAFile string
	// Thumbprint is the CA certificate's SHA-1, hex: what an IAM OIDC
	// provider pins.
	Thumbprint string
	// Client trusts the CA.
	Client *http.Client
	server *http.Server
}

// Start serves target (the S3 gateway's URL) at https://address on port
// 443, which needs root, CAP_NET_BIND_SERVICE or a network namespace of
// one's own; the CA certificate is written to dir/issuer-ca.crt.
func Start(dir, address, target string) (*Front, error) {
	targetURL, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "issuer-front-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, caKey.Public(), caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: address},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP(address)},
	}, ca, leafKey.Public(), caKey)
	if err != nil {
		return nil, err
	}
	f := &Front{URL: "https://" + address, CAFile: filepath.Join(dir, "issuer-ca.crt")}
	if err := os.WriteFile(f.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		return nil, err
	}
	sum := sha1.Sum(caDER) //nolint:gosec // see the import
	f.Thumbprint = hex.EncodeToString(sum[:])
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	f.Client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}

	l, err := net.Listen("tcp", net.JoinHostPort(address, "443"))
	if err != nil {
		return nil, fmt.Errorf("listening on %s:443 for the issuer's HTTPS front (needs root, CAP_NET_BIND_SERVICE or a network namespace): %w", address, err)
	}
	f.server = &http.Server{
		// The chain ends in the CA: IAM takes the thumbprint of the last
		// certificate a provider presents.
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{{
			Certificate: [][]byte{leafDER, caDER},
			PrivateKey:  leafKey,
		}}},
		Handler: &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(targetURL)
			r.Out.Host = r.In.Host
		}},
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		if err := f.server.ServeTLS(l, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(os.Stderr, "the issuer's TLS front stopped: %v\n", err)
		}
	}()
	return f, nil
}

// Stop closes the front.
func (f *Front) Stop() { _ = f.server.Close() }
