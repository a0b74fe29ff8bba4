package uncredentialedpods

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	webhookpodidentity "github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
)

// podAnnotations and podLabels are all the decision and the restart
// command read of a pod's.
var (
	podAnnotations = []string{podidentityv1alpha1.SkipContainersAnnotation, podidentityv1alpha1.AllowContainersAnnotation,
		podidentityv1alpha1.TokenExpirationAnnotation, mutation.MirrorPodAnnotation}
	podLabels = []string{podidentityv1alpha1.SkipLabel, "pod-template-hash"}
	// identityEnv are the variables whose presence the decision reads
	// (values are not kept).
	identityEnv = map[string]bool{"AWS_ROLE_ARN": true, "AWS_WEB_IDENTITY_TOKEN_FILE": true}
)

// slimPod is the transform of the cluster-wide cache of running pods: of
// a pod, what Missing and RestartCommand read (the pod identity annotations
// and labels, its controller, its ServiceAccount, the token volume, and of
// each container its name, the identity variables' names and the token
// mount), a few hundred bytes instead of the kilobytes of a pod.
func slimPod(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil // a tombstone: only its key is read
	}
	slim := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID, ResourceVersion: pod.ResourceVersion,
		Labels: keep(pod.Labels, podLabels), Annotations: keep(pod.Annotations, podAnnotations)}}
	if owner := metav1.GetControllerOf(pod); owner != nil {
		slim.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	slim.Spec.ServiceAccountName = pod.Spec.ServiceAccountName
	for _, v := range pod.Spec.Volumes {
		if v.Name == webhookpodidentity.VolumeName {
			slim.Spec.Volumes = []corev1.Volume{v}
		}
	}
	slim.Spec.InitContainers = slimContainers(pod.Spec.InitContainers)
	slim.Spec.Containers = slimContainers(pod.Spec.Containers)
	return slim, nil
}

func slimContainers(containers []corev1.Container) []corev1.Container {
	out := make([]corev1.Container, len(containers))
	for i, c := range containers {
		out[i].Name = c.Name
		for _, e := range c.Env {
			if identityEnv[e.Name] {
				out[i].Env = append(out[i].Env, corev1.EnvVar{Name: e.Name})
			}
		}
		for _, m := range c.VolumeMounts {
			if m.Name == webhookpodidentity.VolumeName {
				out[i].VolumeMounts = append(out[i].VolumeMounts, m)
			}
		}
	}
	return out
}

// keep is the entries of m under keys; nil when none.
func keep(m map[string]string, keys []string) map[string]string {
	var out map[string]string
	for _, k := range keys {
		if v, ok := m[k]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// slimServiceAccount is the transform of the ServiceAccount metadata
// cache: name and the role annotations the mutator reads, cut to its
// limits (CachedAnnotations); nothing of a ServiceAccount without a role.
func slimServiceAccount(obj any) (any, error) {
	sa, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj, nil // a tombstone: only its key is read
	}
	return &metav1.PartialObjectMetadata{TypeMeta: sa.TypeMeta, ObjectMeta: metav1.ObjectMeta{Name: sa.Name, Namespace: sa.Namespace, UID: sa.UID,
		ResourceVersion: sa.ResourceVersion, Annotations: webhookpodidentity.CachedAnnotations(sa.Annotations).Map()}}, nil
}
