package scopes

import (
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	scopesclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/scopes/v1alpha1"
	scopeinformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/reconcileloop"
)

// Inputs are what the two controllers need.
type Inputs struct {
	Templates   scopeinformers.ScopeTemplateInformer
	Instances   scopeinformers.ScopeInstanceInformer
	ScopeClient scopesclient.ScopesV1alpha1Interface
	// KubeClient writes roles and bindings; one ScopeInstance can need
	// thousands of RoleBindings, so give it no client-side rate limit (the
	// instance controller's defaultWorkers bound what is in flight, the API
	// server's Priority and Fairness the pace) and a connection of its own
	// (pkg/operator/clients.go).
	KubeClient kubernetes.Interface
	// WatchClient lists and watches the roles, bindings and namespaces the
	// controllers cache: not over KubeClient's connection, where a burst of
	// writes would hold up the watches' events.
	WatchClient    kubernetes.Interface
	OperatorClient v1helpers.OperatorClient
	Recorder       events.Recorder
}

// New returns the ScopeTemplate and ScopeInstance controllers. Both follow
// the shared reconcile loop (frame/reconcileloop): one key per object, nothing while the operator is
// not Managed (what exists stays, and goes with its owner through the
// garbage collector), <Name>Degraded naming what fails.
func New(in Inputs) ([]factory.Controller, error) {
	generated, err := newGeneratedInformers(in.WatchClient)
	if err != nil {
		return nil, err
	}
	if err := indexInstancesByTemplate(in.Instances); err != nil {
		return nil, err
	}
	instanceIndex := in.Instances.Informer().GetIndexer()

	t := &templates{
		client:        in.ScopeClient,
		roles:         in.KubeClient.RbacV1(),
		roleCache:     generated.roles.Lister(),
		roleIndex:     generated.roles.Informer().GetIndexer(),
		instanceIndex: instanceIndex,
	}
	previous := &templateOfInstance{instances: in.Instances.Lister()}
	templateController := reconcileloop.New(TemplateControllerName, source("ScopeTemplate", in.Templates.Informer(), in.Templates.Lister()),
		[]reconcileloop.Watched{
			{Informers: []factory.Informer{in.Instances.Informer()}, Key: previous.keys},
			{Informers: []factory.Informer{generated.roles.Informer()}, Key: informerkit.LabelKey(scopesv1alpha1.ScopeTemplateLabel)},
		},
		t.sync, in.OperatorClient, in.Recorder, "scope-template")

	i := &instances{
		unseen:              newUnseenWrites(),
		client:              in.ScopeClient,
		kube:                in.KubeClient,
		templates:           in.Templates.Lister(),
		roles:               generated.roles.Lister(),
		namespaces:          generated.namespaces.Lister(),
		clusterRoleBindings: generated.clusterRoleBindings.Informer().GetIndexer(),
		roleBindings:        generated.roleBindings.Informer().GetIndexer(),
	}
	// A binding deleted before the caches showed its creation is no write
	// to wait for.
	for _, informer := range []cache.SharedIndexInformer{generated.clusterRoleBindings.Informer(), generated.roleBindings.Informer()} {
		if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			if o, ok := obj.(metav1.Object); ok {
				i.unseen.sawDeleted(o.GetUID(), time.Now())
			}
		}}); err != nil {
			return nil, err
		}
	}
	instanceController := reconcileloop.New(InstanceControllerName, source("ScopeInstance", in.Instances.Informer(), in.Instances.Lister()),
		[]reconcileloop.Watched{
			{Informers: []factory.Informer{in.Templates.Informer(), generated.roles.Informer()}, Key: instancesOfTemplate(instanceIndex)},
			{Informers: []factory.Informer{generated.clusterRoleBindings.Informer(), generated.roleBindings.Informer()}, Key: informerkit.LabelKey(scopesv1alpha1.ScopeInstanceLabel)},
			{Informers: []factory.Informer{generated.namespaces.Informer()}, Key: instancesOfNamespace(in.Instances.Lister())},
		},
		i.sync, in.OperatorClient, in.Recorder, "scope-instance")

	// Either controller may run first; starting a factory twice is a no-op.
	return []factory.Controller{
		informerkit.StartOnRun(templateController, generated.start...),
		informerkit.StartOnRun(instanceController, generated.start...),
	}, nil
}

// lister is what source needs of a generated lister.
type lister[T any] interface {
	Get(name string) (T, error)
	List(selector labels.Selector) ([]T, error)
}

// source reads one kind of the package's objects for the reconcile loop.
func source[T metav1.Object](kind string, informer cache.SharedIndexInformer, objects lister[T]) reconcileloop.Source[T] {
	return reconcileloop.Source[T]{
		Kind:     kind,
		Informer: informer,
		Get:      objects.Get,
		List:     func() ([]T, error) { return objects.List(labels.Everything()) },
	}
}
