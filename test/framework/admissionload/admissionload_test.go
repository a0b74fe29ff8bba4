package admissionload

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/crypto"
	"k8s.io/apimachinery/pkg/util/sets"
)

func TestMain(m *testing.M) {
	ServeEchoIfAsked()
	os.Exit(m.Run())
}

// The echo child answers reviews, its CPU is read from /proc, and a check
// the answers do not pass fails the run with the server's name.
func TestEchoIsMeasuredAndChecked(t *testing.T) {
	dir := t.TempDir()
	caConfig, err := crypto.MakeSelfSignedCAConfig("admissionload-test", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ca := &crypto.CA{Config: caConfig, SerialGenerator: &crypto.RandomSerialGenerator{}}
	cert, err := ca.MakeServerCert(sets.New("127.0.0.1"), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := cert.WriteCertConfigFile(certFile, keyFile); err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(caConfig.Certs[0])
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	echo, err := StartEcho(addr, certFile, keyFile, filepath.Join(dir, "echo.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Stop()
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	defer client.CloseIdleConnections()
	if err := echo.WaitHealthy(client, "https://"+addr+"/healthz", time.Minute); err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1"}}`)
	server := Server{Name: "echo", PID: echo.PID, URL: "https://" + addr + EchoPath}
	if _, err := Measure(client, server, body, 500, 4); err != nil {
		t.Fatalf("the echo's answers: %v", err)
	}
	cpu, err := ProcessCPU(echo.PID)
	if err != nil || cpu <= 0 {
		t.Fatalf("the echo's CPU: %v, %v", cpu, err)
	}
	server.Check = PatchContains("AWS_ROLE_ARN")
	if err := Send(client, server, body, 10, 2); err == nil || !strings.Contains(err.Error(), "echo, admission") || !strings.Contains(err.Error(), "lacks \"AWS_ROLE_ARN\"") {
		t.Fatalf("a check the answers fail: %v", err)
	}
}
