package mutation

import (
	"encoding/json"
	"reflect"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
)

const twoContainerPod = `{"metadata":{"name":"web","annotations":{"a":"1","x/y":"2"},"labels":{"app":"web"}},
"spec":{"serviceAccountName":"web","volumes":[{"name":"kube-api-access","projected":{}}],
"initContainers":[{"name":"init","env":[{"name":"A","value":"1"}]}],
"containers":[{"name":"web","volumeMounts":[{"name":"kube-api-access","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]},{"name":"proxy"}]}}`

func outlineOf(t testing.TB, pod string) *PodOutline {
	t.Helper()
	var o PodOutline
	if err := json.Unmarshal([]byte(pod), &o); err != nil {
		t.Fatal(err)
	}
	return &o
}

// viaWholePod is what Apply must equal: the pod patched as the API server
// patches it, decoded again.
func viaWholePod(t testing.TB, pod string, ops []PatchOperation) (*PodOutline, error) {
	t.Helper()
	raw, err := json.Marshal(ops)
	if err != nil {
		t.Fatal(err)
	}
	patch, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		return nil, err
	}
	patched, err := patch.Apply([]byte(pod))
	if err != nil {
		return nil, err
	}
	var o PodOutline
	if err := json.Unmarshal(patched, &o); err != nil {
		return nil, err
	}
	return &o, nil
}

func TestApplyFollowsWhatMutatorsEmit(t *testing.T) {
	token := corev1.Volume{Name: "aws-iam-token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}}
	mount := corev1.VolumeMount{Name: "aws-iam-token", MountPath: "/var/run/secrets/eks.amazonaws.com/serviceaccount", ReadOnly: true}
	for _, tc := range []struct {
		name string
		ops  []PatchOperation
	}{
		{"a volume first", []PatchOperation{{Op: "add", Path: "/spec/volumes/0", Value: token}}},
		{"the whole volume list", []PatchOperation{{Op: "add", Path: "/spec/volumes", Value: []corev1.Volume{token, {Name: "b"}}}}},
		{"a mount appended, by pointer", []PatchOperation{{Op: "add", Path: "/spec/containers/0/volumeMounts/-", Value: &mount}}},
		{"a first mount list", []PatchOperation{{Op: "add", Path: "/spec/containers/1/volumeMounts", Value: []corev1.VolumeMount{mount}}}},
		{"env appended and a first env list", []PatchOperation{
			{Op: "add", Path: "/spec/initContainers/0/env/-", Value: corev1.EnvVar{Name: "AWS_ROLE_ARN", Value: "arn"}},
			{Op: "add", Path: "/spec/containers/0/env", Value: []corev1.EnvVar{{Name: "AWS_REGION", Value: "us-east-1"}}},
		}},
		{"annotations: escaped keys, replaced and removed", []PatchOperation{
			{Op: "add", Path: "/metadata/annotations/subscription.openshift.io~1bundle-generations", Value: "{}"},
			{Op: "replace", Path: "/metadata/annotations/a", Value: "3"},
			{Op: "remove", Path: "/metadata/annotations/x~1y"},
		}},
		{"labels and a whole annotation map", []PatchOperation{
			{Op: "add", Path: "/metadata/labels/tier", Value: "front"},
			{Op: "add", Path: "/metadata/annotations", Value: map[string]string{"only": "this"}},
		}},
		{"an item replaced and one removed", []PatchOperation{
			{Op: "replace", Path: "/spec/volumes/0", Value: token},
			{Op: "remove", Path: "/spec/containers/0/volumeMounts/0"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := outlineOf(t, twoContainerPod)
			pristine := outlineOf(t, twoContainerPod)
			got, err := before.Apply(tc.ops)
			if err != nil {
				t.Fatal(err)
			}
			want, err := viaWholePod(t, twoContainerPod, tc.ops)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Apply:\n%+v\nthe whole pod patched:\n%+v", got, want)
			}
			if !reflect.DeepEqual(before, pristine) {
				t.Errorf("Apply changed the outline it was given:\n%+v", before)
			}
		})
	}
}

// Where RFC 6902 refuses a patch, or the outline does not hold what it
// touches, Apply says it cannot tell, and the server patches the whole pod.
func TestApplyDoesNotGuess(t *testing.T) {
	for _, op := range []PatchOperation{
		{Op: "add", Path: "/spec/containers/0/image", Value: "x"},
		{Op: "add", Path: "/spec/volumes/5", Value: corev1.Volume{Name: "v"}},
		{Op: "add", Path: "/spec/volumes/01", Value: corev1.Volume{Name: "v"}},
		{Op: "add", Path: "/spec/volumes/-1", Value: corev1.Volume{Name: "v"}},
		{Op: "replace", Path: "/spec/volumes/-", Value: corev1.Volume{Name: "v"}},
		{Op: "remove", Path: "/metadata/annotations/missing"},
		{Op: "replace", Path: "/metadata/annotations/missing", Value: "v"},
		{Op: "add", Path: "/spec/containers/1/env/-", Value: corev1.EnvVar{Name: "A"}},
		{Op: "replace", Path: "/spec/containers/1/env", Value: []corev1.EnvVar{}},
		{Op: "add", Path: "/spec/containers/2/env", Value: []corev1.EnvVar{}},
		{Op: "add", Path: "/spec/volumes/0"},
		{Op: "move", Path: "/spec/volumes/0"},
		{Op: "add", Path: "spec/volumes", Value: []corev1.Volume{}},
		{Op: "add", Path: "/metadata/annotations/k", Value: 7},
	} {
		if got, err := outlineOf(t, twoContainerPod).Apply([]PatchOperation{op}); err == nil {
			t.Errorf("%s %s: Apply gave %+v, want an error", op.Op, op.Path, got)
		}
	}
}
