// Package apiaccess grants users access to the APIs of selected CRDs, as an
// APIAccessPolicy says: in Aggregate mode it generates each CRD's four
// ClusterRoles (pkg/apis/apiaccess/v1alpha1 roles.go) with the aggregation
// labels of the built-in admin, edit and view roles; in Bind mode the same
// roles without those labels, bound to the policy's subjects; in Unmanaged
// mode nothing, and it says so on the policy. Roles the CRD's bundle already
// provides are bound, never duplicated; an object of a name it would use
// that is not its own is never touched and is reported as a Conflict.
package apiaccess

import (
	"strings"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	rbacv1listers "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	apiaccessclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/apiaccess/v1alpha1"
	apiaccessinformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/apiaccess/v1alpha1"
	apiaccesslisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/apiaccess/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/reconcileloop"
)

// ControllerName owns the APIAccessPolicyDegraded condition.
const ControllerName = "APIAccessPolicy"

// Inputs are what the controller needs.
type Inputs struct {
	Policies     apiaccessinformers.APIAccessPolicyInformer
	PolicyClient apiaccessclient.APIAccessPoliciesGetter
	// Kube writes the roles and bindings. A client of its own, without
	// client-side rate limits: the bounded parallelism of writes (Parallel)
	// is what limits the load, so 1,200 roles are not queued behind the
	// operator's shared 50 requests per second.
	Kube kubernetes.Interface
	// Metadata caches the name of every ClusterRole, so that only names
	// in use are read before a create.
	Metadata metadata.Interface
	// CRDs is NewCRDInformer's informer, which the starter runs (the
	// unmanagednotice and olmscopes controllers read it too).
	CRDs cache.SharedIndexInformer
	// Namespaces is every Namespace, stripped by informerkit.SlimNamespace
	// (the starter's, shared with the IAMRoleRequest controller): a policy
	// pins the namespaces it binds in by UID.
	Namespaces     coreinformers.NamespaceInformer
	OperatorClient v1helpers.OperatorClient
	Recorder       events.Recorder
}

// New returns the controller, the shared loop of pkg/operator/frame/reconcileloop
// over APIAccessPolicies (one key per policy; nothing while the operator is
// not Managed; a deleted policy's objects left to the garbage collector),
// woken by CRDs and by the roles and bindings it generated.
func New(in Inputs) factory.Controller {
	byLabel := func(options *metav1.ListOptions) { options.LabelSelector = apiaccessv1alpha1.PolicyLabel }
	kubeInformers := informers.NewSharedInformerFactoryWithOptions(in.Kube, informerkit.Resync, informers.WithTweakListOptions(byLabel))
	roles := kubeInformers.Rbac().V1().ClusterRoles()
	clusterBindings := kubeInformers.Rbac().V1().ClusterRoleBindings()
	bindings := kubeInformers.Rbac().V1().RoleBindings()
	crds := in.CRDs
	roleNames := NewRoleNameInformer(in.Metadata)
	namespaces := in.Namespaces

	c := newGenerator(in.PolicyClient, in.Kube, crdLister{crds.GetIndexer()}, roles.Lister(), roleNames.GetStore(), clusterBindings.Lister(), bindings.Lister())
	c.namespaces = namespaces.Lister()
	watched := []reconcileloop.Watched{
		{Informers: []factory.Informer{roles.Informer(), clusterBindings.Informer(), bindings.Informer()}, Key: informerkit.LabelKey(apiaccessv1alpha1.PolicyLabel)},
		// A role someone else holds under a generated name blocks one of
		// them (Conflict): its removal or change may unblock any policy.
		{Informers: []factory.Informer{roleNames}, Key: foreignGeneratedName(in.Policies.Lister())},
		// A CRD created, relabelled or deleted may concern any policy.
		{Informers: []factory.Informer{crds}, Key: informerkit.EveryKey(in.Policies.Lister().List)},
		// A namespace a policy binds in came (bind there), or came back
		// as another (pinned: not bound until the spec is written again).
		{Informers: []factory.Informer{namespaces.Informer()}, Key: policiesBindingIn(in.Policies.Lister())},
	}
	controller := reconcileloop.New(ControllerName, Source(in.Policies), watched, c.syncPolicy, in.OperatorClient, in.Recorder, "apiaccess")
	return informerkit.StartOnRun(controller, kubeInformers.Start, func(stop <-chan struct{}) { go roleNames.Run(stop) })
}

// Source reads APIAccessPolicies from their informer.
func Source(informer apiaccessinformers.APIAccessPolicyInformer) reconcileloop.Source[*apiaccessv1alpha1.APIAccessPolicy] {
	lister := informer.Lister()
	return reconcileloop.Source[*apiaccessv1alpha1.APIAccessPolicy]{
		Kind:     "APIAccessPolicy",
		Informer: informer.Informer(),
		Get:      lister.Get,
		List:     func() ([]*apiaccessv1alpha1.APIAccessPolicy, error) { return lister.List(labels.Everything()) },
	}
}

// NewRoleNameInformer caches the name of every ClusterRole and nothing
// else: a few hundred bytes each, whatever their rules.
func NewRoleNameInformer(client metadata.Interface) cache.SharedIndexInformer {
	informer := metadatainformer.NewFilteredMetadataInformer(client, rbacv1.SchemeGroupVersion.WithResource("clusterroles"), "",
		informerkit.Resync, cache.Indexers{}, nil).Informer()
	_ = informer.SetTransform(func(obj any) (any, error) {
		m, ok := obj.(*metav1.PartialObjectMetadata)
		if !ok {
			return obj, nil
		}
		return &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: metav1.ObjectMeta{
			Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion, Labels: m.Labels}}, nil
	})
	return informer
}

// foreignGeneratedName wakes every policy when a role not labelled for a
// policy, under a name shaped like a generated one, changes.
func foreignGeneratedName(lister apiaccesslisters.APIAccessPolicyLister) func(runtime.Object) []string {
	all := informerkit.EveryKey(lister.List)
	return func(obj runtime.Object) []string {
		o, ok := obj.(metav1.Object)
		if !ok || o.GetLabels()[apiaccessv1alpha1.PolicyLabel] != "" || !generatedRoleName(o.GetName()) {
			return nil
		}
		return all(obj)
	}
}

// generatedRoleName says whether name is shaped like <Kind>.<group> and a
// generated role's suffix.
func generatedRoleName(name string) bool {
	if !strings.Contains(name, ".") {
		return false
	}
	for _, suffix := range []string{apiaccessv1alpha1.AdminSuffix, apiaccessv1alpha1.EditSuffix, apiaccessv1alpha1.ViewSuffix, apiaccessv1alpha1.CRDViewSuffix} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

type controller struct {
	policyClient    apiaccessclient.APIAccessPoliciesGetter
	crds            crdReader
	roles           kind[*rbacv1.ClusterRole]
	clusterBindings kind[*rbacv1.ClusterRoleBinding]
	bindings        kind[*rbacv1.RoleBinding]
	// namespaces pins Bind-mode RoleBindings' namespaces by UID.
	namespaces corelisters.NamespaceLister
	// now is the clock of the handover window.
	now func() time.Time
}

func newGenerator(policyClient apiaccessclient.APIAccessPoliciesGetter, kube kubernetes.Interface, crds crdReader,
	roles rbacv1listers.ClusterRoleLister, roleNames cache.Store, clusterBindings rbacv1listers.ClusterRoleBindingLister, bindings rbacv1listers.RoleBindingLister) *controller {
	return &controller{
		policyClient:    policyClient,
		crds:            crds,
		roles:           clusterRoleKind(kube, roles, roleNames),
		clusterBindings: clusterRoleBindingKind(kube, clusterBindings),
		bindings:        roleBindingKind(kube, bindings),
		now:             time.Now,
	}
}
