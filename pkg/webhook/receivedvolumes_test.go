//go:build unix

package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// An API server newer than this build sends volume fields its corev1 types
// do not have. A Bundle's injection sends the pod's volumes back: they must
// come back as they came, not as this build would re-encode them.
func TestTheInjectionSendsThePodsVolumesBackAsTheyCame(t *testing.T) {
	body := reviewBody(t, checkoutPod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}), podResource, "")
	const own, newer = `{"name":"config",`, `{"name":"config","futureSource":{"mode":"x"},`
	if !bytes.Contains(body, []byte(own)) {
		t.Fatalf("the review has no %s", own)
	}
	body = bytes.Replace(body, []byte(own), []byte(newer), 1)
	handler := newPodHandler([]mutation.Mutator{benchSubscriptionMutator(t)}, newMetrics())
	out, failure := handler.answer(context.Background(), body)
	var review admissionv1.AdmissionReview
	if failure != nil || json.Unmarshal(out, &review) != nil || review.Response == nil || !review.Response.Allowed {
		t.Fatalf("answer %.300s, %v; want the pod allowed", out, failure)
	}
	var patch []struct {
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(review.Response.Patch, &patch); err != nil {
		t.Fatal(err)
	}
	for _, op := range patch {
		if op.Path != "/spec/volumes" {
			continue
		}
		var volumes []json.RawMessage
		if err := json.Unmarshal(op.Value, &volumes); err != nil {
			t.Fatal(err)
		}
		for _, v := range volumes {
			if bytes.HasPrefix(v, []byte(`{"name":"config"`)) {
				if !bytes.Contains(v, []byte(`"futureSource":{"mode":"x"}`)) {
					t.Fatalf("the pod's volume went back as %s: the field the API server sent is gone", v)
				}
				return
			}
		}
		t.Fatalf("the patch's volumes have no volume config: %s", review.Response.Patch)
	}
	t.Fatalf("the patch does not set the volumes: %s", review.Response.Patch)
}

// An answer carries its length: without it net/http sends one over 2 KB
// (a Bundle and a role: 6 KB) chunked, in more TLS records and writes.
func TestALargeAnswerCarriesItsLength(t *testing.T) {
	i := slices.IndexFunc(answerCases(), func(c answerCase) bool { return c.name == "on-bundle-role" })
	c := answerCases()[i]
	handler, body := c.handler(t)
	rec, review := post(t, handler, body)
	if review == nil || len(review.Response.Patch) < 2048 {
		t.Fatalf("%s: want an answer with a patch over 2 KB, got %d: %s", c.name, rec.Code, rec.Body)
	}
	if got, want := rec.Header().Get("Content-Length"), strconv.Itoa(rec.Body.Len()); got != want {
		t.Errorf("Content-Length %q, want %s", got, want)
	}
}
