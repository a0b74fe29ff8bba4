package webhook

import (
	"bytes"
	"encoding/json"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// encodingStrings are strings whose quoting differs between encoders.
var encodingStrings = []string{"", "plain", `"quoted" \ back`, "<b>&amp;</b>", "\b\f\n\r\t\x00\x1f\x7f", "é ü 日本", "\u2028\u2029", "\xff\xfe bad \xc3", "\xed\xa0\x80", "/spec/volumes/-"}

// The patch and the answer are the bytes encoding/json would write.
func TestEncodingMatchesEncodingJSON(t *testing.T) {
	for _, s := range encodingStrings {
		want, _ := json.Marshal(s)
		if got := mutation.AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
	mount := corev1.VolumeMount{Name: "aws-iam-token", MountPath: "/var/run/secrets/eks.amazonaws.com/serviceaccount", ReadOnly: true}
	patch := []mutation.PatchOperation{
		{Op: "add", Path: "/spec/volumes/0", Value: corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		{Op: "add", Path: "/spec/containers/0/volumeMounts/-", Value: &mount},
		{Op: "add", Path: "/spec/containers/1/volumeMounts", Value: []corev1.VolumeMount{mount}},
		{Op: "add", Path: "/metadata/annotations/a~1b", Value: "<value>"},
		{Op: "add", Path: "/metadata/annotations", Value: map[string]string{"k": "v"}},
		{Op: "remove", Path: "/metadata/annotations/x"},
		{Op: "add", Path: "/spec/containers/2/volumeMounts", Value: []corev1.VolumeMount{
			{Name: "all", ReadOnly: true, RecursiveReadOnly: ptrTo(corev1.RecursiveReadOnlyIfPossible), MountPath: "/a<b>", SubPath: "s\n",
				MountPropagation: ptrTo(corev1.MountPropagationHostToContainer), SubPathExpr: "$(POD)"},
			{RecursiveReadOnly: ptrTo(corev1.RecursiveReadOnlyMode("")), MountPropagation: ptrTo(corev1.MountPropagationMode(""))},
		}},
		{Op: "add", Path: "/spec/containers/3/volumeMounts", Value: []corev1.VolumeMount(nil)},
		{Op: "add", Path: "/spec/containers/4/volumeMounts", Value: []corev1.VolumeMount{}},
	}
	want, err := json.Marshal(patch)
	if err != nil {
		t.Fatal(err)
	}
	encoded := make([]mutation.PatchOperation, len(patch))
	for i, op := range patch {
		encoded[i] = op
		if op.Value != nil {
			encoded[i].Value = mutation.Encode(op.Value)
		}
	}
	volumes := []corev1.Volume{{Name: "own", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x"}}},
		{Name: "injected", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "d", VolumeAttributes: map[string]string{"a": "b"}}}}}
	for _, list := range [][]corev1.Volume{nil, {}, volumes, checkoutPod(nil).Spec.Volumes} {
		want, _ := json.Marshal([]mutation.PatchOperation{{Op: "add", Path: "/spec/volumes", Value: list}})
		value := mutation.Volumes{Items: list}
		if len(list) == 2 {
			value.Encoded = []mutation.Encoded{nil, mutation.Encode(list[1])}
		}
		if got, err := appendPatch(nil, []mutation.PatchOperation{{Op: "add", Path: "/spec/volumes", Value: value}}); err != nil || !bytes.Equal(got, want) {
			t.Errorf("appendPatch(volumes) = %s, %v; want %s", got, err, want)
		}
		if got, err := json.Marshal(value); err != nil || !bytes.Equal(got, want[bytes.Index(want, []byte(`"value":`))+8:len(want)-2]) {
			t.Errorf("Volumes.MarshalJSON = %s, %v; want the value of %s", got, err, want)
		}
	}
	for _, p := range [][]mutation.PatchOperation{patch, encoded} {
		if got, err := appendPatch(nil, p); err != nil || !bytes.Equal(got, want) {
			t.Errorf("appendPatch = %s, %v; want %s", got, err, want)
		}
	}

	typeMetas := []metav1.TypeMeta{{}, {APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, {APIVersion: "admission.k8s.io/v1beta1", Kind: "<odd>"}}
	responses := []admissionv1.AdmissionResponse{
		{Allowed: true},
		{Allowed: true, Patch: want, PatchType: ptrTo(admissionv1.PatchTypeJSONPatch), Warnings: encodingStrings},
		{Allowed: false},
		{Result: &metav1.Status{Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden, Message: "no <way>"}},
		{Allowed: true, AuditAnnotations: map[string]string{"a": "b"}},
		{Allowed: true, Warnings: []string{}},
	}
	for _, tm := range typeMetas {
		for _, uid := range encodingStrings {
			for _, r := range responses {
				want, err := json.Marshal(admissionv1.AdmissionReview{TypeMeta: tm, Response: &admissionv1.AdmissionResponse{
					UID: types.UID(uid), Allowed: r.Allowed, Result: r.Result, Patch: r.Patch, PatchType: r.PatchType, AuditAnnotations: r.AuditAnnotations, Warnings: r.Warnings}})
				if err != nil {
					t.Fatal(err)
				}
				got, failure := encodeResponse(tm, types.UID(uid), &r)
				if failure != nil || !bytes.Equal(got, want) {
					t.Errorf("encodeResponse(%+v, %q, %+v) = %s, %v; want %s", tm, uid, r, got, failure, want)
				}
			}
		}
	}
}
