package uncredentialedpods

import (
	"context"
	"strings"
	"testing"

	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	operatorv1alpha1listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	webhookpodidentity "github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
)

const (
	ns   = "shop"
	role = "arn:aws:iam::111122223333:role/s3-reader"
)

type keyed struct {
	factory.SyncContext
	key string
}

func (k keyed) QueueKey() string { return k.key }

// fixture is the controller over indexers the test fills.
type fixture struct {
	c        *controller
	pods     cache.Indexer
	accounts cache.Indexer
	wa       *operatorv1alpha1.WorkloadAccess
	events   *record.FakeRecorder
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{
		pods:     cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		accounts: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		wa: &operatorv1alpha1.WorkloadAccess{ObjectMeta: metav1.ObjectMeta{Name: operatorv1alpha1.WorkloadAccessName},
			Spec: operatorv1alpha1.WorkloadAccessSpec{PodIdentity: operatorv1alpha1.PodIdentitySpec{Mode: operatorv1alpha1.PodIdentityEnabled}}},
		events: record.NewFakeRecorder(10),
	}
	was := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := was.Add(f.wa); err != nil {
		t.Fatal(err)
	}
	f.c = &controller{pods: corev1listers.NewPodLister(f.pods), workloadAccesses: operatorv1alpha1listers.NewWorkloadAccessLister(was),
		infrastructures: configv1listers.NewInfrastructureLister(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})),
		mutator:         webhookpodidentity.New(webhookpodidentity.Config{}, serviceAccountCache{f.accounts}),
		events:          f.events, state: newState()}
	return f
}

func (f *fixture) account(t *testing.T, name string, annotations map[string]string) {
	t.Helper()
	obj, _ := slimServiceAccount(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: annotations}})
	if err := f.accounts.Add(obj); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) pod(t *testing.T, p *corev1.Pod) {
	t.Helper()
	obj, _ := slimPod(p)
	if err := f.pods.Add(obj); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) sync(t *testing.T, key string) {
	t.Helper()
	if err := f.c.sync(context.Background(), keyed{factory.NewSyncContext("test", events.NewInMemoryRecorder("test", clock.RealClock{})), key}); err != nil {
		t.Fatal(err)
	}
}

// drain returns the Events recorded since the last call.
func (f *fixture) drain() []string {
	var out []string
	for {
		select {
		case e := <-f.events.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// deploymentPod is a Deployment's pod, as admitted without the webhook:
// two containers, the second skipped.
func deploymentPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name),
			Labels:          map[string]string{"pod-template-hash": "7d9f8b6c5d", "app": "frontend"},
			Annotations:     map[string]string{podidentityv1alpha1.SkipContainersAnnotation: "proxy", "unrelated": strings.Repeat("x", 1000)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "frontend-7d9f8b6c5d", UID: "rs", Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{ServiceAccountName: "frontend", Containers: []corev1.Container{
			{Name: "web", Env: []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}}},
			{Name: "proxy"},
		}},
	}
}

// TestOneEventPerPodAndACountByNamespace: a pod without its credentials
// gets one Event however often it is synced, naming the role, the
// container and the rollout that restarts it; the count follows the
// ServiceAccount, pod identity being on, and the pod's going.
func TestOneEventPerPodAndACountByNamespace(t *testing.T) {
	f := newFixture(t)
	f.account(t, "frontend", map[string]string{podidentityv1alpha1.RoleARNAnnotation: role})
	f.pod(t, deploymentPod("frontend-7d9f8b6c5d-abcde"))
	key := ns + "/frontend-7d9f8b6c5d-abcde"

	f.sync(t, key)
	got := f.drain()
	if len(got) != 1 || !strings.HasPrefix(got[0], "Warning "+ReasonNotInjected+" ") || !strings.Contains(got[0], role) ||
		!strings.Contains(got[0], `container "web" has`) || strings.Contains(got[0], "proxy") ||
		!strings.Contains(got[0], "oc rollout restart deployment/frontend -n "+ns) {
		t.Fatalf("events %q", got)
	}
	f.sync(t, key)
	f.sync(t, factory.DefaultQueueKey)
	if got := f.drain(); len(got) != 0 {
		t.Errorf("a second sync recorded %q", got)
	}
	if got := f.c.state.byNamespace(); got[ns] != 1 || len(got) != 1 {
		t.Errorf("count %v, want 1 in %s", got, ns)
	}

	// Pod identity turned off: the webhook gives nothing, so nothing lacks.
	f.wa.Spec.PodIdentity.Mode = operatorv1alpha1.PodIdentityDisabled
	f.sync(t, key)
	if got := f.c.state.byNamespace(); len(got) != 0 {
		t.Errorf("count %v with pod identity disabled", got)
	}
	f.wa.Spec.PodIdentity.Mode = operatorv1alpha1.PodIdentityEnabled
	f.sync(t, key)
	if got, events := f.c.state.byNamespace(), f.drain(); got[ns] != 1 || len(events) != 0 {
		t.Errorf("count %v, events %q: want 1 and no second Event for the same pod", got, events)
	}

	// A pod of the same name is another pod: it gets its own Event.
	again := deploymentPod("frontend-7d9f8b6c5d-abcde")
	again.UID = "another"
	f.pod(t, again)
	f.sync(t, key)
	if got := f.drain(); len(got) != 1 {
		t.Errorf("the new pod of the same name: events %q", got)
	}

	// The pod goes (deleted, or no longer Running): not counted.
	if err := f.pods.Delete(again); err != nil {
		t.Fatal(err)
	}
	f.sync(t, key)
	if got := f.c.state.byNamespace(); len(got) != 0 {
		t.Errorf("count %v after the pod went", got)
	}
}

// TestPodsWithCredentialsOrNoneDueAreNotReported: injected, skipped, or of
// a ServiceAccount without a role.
func TestPodsWithCredentialsOrNoneDueAreNotReported(t *testing.T) {
	f := newFixture(t)
	f.account(t, "frontend", map[string]string{podidentityv1alpha1.RoleARNAnnotation: role})
	f.account(t, "plain", nil)
	injected := deploymentPod("injected")
	injected.Spec.Volumes = []corev1.Volume{{Name: webhookpodidentity.VolumeName, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: webhookpodidentity.TokenFile}}}}}}}
	injected.Spec.Containers[0].Env = append(injected.Spec.Containers[0].Env, corev1.EnvVar{Name: "AWS_ROLE_ARN", Value: role})
	injected.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: webhookpodidentity.VolumeName, MountPath: "/var/run/secrets/eks.amazonaws.com/serviceaccount"}}
	skipped := deploymentPod("skipped")
	skipped.Labels[podidentityv1alpha1.SkipLabel] = "true"
	plain := deploymentPod("plain")
	plain.Spec.ServiceAccountName = "plain"
	for _, p := range []*corev1.Pod{injected, skipped, plain} {
		f.pod(t, p)
		f.sync(t, ns+"/"+p.Name)
	}
	if got, events := f.c.state.byNamespace(), f.drain(); len(got) != 0 || len(events) != 0 {
		t.Errorf("count %v, events %q", got, events)
	}
}

// TestTheCacheKeepsWhatTheDecisionReads: the stripped pod is decided as
// the whole one.
func TestTheCacheKeepsWhatTheDecisionReads(t *testing.T) {
	accounts := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	obj, _ := slimServiceAccount(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "frontend", Namespace: ns,
		Annotations: map[string]string{podidentityv1alpha1.RoleARNAnnotation: role, "kubectl.kubernetes.io/last-applied-configuration": "{}"}}})
	if err := accounts.Add(obj); err != nil {
		t.Fatal(err)
	}
	if got := obj.(*metav1.PartialObjectMetadata).Annotations; len(got) != 1 {
		t.Errorf("the ServiceAccount keeps %v", got)
	}
	m := webhookpodidentity.New(webhookpodidentity.Config{}, serviceAccountCache{accounts})
	allowWeb := deploymentPod("allow")
	allowWeb.Annotations = map[string]string{podidentityv1alpha1.AllowContainersAnnotation: "proxy"}
	malformed := deploymentPod("malformed")
	malformed.Annotations[podidentityv1alpha1.TokenExpirationAnnotation] = "soon"
	ownEnv := deploymentPod("own-env")
	ownEnv.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "AWS_WEB_IDENTITY_TOKEN_FILE", Value: "/t"}}
	for _, p := range []*corev1.Pod{deploymentPod("plain"), allowWeb, malformed, ownEnv} {
		slim, _ := slimPod(p)
		whole := m.Missing(context.Background(), ns, mutation.OutlineOf(p))
		stripped := m.Missing(context.Background(), ns, mutation.OutlineOf(slim.(*corev1.Pod)))
		if (whole == nil) != (stripped == nil) || whole != nil && strings.Join(whole.Containers, ",") != strings.Join(stripped.Containers, ",") {
			t.Errorf("pod %s: whole %+v, stripped %+v", p.Name, whole, stripped)
		}
		if RestartCommand(p) != RestartCommand(slim.(*corev1.Pod)) {
			t.Errorf("pod %s: restart %q, stripped %q", p.Name, RestartCommand(p), RestartCommand(slim.(*corev1.Pod)))
		}
	}
}

func TestRestartCommand(t *testing.T) {
	owned := func(apiVersion, kind, name string) *corev1.Pod {
		p := deploymentPod("p-1")
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, Controller: ptr.To(true)}}
		return p
	}
	bare := deploymentPod("p-1")
	bare.OwnerReferences = nil
	for _, tc := range []struct {
		pod  *corev1.Pod
		want string
	}{
		{deploymentPod("p-1"), "oc rollout restart deployment/frontend -n shop"},
		{owned("apps/v1", "ReplicaSet", "standalone"), "oc delete pod p-1 -n shop (its ReplicaSet standalone creates it again)"},
		{owned("apps/v1", "StatefulSet", "db"), "oc rollout restart statefulset/db -n shop"},
		{owned("apps/v1", "DaemonSet", "agent"), "oc rollout restart daemonset/agent -n shop"},
		{owned("batch/v1", "Job", "backup"), "oc delete pod p-1 -n shop (its Job backup creates it again)"},
		{bare, "oc delete pod p-1 -n shop) and create it again"},
	} {
		if got := RestartCommand(tc.pod); !strings.Contains(got, tc.want) {
			t.Errorf("%v: %q, want %q in it", tc.pod.OwnerReferences, got, tc.want)
		}
	}
}
