package controlplane

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// kwokAnnotation marks the nodes kwok simulates.
const kwokAnnotation = "kwok.x-k8s.io/node"

// Node names of the simulated cluster: three control-plane nodes, tainted
// like the masters of a highly available OpenShift cluster, and one worker.
var ControlPlaneNodes = []string{"control-plane-0", "control-plane-1", "control-plane-2"}

// WorkerNode is where pods without a node selector land.
const WorkerNode = "worker-0"

// startNodes runs kube-scheduler and kwok, and registers fake nodes that
// kwok keeps Ready. kwok sets the pods it sees bound to them Running and
// Ready; no container runs, which the tests that use it must not forget.
func (cp *ControlPlane) startNodes(ctx context.Context, schedPort, kwokPort int, extraStages []string) error {
	schedConfig := filepath.Join(cp.Dir, "scheduler.kubeconfig")
	sched, err := cp.start("kube-scheduler", "kube-scheduler",
		"--kubeconfig="+schedConfig, "--authentication-kubeconfig="+schedConfig, "--authorization-kubeconfig="+schedConfig,
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", schedPort),
		"--leader-elect=false")
	if err != nil {
		return err
	}
	if err := sched.waitHealthy(ctx, insecureClient(), fmt.Sprintf("https://%s/healthz", hostPort(schedPort)), 60*time.Second); err != nil {
		return err
	}

	stages, err := filepath.Glob(filepath.Join(cp.BinDir, "kwok-stages", "*.yaml"))
	if err != nil || len(stages) == 0 {
		return fmt.Errorf("no kwok stage definitions in %s/kwok-stages: rerun hack/build-controlplane.sh", cp.BinDir)
	}
	args := []string{
		"--kubeconfig=" + cp.AdminKubeconfig,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + kwokAnnotation + "=fake",
		// Loopback pod and node addresses: nothing in the cluster points off-host.
		"--cidr=127.20.0.1/24", "--node-ip=127.0.0.1",
		"--server-address=" + hostPort(kwokPort),
	}
	for _, stage := range append(stages, extraStages...) {
		args = append(args, "--config="+stage)
	}
	kwok, err := cp.start("kwok", "kwok", args...)
	if err != nil {
		return err
	}
	if err := kwok.waitHealthy(ctx, insecureClient(), fmt.Sprintf("http://%s/healthz", hostPort(kwokPort)), 30*time.Second); err != nil {
		return err
	}

	client, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	nodes := []*corev1.Node{fakeNode(WorkerNode, map[string]string{"node-role.kubernetes.io/worker": ""}, nil)}
	for _, name := range ControlPlaneNodes {
		nodes = append(nodes, fakeNode(name, map[string]string{"node-role.kubernetes.io/master": "", "node-role.kubernetes.io/control-plane": ""},
			[]corev1.Taint{{Key: "node-role.kubernetes.io/master", Effect: corev1.TaintEffectNoSchedule}}))
	}
	for _, node := range nodes {
		if _, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("registering node %s: %w", node.Name, err)
		}
	}
	// Ready and schedulable: kwok heartbeats, then the node lifecycle
	// controller lifts the not-ready taint.
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, node := range nodes.Items {
			if !nodeReady(&node) {
				return false, nil
			}
			for _, taint := range node.Spec.Taints {
				if taint.Key == corev1.TaintNodeNotReady {
					return false, nil
				}
			}
		}
		return len(nodes.Items) == len(ControlPlaneNodes)+1, nil
	})
}

func fakeNode(name string, roles map[string]string, taints []corev1.Taint) *corev1.Node {
	labels := map[string]string{
		"kubernetes.io/hostname": name,
		"kubernetes.io/os":       "linux",
		"kubernetes.io/arch":     "amd64",
		"type":                   "kwok",
	}
	for k, v := range roles {
		labels[k] = v
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("16"),
		corev1.ResourceMemory: resource.MustParse("64Gi"),
		// Load tests create hundreds of pods; nothing runs them.
		corev1.ResourcePods: resource.MustParse("1000"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: map[string]string{kwokAnnotation: "fake"}},
		Spec:       corev1.NodeSpec{Taints: taints},
		Status:     corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
