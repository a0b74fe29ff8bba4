package podidentity

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// Patch values depend on the ServiceAccount's settings, never on the pod:
// each is encoded once per settings and sent as it is (mutation.Encoded),
// so an admission encodes no value by reflection.

// envBlock is a role's environment, encoded: each variable alone (for
// "/env/-"), and every list of the groups a container may lack (for a
// container without env), by the mask of groupSTS, groupRegion and
// groupIdentity.
type envBlock struct {
	items [5]mutation.Encoded
	lists [8]mutation.Encoded
}

const (
	groupSTS = 1 << iota
	groupRegion
	groupIdentity
)

// groupItems are the variables of each group, by index in settings.env.
var groupItems = [3][]int{{0}, {1, 2}, {3, 4}}

func newEnvBlock(env *[5]corev1.EnvVar) *envBlock {
	b := &envBlock{}
	for i := range env {
		b.items[i] = mutation.Encode(&env[i])
	}
	for mask := range b.lists {
		var list []corev1.EnvVar
		for group, items := range groupItems {
			if mask&(1<<group) != 0 {
				for _, i := range items {
					list = append(list, env[i])
				}
			}
		}
		b.lists[mask] = mutation.Encode(list)
	}
	return b
}

// tokenVolume is the token volume for one audience and lifetime, encoded
// as an item and as a list of one.
type tokenVolume struct {
	item, list mutation.Encoded
}

func newTokenVolume(audience string, expiration int64) *tokenVolume {
	volume := corev1.Volume{Name: VolumeName, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
			Audience: audience, ExpirationSeconds: ptr.To(expiration), Path: TokenFile,
		}}},
	}}}
	return &tokenVolume{item: mutation.Encode(volume), list: mutation.Encode([]corev1.Volume{volume})}
}

// maxEncoded bounds each cache: past it, the cache starts again empty.
// A cluster has a few audiences and lifetimes, and a role per
// ServiceAccount that has one.
const maxEncoded = 4096

// encodedCache holds values encoded once, by what they are built from.
type encodedCache[K comparable, V any] struct {
	mu     sync.Mutex
	values map[K]V
}

func (c *encodedCache[K, V]) get(key K, build func() V) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.values[key]; ok {
		return v
	}
	if c.values == nil || len(c.values) >= maxEncoded {
		c.values = make(map[K]V)
	}
	v := build()
	c.values[key] = v
	return v
}

type envKey struct {
	roleARN, tokenPath string
}

type volumeKey struct {
	audience   string
	expiration int64
}
