package subscription

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// Where keys land: what dnf and subscription-manager read in a container.
const (
	EntitlementDir = "/run/secrets/etc-pki-entitlement"
	RepoDir        = "/run/secrets"
	// ephemeralDir holds, per volume, what an ephemeral container cannot get
	// as single files (the API forbids subPath there).
	ephemeralDir = "/run/secrets/subscription"

	// SharedResourceDriver is the Shared Resource CSI driver.
	SharedResourceDriver = "csi.sharedresource.openshift.io"

	entitlementsVolume  = "subscription-entitlements"
	reposVolume         = "subscription-yum-repos"
	entitlementSharePfx = "subscription-ent-"
	repoSharePfx        = "subscription-yum-"
)

// layout is the volumes and the per-container mounts of one plan, each
// with the bundles behind it, for messages.
type layout struct {
	volumes []injectedVolume
	mounts  []injectedMount
}

type injectedVolume struct {
	corev1.Volume
	origin string
	// encoded is the volume's JSON, encoded once per content.
	encoded mutation.Encoded
}

type injectedMount struct {
	corev1.VolumeMount
	origin string
	// what the mount holds, for messages: "entitlement keys", ...
	what string
}

// buildLayout turns mounted objects into volumes and mounts. Namespaced bundles
// share one projected volume per kind; each ClusterBundle share is its own
// CSI volume (the driver mounts one share per volume). Entitlement keys
// must still be one directory: a single volume is mounted there whole, so
// the kubelet or driver refreshes rotated keys; several volumes are mounted
// key by key (subPath). Yum repository files go key by key into
// /run/secrets so nothing else the runtime puts there is hidden.
func buildLayout(entitlements, repos []mountedObject, encoded *volumeCache) layout {
	entVolumes, entMounts := volumesFor(entitlements, entitlementsVolume, entitlementSharePfx, EntitlementDir, "an entitlement key", encoded)
	repoVolumes, repoMounts := volumesFor(repos, reposVolume, repoSharePfx, RepoDir, "a yum repository file", encoded)
	l := layout{
		volumes: append(slices.Clip(entVolumes), repoVolumes...),
		mounts:  make([]injectedMount, 0, len(entMounts)+len(repoMounts)),
	}
	if len(entVolumes) == 1 {
		l.mounts = append(l.mounts, injectedMount{
			VolumeMount: corev1.VolumeMount{Name: entVolumes[0].Name, MountPath: EntitlementDir, ReadOnly: true},
			origin:      entVolumes[0].origin, what: "entitlement keys",
		})
	} else {
		l.mounts = append(l.mounts, entMounts...)
	}
	l.mounts = append(l.mounts, repoMounts...)
	return l
}

// volumesFor builds the volumes of one kind of mounted object and the key-by-key
// mounts into dir, each volume encoded once per content (what its key
// names) in the cache.
func volumesFor(objects []mountedObject, projectedName, sharePrefix, dir, what string, cache *volumeCache) ([]injectedVolume, []injectedMount) {
	keys := 0
	for _, s := range objects {
		keys += len(s.keys)
	}
	var volumes []injectedVolume
	mounts := make([]injectedMount, 0, keys)
	projected := -1
	for _, s := range objects {
		var volume string
		if s.share == "" {
			if projected < 0 {
				projected = len(volumes)
				volumes = append(volumes, injectedVolume{Volume: corev1.Volume{Name: projectedName, VolumeSource: corev1.VolumeSource{
					Projected: &corev1.ProjectedVolumeSource{DefaultMode: ptrTo[int32](0o644)},
				}}})
			}
			v := &volumes[projected]
			v.Projected.Sources = append(v.Projected.Sources, projection(s))
			v.origin = joinOrigin(v.origin, s.origin)
			volume = projectedName
		} else {
			volume = sharePrefix + shortHash(s.share)
			attribute := "sharedSecret"
			if s.kind == "configmap" {
				attribute = "sharedConfigMap"
			}
			volumes = append(volumes, injectedVolume{origin: s.origin, Volume: corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{
				Driver:           SharedResourceDriver,
				ReadOnly:         ptrTo(true),
				VolumeAttributes: map[string]string{attribute: s.share},
			}}}})
		}
		for _, k := range s.keys {
			mounts = append(mounts, injectedMount{
				VolumeMount: corev1.VolumeMount{Name: volume, MountPath: path.Join(dir, k), SubPath: k, ReadOnly: true},
				origin:      s.origin, what: what,
			})
		}
	}
	if cache != nil {
		for i := range volumes {
			volumes[i].encoded = cache.get(&volumes[i].Volume)
		}
	}
	return volumes, mounts
}

// volumeCache holds the injected volumes encoded, by what volumesFor
// builds each from: its name and, for a projected volume, each mounted object's
// kind and name; for a CSI volume, its share. A bundle generation's
// volumes are encoded once, not on every admission.
type volumeCache struct {
	mu     sync.Mutex
	values map[string]mutation.Encoded
}

// maxEncodedVolumes bounds the cache: past it, it starts again empty.
const maxEncodedVolumes = 4096

func (c *volumeCache) get(v *corev1.Volume) mutation.Encoded {
	var buf [256]byte
	key := append(buf[:0], v.Name...)
	switch {
	case v.Projected != nil:
		for _, p := range v.Projected.Sources {
			switch {
			case p.Secret != nil:
				key = append(append(key, "\x00secret\x00"...), p.Secret.Name...)
			case p.ConfigMap != nil:
				key = append(append(key, "\x00configmap\x00"...), p.ConfigMap.Name...)
			}
		}
	case v.CSI != nil:
		for attribute, share := range v.CSI.VolumeAttributes {
			key = append(append(append(append(key, 0), attribute...), 0), share...)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if encoded, ok := c.values[string(key)]; ok {
		return encoded
	}
	if c.values == nil || len(c.values) >= maxEncodedVolumes {
		c.values = make(map[string]mutation.Encoded)
	}
	encoded := mutation.Encode(v)
	c.values[string(key)] = encoded
	return encoded
}

// joinOrigin adds a bundle to the ones a shared volume already names.
func joinOrigin(origins, origin string) string {
	switch {
	case origins == "":
		return origin
	case origin == "" || slices.Contains(strings.Split(origins, " and "), origin):
		return origins
	}
	return origins + " and " + origin
}

func projection(s mountedObject) corev1.VolumeProjection {
	if s.kind == "configmap" {
		return corev1.VolumeProjection{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: s.name}}}
	}
	return corev1.VolumeProjection{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: s.name}}}
}

// shortHash names a CSI volume after its share within the 63-character
// limit on volume names, the same way on every admission.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:10]
}

// isInjectedVolume reports whether a volume bears a name the injection
// gives, exactly: a user's own "subscription-data" is never taken for ours.
func isInjectedVolume(name string) bool {
	return name == reposVolume || isShareVolume(name, repoSharePfx) || isEntitlementVolume(name)
}

func isEntitlementVolume(name string) bool {
	return name == entitlementsVolume || isShareVolume(name, entitlementSharePfx)
}

// isShareVolume reports whether name is prefix followed by a shortHash.
func isShareVolume(name, prefix string) bool {
	hash, ok := strings.CutPrefix(name, prefix)
	return ok && len(hash) == 10 && strings.Trim(hash, "0123456789abcdef") == ""
}

// ephemeralLayout is what a debug container gets of the volumes an earlier
// admission injected. subPath is forbidden in ephemeral containers, so only
// a lone entitlement volume lands in its usual directory; every other
// volume is mounted whole under ephemeralDir.
func ephemeralLayout(volumes []corev1.Volume, own ownership) (l layout, partial bool) {
	var injected []string
	entitlementVolumes := 0
	for _, v := range volumes {
		if own.owns(v.Name) {
			injected = append(injected, v.Name)
			if isEntitlementVolume(v.Name) {
				entitlementVolumes++
			}
		}
	}
	for _, name := range injected {
		l.volumes = append(l.volumes, injectedVolume{Volume: corev1.Volume{Name: name}})
		if entitlementVolumes == 1 && isEntitlementVolume(name) {
			l.mounts = append(l.mounts, injectedMount{VolumeMount: corev1.VolumeMount{Name: name, MountPath: EntitlementDir, ReadOnly: true}, what: "entitlement keys"})
			continue
		}
		partial = true
		l.mounts = append(l.mounts, injectedMount{VolumeMount: corev1.VolumeMount{Name: name, MountPath: path.Join(ephemeralDir, name), ReadOnly: true}, what: "an injected volume"})
	}
	return l, partial
}

func ptrTo[T any](v T) *T { return &v }
