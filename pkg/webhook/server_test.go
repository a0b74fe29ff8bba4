package webhook

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/crypto"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/clusterreads"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/grants"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

type testCA struct{ ca *crypto.CA }

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	config, err := crypto.MakeSelfSignedCAConfig(name, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{ca: &crypto.CA{Config: config, SerialGenerator: &crypto.RandomSerialGenerator{}}}
}

// issue writes a serving pair for 127.0.0.1 into dir the way the kubelet
// updates a Secret volume: both files into a fresh directory, then one atomic
// rename of the ..data symlink that tls.crt and tls.key point through, so a
// reader never sees a new certificate with an old key.
func (c *testCA) issue(t testing.TB, dir string) *x509.Certificate {
	t.Helper()
	cert, err := c.ca.MakeServerCert(sets.New("127.0.0.1"), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := cert.GetPEMBytes()
	if err != nil {
		t.Fatal(err)
	}
	version, err := os.MkdirTemp(dir, "..version-")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM} {
		if err := os.WriteFile(filepath.Join(version, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); os.IsNotExist(err) {
			if err := os.Symlink(filepath.Join("..data", name), link); err != nil {
				t.Fatal(err)
			}
		}
	}
	tmp := filepath.Join(dir, "..data_tmp")
	if err := os.Symlink(filepath.Base(version), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	return cert.Certs[0]
}

func (c *testCA) client() *http.Client {
	pool := x509.NewCertPool()
	pool.AddCert(c.ca.Config.Certs[0])
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		DisableKeepAlives: true,
	}}
}

type runningServer struct {
	url    string
	stop   context.CancelFunc
	result chan error
}

func startServer(t *testing.T, config Config) *runningServer {
	t.Helper()
	if config.MetricsGuard == nil {
		config.MetricsGuard = testMetricsGuard
	}
	server, err := New(config)
	if err != nil {
		t.Fatal(err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &runningServer{url: "https://" + listener.Addr().String(), stop: cancel, result: make(chan error, 1)}
	go func() { r.result <- server.Serve(ctx, listener) }()
	t.Cleanup(func() {
		cancel()
		<-r.result
	})
	return r
}

func get(client *http.Client, url string) (int, string, error) {
	return getWithToken(client, url, scraperToken)
}

func getWithToken(client *http.Client, url, token string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

func TestServerReadinessWaitsForCaches(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "ca")
	ca.issue(t, dir)
	var synced atomic.Bool
	srv := startServer(t, Config{
		CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), CertReloadInterval: time.Hour,
		CachesSynced: []cache.InformerSynced{synced.Load},
	})
	client := ca.client()

	if code, body, err := get(client, srv.url+HealthzPath); err != nil || code != http.StatusOK {
		t.Fatalf("healthz: %d %s %v", code, body, err)
	}
	code, body, err := get(client, srv.url+ReadyzPath)
	if err != nil || code != http.StatusServiceUnavailable || !strings.Contains(body, "informer caches are not synced") {
		t.Fatalf("readyz before the caches synced: %d %q %v", code, body, err)
	}
	synced.Store(true)
	if code, body, err := get(client, srv.url+ReadyzPath); err != nil || code != http.StatusOK {
		t.Fatalf("readyz after the caches synced: %d %q %v", code, body, err)
	}
}

func TestServerReloadsRotatedCertificate(t *testing.T) {
	dir := t.TempDir()
	oldCA, newCA := newTestCA(t, "old-ca"), newTestCA(t, "new-ca")
	first := oldCA.issue(t, dir)
	srv := startServer(t, Config{
		CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), CertReloadInterval: 20 * time.Millisecond,
	})
	served := func() (*x509.Certificate, error) {
		conn, err := tls.Dial("tcp", strings.TrimPrefix(srv.url, "https://"), &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			return nil, err
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0], nil
	}
	if cert, err := served(); err != nil || !cert.Equal(first) {
		t.Fatalf("serving %v (err %v), want the first certificate", cert.Subject, err)
	}

	// A key that does not match is ignored: the server keeps the old pair.
	if err := os.WriteFile(filepath.Join(dir, "tls.key"), []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if cert, err := served(); err != nil || !cert.Equal(first) {
		t.Fatalf("after a broken write: serving %v (err %v), want the first certificate still", cert.Subject, err)
	}

	second := newCA.issue(t, dir)
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		cert, err := served()
		return err == nil && cert.Equal(second), nil
	})
	if err != nil {
		t.Fatal("the rotated certificate was not picked up without a restart")
	}
	// Clients trusting only the new CA now succeed.
	if code, _, err := get(newCA.client(), srv.url+HealthzPath); err != nil || code != http.StatusOK {
		t.Fatalf("healthz with the new CA: %d %v", code, err)
	}
	_, metrics, err := get(newCA.client(), srv.url+MetricsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"workload_access_webhook_serving_certificate_reloads_total 2",
		"workload_access_webhook_serving_certificate_reload_failures_total 1",
		fmt.Sprintf("workload_access_webhook_serving_certificate_expiration_timestamp_seconds %g", float64(second.NotAfter.Unix())),
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// blockingMutator holds every admission until released.
type blockingMutator struct {
	entered chan struct{}
	release chan struct{}
}

func (m blockingMutator) Name() string                 { return "blocking" }
func (m blockingMutator) RequestAnnotations() []string { return nil }
func (m blockingMutator) Mutate(context.Context, *mutation.Request) mutation.Result {
	m.entered <- struct{}{}
	<-m.release
	return mutation.Result{}
}

func TestServerDrainsOnShutdown(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "ca")
	ca.issue(t, dir)
	m := blockingMutator{entered: make(chan struct{}, 1), release: make(chan struct{})}
	srv := startServer(t, Config{
		CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), CertReloadInterval: time.Hour,
		ShutdownDelay: time.Second, ShutdownTimeout: 10 * time.Second,
		Mutators: []mutation.Mutator{m},
	})
	client := ca.client()

	inFlight := make(chan error, 1)
	go func() {
		body := reviewBody(t, realisticPod(nil), podResource, "")
		resp, err := client.Post(srv.url+MutatePodsPath, "application/json", bytes.NewReader(body))
		if err == nil {
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
		}
		inFlight <- err
	}()
	<-m.entered
	srv.stop()

	// While draining, readiness fails but the listener still answers.
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		code, body, err := get(client, srv.url+ReadyzPath)
		return err == nil && code == http.StatusServiceUnavailable && strings.Contains(body, "shutting down"), nil
	})
	if err != nil {
		t.Fatal("readyz did not fail while draining")
	}
	// Each answer while draining closes its connection, so the API server
	// dials again, through endpoints that no longer list the pod.
	keepAlive := ca.client()
	keepAlive.Transport.(*http.Transport).DisableKeepAlives = false
	resp, err := keepAlive.Get(srv.url + HealthzPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !resp.Close {
		t.Error("an answer while draining keeps its connection open: the API server's pooled connections stay on a draining replica until the listener closes them")
	}
	// Past the delay the listener closes while the admission is still held.
	err = wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		_, err := client.Get(srv.url + HealthzPath)
		return err != nil, nil
	})
	if err != nil {
		t.Fatal("the listener did not close after the shutdown delay")
	}
	select {
	case err := <-srv.result:
		t.Fatalf("the server stopped with an admission in flight: %v", err)
	default:
	}
	close(m.release)
	if err := <-inFlight; err != nil {
		t.Fatalf("the in-flight admission failed: %v", err)
	}
	if err := <-srv.result; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	srv.result <- nil // for the cleanup
}

// BenchmarkNoOpAdmissionHTTPS is BenchmarkNoOpAdmission through the real
// server: TLS on loopback with a kept-alive connection, routing, metrics.
func BenchmarkNoOpAdmissionHTTPS(b *testing.B) {
	t := &testing.T{}
	dir := b.TempDir()
	ca := newTestCA(t, "bench-ca")
	ca.issue(t, dir)
	server, err := New(Config{CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), CertReloadInterval: time.Hour, MetricsGuard: testMetricsGuard})
	if err != nil {
		b.Fatal(err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.Serve(ctx, listener) }()
	defer func() { cancel(); <-done }()

	pool := x509.NewCertPool()
	pool.AddCert(ca.ca.Config.Certs[0])
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	url := "https://" + listener.Addr().String() + MutatePodsPath
	body := reviewBody(b, realisticPod(map[string]string{"openshift.io/scc": "restricted-v2"}), podResource, "")
	b.ReportAllocs()
	for b.Loop() {
		resp, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

func TestServerHonoursTheTLSProfile(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "ca")
	ca.issue(t, dir)
	srv := startServer(t, Config{CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), CertReloadInterval: time.Hour,
		MinTLSVersion: tls.VersionTLS13})
	pool := x509.NewCertPool()
	pool.AddCert(ca.ca.Config.Certs[0])
	address := strings.TrimPrefix(srv.url, "https://")
	if conn, err := tls.Dial("tcp", address, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS12}); err == nil {
		conn.Close()
		t.Fatal("a TLS 1.2 client was served under a TLS 1.3 minimum")
	}
	conn, err := tls.Dial("tcp", address, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13})
	if err != nil {
		t.Fatalf("a TLS 1.3 client: %v", err)
	}
	conn.Close()

	// TLS 1.2 with the profile's suites only.
	srv = startServer(t, Config{CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), CertReloadInterval: time.Hour,
		CipherSuites: []uint16{tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}})
	address = strings.TrimPrefix(srv.url, "https://")
	only128 := &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS12,
		CipherSuites: []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}}
	if conn, err := tls.Dial("tcp", address, only128); err == nil {
		conn.Close()
		t.Fatal("a suite outside the profile was negotiated")
	}
	if code, _, err := get(&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS12}}}, srv.url+HealthzPath); err != nil || code != http.StatusOK {
		t.Fatalf("a TLS 1.2 client with the profile's suites: %d %v", code, err)
	}
}

// The server runs with every limit set, and the defaults leave room for the
// longest an API server waits on a webhook (30 s).
func TestServerLimitsAreSet(t *testing.T) {
	server, err := New(Config{CertFile: "tls.crt", KeyFile: "tls.key", CertReloadInterval: time.Hour, MetricsGuard: testMetricsGuard})
	if err != nil {
		t.Fatal(err)
	}
	hs := server.httpServer(server.Handler())
	if hs.ReadHeaderTimeout != 10*time.Second || hs.ReadTimeout != 15*time.Second || hs.WriteTimeout != 30*time.Second ||
		hs.IdleTimeout != 90*time.Second || hs.MaxHeaderBytes != 64<<10 {
		t.Errorf("limits: read header %v, read %v, write %v, idle %v, header bytes %d",
			hs.ReadHeaderTimeout, hs.ReadTimeout, hs.WriteTimeout, hs.IdleTimeout, hs.MaxHeaderBytes)
	}
	if server.config.MaxInFlight != DefaultMaxInFlight || DefaultMaxInFlight <= 0 {
		t.Errorf("in-flight cap %d", server.config.MaxInFlight)
	}
	if _, err := New(Config{CertFile: "tls.crt", KeyFile: "tls.key", CertReloadInterval: time.Hour, MetricsGuard: testMetricsGuard, MaxInFlight: -1}); err == nil {
		t.Error("a negative in-flight cap was accepted")
	}
}

// Clients that send slowly, hold a connection idle or wait on a stuck
// answer lose the connection once their time is up.
func TestServerCutsOffSlowAndIdleClients(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "ca")
	ca.issue(t, dir)
	held := blockingMutator{entered: make(chan struct{}, 1), release: make(chan struct{})}
	defer close(held.release)
	const limit = 300 * time.Millisecond
	srv := startServer(t, Config{
		CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), CertReloadInterval: time.Hour,
		ReadTimeout: limit, WriteTimeout: limit, IdleTimeout: limit,
		Mutators: []mutation.Mutator{held},
	})
	pool := x509.NewCertPool()
	pool.AddCert(ca.ca.Config.Certs[0])
	dial := func(t *testing.T) *tls.Conn {
		conn, err := tls.Dial("tcp", strings.TrimPrefix(srv.url, "https://"), &tls.Config{RootCAs: pool, NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	// closedWithin reads (and discards) until the server closes conn.
	closedWithin := func(t *testing.T, conn *tls.Conn, within time.Duration) {
		t.Helper()
		start := time.Now()
		_ = conn.SetReadDeadline(start.Add(within))
		_, err := io.Copy(io.Discard, conn)
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() {
			t.Fatalf("the server kept the connection open for %v", within)
		}
	}

	t.Run("headers sent slowly", func(t *testing.T) {
		conn := dial(t)
		_, _ = io.WriteString(conn, "POST "+MutatePodsPath+" HTTP/1.1\r\nHost: webhook\r\n")
		closedWithin(t, conn, 3*time.Second)
	})
	t.Run("body sent slowly", func(t *testing.T) {
		conn := dial(t)
		_, _ = io.WriteString(conn, "POST "+MutatePodsPath+" HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"apiVersion\":")
		closedWithin(t, conn, 3*time.Second)
	})
	t.Run("idle connection", func(t *testing.T) {
		conn := dial(t)
		_, _ = io.WriteString(conn, "GET "+HealthzPath+" HTTP/1.1\r\nHost: webhook\r\n\r\n")
		closedWithin(t, conn, 3*time.Second)
	})
	t.Run("answer stuck past the write timeout", func(t *testing.T) {
		client := ca.client()
		done := make(chan error, 1)
		go func() {
			resp, err := client.Post(srv.url+MutatePodsPath, "application/json", bytes.NewReader(reviewBody(t, realisticPod(nil), podResource, "")))
			if err == nil {
				resp.Body.Close()
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
			done <- err
		}()
		<-held.entered
		time.Sleep(2 * limit)
		held.release <- struct{}{} // lets the handler write, past its deadline
		if err := <-done; err == nil || strings.HasPrefix(err.Error(), "status") {
			t.Fatalf("the client got an answer written after the write timeout: %v", err)
		}
	})
}

// Clients that send their headers and then withhold the body hold a
// connection and a goroutine until their read deadline, but no admission
// slot: a review sent meanwhile is answered, on both paths (issue 26).
func TestSlowBodiesCannotCrowdOutReviews(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "ca")
	ca.issue(t, dir)
	sars, _ := sarRecorder(map[string]bool{"get": true}, nil)
	const annotation = "subscription.openshift.io/inject-bundle"
	srv := startServer(t, Config{
		CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), CertReloadInterval: time.Hour,
		MaxInFlight:  2,
		Mutators:     []mutation.Mutator{labelMutator{annotation: annotation}},
		AccessGrants: &grants.Checker{Authorizer: clusterreads.GrantsAuthorizer{Client: sars.AuthorizationV1().SubjectAccessReviews()}, Instances: noScopeInstances},
	})
	pool := x509.NewCertPool()
	pool.AddCert(ca.ca.Config.Certs[0])
	client := ca.client()

	for _, tc := range []struct {
		path   string
		slots  int
		review []byte
		want   func(*admissionv1.AdmissionResponse) bool
	}{
		{MutatePodsPath, 2, reviewBody(t, realisticPod(map[string]string{annotation: "yes"}), podResource, ""),
			func(r *admissionv1.AdmissionResponse) bool { return r.Allowed && len(r.Patch) > 0 }},
		{ValidateAccessGrantsPath, maxInFlightGrants, grantsReview(t),
			func(r *admissionv1.AdmissionResponse) bool {
				return r.Result != nil && r.Result.Code == http.StatusForbidden
			}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			for range tc.slots + 4 {
				conn, err := tls.Dial("tcp", strings.TrimPrefix(srv.url, "https://"), &tls.Config{RootCAs: pool, NextProtos: []string{"http/1.1"}})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { conn.Close() })
				if _, err := io.WriteString(conn, "POST "+tc.path+"?timeout=5s HTTP/1.1\r\nHost: webhook\r\n"+
					"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(300 * time.Millisecond) // for the server to take every request in

			start := time.Now()
			resp, err := client.Post(srv.url+tc.path+"?timeout=5s", "application/json", bytes.NewReader(tc.review))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			var review admissionv1.AdmissionReview
			if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &review) != nil || review.Response == nil || !tc.want(review.Response) {
				t.Fatalf("with %d slow bodies open: status %d: %s", tc.slots+4, resp.StatusCode, body)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("answered after %v", took)
			}
		})
	}
}

// The open connections gauge counts the API server's pooled connections to
// the admission listener, idle ones included (a replica killed takes every
// one of them down: test/faults bounds its refusals by this count), and
// not the metrics listener's scrapes.
func TestServerCountsOpenConnections(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "ca")
	ca.issue(t, dir)
	server, err := New(Config{
		CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), CertReloadInterval: time.Hour,
		MetricsListenAddress: "127.0.0.1:0", MetricsGuard: testMetricsGuard,
	})
	if err != nil {
		t.Fatal(err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	metricsListener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- server.ServeWithMetrics(ctx, listener, metricsListener) }()
	t.Cleanup(func() {
		cancel()
		<-result
	})
	openConnections := func() string {
		t.Helper()
		_, body, err := get(ca.client(), "https://"+metricsListener.Addr().String()+MetricsPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(body, "\n") {
			if value, ok := strings.CutPrefix(line, "workload_access_webhook_open_connections "); ok {
				return value
			}
		}
		t.Fatalf("no open connections series in:\n%s", body)
		return ""
	}
	waitFor := func(want string) {
		t.Helper()
		var got string
		if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
			got = openConnections()
			return got == want, nil
		}); err != nil {
			t.Fatalf("open connections = %s, want %s", got, want)
		}
	}

	waitFor("0")
	// Three kept-alive connections, each idle after one answer, as the API
	// server's pool holds them between calls.
	pool := x509.NewCertPool()
	pool.AddCert(ca.ca.Config.Certs[0])
	var conns []*tls.Conn
	for range 3 {
		conn, err := tls.Dial("tcp", listener.Addr().String(), &tls.Config{RootCAs: pool, NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, "GET "+HealthzPath+" HTTP/1.1\r\nHost: webhook\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := http.ReadResponse(bufio.NewReader(conn), nil); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
	}
	waitFor("3")
	for _, conn := range conns {
		conn.Close()
	}
	waitFor("0")
}
