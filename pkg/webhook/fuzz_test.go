package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/subscription"
)

// fuzzAccess allows service account builder any cluster bundle but
// "secret-only", fails for "flaky" and times out for "slow".
type fuzzAccess struct{}

func (fuzzAccess) MayGetClusterBundle(_ context.Context, _, serviceAccount, bundle string) (bool, error) {
	switch bundle {
	case "flaky":
		return false, errors.New("the server is currently unable to handle the request")
	case "slow":
		return false, fuzzReviewTimedOut
	}
	return serviceAccount == "builder" && bundle != "secret-only", nil
}

// fuzzReviewTimedOut is how a review that got no answer in time fails: it
// wraps context.DeadlineExceeded, as clusterreads' reviewer's does.
var fuzzReviewTimedOut = fmt.Errorf("the API server did not answer the SubjectAccessReview within 2s: %w", context.DeadlineExceeded)

// fuzzWorld is the subscription mutator over bundles in namespace shop
// (valid, overlapping, invalid, always-inject) and cluster bundles.
func fuzzWorld(tb testing.TB) mutation.Mutator {
	valid := []metav1.Condition{{Type: v1alpha1.ConditionInvalid, Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonValid}}
	always := map[string]string{v1alpha1.AlwaysInjectLabel: "true"}
	ref := func(namespace, name, share string, keys ...string) []v1alpha1.ResolvedReference {
		return []v1alpha1.ResolvedReference{{Namespace: namespace, Name: name, Share: share, Keys: keys}}
	}
	bundle := func(name string, labels map[string]string, ents, repos []v1alpha1.ResolvedReference) *v1alpha1.Bundle {
		return &v1alpha1.Bundle{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", Generation: 1, Labels: labels},
			Status: v1alpha1.BundleStatus{ObservedGeneration: 1, Conditions: valid, Entitlements: ents, YumRepositories: repos}}
	}
	clusterBundle := func(name string, labels map[string]string, ents, repos []v1alpha1.ResolvedReference) *v1alpha1.ClusterBundle {
		return &v1alpha1.ClusterBundle{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 3, Labels: labels},
			Status: v1alpha1.ClusterBundleStatus{ObservedGeneration: 3, Conditions: valid, ClusterRole: name + "-subscription-bundle",
				Entitlements: ents, YumRepositories: repos}}
	}
	invalid := bundle("broken", nil, nil, nil)
	invalid.Status.Conditions = []metav1.Condition{{Type: v1alpha1.ConditionInvalid, Status: metav1.ConditionTrue, Reason: "MissingReference", Message: "secret shop/gone not found"}}

	bundles := subscription.NewBundleCache()
	for _, b := range []*v1alpha1.Bundle{
		bundle("rhel", nil, ref("shop", "ent", "", "1.pem", "1-key.pem"), ref("shop", "repo", "", "redhat.repo")),
		bundle("driver", nil, ref("shop", "driver", "", "2.pem"), ref("shop", "driver-repo", "", "driver.repo")),
		bundle("clash", nil, ref("shop", "other-ent", "", "1.pem"), nil),
		bundle("reserved", nil, nil, ref("shop", "bad-repo", "", "subscription")),
		bundle("auto", always, nil, ref("shop", "auto-repo", "", "auto.repo")),
		invalid,
	} {
		if err := bundles.Add(b); err != nil {
			tb.Fatal(err)
		}
	}
	clusterBundles := subscription.NewClusterBundleCache()
	for _, cb := range []*v1alpha1.ClusterBundle{
		clusterBundle("cluster", nil, ref("openshift-config", "ent", "share-ent", "c.pem", "c-key.pem"), ref("openshift-config", "repo", "share-repo", "cluster.repo")),
		clusterBundle("secret-only", nil, ref("openshift-config", "x", "share-x", "x.pem"), nil),
		clusterBundle("flaky", nil, ref("openshift-config", "f", "share-f", "f.pem"), nil),
		clusterBundle("slow", nil, ref("openshift-config", "s", "share-s", "s.pem"), nil),
		clusterBundle("auto-cluster", always, ref("openshift-config", "a", "share-a", "a.pem"), nil),
	} {
		if err := clusterBundles.Add(cb); err != nil {
			tb.Fatal(err)
		}
	}
	m, err := subscription.New(bundles, clusterBundles, fuzzAccess{})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// FuzzPodHandler sends raw bytes as an AdmissionReview. Whatever they are,
// the handler does not panic (recovered panics count too), always answers
// JSON, answers 200 with the request's UID whenever a request was parsed
// and an HTTP error Status otherwise, and any patch applies to the pod as
// the API server encodes it.
func FuzzPodHandler(f *testing.F) {
	m := newMetrics()
	// The mutators production runs, in its order: pod identity sees the
	// pod as the subscription mutator left it.
	config := podidentity.DefaultConfig()
	config.Region = "eu-west-3"
	role := staticServiceAccounts{"shop/frontend": podidentity.CachedAnnotations(map[string]string{podidentityv1alpha1.RoleARNAnnotation: "arn:aws:iam::111122223333:role/frontend"})}
	h := newPodHandler([]mutation.Mutator{fuzzWorld(f), podidentity.New(config, role)}, m)
	f.Add([]byte(`{}`))
	f.Add(reviewBody(f, realisticPod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}), podResource, ""))
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, MutatePodsPath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		for _, source := range []string{"subscription", "pod-identity", handlerSite} {
			if n := testutil.ToFloat64(m.panics.WithLabelValues(source)); n > 0 {
				t.Fatalf("a panic in %s was recovered; input %q", source, body)
			}
		}
		if !json.Valid(rec.Body.Bytes()) || rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("answer is not JSON (%d, %q): %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
		var sent admissionv1.AdmissionReview
		if json.Unmarshal(body, &sent) != nil || sent.Request == nil {
			// The handler decodes less than the whole review, so it may
			// answer a review that does not decode whole; if it does not,
			// it says why.
			var status metav1.Status
			if rec.Code == http.StatusOK {
				var answer admissionv1.AdmissionReview
				if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil || answer.Response == nil {
					t.Fatalf("a 200 that is no AdmissionReview: %s", rec.Body)
				}
			} else if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil || rec.Code < 400 || int(status.Code) != rec.Code ||
				status.Status != metav1.StatusFailure || status.Message == "" {
				t.Fatalf("no request parsed, want an error Status; got %d %s", rec.Code, rec.Body)
			}
			return
		}
		var answer admissionv1.AdmissionReview
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil || rec.Code != http.StatusOK || answer.Response == nil {
			t.Fatalf("request parsed, want a 200 AdmissionReview; got %d %s (%v)", rec.Code, rec.Body, err)
		}
		resp := answer.Response
		if resp.UID != sent.Request.UID {
			t.Fatalf("response UID %q, request UID %q", resp.UID, sent.Request.UID)
		}
		if !resp.Allowed && (resp.Result == nil || resp.Result.Message == "") {
			t.Fatalf("refused without a message: %+v", resp)
		}
		if len(resp.Patch) == 0 {
			return
		}
		if !resp.Allowed || resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
			t.Fatalf("patch with allowed=%v type %v", resp.Allowed, resp.PatchType)
		}
		// The API server applies the patch to its own encoding of the pod.
		var pod corev1.Pod
		if err := json.Unmarshal(sent.Request.Object.Raw, &pod); err != nil {
			t.Fatalf("patched a pod that does not decode: %v", err)
		}
		encoded, err := json.Marshal(&pod)
		if err != nil {
			t.Fatal(err)
		}
		mutationtest.ApplyJSONPatch(t, encoded, resp.Patch)
	})
}
