package faults

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

const (
	// bundleName is the Bundle the "bundle" pods ask for: the fail-closed
	// (requested) webhook decides them.
	bundleName = "rhel"
	// roleAccount is the ServiceAccount of the "role" pods: its role ARN
	// annotation gets them AWS credentials from the fail-open webhook, so a
	// failed call shows as a pod created without them, not a refusal.
	roleAccount = "reader"
	roleARN     = "arn:aws:iam::123456789012:role/faults-reader"
	// loadInterval and loadBurst are 6 pods created at once every 240 ms,
	// 25 a second, the three kinds in turn: bursts, as controllers scaling
	// up create pods, keep several admissions in flight, so the API server
	// holds connections to both replicas and dials new ones.
	loadInterval = 240 * time.Millisecond
	loadBurst    = 6
	// nowhere is the node the load's pods are bound to: no such node, so
	// neither the scheduler nor kwok spends the 2 cores on them; admission,
	// which is what is measured, is the same.
	nowhere = "faults-nowhere"
)

// loadFixtures is the namespace the pod load creates pods in, with what its
// pods ask for: a validated Bundle and a ServiceAccount with a role.
type loadFixtures struct {
	namespace string
}

// createLoadFixtures creates the namespace, its Bundle (waiting for the
// operator to validate it, as the webhook refuses a pod asking for a Bundle
// not yet validated) and the role ServiceAccount.
func createLoadFixtures(ctx context.Context) (*loadFixtures, error) {
	ns, err := env.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "faults-load-"}}, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	l := &loadFixtures{namespace: ns.Name}
	if _, err := env.kube.CoreV1().Secrets(l.namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "entitlement"},
		Data:       map[string][]byte{"1.pem": []byte("not a real key")},
	}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	if _, err := env.kube.CoreV1().ServiceAccounts(l.namespace).Create(ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: roleAccount, Annotations: map[string]string{podidentityv1alpha1.RoleARNAnnotation: roleARN}},
	}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	if err := createValidatedBundle(ctx, l.namespace, bundleName); err != nil {
		return nil, err
	}
	// The ServiceAccount admission plugin refuses pods until the
	// namespace's default account exists.
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.kube.CoreV1().ServiceAccounts(l.namespace).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	return l, err
}

// createValidatedBundle creates a Bundle of the "entitlement" Secret and
// waits until the operator has validated it.
func createValidatedBundle(ctx context.Context, ns, name string) error {
	bundles := env.operator.SubscriptionV1alpha1().Bundles(ns)
	if _, err := bundles.Create(ctx, &v1alpha1.Bundle{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.BundleSpec{Entitlements: []v1alpha1.LocalReference{{Name: "entitlement"}}},
	}, metav1.CreateOptions{}); err != nil {
		return err
	}
	var last *v1alpha1.Bundle
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		b, err := bundles.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = b
		c := meta.FindStatusCondition(b.Status.Conditions, v1alpha1.ConditionInvalid)
		return b.Status.ObservedGeneration == b.Generation && c != nil && c.Status == metav1.ConditionFalse, nil
	})
	if err != nil {
		return fmt.Errorf("the operator never validated bundle %s/%s: %w (status %+v)", ns, name, err, last)
	}
	return nil
}

// kinds are the three pods of the load: one asking for nothing, one asking
// for the Bundle, one of the role ServiceAccount.
func (l *loadFixtures) kinds() []framework.PodKind {
	return []framework.PodKind{
		{Name: "plain", Namespace: l.namespace, Pod: func() *corev1.Pod { return loadPod(nil, "default") }},
		{Name: "bundle", Namespace: l.namespace,
			Pod: func() *corev1.Pod {
				return loadPod(map[string]string{v1alpha1.InjectBundleAnnotation: bundleName}, "default")
			},
			Check: hasVolume("subscription-entitlements")},
		{Name: "role", Namespace: l.namespace,
			Pod:   func() *corev1.Pod { return loadPod(nil, roleAccount) },
			Check: hasVolume(podidentity.VolumeName)},
	}
}

// startLoad starts the package's pod load: the three kinds in turn.
func startLoad() *framework.PodLoad {
	return framework.StartPodLoadBursts(env.cp.Config, loadInterval, loadBurst, env.load.kinds()...)
}

func loadPod(annotations map[string]string, serviceAccount string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "load-", Annotations: annotations},
		Spec: corev1.PodSpec{
			ServiceAccountName: serviceAccount,
			NodeName:           nowhere,
			Containers: []corev1.Container{{
				Name: "app", Image: "registry.invalid/faults/app:1",
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false), RunAsNonRoot: ptr.To(true),
					Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
					SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
				},
			}},
		},
	}
}

// hasVolume is a PodKind check: the webhook injected the named volume.
func hasVolume(name string) func(*corev1.Pod) error {
	return func(p *corev1.Pod) error {
		for _, v := range p.Spec.Volumes {
			if v.Name == name {
				return nil
			}
		}
		var names []string
		for _, v := range p.Spec.Volumes {
			names = append(names, v.Name)
		}
		return fmt.Errorf("pod %s has no volume %s (volumes: %s)", p.Name, name, strings.Join(names, ", "))
	}
}
