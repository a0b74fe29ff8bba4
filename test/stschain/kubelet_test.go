package stschain

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// mountedContainer is what a container of a pod sees, built from the pod's
// spec alone the way the kubelet builds it: its environment, and its
// projected service account tokens as files under Root.
type mountedContainer struct {
	// Root stands for the container's "/": a mount path P is Root+P.
	Root string
	// Env is the container's environment, with any value that names a file
	// in a mounted token volume pointing into Root.
	Env []string
	// Tokens are the service account tokens written, by file (under Root).
	Tokens map[string]string
}

// mountTokens does for one container of pod what the kubelet does for its
// projected service account token volumes: for each token source of each
// projected volume it mounts, a TokenRequest for the pod's ServiceAccount
// with the source's audience and expiration, bound to the pod, written at
// <mount path>/<source path>. Env values must be plain values (the pod
// identity webhook injects no valueFrom).
func mountTokens(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod, containerName, root string) (*mountedContainer, error) {
	var container *corev1.Container
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == containerName {
			container = &pod.Spec.Containers[i]
		}
	}
	if container == nil {
		return nil, fmt.Errorf("pod %s/%s has no container %q", pod.Namespace, pod.Name, containerName)
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Spec.Volumes {
		volumes[v.Name] = v
	}
	mc := &mountedContainer{Root: root, Tokens: map[string]string{}}
	var tokenMounts []string
	for _, mount := range container.VolumeMounts {
		volume, ok := volumes[mount.Name]
		if !ok || volume.Projected == nil {
			continue
		}
		for _, source := range volume.Projected.Sources {
			projection := source.ServiceAccountToken
			if projection == nil {
				continue
			}
			token, err := kubeletToken(ctx, kube, pod, projection)
			if err != nil {
				return nil, fmt.Errorf("volume %s: %w", mount.Name, err)
			}
			file := filepath.Join(root, mount.MountPath, projection.Path)
			if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
				return nil, err
			}
			if err := os.WriteFile(file, []byte(token), 0o600); err != nil {
				return nil, err
			}
			mc.Tokens[file] = token
		}
		tokenMounts = append(tokenMounts, filepath.Clean(mount.MountPath)+"/")
	}
	for _, e := range container.Env {
		if e.ValueFrom != nil {
			return nil, fmt.Errorf("container %s: env %s comes from %+v; only plain values are expected", containerName, e.Name, e.ValueFrom)
		}
		value := e.Value
		for _, prefix := range tokenMounts {
			if strings.HasPrefix(value, prefix) {
				value = filepath.Join(root, value)
			}
		}
		mc.Env = append(mc.Env, e.Name+"="+value)
	}
	return mc, nil
}

// kubeletToken asks for a token as the kubelet does for a projection: the
// pod's ServiceAccount, the projection's audience (none means the API
// server's own) and expiration, bound to the pod by name and UID.
func kubeletToken(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod, projection *corev1.ServiceAccountTokenProjection) (string, error) {
	var audiences []string
	if projection.Audience != "" {
		audiences = []string{projection.Audience}
	}
	tr, err := kube.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, pod.Spec.ServiceAccountName, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{
			Audiences:         audiences,
			ExpirationSeconds: projection.ExpirationSeconds,
			BoundObjectRef:    &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("TokenRequest for %s/%s bound to pod %s: %w", pod.Namespace, pod.Spec.ServiceAccountName, pod.Name, err)
	}
	return tr.Status.Token, nil
}

// envValue is the value of name in env ("" when absent).
func envValue(env []string, name string) string {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, name+"="); ok {
			return v
		}
	}
	return ""
}
