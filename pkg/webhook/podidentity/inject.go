package podidentity

import (
	"fmt"
	"path"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// mutateCreate adds the token volume, then the environment and mount to
// every container and init container not skipped. The patch only adds, so
// nothing of the pod's own is replaced, and it is empty for a pod injected
// already (the API server's reinvocation).
func (m *Mutator) mutateCreate(pod *mutation.PodOutline, s *settings) mutation.Result {
	// A volume, and for each container at most one operation per
	// variable and a mount.
	result := mutation.Result{Patch: make([]mutation.PatchOperation, 0, 1+(envVariables+1)*(len(pod.Spec.InitContainers)+len(pod.Spec.Containers)))}
	if v := findVolume(pod.Spec.Volumes); v != nil {
		if why := notOurs(v); why != "" {
			return mutation.Deny(reasonConflict, fmt.Sprintf("the pod already has a volume named %q that is not a service account token (%s); pod identity mounts "+
				"a token volume of that name at %s for the IAM role of ServiceAccount %s: rename that volume", VolumeName, why, m.config.MountPath, s.serviceAccount))
		}
	} else {
		volume := m.volumes.Get(volumeKey{audience: s.audience, expiration: s.expiration}, func() *tokenVolume {
			return newTokenVolume(s.audience, s.expiration)
		})
		if len(pod.Spec.Volumes) == 0 {
			result.Patch = append(result.Patch, mutation.PatchOperation{Op: "add", Path: "/spec/volumes", Value: volume.list})
		} else {
			// First, as upstream puts it.
			result.Patch = append(result.Patch, mutation.PatchOperation{Op: "add", Path: "/spec/volumes/0", Value: volume.item})
		}
		if s.expirationWarning != "" {
			result.Warnings = append(result.Warnings, s.expirationWarning)
		}
	}
	for _, group := range []struct {
		field, kind string
		containers  []mutation.ContainerOutline
	}{{"initContainers", "init container", pod.Spec.InitContainers}, {"containers", "container", pod.Spec.Containers}} {
		for i := range group.containers {
			c := &group.containers[i]
			var d *denial
			result.Patch, d = m.inject(result.Patch, "/spec/"+group.field+"/"+strconv.Itoa(i), group.kind, c, s)
			if d != nil {
				return mutation.Deny(d.reason, d.message)
			}
		}
	}
	return result
}

// mutateEphemeral gives a debug container added to an injected pod the
// same credentials: on this subresource only ephemeral containers may
// change, and those already in the pod may not.
func (m *Mutator) mutateEphemeral(req *mutation.Request, s *settings) mutation.Result {
	pod := req.Outline
	if why := notOurs(findVolume(pod.Spec.Volumes)); why != "" {
		// The pod runs already; refusing would only stop its debugging.
		return mutation.Result{Warnings: []string{fmt.Sprintf("the debug container gets no AWS credentials for ServiceAccount %s: the pod's volume %q is not a service account token (%s)",
			s.serviceAccount, VolumeName, why)}}
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
	for i := range pod.Spec.EphemeralContainers {
		c := &pod.Spec.EphemeralContainers[i]
		if existing[c.Name] {
			continue
		}
		var d *denial
		result.Patch, d = m.inject(result.Patch, "/spec/ephemeralContainers/"+strconv.Itoa(i), "ephemeral container", c, s)
		if d != nil {
			return mutation.Deny(d.reason, d.message)
		}
	}
	return result
}

func findVolume(volumes []corev1.Volume) *corev1.Volume {
	for i := range volumes {
		if volumes[i].Name == VolumeName {
			return &volumes[i]
		}
	}
	return nil
}

// notOurs says why a volume under VolumeName does not put a service account
// token at TokenFile, or returns "". Audience and lifetime are not checked:
// a pod copied from an injected one keeps what it was given, as upstream.
func notOurs(v *corev1.Volume) string {
	if v == nil {
		return "it is missing"
	}
	if v.Projected == nil {
		return "it is not a projected volume"
	}
	for _, source := range v.Projected.Sources {
		if source.ServiceAccountToken != nil && source.ServiceAccountToken.Path == TokenFile {
			return ""
		}
	}
	return fmt.Sprintf("it projects no service account token at path %q", TokenFile)
}

// inject appends the operations that give one container the credentials.
// As upstream, the environment comes in three groups, each added only when
// the container sets none of its variables, so nothing the container sets
// is overridden; a container that sets all three is left as it is.
func (m *Mutator) inject(ops []mutation.PatchOperation, at, kind string, c *mutation.ContainerOutline, s *settings) ([]mutation.PatchOperation, *denial) {
	name, env, mounts := c.Name, c.Env, c.VolumeMounts
	if !s.credentialed(name) {
		return ops, nil
	}
	var identity, region, sts bool
	for _, e := range env {
		switch e.Name {
		case envRoleARN, envTokenFile:
			identity = true
		case envRegion, envDefaultRegion:
			region = true
		case envRegionalSTS:
			sts = true
		}
	}
	if identity && region && sts {
		return ops, nil
	}
	mounted := mountsToken(c)
	if !mounted {
		for _, mount := range mounts {
			if path.Clean(mount.MountPath) == path.Clean(m.config.MountPath) {
				leaveOut := "name the container in annotation " + podidentityv1alpha1.SkipContainersAnnotation
				if s.allow != nil {
					leaveOut = "leave the container out of annotation " + podidentityv1alpha1.AllowContainersAnnotation
				}
				return ops, deny(reasonConflict, "%s %q already mounts volume %q at %s, where pod identity mounts the web identity token for the IAM role of ServiceAccount %s; "+
					"mount that volume elsewhere, or %s", kind, name, mount.Name, mount.MountPath, s.serviceAccount, leaveOut)
			}
		}
	}

	groups := 0
	if !sts && s.regionalSTS {
		groups |= groupSTS
	}
	if !region && m.config.Region != "" {
		groups |= groupRegion
	}
	if !identity {
		groups |= groupIdentity
	}
	switch {
	case groups == 0:
	case len(env) == 0:
		ops = append(ops, mutation.PatchOperation{Op: "add", Path: at + "/env", Value: s.encodedEnv.lists[groups]})
	default:
		appendEnv := at + "/env/-"
		for group, items := range groupItems {
			if groups&(1<<group) != 0 {
				for _, i := range items {
					ops = append(ops, mutation.PatchOperation{Op: "add", Path: appendEnv, Value: s.encodedEnv.items[i]})
				}
			}
		}
	}
	switch {
	case mounted:
	case len(mounts) == 0:
		ops = append(ops, mutation.PatchOperation{Op: "add", Path: at + "/volumeMounts", Value: m.mountList})
	default:
		ops = append(ops, mutation.PatchOperation{Op: "add", Path: at + "/volumeMounts/-", Value: m.mountItem})
	}
	return ops, nil
}
