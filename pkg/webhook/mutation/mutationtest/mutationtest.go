// Package mutationtest admits pods through a mutator and applies its patch
// as the API server would, for the tests of the server and the mutators.
// Only tests import it.
package mutationtest

import (
	"context"
	"encoding/json"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// Admit asks m about a pod being created in namespace and returns the pod
// with the answer's patch applied.
func Admit(t testing.TB, m mutation.Mutator, namespace string, pod *corev1.Pod) (*corev1.Pod, mutation.Result) {
	t.Helper()
	result := m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Create, namespace, "", pod, nil))
	return ApplyPatch(t, pod, result), result
}

// ApplyPatch applies a result's patch to the pod as the API server would:
// the pod itself when the result is a refusal or has no patch.
func ApplyPatch(t testing.TB, pod *corev1.Pod, result mutation.Result) *corev1.Pod {
	t.Helper()
	if result.Denied != nil || len(result.Patch) == 0 {
		return pod
	}
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := json.Marshal(result.Patch)
	if err != nil {
		t.Fatal(err)
	}
	return ApplyJSONPatch(t, raw, ops)
}

// ApplyJSONPatch applies a JSON patch to a pod's JSON and decodes the
// patched pod, failing the test if any of that fails.
func ApplyJSONPatch(t testing.TB, podJSON, patchJSON []byte) *corev1.Pod {
	t.Helper()
	patch, err := jsonpatch.DecodePatch(patchJSON)
	if err != nil {
		t.Fatalf("patch does not decode: %v: %s", err, patchJSON)
	}
	patched, err := patch.Apply(podJSON)
	if err != nil {
		t.Fatalf("patch does not apply: %v\npatch %s\npod %s", err, patchJSON, podJSON)
	}
	out := &corev1.Pod{}
	if err := json.Unmarshal(patched, out); err != nil {
		t.Fatalf("patched pod does not decode: %v\n%s", err, patched)
	}
	return out
}

// Reencode returns the pod as the API server encodes it, and the pod as the
// server decodes that.
func Reencode(t testing.TB, pod *corev1.Pod) ([]byte, *corev1.Pod) {
	t.Helper()
	encoded, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	out := &corev1.Pod{}
	if err := json.Unmarshal(encoded, out); err != nil {
		t.Fatal(err)
	}
	return encoded, out
}

// Readmit admits the patched pod again as the API server's reinvocation
// does, with req's operation, namespace, subresource and old pod, and fails
// the test unless m lets it through unchanged. firstPatch, the patch that
// made it, is for the failure message.
func Readmit(t testing.TB, m mutation.Mutator, req *mutation.Request, patched *corev1.Pod, firstPatch []byte) {
	t.Helper()
	_, again := Reencode(t, patched)
	var old *corev1.Pod
	if err := req.DecodeOldPod(&old); err != nil {
		t.Fatal(err)
	}
	second := m.Mutate(context.Background(), mutation.RequestFor(req.Operation, req.Namespace, req.SubResource, again, old))
	if second.Denied != nil || len(second.Patch) > 0 {
		t.Fatalf("admitting the patched pod again changed the answer: denied %+v, patch %+v\nfirst patch %s", second.Denied, second.Patch, firstPatch)
	}
}
