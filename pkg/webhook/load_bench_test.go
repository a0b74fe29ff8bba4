package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/subscription"
)

// echoHandler is the floor: it reads the review, answers "allowed" with its
// UID, and does nothing else.
func echoHandler(w http.ResponseWriter, r *http.Request) {
	var review struct {
		Request struct {
			UID string `json:"uid"`
		} `json:"request"`
	}
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"`+review.Request.UID+`","allowed":true}}`)
}

// allowAll stands in for the SubjectAccessReview in this benchmark: it
// measures the server, not the API server's authorizer.
type allowAll struct{}

func (allowAll) MayGetClusterBundle(context.Context, string, string, string) (bool, error) {
	return true, nil
}

func benchSubscriptionMutator(b *testing.B) mutation.Mutator {
	bundles := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	valid := []metav1.Condition{{Type: v1alpha1.ConditionInvalid, Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonValid}}
	if err := bundles.Add(&v1alpha1.Bundle{
		ObjectMeta: metav1.ObjectMeta{Name: "rhel", Namespace: "shop", Generation: 1},
		Status: v1alpha1.BundleStatus{ObservedGeneration: 1, Conditions: valid,
			Entitlements:    []v1alpha1.ResolvedReference{{Name: "ent", Namespace: "shop", Keys: []string{"1.pem", "1-key.pem"}}},
			YumRepositories: []v1alpha1.ResolvedReference{{Name: "repo", Namespace: "shop", Keys: []string{"redhat.repo"}}}},
	}); err != nil {
		b.Fatal(err)
	}
	clusterBundles := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	return subscription.New(listers.NewBundleLister(bundles), listers.NewClusterBundleLister(clusterBundles), allowAll{})
}

// BenchmarkHTTPSLoad drives the server with concurrent clients over TLS on
// loopback: the echo floor, a pod that asks for nothing and one that asks
// for a bundle, both with the subscription mutator registered.
func BenchmarkHTTPSLoad(b *testing.B) {
	// The server's start and stop lines would interleave with the results.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	defer klog.LogToStderr(true)
	t := &testing.T{}
	dir := b.TempDir()
	ca := newTestCA(t, "bench-ca")
	ca.issue(t, dir)
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	pool := x509.NewCertPool()
	pool.AddCert(ca.ca.Config.Certs[0])

	cases := []struct {
		name  string
		body  []byte
		patch bool
	}{
		{name: "echo", body: reviewBody(b, realisticPod(nil), podResource, "")},
		{name: "nothing-requested", body: reviewBody(b, realisticPod(nil), podResource, "")},
		{name: "bundle-requested", body: reviewBody(b, realisticPod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}), podResource, ""), patch: true},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			listener, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			if tc.name == "echo" {
				cert, err := tls.LoadX509KeyPair(certFile, keyFile)
				if err != nil {
					b.Fatal(err)
				}
				srv := &http.Server{Handler: http.HandlerFunc(echoHandler), TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}
				go func() { done <- srv.ServeTLS(listener, "", "") }()
				defer func() { _ = srv.Close(); <-done }()
			} else {
				server, err := New(Config{CertFile: certFile, KeyFile: keyFile, CertReloadInterval: time.Hour, MetricsGuard: testMetricsGuard,
					Mutators: []mutation.Mutator{benchSubscriptionMutator(b)}, CachesSynced: []cache.InformerSynced{func() bool { return true }}})
				if err != nil {
					b.Fatal(err)
				}
				go func() { done <- server.Serve(ctx, listener) }()
				defer func() { cancel(); <-done }()
			}
			transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, MaxIdleConnsPerHost: 64}
			defer transport.CloseIdleConnections()
			client := &http.Client{Transport: transport}
			url := "https://" + listener.Addr().String() + MutatePodsPath

			b.ReportAllocs()
			b.SetParallelism(8) // 16 concurrent clients on 2 cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := client.Post(url, "application/json", bytes.NewReader(tc.body))
					if err != nil {
						b.Error(err)
						return
					}
					var review admissionv1.AdmissionReview
					err = json.NewDecoder(resp.Body).Decode(&review)
					resp.Body.Close()
					if err != nil || review.Response == nil || !review.Response.Allowed || (len(review.Response.Patch) > 0) != tc.patch {
						b.Errorf("unexpected response (status %d): %+v %v", resp.StatusCode, review.Response, err)
						return
					}
				}
			})
		})
	}
}
