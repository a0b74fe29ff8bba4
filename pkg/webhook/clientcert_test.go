package webhook

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/clusterreads"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/grants"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// With --client-ca-file, a review is answered only for a client that
// presented a certificate the CA signed (the API server's WebhookAdmission
// kubeconfig); without one it is refused before its body is read, and one
// signed by another CA fails the handshake. Health, readiness and /metrics
// need none.
func TestAdmissionRequiresTheAPIServersClientCertificate(t *testing.T) {
	dir := t.TempDir()
	serving := newTestCA(t, "serving-ca")
	serving.issue(t, dir)
	apiServerCA := newTestCA(t, "webhook-client-ca")
	caFile := filepath.Join(dir, "client-ca.crt")
	caPEM, _, err := apiServerCA.ca.Config.GetPEMBytes()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	sars, _ := sarRecorder(map[string]bool{"get": true}, nil)
	const annotation = "subscription.openshift.io/inject-bundle"
	srv := startServer(t, Config{
		CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), CertReloadInterval: time.Hour,
		ClientCAFile: caFile,
		Mutators:     []mutation.Mutator{labelMutator{annotation: annotation}},
		AccessGrants: &grants.Checker{Authorizer: clusterreads.GrantsAuthorizer{Client: sars.AuthorizationV1().SubjectAccessReviews()}, Instances: noScopeInstances},
	})

	apiServer := withClientCertificate(t, serving.client(), apiServerCA)
	stranger := withClientCertificate(t, serving.client(), newTestCA(t, "someone-elses-ca"))
	anonymous := serving.client()
	podReview := reviewBody(t, realisticPod(map[string]string{annotation: "yes"}), podResource, "")

	for _, c := range []struct {
		name   string
		client *http.Client
		path   string
		body   []byte
		// want is the HTTP status; 0 is a failed handshake.
		want int
	}{
		{"the API server's pod review", apiServer, MutatePodsPath, podReview, http.StatusOK},
		{"the API server's access grants review", apiServer, ValidateAccessGrantsPath, grantsReview(t), http.StatusOK},
		{"a pod review without a certificate", anonymous, MutatePodsPath, podReview, http.StatusUnauthorized},
		{"an access grants review without a certificate", anonymous, ValidateAccessGrantsPath, grantsReview(t), http.StatusUnauthorized},
		{"a pod review with another CA's certificate", stranger, MutatePodsPath, podReview, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, err := c.client.Post(srv.url+c.path+"?timeout=5s", "application/json", bytes.NewReader(c.body))
			if c.want == 0 {
				if err == nil {
					resp.Body.Close()
					t.Fatalf("answered %d, want a failed handshake", resp.StatusCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != c.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.want, body)
			}
			if c.want == http.StatusOK {
				var review admissionv1.AdmissionReview
				if err := json.Unmarshal(body, &review); err != nil || review.Response == nil {
					t.Fatalf("no review in the answer: %v: %s", err, body)
				}
			}
		})
	}
	for path, want := range map[string]int{HealthzPath: http.StatusOK, ReadyzPath: http.StatusOK, MetricsPath: http.StatusOK} {
		if code, body, err := get(anonymous, srv.url+path); err != nil || code != want {
			t.Errorf("%s without a client certificate: %d %v %s", path, code, err, body)
		}
	}
}

func TestClientCAFileMustHoldACertificate(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "ca")
	ca.issue(t, dir)
	empty := filepath.Join(dir, "empty.crt")
	if err := os.WriteFile(empty, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{empty, filepath.Join(dir, "missing.crt")} {
		if _, err := New(Config{CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), CertReloadInterval: time.Hour,
			MetricsGuard: testMetricsGuard, ClientCAFile: file}); err == nil {
			t.Errorf("%s accepted as a client CA bundle", file)
		}
	}
}

// withClientCertificate gives client a certificate that ca signs.
func withClientCertificate(t *testing.T, client *http.Client, ca *testCA) *http.Client {
	t.Helper()
	cert, err := ca.ca.MakeClientCertificateForDuration(&user.DefaultInfo{Name: "system:kube-apiserver"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := cert.GetPEMBytes()
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	transport := client.Transport.(*http.Transport).Clone()
	// Presented whatever CAs the server names, as a client that tries its
	// luck would.
	transport.TLSClientConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }
	return &http.Client{Timeout: client.Timeout, Transport: transport}
}
