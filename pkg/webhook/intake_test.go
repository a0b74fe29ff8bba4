package webhook

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// apiServerClient calls a webhook the way the API server does: client-go's
// REST client with a codec over the admission types (as
// k8s.io/apiserver/pkg/util/webhook.NewClientManager builds it), so the
// error it returns is what the API server reports after
// `failed calling webhook "<name>": failed to call webhook:`.
func apiServerClient(t *testing.T, url string) *rest.RESTClient {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := admissionv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	client, err := rest.RESTClientFor(&rest.Config{Host: url, ContentConfig: rest.ContentConfig{
		GroupVersion: &admissionv1.SchemeGroupVersion, ContentType: "application/json",
		NegotiatedSerializer: serializer.NegotiatedSerializerWrapper(runtime.SerializerInfo{
			Serializer: serializer.NewCodecFactory(scheme).LegacyCodec(admissionv1.SchemeGroupVersion),
		}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// Beyond the cap an admission is refused at once with 429 and a Status the
// API server's client decodes, so the user of a fail-closed webhook reads
// why; the client does not retry it (no Retry-After).
func TestInFlightCapAnswersOverload(t *testing.T) {
	m := newMetrics()
	held := blockingMutator{entered: make(chan struct{}, 1), release: make(chan struct{})}
	pods := newPodHandler([]mutation.Mutator{held}, m)
	pods.intake = newIntake(1, 0, m)
	srv := httptest.NewServer(m.instrument(MutatePodsPath, pods))
	defer srv.Close()
	client := apiServerClient(t, srv.URL)
	// The API server hands its client the AdmissionReview object to encode.
	body := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(reviewBody(t, realisticPod(nil), podResource, ""), body); err != nil {
		t.Fatal(err)
	}

	first := make(chan error, 1)
	go func() {
		first <- client.Post().AbsPath(MutatePodsPath).Body(body).Do(context.Background()).Into(&admissionv1.AdmissionReview{})
	}()
	select {
	case <-held.entered:
	case err := <-first:
		t.Fatalf("the first admission did not reach the mutator: %v", err)
	}
	if got := testutil.ToFloat64(m.inFlight); got != 1 {
		t.Errorf("in-flight gauge = %v with one admission held", got)
	}

	err := client.Post().AbsPath(MutatePodsPath).Body(body).Do(context.Background()).Into(&admissionv1.AdmissionReview{})
	want := "the workload-access webhook is overloaded: 1 admissions are already in progress on this replica; retry in a few seconds"
	if !apierrors.IsTooManyRequests(err) || err.Error() != want {
		t.Fatalf("over the cap: err = %v, want 429 with %q", err, want)
	}
	select {
	case <-held.entered:
		t.Error("the overloaded request reached the mutators")
	default:
	}
	close(held.release)
	if err := <-first; err != nil {
		t.Fatalf("the admission within the cap: %v", err)
	}
	if got := testutil.ToFloat64(m.httpRequests.WithLabelValues("POST", MutatePodsPath, "429")); got != 1 {
		t.Errorf("429s counted: %v, want 1 (the client must not have retried)", got)
	}
	if got := testutil.ToFloat64(m.inFlight); got != 0 {
		t.Errorf("in-flight gauge = %v after both answered", got)
	}
	// With the slot free again, admissions go through.
	if err := client.Post().AbsPath(MutatePodsPath).Body(body).Do(context.Background()).Into(&admissionv1.AdmissionReview{}); err != nil {
		t.Fatal(err)
	}
}

// Every refusal of a malformed request is a Status, which the API server
// decodes and shows.
func TestMalformedRequestsAreAnsweredWithAStatus(t *testing.T) {
	h := newPodHandler(nil, newMetrics())
	for _, tc := range []struct {
		method, contentType, body string
		wantCode                  int
	}{
		{http.MethodGet, "application/json", "{}", http.StatusMethodNotAllowed},
		{http.MethodPost, "text/plain", "{}", http.StatusUnsupportedMediaType},
		{http.MethodPost, "application/json", "{", http.StatusBadRequest},
		{http.MethodPost, "application/json", "{}", http.StatusBadRequest},
	} {
		req := httptest.NewRequest(tc.method, MutatePodsPath, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", tc.contentType)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var status metav1.Status
		if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil || rec.Code != tc.wantCode || int(status.Code) != tc.wantCode ||
			status.Kind != "Status" || status.Status != metav1.StatusFailure || status.Message == "" ||
			rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s %s %q: %d %s (%v)", tc.method, tc.contentType, tc.body, rec.Code, rec.Body, err)
		}
	}
}
