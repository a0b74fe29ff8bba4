package subscription

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
)

// Which annotations FuzzMutator sets from its string arguments, and how it
// admits the pod.
const (
	fuzzInjectBundle = 1 << iota
	fuzzInjectClusterBundle
	fuzzAllow
	fuzzDeny
	// fuzzEphemeral admits the pod as an ephemeral-container update whose
	// old pod lacks the last ephemeral container.
	fuzzEphemeral
)

func fuzzMutator(tb testing.TB) *Mutator {
	return newMutator(tb, []any{
		bundle("one", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "s1", "", "k.pem", "a.pem")}, []v1alpha1.ResolvedReference{ref("configmap", ns, "r1", "", "redhat.repo")}),
		bundle("two", 2, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "s2", "", "k.pem")}, nil),
		bundle("repos", 1, nil, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "r2", "", "other.repo")}),
		bundle("reserved", 1, nil, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "r3", "", "subscription")}),
		bundle("auto", 4, always, []v1alpha1.ResolvedReference{ref("secret", ns, "auto", "", "auto.pem")}, nil),
		bundle("auto-clash", 1, always, []v1alpha1.ResolvedReference{ref("secret", ns, "clash", "", "a.pem")}, nil),
		clusterBundle("cluster", 3, nil, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "e", "share-e", "c.pem")},
			[]v1alpha1.ResolvedReference{ref("configmap", "openshift-config", "cr", "share-cr", "cluster.repo")}),
		clusterBundle("forbidden", 1, nil, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "x", "share-x", "x.pem")}, nil),
		clusterBundle("auto-cluster", 1, always, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "f", "share-f", "f.pem")}, nil),
	}, access{
		ns + "/builder/cluster": true, ns + "/builder/auto-cluster": true, ns + "/default/auto-cluster": true,
		ns + "/flaky/error": true, ns + "/slow/timeout": true,
	})
}

// FuzzMutator admits any pod with any bundle annotations, plus a volume of
// the user's own (userVolume, mounted at userMountPath in the first
// container) where the fuzzer can aim it at the injection's names and
// paths. Only a pod that asks for a bundle is ever refused, and a refusal
// has a reason and a message; otherwise the patch applies to the pod as the
// API server encodes it, keeps every volume and mount its record does not
// own, records every volume it adds, and admitting the patched pod again
// (the API server's reinvocation) is neither refused nor patched.
func FuzzMutator(f *testing.F) {
	m := fuzzMutator(f)
	f.Fuzz(func(t *testing.T, podJSON []byte, bundles, clusterBundles, allow, deny, userVolume, userMountPath string, flags uint8) {
		var decoded corev1.Pod
		if json.Unmarshal(podJSON, &decoded) != nil {
			return
		}
		if userVolume != "" {
			decoded.Spec.Volumes = append(decoded.Spec.Volumes, corev1.Volume{Name: userVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
			if len(decoded.Spec.Containers) > 0 {
				c := &decoded.Spec.Containers[0]
				c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: userVolume, MountPath: userMountPath})
			}
		}
		for bit, annotation := range map[uint8]struct{ key, value string }{
			fuzzInjectBundle:        {v1alpha1.InjectBundleAnnotation, bundles},
			fuzzInjectClusterBundle: {v1alpha1.InjectClusterBundleAnnotation, clusterBundles},
			fuzzAllow:               {v1alpha1.AllowBundlesAnnotation, allow},
			fuzzDeny:                {v1alpha1.DenyClusterBundlesAnnotation, deny},
		} {
			if flags&bit != 0 {
				if decoded.Annotations == nil {
					decoded.Annotations = map[string]string{}
				}
				decoded.Annotations[annotation.key] = annotation.value
			}
		}
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
			if !asksForBundles(pod.Annotations) {
				t.Fatalf("a pod that asks for no bundle was refused: %s", result.Denied.Message)
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
		patchedPod := mutationtest.ApplyJSONPatch(t, encoded, ops)
		keepsTheUsersOwn(t, pod, patchedPod)

		mutationtest.Readmit(t, m, req, patchedPod, ops)
	})
}

// keepsTheUsersOwn fails if the patch dropped or changed a volume or mount
// the pod's record does not own, or added a volume its new record does not
// name.
func keepsTheUsersOwn(t *testing.T, before, after *corev1.Pod) {
	t.Helper()
	own := ownershipOf(before.Annotations, v1alpha1.BundleGenerationsAnnotation)
	for _, v := range before.Spec.Volumes {
		if own.owns(v.Name) {
			continue
		}
		if !slices.ContainsFunc(after.Spec.Volumes, func(w corev1.Volume) bool { return reflect.DeepEqual(v, w) }) {
			t.Fatalf("the patch lost volume %q", v.Name)
		}
	}
	type container struct {
		name   string
		mounts []corev1.VolumeMount
	}
	list := func(p *corev1.Pod) []container {
		var out []container
		for _, c := range p.Spec.InitContainers {
			out = append(out, container{c.Name, c.VolumeMounts})
		}
		for _, c := range p.Spec.Containers {
			out = append(out, container{c.Name, c.VolumeMounts})
		}
		for _, c := range p.Spec.EphemeralContainers {
			out = append(out, container{c.Name, c.VolumeMounts})
		}
		return out
	}
	afterContainers := list(after)
	for i, c := range list(before) {
		if i >= len(afterContainers) || afterContainers[i].name != c.name {
			t.Fatalf("the patch changed the containers")
		}
		for _, mount := range c.mounts {
			if own.owns(mount.Name) {
				continue
			}
			if !slices.ContainsFunc(afterContainers[i].mounts, func(m corev1.VolumeMount) bool { return reflect.DeepEqual(m, mount) }) {
				t.Fatalf("the patch lost container %q's mount of %q at %s", c.name, mount.Name, mount.MountPath)
			}
		}
	}
	if after.Annotations[v1alpha1.BundleGenerationsAnnotation] == before.Annotations[v1alpha1.BundleGenerationsAnnotation] {
		return // an ephemeral container's mounts: no volume added
	}
	recorded := ownershipOf(after.Annotations, v1alpha1.BundleGenerationsAnnotation)
	if recorded.legacy {
		t.Fatalf("the new record names no volumes: %s", after.Annotations[v1alpha1.BundleGenerationsAnnotation])
	}
	for _, v := range after.Spec.Volumes {
		added := !slices.ContainsFunc(before.Spec.Volumes, func(w corev1.Volume) bool { return reflect.DeepEqual(v, w) })
		if added && !recorded.owns(v.Name) {
			t.Fatalf("volume %q was added but the record %s does not name it", v.Name, after.Annotations[v1alpha1.BundleGenerationsAnnotation])
		}
	}
	for _, name := range recorded.names {
		if !slices.ContainsFunc(after.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == name }) {
			t.Fatalf("the record names volume %q the pod does not have", name)
		}
	}
}
