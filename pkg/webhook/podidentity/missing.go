package podidentity

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// Uncredentialed is a pod that runs without the credentials its
// ServiceAccount grants: admitted while the webhook was skipped (down, or
// failing open), or created before the ServiceAccount named a role.
type Uncredentialed struct {
	// ServiceAccount is "namespace/name".
	ServiceAccount string
	RoleARN        string
	// Containers are the init containers and containers, in the pod's
	// order, that the webhook would give credentials now and that lack
	// them.
	Containers []string
}

// Missing says whether a pod that exists lacks what the mutator would give
// it if it were created now, from the same annotations, skip label,
// skip-containers and allow-containers it decides by: the token volume,
// or in a container the token mount or the identity variables (AWS_ROLE_ARN,
// AWS_WEB_IDENTITY_TOKEN_FILE). The region and regional STS variables are
// not credentials and are not looked at. A pod the mutator would refuse
// (a malformed annotation) is not reported: created again, it would be
// refused, with the reason, rather than started with credentials. It
// returns nil for a pod that lacks nothing.
func (m *Mutator) Missing(ctx context.Context, namespace string, pod *mutation.PodOutline) *Uncredentialed {
	if _, skip := pod.Metadata.Labels[podidentityv1alpha1.SkipLabel]; skip {
		return nil
	}
	if _, mirror := pod.Metadata.Annotations[mutation.MirrorPodAnnotation]; mirror {
		return nil
	}
	s, d := m.settings(ctx, mutation.NewRequest(admissionv1.Create, namespace, "", pod, nil))
	if d != nil || s == nil || s.unchecked != "" {
		return nil
	}
	volume := notOurs(findVolume(pod.Spec.Volumes)) == ""
	var lacking []string
	for _, containers := range [][]mutation.ContainerOutline{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range containers {
			c := &containers[i]
			if !s.credentialed(c.Name) {
				continue
			}
			if !volume || !hasIdentityEnv(c) || !mountsToken(c) {
				lacking = append(lacking, c.Name)
			}
		}
	}
	if len(lacking) == 0 {
		return nil
	}
	return &Uncredentialed{ServiceAccount: s.serviceAccount, RoleARN: s.roleARN, Containers: lacking}
}

// credentialed says whether the pod's skip-containers and allow-containers
// let the container have credentials.
func (s *settings) credentialed(container string) bool {
	return !s.skip[container] && (s.allow == nil || s.allow[container])
}

// hasIdentityEnv says whether the container sets either identity variable:
// the mutator then adds neither, as upstream.
func hasIdentityEnv(c *mutation.ContainerOutline) bool {
	for _, e := range c.Env {
		if e.Name == envRoleARN || e.Name == envTokenFile {
			return true
		}
	}
	return false
}

// mountsToken says whether the container mounts the token volume.
func mountsToken(c *mutation.ContainerOutline) bool {
	for _, mount := range c.VolumeMounts {
		if mount.Name == VolumeName {
			return true
		}
	}
	return false
}
