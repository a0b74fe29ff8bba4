package podidentity

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
)

// Which annotations FuzzPodIdentityMutator sets from its string arguments,
// and how it admits the pod.
const (
	fuzzServiceAccount = 1 << iota // the pod's ServiceAccount exists, with role-arn
	fuzzAudience
	fuzzRegionalSTS
	fuzzSAExpiration
	fuzzPodExpiration
	fuzzSkip
	// fuzzEphemeral admits the pod as an ephemeral-container update whose
	// old pod lacks the last ephemeral container.
	fuzzEphemeral
	// fuzzRegion runs the mutator configured with a region and regional STS.
	fuzzRegion
)

// FuzzPodIdentityMutator admits any pod whose ServiceAccount carries any
// annotations. A refusal has a reason and a message and no patch;
// otherwise the patch applies to the pod as the API server encodes it,
// only adds (the volume first, env and mounts after the container's own),
// leaves skipped containers and, on the ephemeralcontainers subresource,
// all but the new debug container alone, and admitting the patched pod
// again (the API server's reinvocation) is neither refused nor patched.
func FuzzPodIdentityMutator(f *testing.F) {
	region := DefaultConfig()
	region.Region, region.DefaultRegionalSTS = "eu-west-3", true
	f.Fuzz(func(t *testing.T, podJSON []byte, roleARN, audience, regionalSTS, saExpiration, podExpiration, skip string, flags uint8) {
		var decoded corev1.Pod
		if json.Unmarshal(podJSON, &decoded) != nil {
			return
		}
		sa := decoded.Spec.ServiceAccountName
		if sa == "" {
			sa = "default"
		}
		annotations := map[string]string{podidentityv1alpha1.RoleARNAnnotation: roleARN}
		for bit, annotation := range map[uint8]struct{ key, value string }{
			fuzzAudience:     {podidentityv1alpha1.AudienceAnnotation, audience},
			fuzzRegionalSTS:  {podidentityv1alpha1.RegionalSTSAnnotation, regionalSTS},
			fuzzSAExpiration: {podidentityv1alpha1.TokenExpirationAnnotation, saExpiration},
		} {
			if flags&bit != 0 {
				annotations[annotation.key] = annotation.value
			}
		}
		sas := serviceAccounts{}
		if flags&fuzzServiceAccount != 0 {
			sas[ns+"/"+sa] = annotations
		}
		for bit, annotation := range map[uint8]struct{ key, value string }{
			fuzzPodExpiration: {podidentityv1alpha1.TokenExpirationAnnotation, podExpiration},
			fuzzSkip:          {podidentityv1alpha1.SkipContainersAnnotation, skip},
		} {
			if flags&bit != 0 {
				if decoded.Annotations == nil {
					decoded.Annotations = map[string]string{}
				}
				decoded.Annotations[annotation.key] = annotation.value
			}
		}
		config := DefaultConfig()
		if flags&fuzzRegion != 0 {
			config = region
		}
		m := New(config, sas)

		// The pod as the API server encodes it, and as the handler decodes that.
		encoded, pod := mutationtest.Reencode(t, &decoded)
		req := mutation.RequestFor(admissionv1.Create, ns, "", pod, nil)
		if flags&fuzzEphemeral != 0 {
			if len(pod.Spec.EphemeralContainers) == 0 {
				return
			}
			old := pod.DeepCopy()
			old.Spec.EphemeralContainers = old.Spec.EphemeralContainers[:len(old.Spec.EphemeralContainers)-1]
			req = mutation.RequestFor(admissionv1.Update, ns, "ephemeralcontainers", pod, old)
		}

		result := m.Mutate(context.Background(), req)
		if result.Denied != nil {
			if result.Denied.Reason == "" || result.Denied.Message == "" || len(result.Patch) > 0 {
				t.Fatalf("refusal without a reason or message, or with a patch: %+v", result)
			}
			if len(result.Denied.Message) > 2000 {
				t.Fatalf("a %d-byte refusal message: %.200s...", len(result.Denied.Message), result.Denied.Message)
			}
			return
		}
		if len(result.Patch) == 0 {
			return
		}
		ops, err := json.Marshal(result.Patch)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range result.Patch {
			if op.Op != "add" {
				t.Fatalf("a patch that does more than add: %s", ops)
			}
			if req.SubResource != "" && !strings.HasPrefix(op.Path, fmt.Sprintf("/spec/ephemeralContainers/%d/", len(pod.Spec.EphemeralContainers)-1)) {
				t.Fatalf("a debug container's patch touches more than the new debug container: %s", ops)
			}
		}
		patchedPod := mutationtest.ApplyJSONPatch(t, encoded, ops)
		skipped, _ := parseContainerNames(pod.Annotations[podidentityv1alpha1.SkipContainersAnnotation])
		keepsTheUsersOwn(t, pod, patchedPod, skipped)

		mutationtest.Readmit(t, m, req, patchedPod, ops)
	})
}

// keepsTheUsersOwn fails unless the patched pod has every volume,
// container, variable and mount of the pod, in their order, with only the
// token volume before them and the injection's variables and mount after
// them, and the skipped containers exactly as they were.
func keepsTheUsersOwn(t *testing.T, before, after *corev1.Pod, skipped map[string]bool) {
	t.Helper()
	volumes := after.Spec.Volumes
	if len(volumes) == len(before.Spec.Volumes)+1 && volumes[0].Name == VolumeName {
		volumes = volumes[1:]
	}
	if !same(volumes, before.Spec.Volumes) {
		t.Fatalf("volumes changed:\nbefore %+v\nafter  %+v", before.Spec.Volumes, after.Spec.Volumes)
	}
	type container struct {
		name   string
		env    []corev1.EnvVar
		mounts []corev1.VolumeMount
	}
	list := func(p *corev1.Pod) []container {
		var out []container
		for _, c := range p.Spec.InitContainers {
			out = append(out, container{c.Name, c.Env, c.VolumeMounts})
		}
		for _, c := range p.Spec.Containers {
			out = append(out, container{c.Name, c.Env, c.VolumeMounts})
		}
		for _, c := range p.Spec.EphemeralContainers {
			out = append(out, container{c.Name, c.Env, c.VolumeMounts})
		}
		return out
	}
	injected := []string{envRoleARN, envTokenFile, envRegion, envDefaultRegion, envRegionalSTS}
	afterContainers := list(after)
	beforeContainers := list(before)
	if len(afterContainers) != len(beforeContainers) {
		t.Fatalf("the patch changed the number of containers")
	}
	for i, b := range beforeContainers {
		a := afterContainers[i]
		if a.name != b.name {
			t.Fatalf("the patch changed the containers")
		}
		if skipped[b.name] && (!same(a.env, b.env) || !same(a.mounts, b.mounts)) {
			t.Fatalf("skipped container %q changed", b.name)
		}
		if len(a.env) < len(b.env) || !same(a.env[:len(b.env)], b.env) {
			t.Fatalf("container %q's own env changed:\nbefore %+v\nafter  %+v", b.name, b.env, a.env)
		}
		for _, e := range a.env[len(b.env):] {
			if !slices.Contains(injected, e.Name) || slices.ContainsFunc(b.env, func(o corev1.EnvVar) bool { return o.Name == e.Name }) {
				t.Fatalf("container %q got %s, which it sets or the injection does not add", b.name, e.Name)
			}
		}
		if len(a.mounts) < len(b.mounts) || !same(a.mounts[:len(b.mounts)], b.mounts) {
			t.Fatalf("container %q's own mounts changed:\nbefore %+v\nafter  %+v", b.name, b.mounts, a.mounts)
		}
		if added := a.mounts[len(b.mounts):]; len(added) > 1 || len(added) == 1 && added[0].Name != VolumeName {
			t.Fatalf("container %q got mounts %+v", b.name, added)
		}
	}
}

// same compares two lists item by item, an empty list equal to none.
func same[T any](a, b []T) bool {
	return slices.EqualFunc(a, b, func(x, y T) bool { return reflect.DeepEqual(x, y) })
}
