//go:build unix

package webhook

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// The handler decodes in full only the volumes a mutator reads (its own,
// by name). A pod admitted again with what it was given changes nothing:
// both mutators find their volumes there, equal to what they would add,
// which they could not tell from a volume read by name alone.
func TestVolumesTheMutatorsReadAreDecodedInFull(t *testing.T) {
	h := newPodHandler(benchMutators(t, checkoutRole), newMetrics())
	if h.readsVolume == nil {
		t.Fatal("the production mutators read every volume in full; want their own volumes only")
	}
	pod := checkoutPod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"})
	first := admitPatch(t, h, pod)
	if !strings.Contains(string(first), `"subscription-entitlements"`) || !strings.Contains(string(first), `"aws-iam-token"`) {
		t.Fatalf("first admission's patch %s; want the Bundle's volumes and the token volume", first)
	}
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	patch, err := jsonpatch.DecodePatch(first)
	if err != nil {
		t.Fatal(err)
	}
	if raw, err = patch.Apply(raw); err != nil {
		t.Fatal(err)
	}
	var injected corev1.Pod
	if err := json.Unmarshal(raw, &injected); err != nil {
		t.Fatal(err)
	}
	if second := admitPatch(t, h, &injected); strings.Contains(string(second), "/spec/volumes") {
		t.Errorf("the injected pod admitted again has its volumes patched: %s; want them found equal", second)
	}
}

// admitPatch admits pod through h and returns the answer's patch.
func admitPatch(t *testing.T, h *podHandler, pod *corev1.Pod) []byte {
	t.Helper()
	out, failure := h.answer(context.Background(), reviewBody(t, pod, podResource, ""))
	var review admissionv1.AdmissionReview
	if failure != nil || json.Unmarshal(out, &review) != nil || review.Response == nil || !review.Response.Allowed {
		t.Fatalf("answer %.500s, %v; want the pod allowed", out, failure)
	}
	return review.Response.Patch
}

// A volume read by name only is sent back as the review carried it, or
// not at all: encoded from its value it would lose what it is.
func TestAVolumeReadByNameIsNeverEncodedFromItsValue(t *testing.T) {
	volumes := mutation.Volumes{Items: []corev1.Volume{
		{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		mutation.NameOnly("config"),
	}}
	if _, err := appendValue(nil, volumes); err == nil || !strings.Contains(err.Error(), `"config"`) {
		t.Errorf("encoding a name-only volume without its JSON: %v; want an error naming it", err)
	}
	if _, err := json.Marshal(volumes); err == nil {
		t.Error("encoding/json encoded a name-only volume without its JSON; want an error")
	}
	volumes.Encoded = []mutation.Encoded{nil, mutation.Encoded(`{"name":"config","configMap":{"name":"c"}}`)}
	out, err := appendValue(nil, volumes)
	if err != nil || !strings.Contains(string(out), `{"name":"config","configMap":{"name":"c"}}`) {
		t.Errorf("encoding a name-only volume with its JSON: %s, %v; want that JSON", out, err)
	}
	// In an answer: the pod is refused, never admitted with another volume.
	out, failure := encodeAdmitted(metav1.TypeMeta{}, "uid", []mutation.PatchOperation{{Op: "add", Path: "/spec/volumes", Value: mutation.Volumes{Items: volumes.Items}}}, nil)
	var review admissionv1.AdmissionReview
	if failure != nil || json.Unmarshal(out, &review) != nil || review.Response == nil || review.Response.Allowed ||
		review.Response.Result == nil || !strings.Contains(review.Response.Result.Message, `volume "config"`) {
		t.Errorf("answer with a name-only volume without its JSON: %s, %v; want the pod refused, naming the volume", out, failure)
	}
}
