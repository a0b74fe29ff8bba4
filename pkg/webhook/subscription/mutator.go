// Package subscription is the webhook's subscription mutator: it mounts the
// entitlement keys and yum repository files of the Bundles and
// ClusterBundles a pod asks for (or is given automatically) into every
// container. It decides from the bundles' status, which the operator fills
// with key names, so it never reads a Secret.
package subscription

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// Mutator injects subscription bundles. It reads bundles from informer
// caches; it asks whether a pod may use a ClusterBundle through the
// AccessReviewer the server gives it.
type Mutator struct {
	bundles        listers.BundleLister
	clusterBundles listers.ClusterBundleLister
	access         AccessReviewer
	operatorState  OperatorState
	now            func() time.Time
}

// AccessReviewer answers whether a service account may get a ClusterBundle.
// The server implements it with a SubjectAccessReview.
type AccessReviewer interface {
	MayGetClusterBundle(ctx context.Context, namespace, serviceAccount, bundle string) (bool, error)
}

// New returns the mutator over the given caches and access reviewer.
func New(bundles listers.BundleLister, clusterBundles listers.ClusterBundleLister, access AccessReviewer) *Mutator {
	return &Mutator{bundles: bundles, clusterBundles: clusterBundles, access: access, operatorState: unknownOperatorState, now: time.Now}
}

// Name implements mutation.Mutator.
func (m *Mutator) Name() string { return "subscription" }

// RequestAnnotations implements mutation.Mutator.
func (m *Mutator) RequestAnnotations() []string {
	return []string{subscriptionv1alpha1.InjectBundleAnnotation, subscriptionv1alpha1.InjectClusterBundleAnnotation}
}

// Mutate implements mutation.Mutator.
func (m *Mutator) Mutate(ctx context.Context, req *mutation.Request) mutation.Result {
	switch {
	case req.SubResource == "ephemeralcontainers":
		return mutateEphemeral(req)
	case req.Operation != admissionv1.Create || req.SubResource != "":
		return mutation.Result{}
	}
	// Planning reads the outline alone: most pods get no bundle, and the
	// whole pod is decoded only for those that do.
	p, d := m.plan(ctx, req.Namespace, req.Outline)
	if d != nil {
		return d.result()
	}
	if p.generations.empty() {
		return mutation.Result{Warnings: p.warnings}
	}
	pod := req.Outline
	annotations := pod.Metadata.Annotations
	l := buildLayout(p)

	// A pod that records an earlier injection (a copy of an injected pod's
	// spec, or a reinvocation) has its injected volumes and mounts replaced;
	// anything else already at our names or paths belongs to the user.
	_, injectedBefore := annotations[subscriptionv1alpha1.BundleGenerationsAnnotation]
	// A pod that asked for nothing is never refused: a clash with its own
	// volumes or mounts leaves it as it is, with a warning.
	refuse := func(d *denial) mutation.Result {
		if !p.requested {
			return mutation.Result{Warnings: append(p.warnings, "automatic subscription injection was skipped: "+d.message)}
		}
		return d.result()
	}
	volumes, d := mergeVolumes(pod.Spec.Volumes, l.volumes, injectedBefore)
	if d != nil {
		return refuse(d)
	}
	var patch []mutation.PatchOperation
	if !reflect.DeepEqual(volumes, pod.Spec.Volumes) {
		patch = append(patch, mutation.PatchOperation{Op: "add", Path: "/spec/volumes", Value: volumes})
	}
	for _, group := range []struct {
		field      string
		containers []mutation.ContainerOutline
	}{{"initContainers", pod.Spec.InitContainers}, {"containers", pod.Spec.Containers}} {
		for i, c := range group.containers {
			mounts, d := mergeMounts(c.Name, c.VolumeMounts, l.mounts, injectedBefore)
			if d != nil {
				return refuse(d)
			}
			if !reflect.DeepEqual(mounts, c.VolumeMounts) {
				patch = append(patch, mutation.PatchOperation{Op: "add", Path: fmt.Sprintf("/spec/%s/%d/volumeMounts", group.field, i), Value: mounts})
			}
		}
	}
	recorded, err := json.Marshal(p.generations)
	if err != nil {
		return mutation.Deny(reasonLookupFailed, "encoding bundle generations: "+err.Error())
	}
	if annotations[subscriptionv1alpha1.BundleGenerationsAnnotation] != string(recorded) {
		patch = append(patch, annotationPatch(annotations, subscriptionv1alpha1.BundleGenerationsAnnotation, string(recorded)))
	}
	return mutation.Result{Patch: patch, Warnings: p.warnings}
}

// mergeVolumes returns the pod's volumes with the injected ones in place.
func mergeVolumes(existing, injected []corev1.Volume, replaceInjected bool) ([]corev1.Volume, *denial) {
	wanted := map[string]corev1.Volume{}
	for _, v := range injected {
		wanted[v.Name] = v
	}
	out := make([]corev1.Volume, 0, len(existing)+len(injected))
	present := map[string]bool{}
	for _, v := range existing {
		w, ours := wanted[v.Name]
		switch {
		case ours && reflect.DeepEqual(v, w):
			present[v.Name] = true
		case replaceInjected && isInjectedVolume(v.Name):
			continue // replaced below, or no longer injected
		case ours || isInjectedVolume(v.Name):
			// Kept, it would be taken for ours when the pod is admitted again.
			return nil, deny(reasonConflict, "the pod already has a volume named %q that is not the one subscription injection adds; rename that volume", v.Name)
		}
		out = append(out, v)
	}
	for _, v := range injected {
		if !present[v.Name] {
			out = append(out, v)
		}
	}
	return out, nil
}

// mergeMounts returns a container's mounts with the injected ones added,
// refusing a user mount at a path the injection needs.
func mergeMounts(container string, existing, injected []corev1.VolumeMount, replaceInjected bool) ([]corev1.VolumeMount, *denial) {
	wanted := map[string]corev1.VolumeMount{}
	for _, m := range injected {
		wanted[path.Clean(m.MountPath)] = m
	}
	// Keys mounted one by one need the directory itself free.
	keyByKey := slices.ContainsFunc(injected, func(m corev1.VolumeMount) bool {
		return strings.HasPrefix(path.Clean(m.MountPath), EntitlementDir+"/")
	})
	out := make([]corev1.VolumeMount, 0, len(existing)+len(injected))
	present := map[string]bool{}
	for _, m := range existing {
		at := path.Clean(m.MountPath)
		w, ours := wanted[at]
		switch {
		case ours && reflect.DeepEqual(m, w):
			present[at] = true
		case replaceInjected && isInjectedVolume(m.Name):
			continue
		case ours:
			return nil, deny(reasonConflict, "container %q already mounts volume %q at %s, where subscription injection mounts %s; remove that mount or stop requesting bundles",
				container, m.Name, m.MountPath, what(at))
		case isInjectedVolume(m.Name):
			// Kept, it would be taken for ours when the pod is admitted again.
			return nil, deny(reasonConflict, "container %q mounts volume %q at %s, where subscription injection does not mount it; that volume is the injection's: remove that mount or stop requesting bundles",
				container, m.Name, m.MountPath)
		case at == EntitlementDir && keyByKey:
			return nil, deny(reasonConflict, "container %q already mounts volume %q at %s, where subscription injection mounts entitlement keys; remove that mount or stop requesting bundles",
				container, m.Name, m.MountPath)
		}
		out = append(out, m)
	}
	for _, m := range injected {
		if !present[path.Clean(m.MountPath)] {
			out = append(out, m)
		}
	}
	return out, nil
}

func what(mountPath string) string {
	if mountPath == EntitlementDir || strings.HasPrefix(mountPath, EntitlementDir+"/") {
		return "entitlement keys"
	}
	return "a yum repository file"
}

// mutateEphemeral gives debug containers added to an injected pod the
// injected volumes too. Bundles are not read again: the pod's volumes are
// what it was admitted with.
func mutateEphemeral(req *mutation.Request) mutation.Result {
	if _, ok := req.Outline.Metadata.Annotations[subscriptionv1alpha1.BundleGenerationsAnnotation]; !ok {
		return mutation.Result{}
	}
	pod := req.Outline
	var old mutation.PodOutline
	if err := req.DecodeOldPod(&old); err != nil {
		return mutation.Undecodable(err)
	}
	mounts, partial := ephemeralMounts(pod.Spec.Volumes)
	if len(mounts) == 0 {
		return mutation.Result{}
	}
	existing := map[string]bool{}
	for _, c := range old.Spec.EphemeralContainers {
		existing[c.Name] = true
	}
	var result mutation.Result
	for i, c := range pod.Spec.EphemeralContainers {
		if existing[c.Name] { // the API refuses changes to existing ones
			continue
		}
		merged, d := mergeMounts(c.Name, c.VolumeMounts, mounts, true)
		if d != nil {
			return d.result()
		}
		if reflect.DeepEqual(merged, c.VolumeMounts) {
			continue
		}
		result.Patch = append(result.Patch, mutation.PatchOperation{Op: "add", Path: fmt.Sprintf("/spec/ephemeralContainers/%d/volumeMounts", i), Value: merged})
		if partial {
			result.Warnings = append(result.Warnings, fmt.Sprintf("ephemeral container %q: Kubernetes forbids subPath mounts in ephemeral containers, "+
				"so the injected subscription volumes are mounted whole under %s/<volume> rather than key by key", c.Name, ephemeralDir))
		}
	}
	return result
}

// annotationPatch sets one annotation, creating the map if the pod has none.
func annotationPatch(annotations map[string]string, key, value string) mutation.PatchOperation {
	if annotations == nil {
		return mutation.PatchOperation{Op: "add", Path: "/metadata/annotations", Value: map[string]string{key: value}}
	}
	escaped := strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
	return mutation.PatchOperation{Op: "add", Path: "/metadata/annotations/" + escaped, Value: value}
}
