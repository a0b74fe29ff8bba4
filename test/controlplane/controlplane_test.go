package controlplane

import (
	"context"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TestDeploymentBecomesAvailable proves the pieces the operator's tests lean
// on: kube-controller-manager creates ReplicaSets and pods, kube-scheduler
// places them on the tainted control-plane node only when they tolerate it,
// and kwok reports them Ready so the Deployment becomes Available.
func TestDeploymentBecomesAvailable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp, err := Start(ctx, Options{Nodes: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()
	defer func() {
		if t.Failed() {
			t.Log(cp.Logs(60))
		}
	}()
	client := kubernetes.NewForConfigOrDie(cp.Config)

	labels := map[string]string{"app": "probe"}
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"node-role.kubernetes.io/master": ""},
					Tolerations:  []corev1.Toleration{{Key: "node-role.kubernetes.io/master", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
					Containers:   []corev1.Container{{Name: "c", Image: "registry.invalid/probe:1"}},
				},
			},
		},
	}
	if _, err := client.AppsV1().Deployments("default").Create(ctx, deploy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		d, err := client.AppsV1().Deployments("default").Get(ctx, "probe", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return d.Status.AvailableReplicas == 2, nil
	})
	if err != nil {
		t.Fatalf("deployment never became available: %v", err)
	}
	pods, err := client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=probe"})
	if err != nil {
		t.Fatal(err)
	}
	for _, pod := range pods.Items {
		if !slices.Contains(ControlPlaneNodes, pod.Spec.NodeName) {
			t.Errorf("pod %s scheduled to %q, want one of %v", pod.Name, pod.Spec.NodeName, ControlPlaneNodes)
		}
	}
}
