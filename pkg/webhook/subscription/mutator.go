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
	// alwaysInjectBudget bounds the access checks of always-inject
	// ClusterBundles for one pod, together: the pod did not ask for them,
	// and the mutators after this one (pod identity) must still have time
	// before the fail-open webhook's timeout.
	alwaysInjectBudget time.Duration
}

// AlwaysInjectBudget is how long the access checks of one pod's
// always-inject ClusterBundles may take together; past it, the bundles not
// yet checked are left out with a warning.
const AlwaysInjectBudget = time.Second

// AccessReviewer answers whether a service account may get a ClusterBundle.
// The server implements it with a SubjectAccessReview.
type AccessReviewer interface {
	MayGetClusterBundle(ctx context.Context, namespace, serviceAccount, bundle string) (bool, error)
}

// New returns the mutator over the given caches and access reviewer.
func New(bundles listers.BundleLister, clusterBundles listers.ClusterBundleLister, access AccessReviewer) *Mutator {
	return &Mutator{bundles: bundles, clusterBundles: clusterBundles, access: access, operatorState: unknownOperatorState, now: time.Now,
		alwaysInjectBudget: AlwaysInjectBudget}
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
	// whole pod is never decoded.
	p, d := m.plan(ctx, req.Namespace, req.Outline)
	if d != nil {
		return d.result()
	}
	pod := req.Outline
	annotations := pod.Metadata.Annotations
	// A pod that records an earlier injection (a copy of an injected pod's
	// spec, or a reinvocation) has the volumes the record names, and their
	// mounts, replaced; anything else belongs to the user.
	_, recorded := annotations[subscriptionv1alpha1.BundleGenerationsAnnotation]
	if p.generations.empty() && len(p.candidates) == 0 && !recorded {
		return mutation.Result{Warnings: p.warnings}
	}
	own := ownershipOf(annotations, subscriptionv1alpha1.BundleGenerationsAnnotation)
	f, d := p.settle(pod, own)
	if d != nil {
		return d.result()
	}
	patch := mountPatches(pod, f)
	if p.generations.empty() {
		// Nothing to inject now: what an earlier injection left in a
		// copied spec goes, record included, rather than stay unaccounted.
		if recorded {
			patch = append(patch, annotationRemoval(subscriptionv1alpha1.BundleGenerationsAnnotation))
		}
		return mutation.Result{Patch: patch, Warnings: p.warnings}
	}
	p.generations.Volumes = f.injected
	record, err := json.Marshal(p.generations)
	if err != nil {
		return mutation.Deny(reasonLookupFailed, "encoding bundle generations: "+err.Error())
	}
	if annotations[subscriptionv1alpha1.BundleGenerationsAnnotation] != string(record) {
		patch = append(patch, annotationPatch(annotations, subscriptionv1alpha1.BundleGenerationsAnnotation, string(record)))
	}
	return mutation.Result{Patch: patch, Warnings: p.warnings}
}

// mountPatches replace the pod's volumes and each container's mounts where
// the fitted ones differ.
func mountPatches(pod *mutation.PodOutline, f *fitted) []mutation.PatchOperation {
	var patch []mutation.PatchOperation
	if !same(f.volumes, pod.Spec.Volumes) {
		patch = append(patch, mutation.PatchOperation{Op: "add", Path: "/spec/volumes", Value: f.volumes})
	}
	i := 0
	for _, group := range []struct {
		field      string
		containers []mutation.ContainerOutline
	}{{"initContainers", pod.Spec.InitContainers}, {"containers", pod.Spec.Containers}} {
		for j, c := range group.containers {
			if mounts := f.mounts[i]; !same(mounts, c.VolumeMounts) {
				patch = append(patch, mutation.PatchOperation{Op: "add", Path: fmt.Sprintf("/spec/%s/%d/volumeMounts", group.field, j), Value: mounts})
			}
			i++
		}
	}
	return patch
}

// settle decides what the pod gets. The bundles it asked for come first and
// must fit: a clash with the pod's own volumes or mounts refuses it. Then
// each always-inject bundle is added if it still fits, and left out with a
// warning if not: it is never the reason a pod is refused.
func (p *plan) settle(pod *mutation.PodOutline, own ownership) (*fitted, *denial) {
	// Most often everything fits at once: one layout, one merge.
	if len(p.candidates) > 0 {
		entitlements, repos := p.entitlements, p.repos
		for _, c := range p.candidates {
			entitlements, repos = dedupe(append(entitlements, c.entitlements...)), dedupe(append(repos, c.repos...))
		}
		if checkKeys(entitlements, repos) == nil {
			if f, d := fit(pod, own, buildLayout(entitlements, repos)); d == nil {
				for _, c := range p.candidates {
					c.record(&p.generations)
				}
				p.entitlements, p.repos = entitlements, repos
				return f, nil
			}
		}
	}
	f, d := fit(pod, own, buildLayout(p.entitlements, p.repos))
	if d != nil {
		return nil, d
	}
	for _, c := range p.candidates {
		entitlements, repos := dedupe(append(slices.Clip(p.entitlements), c.entitlements...)), dedupe(append(slices.Clip(p.repos), c.repos...))
		if d := checkKeys(entitlements, repos); d != nil {
			p.skip(c.what, d.message)
			continue
		}
		next, d := fit(pod, own, buildLayout(entitlements, repos))
		if d != nil {
			p.skip(c.what, d.message)
			continue
		}
		c.record(&p.generations)
		p.entitlements, p.repos, f = entitlements, repos, next
	}
	return f, nil
}

// fitted is the pod's volumes, and the mounts of each of its init
// containers then containers, with the injected ones in place.
type fitted struct {
	volumes []corev1.Volume
	mounts  [][]corev1.VolumeMount
	// injected names the volumes the injection added, for the record.
	injected []string
}

// fit merges a layout into the pod, or says what of the pod's own is in
// the way.
func fit(pod *mutation.PodOutline, own ownership, l layout) (*fitted, *denial) {
	volumes, d := mergeVolumes(pod.Spec.Volumes, l, own)
	if d != nil {
		return nil, d
	}
	f := &fitted{volumes: volumes, injected: make([]string, 0, len(l.volumes)),
		mounts: make([][]corev1.VolumeMount, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))}
	for _, v := range l.volumes {
		f.injected = append(f.injected, v.Name)
	}
	for _, containers := range [][]mutation.ContainerOutline{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range containers {
			mounts, d := mergeMounts(c.Name, c.VolumeMounts, l, own)
			if d != nil {
				return nil, d
			}
			f.mounts = append(f.mounts, mounts)
		}
	}
	return f, nil
}

// mergeVolumes returns the pod's volumes with the injected ones in place:
// the pod's own kept, the ones its record owns replaced. A volume of the
// user's under a name the injection needs is a conflict, unless it is
// exactly the volume the injection adds (a copied spec without its record).
func mergeVolumes(existing []corev1.Volume, l layout, own ownership) ([]corev1.Volume, *denial) {
	out := make([]corev1.Volume, 0, len(existing)+len(l.volumes))
	present := make([]bool, len(l.volumes))
	for _, v := range existing {
		i := slices.IndexFunc(l.volumes, func(w injectedVolume) bool { return w.Name == v.Name })
		switch {
		case i >= 0 && reflect.DeepEqual(v, l.volumes[i].Volume):
			present[i] = true
		case own.owns(v.Name):
			continue // replaced below, or no longer injected
		case i >= 0:
			return nil, deny(reasonConflict, "the pod already has a volume named %q, which subscription injection did not add and needs for %s; rename that volume",
				v.Name, l.volumes[i].origin)
		}
		out = append(out, v)
	}
	for i, v := range l.volumes {
		if !present[i] {
			out = append(out, v.Volume)
		}
	}
	return out, nil
}

// mergeMounts returns a container's mounts with the injected ones in
// place, or the user's mount in the way: one of a volume the injection
// adds, or at, inside or above a path it mounts. The service account
// token (/var/run/secrets/kubernetes.io/serviceaccount) is beside them all.
func mergeMounts(container string, existing []corev1.VolumeMount, l layout, own ownership) ([]corev1.VolumeMount, *denial) {
	out := make([]corev1.VolumeMount, 0, len(existing)+len(l.mounts))
	present := make([]bool, len(l.mounts))
	for _, m := range existing {
		if i := slices.IndexFunc(l.mounts, func(w injectedMount) bool { return w.VolumeMount == m }); i >= 0 {
			present[i] = true
			out = append(out, m)
			continue
		}
		if own.owns(m.Name) {
			continue
		}
		if d := mountClash(container, m, l); d != nil {
			return nil, d
		}
		out = append(out, m)
	}
	for i, m := range l.mounts {
		if !present[i] {
			out = append(out, m.VolumeMount)
		}
	}
	return out, nil
}

// mountClash explains why a user's mount is in the injection's way, or
// returns nil.
func mountClash(container string, m corev1.VolumeMount, l layout) *denial {
	if i := slices.IndexFunc(l.volumes, func(v injectedVolume) bool { return v.Name == m.Name }); i >= 0 {
		return deny(reasonConflict, "container %q mounts volume %q at %s, where subscription injection does not mount it; that volume is the one subscription injection adds for %s: remove that mount",
			container, m.Name, m.MountPath, l.volumes[i].origin)
	}
	at := normalPath(m.MountPath)
	for _, w := range l.mounts {
		var how string
		switch pathClash(at, w.MountPath) {
		case "":
			continue
		case "at":
			how = "already mounts volume %q at %s, where %s"
		case "inside":
			how = "mounts volume %q at %s, inside " + w.MountPath + ", where %s"
		case "over":
			how = "mounts volume %q at %s, which would hide " + w.MountPath + ", where %s"
		}
		return deny(reasonConflict, "container %q "+how+" mounts %s (volume %q); remove or move that mount",
			container, m.Name, m.MountPath, injector(w.origin), w.what, w.Name)
	}
	return nil
}

// injector names who mounts something: the bundles, when known.
func injector(origin string) string {
	if origin == "" {
		return "subscription injection"
	}
	return origin
}

// mutateEphemeral gives debug containers added to an injected pod the
// injected volumes too: only those its record owns. Bundles are not read
// again: the pod's volumes are what it was admitted with.
func mutateEphemeral(req *mutation.Request) mutation.Result {
	annotations := req.Outline.Metadata.Annotations
	if _, ok := annotations[subscriptionv1alpha1.BundleGenerationsAnnotation]; !ok {
		return mutation.Result{}
	}
	pod := req.Outline
	own := ownershipOf(annotations, subscriptionv1alpha1.BundleGenerationsAnnotation)
	l, partial := ephemeralLayout(pod.Spec.Volumes, own)
	if len(l.mounts) == 0 {
		return mutation.Result{}
	}
	var old mutation.PodOutline
	if err := req.DecodeOldPod(&old); err != nil {
		return mutation.Undecodable(err)
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
		merged, d := mergeMounts(c.Name, c.VolumeMounts, l, own)
		if d != nil {
			// A pod injected automatically is never refused for it: its
			// debug container goes without.
			if asksForBundles(annotations) {
				return d.result()
			}
			result.Warnings = append(result.Warnings, fmt.Sprintf("ephemeral container %q did not get the injected subscription volumes: %s", c.Name, d.message))
			continue
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

// asksForBundles reports whether the pod asks for a bundle by annotation.
func asksForBundles(annotations map[string]string) bool {
	return mutation.Asks(annotations, subscriptionv1alpha1.InjectBundleAnnotation) || mutation.Asks(annotations, subscriptionv1alpha1.InjectClusterBundleAnnotation)
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

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// annotationPatch sets one annotation, creating the map if the pod has none.
func annotationPatch(annotations map[string]string, key, value string) mutation.PatchOperation {
	if annotations == nil {
		return mutation.PatchOperation{Op: "add", Path: "/metadata/annotations", Value: map[string]string{key: value}}
	}
	return mutation.PatchOperation{Op: "add", Path: "/metadata/annotations/" + escapePointer(key), Value: value}
}
