package subscription

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
)

// A copy of a pod injected automatically, admitted when it gets nothing any
// more, loses what the record says was injected, and the record; the user's
// own volumes stay.
func TestCopyThatGetsNothingNowLosesWhatItsRecordNames(t *testing.T) {
	auto := bundle("auto", 1, always, []v1alpha1.ResolvedReference{ref("secret", ns, "ent", "", "1.pem")},
		[]v1alpha1.ResolvedReference{ref("configmap", ns, "r", "", "redhat.repo")})
	original := pod(nil)
	original.Spec.Volumes = append(original.Spec.Volumes, corev1.Volume{Name: "subscription-data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	original.Spec.Containers[0].VolumeMounts = append(original.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "subscription-data", MountPath: "/data"})
	injected, _ := mutationtest.Admit(t, newMutator(t, []any{auto}, nil), ns, original)
	if volume(injected, "subscription-entitlements") == nil || recorded(injected) == "" {
		t.Fatalf("the always-inject bundle was not injected: %+v", injected.Spec.Volumes)
	}

	for name, objects := range map[string][]any{
		"bundle deleted":                 nil,
		"bundle no longer always-inject": {bundle("auto", 2, nil, nil, nil)},
	} {
		t.Run(name, func(t *testing.T) {
			copied, result := mutationtest.Admit(t, newMutator(t, objects, nil), ns, injected.DeepCopy())
			if result.Denied != nil {
				t.Fatalf("denied: %s", result.Denied.Message)
			}
			var volumes []string
			for _, v := range copied.Spec.Volumes {
				volumes = append(volumes, v.Name)
			}
			if g, want := strings.Join(volumes, " "), "kube-api-access-x7k2p subscription-data"; g != want {
				t.Errorf("volumes = %s, want %s", g, want)
			}
			want := "kube-api-access-x7k2p@/var/run/secrets/kubernetes.io/serviceaccount subscription-data@/data"
			if g := strings.Join(mountsOf(copied.Spec.Containers[0]), " "); g != want {
				t.Errorf("mounts = %s, want %s", g, want)
			}
			if _, ok := copied.Annotations[v1alpha1.BundleGenerationsAnnotation]; ok {
				t.Errorf("the record was kept: %s", recorded(copied))
			}
			// Admitted again, it is left as it is.
			_, again := mutationtest.Admit(t, newMutator(t, objects, nil), ns, copied)
			if len(again.Patch) != 0 || again.Denied != nil {
				t.Errorf("second admission changed the pod: %+v", again)
			}
		})
	}
}
