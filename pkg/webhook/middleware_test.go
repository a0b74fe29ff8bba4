package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// panicMutator panics for pods carrying its annotation, or returns a patch
// that panics when encoded when the annotation says "encode".
type panicMutator struct{}

func (panicMutator) Name() string { return "boom" }
func (panicMutator) RequestAnnotations() []string {
	return []string{"subscription.openshift.io/inject-bundle"}
}
func (panicMutator) Mutate(_ context.Context, req *mutation.Request) mutation.Result {
	if req.Outline.Metadata.Labels["boom"] == "encode" {
		return mutation.Result{Patch: []mutation.PatchOperation{{Op: "add", Path: "/metadata/labels/x", Value: panicsWhenEncoded{}}}}
	}
	var seen map[string]bool
	seen[req.Outline.Metadata.GenerateName] = true // assignment to entry in nil map
	return mutation.Result{}
}

type panicsWhenEncoded struct{}

func (panicsWhenEncoded) MarshalJSON() ([]byte, error) { panic("cannot encode") }

// A panic in a mutator, or in the handler itself, refuses a pod that asked
// for an injection and admits any other pod unchanged, with a warning; it is
// counted by where it happened.
func TestPanicsAreRecoveredIntoTheFailurePolicysAnswer(t *testing.T) {
	m := newMetrics()
	h := newPodHandler([]mutation.Mutator{panicMutator{}}, m)
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		encode      bool
		wantAllowed bool
		wantSource  string
		wantText    string
	}{
		{name: "a pod that asked is refused", annotations: map[string]string{"subscription.openshift.io/inject-bundle": "b1"},
			wantSource: "boom", wantText: "the boom injection failed internally while deciding on this pod; the pod asks for an injection through annotation subscription.openshift.io/inject-bundle, so it is refused rather than started without it"},
		{name: "a pod that asked for a cluster bundle is refused", annotations: map[string]string{"subscription.openshift.io/inject-cluster-bundle": "c1"},
			wantSource: "boom", wantText: "through annotation subscription.openshift.io/inject-cluster-bundle, so it is refused"},
		{name: "a pod that asked for nothing is admitted unchanged", annotations: map[string]string{"openshift.io/scc": "restricted-v2"},
			wantAllowed: true, wantSource: "boom", wantText: "the boom injection failed internally while deciding on this pod; the pod asks for no injection, so it was admitted unchanged, without automatic injections"},
		{name: "a pod whose request annotation is empty asked for nothing", annotations: map[string]string{"subscription.openshift.io/inject-bundle": ""},
			wantAllowed: true, wantSource: "boom", wantText: "the pod asks for no injection, so it was admitted unchanged"},
		{name: "a panic in the handler refuses a pod that asked", annotations: map[string]string{"subscription.openshift.io/inject-bundle": "b1"}, encode: true,
			wantSource: "handler", wantText: "the webhook failed internally while deciding on this pod; the pod asks for an injection"},
		{name: "a panic in the handler admits a pod that asked for nothing", encode: true,
			wantAllowed: true, wantSource: "handler", wantText: "the webhook failed internally while deciding on this pod; the pod asks for no injection"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := testutil.ToFloat64(m.panics.WithLabelValues(tc.wantSource))
			pod := realisticPod(tc.annotations)
			if tc.encode {
				pod.Labels["boom"] = "encode"
			}
			rec, review := post(t, h, reviewBody(t, pod, podResource, ""))
			if review == nil || review.Response == nil {
				t.Fatalf("no admission response: %d %s", rec.Code, rec.Body)
			}
			resp := review.Response
			if resp.UID != "6f0d3c2e-1b7a-4f1e-8e2a-9b1d5c7e3a40" {
				t.Errorf("response UID %q does not echo the request", resp.UID)
			}
			if resp.Allowed != tc.wantAllowed || len(resp.Patch) != 0 || resp.PatchType != nil {
				t.Fatalf("allowed=%v patch=%s, want allowed=%v and no patch", resp.Allowed, resp.Patch, tc.wantAllowed)
			}
			text := strings.Join(resp.Warnings, "\n")
			if !tc.wantAllowed {
				if resp.Result == nil || resp.Result.Code != http.StatusInternalServerError {
					t.Fatalf("result = %+v, want code 500", resp.Result)
				}
				text = resp.Result.Message
			}
			if !strings.Contains(text, tc.wantText) {
				t.Errorf("answer %q, want it to contain %q", text, tc.wantText)
			}
			if got := testutil.ToFloat64(m.panics.WithLabelValues(tc.wantSource)) - before; got != 1 {
				t.Errorf("panics_recovered_total{source=%q} grew by %v, want 1", tc.wantSource, got)
			}
		})
	}
}

// Anything else that panics is answered 500 as a Status and counted; an
// aborted handler still aborts the connection as net/http intends.
func TestRecoverPanicsIsTheLastResort(t *testing.T) {
	m := newMetrics()
	h := recoverPanics(m, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("broken") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, ReadyzPath, nil))
	var status metav1.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil || rec.Code != http.StatusInternalServerError || status.Kind != "Status" || status.Code != 500 {
		t.Fatalf("answer %d %s (%v), want a 500 Status", rec.Code, rec.Body, err)
	}
	if got := testutil.ToFloat64(m.panics.WithLabelValues("http")); got != 1 {
		t.Errorf("panics_recovered_total{source=\"http\"} = %v", got)
	}

	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler to pass through", v)
		}
	}()
	recoverPanics(m, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })).
		ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, ReadyzPath, nil))
}

// The verb label takes three values whatever methods callers send.
func TestVerbLabelIsBounded(t *testing.T) {
	m := newMetrics()
	h := m.instrument(MutatePodsPath, newPodHandler(nil, m))
	for _, method := range []string{"GET", "POST", "PUT", "DELETE", "PROPFIND", "BREW", "X-" + strings.Repeat("A", 100), "get"} {
		req := httptest.NewRequest(http.MethodPost, MutatePodsPath, bytes.NewReader(nil))
		req.Method = method
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	families, err := m.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	verbs := map[string]bool{}
	for _, family := range families {
		if !strings.HasPrefix(family.GetName(), metricsNamespace+"_http_") {
			continue
		}
		for _, metric := range family.GetMetric() {
			for _, label := range metric.GetLabel() {
				if label.GetName() == "verb" {
					verbs[label.GetValue()] = true
				}
			}
		}
	}
	if len(verbs) != 3 || !verbs["GET"] || !verbs["POST"] || !verbs["other"] {
		t.Errorf("verb label values %v, want GET, POST and other", verbs)
	}
}
