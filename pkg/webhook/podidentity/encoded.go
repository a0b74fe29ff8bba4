package podidentity

import (
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
	items [envVariables]mutation.Encoded
	lists [8]mutation.Encoded
}

const (
	groupSTS = 1 << iota
	groupRegion
	groupIdentity
)

// envVariables is how many variables pod identity may add to a container.
const envVariables = 5

// groupItems are the variables of each group, by index in settings.env.
var groupItems = [3][]int{{0}, {1, 2}, {3, 4}}

func newEnvBlock(env *[envVariables]corev1.EnvVar) *envBlock {
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

type envKey struct {
	roleARN, tokenPath string
}

type volumeKey struct {
	audience   string
	expiration int64
}
