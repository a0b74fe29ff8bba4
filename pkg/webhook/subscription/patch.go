package subscription

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// patch is what changes in the pod: its volumes and mounts where the
// fitted ones differ, and the record of the bundles and volumes injected.
func (p *plan) patch(pod *mutation.PodOutline, f *fitted, recorded bool) ([]mutation.PatchOperation, *denial) {
	annotations := pod.Metadata.Annotations
	patch := mountPatches(pod, f)
	if p.generations.empty() {
		// Nothing to inject now: what an earlier injection left in a
		// copied spec goes, record included, rather than stay unaccounted.
		if recorded {
			patch = append(patch, annotationRemoval(subscriptionv1alpha1.BundleGenerationsAnnotation))
		}
		return patch, nil
	}
	p.generations.Volumes = f.injected
	var buf [256]byte
	record := p.generations.appendJSON(buf[:0])
	if annotations[subscriptionv1alpha1.BundleGenerationsAnnotation] != string(record) {
		patch = append(patch, annotationPatch(annotations, subscriptionv1alpha1.BundleGenerationsAnnotation, string(record)))
	}
	return patch, nil
}

// mountPatches replace the pod's volumes and each container's mounts where
// the fitted ones differ.
func mountPatches(pod *mutation.PodOutline, f *fitted) []mutation.PatchOperation {
	// The volumes, each container's mounts, and the record after them.
	patch := make([]mutation.PatchOperation, 0, 2+len(f.mounts))
	if !same(f.volumes, pod.Spec.Volumes) {
		patch = append(patch, mutation.PatchOperation{Op: "add", Path: "/spec/volumes", Value: mutation.Volumes{Items: f.volumes, Encoded: f.encoded}})
	}
	i := 0
	for _, group := range []struct {
		field      string
		containers []mutation.ContainerOutline
	}{{"initContainers", pod.Spec.InitContainers}, {"containers", pod.Spec.Containers}} {
		for j, c := range group.containers {
			if mounts := f.mounts[i]; !sameMounts(mounts, c.VolumeMounts) {
				patch = append(patch, mountsPatch(group.field, j, mounts))
			}
			i++
		}
	}
	return patch
}

// mountsPatch sets the mounts of the i-th container of a list
// ("containers", "initContainers", "ephemeralContainers").
func mountsPatch(field string, i int, mounts []corev1.VolumeMount) mutation.PatchOperation {
	return mutation.PatchOperation{Op: "add", Path: "/spec/" + field + "/" + strconv.Itoa(i) + "/volumeMounts", Value: mounts}
}

// sameMounts is same for mounts without reflection (each admission that
// injects compares every container's): nil and empty alike, pointers by
// what they point to.
func sameMounts(a, b []corev1.VolumeMount) bool {
	return slices.EqualFunc(a, b, func(x, y corev1.VolumeMount) bool {
		return x.Name == y.Name && x.ReadOnly == y.ReadOnly && x.MountPath == y.MountPath && x.SubPath == y.SubPath &&
			x.SubPathExpr == y.SubPathExpr && equalPointee(x.RecursiveReadOnly, y.RecursiveReadOnly) &&
			equalPointee(x.MountPropagation, y.MountPropagation)
	})
}

func equalPointee[T comparable](a, b *T) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// same compares two lists, nil and empty alike: an empty merge of a
// container without mounts is no change.
func same[T any](a, b []T) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}

// annotationRemoval removes one annotation the pod has.
func annotationRemoval(key string) mutation.PatchOperation {
	return mutation.PatchOperation{Op: "remove", Path: "/metadata/annotations/" + escapePointer(key)}
}

// annotationPatch sets one annotation, creating the map if the pod has none.
func annotationPatch(annotations map[string]string, key, value string) mutation.PatchOperation {
	if annotations == nil {
		return mutation.PatchOperation{Op: "add", Path: "/metadata/annotations", Value: map[string]string{key: value}}
	}
	return mutation.PatchOperation{Op: "add", Path: "/metadata/annotations/" + escapePointer(key), Value: value}
}

// escapePointer escapes a key for a JSON pointer (RFC 6901): "~" then "/".
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
