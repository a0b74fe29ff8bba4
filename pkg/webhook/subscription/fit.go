package subscription

import (
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// fitToPod decides what the pod gets. The bundles it asked for come first and
// must fit: a clash with the pod's own volumes or mounts refuses it. Then
// each always-inject bundle is added if it still fits, and left out with a
// warning if not: it is never the reason a pod is refused.
func (p *plan) fitToPod(pod *mutation.PodOutline, own ownership) (*fitted, *denial) {
	// Most often everything fits at once: one layout, one merge.
	if f := p.fitAll(pod, own); f != nil {
		return f, nil
	}
	f, d := fit(pod, own, buildLayout(p.entitlements, p.repos, p.encoded))
	if d != nil {
		return nil, d
	}
	for _, c := range p.candidates {
		f = p.fitCandidate(pod, own, c, f)
	}
	return f, nil
}

// fitAll fits what the pod asked for and every candidate together, taking
// them all, or returns nil when there is no candidate or they do not fit
// together.
func (p *plan) fitAll(pod *mutation.PodOutline, own ownership) *fitted {
	if len(p.candidates) == 0 {
		return nil
	}
	entitlements, repos := p.entitlements, p.repos
	for _, c := range p.candidates {
		entitlements, repos = dedupe(append(entitlements, c.entitlements...)), dedupe(append(repos, c.repos...))
	}
	if checkKeys(entitlements, repos) != nil {
		return nil
	}
	f, d := fit(pod, own, buildLayout(entitlements, repos, p.encoded))
	if d != nil {
		return nil
	}
	for _, c := range p.candidates {
		c.record(&p.generations)
	}
	p.entitlements, p.repos = entitlements, repos
	return f
}

// fitCandidate adds one candidate to what fits so far (f) and returns the
// result, or leaves it out with a warning and returns f.
func (p *plan) fitCandidate(pod *mutation.PodOutline, own ownership, c candidate, f *fitted) *fitted {
	entitlements, repos := dedupe(append(slices.Clip(p.entitlements), c.entitlements...)), dedupe(append(slices.Clip(p.repos), c.repos...))
	if d := checkKeys(entitlements, repos); d != nil {
		p.skip(c.what, d.message)
		return f
	}
	next, d := fit(pod, own, buildLayout(entitlements, repos, p.encoded))
	if d != nil {
		p.skip(c.what, d.message)
		return f
	}
	c.record(&p.generations)
	p.entitlements, p.repos = entitlements, repos
	return next
}

// fitted is the pod's volumes, and the mounts of each of its init
// containers then containers, with the injected ones in place.
type fitted struct {
	volumes []corev1.Volume
	// encoded holds, for each injected volume in volumes, its JSON.
	encoded []mutation.Encoded
	mounts  [][]corev1.VolumeMount
	// injected names the volumes the injection added, for the record.
	injected []string
}

// fit merges a layout into the pod, or says what of the pod's own is in
// the way.
func fit(pod *mutation.PodOutline, own ownership, l layout) (*fitted, *denial) {
	volumes, encoded, d := mergeVolumes(pod.Spec.Volumes, pod.ReceivedVolumes(), l, own)
	if d != nil {
		return nil, d
	}
	f := &fitted{volumes: volumes, encoded: encoded, injected: make([]string, 0, len(l.volumes)),
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
// received is the JSON each existing volume came in, if known: the pod's own
// volumes are sent back as they came.
func mergeVolumes(existing []corev1.Volume, received []mutation.Encoded, l layout, own ownership) ([]corev1.Volume, []mutation.Encoded, *denial) {
	out := make([]corev1.Volume, 0, len(existing)+len(l.volumes))
	encoded := make([]mutation.Encoded, 0, cap(out))
	present := make([]bool, len(l.volumes))
	for j, v := range existing {
		i := slices.IndexFunc(l.volumes, func(w injectedVolume) bool { return w.Name == v.Name })
		switch {
		case i >= 0 && reflect.DeepEqual(v, l.volumes[i].Volume):
			present[i] = true
		case own.owns(v.Name):
			continue // replaced below, or no longer injected
		case i >= 0:
			return nil, nil, deny(reasonConflict, "the pod already has a volume named %q, which subscription injection did not add and needs for %s; rename that volume",
				v.Name, l.volumes[i].origin)
		}
		out = append(out, v)
		if received != nil {
			encoded = append(encoded, received[j])
		} else {
			encoded = append(encoded, nil)
		}
	}
	for i, v := range l.volumes {
		if !present[i] {
			out = append(out, v.Volume)
			encoded = append(encoded, v.encoded)
		}
	}
	return out, encoded, nil
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

// Path conflicts. A container's mount paths are compared with /var/run
// read as /run (on every image the injection serves, /var/run is a link to
// /run, so /var/run/secrets is /run/secrets).

// normalPath cleans a mount path and reads /var/run as /run, without
// allocating for a path already clean.
func normalPath(p string) string {
	p = path.Clean(p)
	if p == "/var/run" || strings.HasPrefix(p, "/var/run/") {
		return p[len("/var"):]
	}
	return p
}

// inside reports whether p is strictly below dir.
func inside(p, dir string) bool {
	if dir == "/" {
		return len(p) > 1 && p[0] == '/'
	}
	return len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

// pathClash says how a user's mount at p (normalised) collides with an
// injected mount at ours, or "" when it does not.
func pathClash(p, ours string) string {
	switch {
	case p == ours:
		return "at"
	case inside(p, ours):
		return "inside"
	case inside(ours, p):
		return "over"
	}
	return ""
}

// fitEphemeral merges the layout into each debug container the request
// adds, and patches those whose mounts change.
func fitEphemeral(pod, old *mutation.PodOutline, l layout, partial bool, own ownership) mutation.Result {
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
			if asksForBundles(pod.Metadata.Annotations) {
				return d.result()
			}
			result.Warnings = append(result.Warnings, fmt.Sprintf("ephemeral container %q did not get the injected subscription volumes: %s", c.Name, d.message))
			continue
		}
		if reflect.DeepEqual(merged, c.VolumeMounts) {
			continue
		}
		result.Patch = append(result.Patch, mountsPatch("ephemeralContainers", i, merged))
		if partial {
			result.Warnings = append(result.Warnings, fmt.Sprintf("ephemeral container %q: Kubernetes forbids subPath mounts in ephemeral containers, "+
				"so the injected subscription volumes are mounted whole under %s/<volume> rather than key by key", c.Name, ephemeralDir))
		}
	}
	return result
}
