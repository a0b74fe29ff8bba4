package mutation

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// FuzzApply: wherever Apply answers, its outline is the one the whole pod
// patched and decoded again gives. Pods are what the API server sends (a
// corev1.Pod encoded again); patches are built from program, one operation
// per three bytes, in the forms mutators emit, with indexes and keys that
// may or may not exist.
func FuzzApply(f *testing.F) {
	f.Add([]byte(twoContainerPod), []byte{0, 0, 0, 1, 1, 1, 2, 2, 2})
	f.Add([]byte(twoContainerPod), []byte{3, 0, 1, 4, 1, 0, 5, 2, 0, 6, 0, 3})
	f.Add([]byte(`{"spec":{"containers":[{"name":"a"}]}}`), []byte{7, 0, 0, 8, 0, 1, 9, 0, 2})
	f.Fuzz(func(t *testing.T, podJSON, program []byte) {
		var pod corev1.Pod
		if json.Unmarshal(podJSON, &pod) != nil {
			return // not a pod the API server could send
		}
		canonical, err := json.Marshal(&pod)
		if err != nil {
			t.Fatal(err)
		}
		ops := opsFrom(program)
		outline := outlineOf(t, string(canonical))
		got, err := outline.Apply(ops)
		if err != nil {
			return // the server patches the whole pod
		}
		want, err := viaWholePod(t, string(canonical), ops)
		if err != nil {
			t.Fatalf("Apply answered %+v where the patch does not apply (%v); ops %+v", got, err, ops)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ops %+v\nApply:\n%+v\nthe whole pod patched:\n%+v", ops, got, want)
		}
		if !reflect.DeepEqual(outline, outlineOf(t, string(canonical))) {
			t.Fatalf("Apply changed the outline it was given")
		}
	})
}

func opsFrom(program []byte) []PatchOperation {
	var ops []PatchOperation
	for len(program) >= 3 && len(ops) < 16 {
		kind, a, b := program[0], int(program[1]), program[2]
		program = program[3:]
		verb := [...]string{"add", "add", "replace", "remove"}[b%4]
		idx := fmt.Sprint(a % 4)
		if b%5 == 4 {
			idx = "-"
		}
		name := fmt.Sprintf("n%d", b%3)
		containers := [...]string{"containers", "initContainers", "ephemeralContainers"}[a%3]
		var op PatchOperation
		switch kind % 10 {
		case 0:
			op = PatchOperation{Path: "/spec/volumes/" + idx, Value: corev1.Volume{Name: name}}
		case 1:
			op = PatchOperation{Path: "/spec/volumes", Value: []corev1.Volume{{Name: name}}}
		case 2:
			op = PatchOperation{Path: fmt.Sprintf("/spec/%s/%d/volumeMounts/%s", containers, a%3, idx), Value: &corev1.VolumeMount{Name: name, MountPath: "/" + name}}
		case 3:
			op = PatchOperation{Path: fmt.Sprintf("/spec/%s/%d/volumeMounts", containers, a%3), Value: []corev1.VolumeMount{{Name: name}}}
		case 4:
			op = PatchOperation{Path: fmt.Sprintf("/spec/%s/%d/env/%s", containers, a%3, idx), Value: corev1.EnvVar{Name: name}}
		case 5:
			op = PatchOperation{Path: fmt.Sprintf("/spec/%s/%d/env", containers, a%3), Value: []corev1.EnvVar{{Name: name, Value: "v"}}}
		case 6:
			op = PatchOperation{Path: "/metadata/annotations/" + [...]string{"a", "x~1y", "new", "~0t"}[a%4], Value: name}
		case 7:
			op = PatchOperation{Path: "/metadata/annotations", Value: map[string]string{name: "v"}}
		case 8:
			op = PatchOperation{Path: "/metadata/labels/" + [...]string{"app", "tier"}[a%2], Value: name}
		case 9:
			op = PatchOperation{Path: "/metadata/labels", Value: map[string]string{}}
		}
		op.Op = verb
		if verb == "remove" {
			op.Value = nil
		}
		ops = append(ops, op)
	}
	return ops
}
