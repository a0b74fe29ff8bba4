package issuerpublisher

import (
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configfake "github.com/openshift/client-go/config/clientset/versioned/fake"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	operatorfake "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	operatorinformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// recordingInformer keeps the handlers the factory registers, so a test can
// deliver events to them one at a time.
type recordingInformer struct {
	handlers []cache.ResourceEventHandler
}

func (r *recordingInformer) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	r.handlers = append(r.handlers, handler)
	return nil, nil
}

func (r *recordingInformer) HasSynced() bool { return true }

func TestOnlyChangesToWhatIsPublishedWakeThePublisher(t *testing.T) {
	f := newFixture(t, healthy(t))
	operator, workloadAccesses, infrastructures, authentications, signingCerts, credentials :=
		&recordingInformer{}, &recordingInformer{}, &recordingInformer{}, &recordingInformer{}, &recordingInformer{}, &recordingInformer{}
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	syncCtx := factory.NewSyncContext(ControllerName, recorder)
	f.c.wire(factory.New().WithSyncContext(syncCtx), eventSources{
		operator: operator, workloadAccesses: workloadAccesses, infrastructures: infrastructures,
		authentications: authentications, signingCerts: signingCerts, credentials: credentials,
	}).ToController(ControllerName, recorder)
	for name, informer := range map[string]*recordingInformer{"operator": operator, "workloadAccesses": workloadAccesses,
		"infrastructures": infrastructures, "authentications": authentications, "signingCerts": signingCerts, "credentials": credentials} {
		if len(informer.handlers) != 1 {
			t.Fatalf("%s: %d handlers", name, len(informer.handlers))
		}
	}

	// wakes delivers one event and says whether it queued a sync.
	queue := syncCtx.Queue()
	wakes := func(informer *recordingInformer, deliver func(cache.ResourceEventHandler)) bool {
		deliver(informer.handlers[0])
		queued := queue.Len() > 0
		for queue.Len() > 0 {
			key, _ := queue.Get()
			queue.Done(key)
		}
		return queued
	}
	update := func(oldObj, newObj any) func(cache.ResourceEventHandler) {
		return func(h cache.ResourceEventHandler) { h.OnUpdate(oldObj, newObj) }
	}
	add := func(obj any) func(cache.ResourceEventHandler) {
		return func(h cache.ResourceEventHandler) { h.OnAdd(obj, false) }
	}
	remove := func(obj any) func(cache.ResourceEventHandler) {
		return func(h cache.ResourceEventHandler) { h.OnDelete(obj) }
	}

	wa := &operatorv1alpha1.WorkloadAccess{ObjectMeta: metav1.ObjectMeta{Name: operatorclient.ConfigName, UID: "wa", Generation: 3, ResourceVersion: "10"}}
	conditionWritten := wa.DeepCopy()
	conditionWritten.ResourceVersion = "11"
	conditionWritten.Status.Conditions = []operatorv1.OperatorCondition{{Type: "WebhookDeploymentAvailable", Status: operatorv1.ConditionTrue}}
	podIdentityWritten := conditionWritten.DeepCopy()
	podIdentityWritten.ResourceVersion = "12"
	podIdentityWritten.Status.PodIdentity = operatorv1alpha1.PodIdentityStatus{Region: "us-east-2", IssuerURL: awsIssuer, PublishedKeyIDs: []string{"k"}}
	specChanged := podIdentityWritten.DeepCopy()
	specChanged.ResourceVersion, specChanged.Generation = "13", 4
	specChanged.Spec.PodIdentity.Region = "eu-west-1"
	recreated := wa.DeepCopy()
	recreated.UID, recreated.Generation = "wa2", 1

	asUnstructured := func(wa *operatorv1alpha1.WorkloadAccess) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetName(wa.Name)
		u.SetUID(wa.UID)
		u.SetGeneration(wa.Generation)
		u.SetResourceVersion(wa.ResourceVersion)
		return u
	}
	cm := func(namespace, name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	}
	secret := func(namespace, name string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	}
	infra := func(name string) *configv1.Infrastructure {
		return &configv1.Infrastructure{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}

	for _, tc := range []struct {
		name     string
		informer *recordingInformer
		event    func(cache.ResourceEventHandler)
		want     bool
	}{
		{"another controller writes its condition", workloadAccesses, update(wa, conditionWritten), false},
		{"the publisher writes status.podIdentity", workloadAccesses, update(conditionWritten, podIdentityWritten), false},
		{"the informer's own resync", workloadAccesses, update(wa, wa), false},
		{"the spec changes", workloadAccesses, update(podIdentityWritten, specChanged), true},
		{"deleted and created again", workloadAccesses, update(wa, recreated), true},
		{"WorkloadAccess created", workloadAccesses, add(wa), true},
		{"WorkloadAccess deleted", workloadAccesses, remove(wa), true},
		{"WorkloadAccess deleted, seen as a tombstone", workloadAccesses, remove(cache.DeletedFinalStateUnknown{Key: wa.Name, Obj: wa}), true},

		{"status written, through the operator client's informer", operator, update(asUnstructured(wa), asUnstructured(conditionWritten)), false},
		{"managementState changes", operator, update(asUnstructured(wa), asUnstructured(specChanged)), true},

		{"another Infrastructure", infrastructures, add(infra("other")), false},
		{"the Infrastructure", infrastructures, update(infra("cluster"), infra("cluster")), true},
		{"the Authentication", authentications, add(&configv1.Authentication{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}), true},

		{"another ConfigMap beside the signing keys", signingCerts, add(cm(SigningCertsNamespace, "config")), false},
		{"a ConfigMap of that name elsewhere", signingCerts, add(cm("default", SigningCertsConfigMap)), false},
		{"the signing keys", signingCerts, update(cm(SigningCertsNamespace, SigningCertsConfigMap), cm(SigningCertsNamespace, SigningCertsConfigMap)), true},
		{"another Secret of the operator's namespace", credentials, add(secret(operatorclient.OperatorNamespace, "other")), false},
		{"the credentials", credentials, add(secret(operatorclient.OperatorNamespace, CredentialsSecret)), true},
		{"the credentials deleted", credentials, remove(secret(operatorclient.OperatorNamespace, CredentialsSecret)), true},
	} {
		if got := wakes(tc.informer, tc.event); got != tc.want {
			t.Errorf("%s: queued a sync %v, want %v", tc.name, got, tc.want)
		}
	}
}

// New wires the shared informers the starter passes.
func TestNewWiresTheStartersInformers(t *testing.T) {
	operator := operatorfake.NewSimpleClientset()
	New(Inputs{Kube: kubefake.NewSimpleClientset(),
		Config:           configinformers.NewSharedInformerFactory(configfake.NewSimpleClientset(), time.Minute).Config().V1(),
		WorkloadAccesses: operatorinformers.NewSharedInformerFactory(operator, time.Minute).Operator().V1alpha1().WorkloadAccesses(),
		StatusClient:     operator.OperatorV1alpha1(), OperatorClient: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{}, &operatorv1.OperatorStatus{}, nil),
		Recorder: events.NewInMemoryRecorder("test", clock.RealClock{})})
}
