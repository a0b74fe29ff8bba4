// Package uncredentialedpods finds running pods whose ServiceAccount grants
// an AWS IAM role and that lack the credentials the pod identity webhook
// would give them now: admitted while the webhook was skipped (down, its
// failure policy Ignore) or created before the ServiceAccount named the
// role. Each gets one Warning Event naming the role, the containers and
// the command that restarts it; the operator's /metrics counts them by
// namespace, for the WorkloadAccessPodsWithoutCredentials alert. What "lacks"
// means is the webhook mutator's own decision (pkg/webhook/podidentity
// Missing), so the two never disagree.
package uncredentialedpods

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	configv1informers "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	operatorv1alpha1informers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/operator/v1alpha1"
	operatorv1alpha1listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	webhookpodidentity "github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
)

// ControllerName names the controller in logs and the operator's events.
const ControllerName = "PodIdentityUncredentialedPods"

// ReasonNotInjected is the reason of the Event on a pod that runs without
// its credentials.
const ReasonNotInjected = "PodIdentityNotInjected"

// byServiceAccount indexes the cached pods by "namespace/serviceAccount".
const byServiceAccount = "serviceAccount"

// Inputs are what the controller needs.
type Inputs struct {
	Kube             kubernetes.Interface
	Metadata         metadata.Interface
	WorkloadAccesses operatorv1alpha1informers.WorkloadAccessInformer
	Config           configv1informers.Interface
	// Events records on the pods (pkg/operator/frame/objectevents).
	Events         record.EventRecorder
	OperatorClient v1helpers.OperatorClient
	Recorder       events.Recorder
}

// New returns the controller, keyed by pod, and registers its metric.
// Its two informers are its own: running pods, kept as only what the
// decision reads (slimPod), and ServiceAccounts as metadata, kept as their
// role annotations only.
func New(in Inputs) (factory.Controller, error) {
	running := fields.OneTermEqualSelector("status.phase", string(corev1.PodRunning)).String()
	podInformers := informers.NewSharedInformerFactoryWithOptions(in.Kube, informerkit.Resync, informers.WithTransform(slimPod),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = running }))
	pods := podInformers.Core().V1().Pods()
	if err := pods.Informer().AddIndexers(cache.Indexers{byServiceAccount: func(obj any) ([]string, error) {
		pod, ok := obj.(*corev1.Pod)
		if !ok {
			return nil, nil
		}
		return []string{pod.Namespace + "/" + serviceAccountOf(pod)}, nil
	}}); err != nil {
		return nil, err
	}
	accounts := metadatainformer.NewFilteredMetadataInformer(in.Metadata, corev1.SchemeGroupVersion.WithResource("serviceaccounts"), "",
		informerkit.Resync, cache.Indexers{}, nil).Informer()
	if err := accounts.SetTransform(slimServiceAccount); err != nil {
		return nil, err
	}
	c := &controller{
		pods:             pods.Lister(),
		workloadAccesses: in.WorkloadAccesses.Lister(),
		infrastructures:  in.Config.Infrastructures().Lister(),
		// Missing reads no setting of the mutator's Config: its defaults do.
		mutator: webhookpodidentity.New(webhookpodidentity.Config{}, serviceAccountCache{accounts.GetStore()}),
		events:  in.Events,
		state:   newState(),
	}
	if err := registerMetrics(c.state); err != nil {
		return nil, err
	}
	podsOfAccount := func(obj runtime.Object) []string {
		o, err := metav1Accessor(obj)
		if err != nil {
			return nil
		}
		keys, _ := pods.Informer().GetIndexer().IndexKeys(byServiceAccount, o.GetNamespace()+"/"+o.GetName())
		return keys
	}
	controller := factory.New().
		WithInformersQueueKeysFunc(informerkit.EveryKey(pods.Lister().List), informerkit.UpdatesWhen(in.WorkloadAccesses.Informer(), specChanged),
			informerkit.ChangesOnly(in.Config.Infrastructures().Informer())).
		WithInformersQueueKeysFunc(podKey, pods.Informer()).
		WithInformersQueueKeysFunc(podsOfAccount, informerkit.UpdatesWhen(accounts, annotationsChanged)).
		WithSync(managementsync.Syncs{Managed: c.sync}.Sync(in.OperatorClient)).
		ToController(ControllerName, in.Recorder.WithComponentSuffix("uncredentialed-pods"))
	return informerkit.StartOnRun(controller, podInformers.Start, func(stop <-chan struct{}) { go accounts.Run(stop) }), nil
}

type controller struct {
	pods             corev1listers.PodLister
	workloadAccesses operatorv1alpha1listers.WorkloadAccessLister
	infrastructures  configv1listers.InfrastructureLister
	mutator          *webhookpodidentity.Mutator
	events           record.EventRecorder
	state            *state
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	key := syncCtx.QueueKey()
	if key == factory.DefaultQueueKey {
		return nil // the start's and resync's key: every pod is synced by its own
	}
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := c.pods.Pods(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.state.forget(key) // deleted, or no longer running
		return nil
	}
	if err != nil {
		return err
	}
	decision, err := podidentity.Read(c.infrastructures, c.workloadAccesses)
	if err != nil {
		return err
	}
	var missing *webhookpodidentity.Uncredentialed
	if decision.Enabled {
		missing = c.mutator.Missing(ctx, namespace, mutation.OutlineOf(pod))
	}
	if c.state.observe(key, pod.Namespace, pod.UID, missing != nil) {
		c.events.Event(&corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
			corev1.EventTypeWarning, ReasonNotInjected, message(pod, missing))
	}
	return nil
}

// message says what the pod lacks, why that happens, and how to restart it.
func message(pod *corev1.Pod, missing *webhookpodidentity.Uncredentialed) string {
	containers := make([]string, len(missing.Containers))
	for i, name := range missing.Containers {
		containers[i] = fmt.Sprintf("%q", name)
	}
	subject := "container " + containers[0] + " has"
	if len(containers) > 1 {
		subject = "containers " + strings.Join(containers, ", ") + " have"
	}
	return fmt.Sprintf("the pod runs without the AWS credentials of ServiceAccount %s (role %s): %s no web identity token or AWS_ROLE_ARN. "+
		"It was admitted while the pod identity webhook was skipped, or before the ServiceAccount named the role; "+
		"the webhook gives them to pods as they are created: %s",
		missing.ServiceAccount, missing.RoleARN, subject, RestartCommand(pod))
}

// RestartCommand is how to create the pod again, by what controls it: a
// rollout of its Deployment, StatefulSet or DaemonSet; otherwise deleting
// it, for a controller that replaces it (a ReplicaSet, a Job); a pod of
// none must be created again by whoever created it.
func RestartCommand(pod *corev1.Pod) string {
	owner := metav1.GetControllerOf(pod)
	switch {
	case owner == nil:
		return fmt.Sprintf("delete it (oc delete pod %s -n %s) and create it again", pod.Name, pod.Namespace)
	case owner.Kind == "ReplicaSet" && owner.APIVersion == "apps/v1":
		if hash := pod.Labels["pod-template-hash"]; hash != "" {
			if deployment, ok := strings.CutSuffix(owner.Name, "-"+hash); ok {
				return fmt.Sprintf("restart it with oc rollout restart deployment/%s -n %s", deployment, pod.Namespace)
			}
		}
	case (owner.Kind == "StatefulSet" || owner.Kind == "DaemonSet") && owner.APIVersion == "apps/v1":
		return fmt.Sprintf("restart it with oc rollout restart %s/%s -n %s", strings.ToLower(owner.Kind), owner.Name, pod.Namespace)
	}
	return fmt.Sprintf("restart it with oc delete pod %s -n %s (its %s %s creates it again)", pod.Name, pod.Namespace, owner.Kind, owner.Name)
}

func podKey(obj runtime.Object) []string {
	o, err := metav1Accessor(obj)
	if err != nil {
		return nil
	}
	return []string{o.GetNamespace() + "/" + o.GetName()}
}

func metav1Accessor(obj runtime.Object) (metav1.Object, error) {
	o, ok := obj.(metav1.Object)
	if !ok {
		return nil, errors.New("not an object")
	}
	return o, nil
}

func serviceAccountOf(pod *corev1.Pod) string {
	if pod.Spec.ServiceAccountName == "" {
		return "default"
	}
	return pod.Spec.ServiceAccountName
}

// specChanged: whether pod identity runs is in the WorkloadAccess's spec,
// and its status is written often.
func specChanged(oldObj, newObj any) bool {
	o, okOld := oldObj.(metav1.Object)
	n, okNew := newObj.(metav1.Object)
	return !okOld || !okNew || o.GetGeneration() != n.GetGeneration()
}

// annotationsChanged: the kept role annotations are all that is read of a
// ServiceAccount.
func annotationsChanged(oldObj, newObj any) bool {
	o, okOld := oldObj.(metav1.Object)
	n, okNew := newObj.(metav1.Object)
	return !okOld || !okNew || !equality.Semantic.DeepEqual(o.GetAnnotations(), n.GetAnnotations())
}

// serviceAccountCache is the mutator's view of the ServiceAccounts: the
// metadata informer's store, whose objects hold the role annotations only.
type serviceAccountCache struct{ store cache.Store }

func (s serviceAccountCache) Annotations(_ context.Context, namespace, name string) (*webhookpodidentity.RoleAnnotations, bool, error) {
	obj, found, err := s.store.GetByKey(namespace + "/" + name)
	if err != nil || !found {
		return nil, false, err
	}
	o, ok := obj.(metav1.Object)
	if !ok {
		return nil, false, nil
	}
	return webhookpodidentity.CachedAnnotations(o.GetAnnotations()), true, nil
}

// state is, for each pod that has lacked its credentials, whether it still
// does and whether its Event was recorded: one Event per pod while this
// process leads, however often the pod is synced.
type state struct {
	mu   sync.Mutex
	pods map[string]*podState
}

type podState struct {
	namespace string
	uid       types.UID
	missing   bool
}

func newState() *state { return &state{pods: map[string]*podState{}} }

// observe records whether the pod lacks its credentials, and says whether
// its Event is to be recorded now: the first time it does.
func (s *state) observe(key, namespace string, uid types.UID, missing bool) (tell bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pods[key]
	if p != nil && p.uid != uid {
		p = nil // another pod of the same name
	}
	if p == nil {
		if !missing {
			delete(s.pods, key)
			return false
		}
		s.pods[key] = &podState{namespace: namespace, uid: uid, missing: true}
		return true
	}
	p.missing = missing
	return false
}

func (s *state) forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pods, key)
}

// byNamespace counts the pods that lack their credentials now.
func (s *state) byNamespace() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, p := range s.pods {
		if p.missing {
			out[p.namespace]++
		}
	}
	return out
}
