// Package staticresources applies the operand's fixed manifests from bindata
// (the webhook's ServiceAccount and Service, and the operand namespace's
// NetworkPolicies), restores them when they
// drift or are deleted, and deletes them when the operator is set to Removed.
// The operand namespace itself, and the operator's rights in it, come from
// the CVO.
package staticresources

import (
	"fmt"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	configv1informers "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"github.com/openshift/library-go/pkg/operator/staticresourcecontroller"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift/cluster-workload-access-operator/bindata"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/topology"
)

// ControllerName prefixes the controller's conditions (StaticResourcesDegraded).
const ControllerName = "StaticResources"

// Files are the operand manifests, in the order they are applied.
var Files = []string{
	"operand/webhook-serviceaccount.yaml",
	"operand/webhook-service.yaml",
	// The webhook's own policy before the namespace's default deny, so
	// that applying them never cuts the API server off for a sync.
	NetworkPolicyFiles[0],
	NetworkPolicyFiles[1],
}

// NetworkPolicyFiles are the operand namespace's NetworkPolicies: who may
// reach the webhook, and nobody else.
var NetworkPolicyFiles = []string{
	"operand/webhook-networkpolicy.yaml",
	"operand/default-deny-networkpolicy.yaml",
}

// PodDisruptionBudgetFile is applied only where the webhook runs more than
// one replica; on a single-replica control plane it would block every drain.
const PodDisruptionBudgetFile = "operand/webhook-pdb.yaml"

// Inputs are what the static resource controller needs.
type Inputs struct {
	KubeClient    kubernetes.Interface
	KubeInformers v1helpers.KubeInformersForNamespaces
	// Infrastructures say whether the control plane runs a single replica
	// (no PodDisruptionBudget then).
	Infrastructures configv1informers.InfrastructureInformer
	OperatorClient  v1helpers.OperatorClient
	Recorder        events.Recorder
}

// NewController returns library-go's static resource controller: it applies
// Files while managementState is Managed, leaves them alone when it is
// Unmanaged and deletes them under Removed.
func NewController(in Inputs) factory.Controller {
	// An unknown state (an error) neither creates nor deletes.
	state := func() operatorv1.ManagementState { s, _ := managementsync.Get(in.OperatorClient); return s }
	managed := func() bool { return state() == operatorv1.Managed }
	removed := func() bool { return state() == operatorv1.Removed }
	// Unknown topology counts as highly available: a PDB that should not be
	// there only slows a drain, a missing one lets it take both replicas.
	singleReplica := func() bool { single, _ := topology.SingleReplica(in.Infrastructures.Lister()); return single }
	return staticresourcecontroller.NewStaticResourceController(
		ControllerName,
		bindata.Asset,
		nil,
		resourceapply.NewKubeClientHolder(in.KubeClient),
		in.OperatorClient,
		in.Recorder,
	).WithConditionalResources(bindata.Asset, Files, managed, removed).WithConditionalResources(bindata.Asset, []string{PodDisruptionBudgetFile},
		func() bool { return managed() && !singleReplica() },
		func() bool { return removed() || (managed() && singleReplica()) },
	).AddKubeInformers(in.KubeInformers).AddInformer(in.Infrastructures.Informer())
}

// Operand tells the version controller whether the static resources are what
// the current spec asks for: present when Managed, gone when Removed.
type Operand struct {
	kubeInformers  v1helpers.KubeInformersForNamespaces
	operatorClient v1helpers.OperatorClient
	// objects are Files, decoded once: they are compiled in.
	objects []runtime.Object
}

// NewOperand reads through the same informers the controller writes through.
func NewOperand(kubeInformers v1helpers.KubeInformersForNamespaces, operatorClient v1helpers.OperatorClient) *Operand {
	o := &Operand{kubeInformers: kubeInformers, operatorClient: operatorClient}
	for _, file := range Files {
		obj, err := resourceread.ReadGenericWithUnstructured(bindata.MustAsset(file))
		if err != nil {
			panic(fmt.Sprintf("bindata %s: %v", file, err))
		}
		o.objects = append(o.objects, obj)
	}
	return o
}

// AtLevel implements operatorversion.Operand.
func (o *Operand) AtLevel(spec *operatorv1.OperatorSpec) (bool, string, error) {
	wantPresent := spec.ManagementState != operatorv1.Removed
	mismatched, err := o.mismatched(wantPresent)
	if err != nil {
		return false, "", err
	}
	if len(mismatched) > 0 {
		verb := "waiting for"
		if !wantPresent {
			verb = "waiting for removal of"
		}
		return false, fmt.Sprintf("%s %s", verb, strings.Join(mismatched, ", ")), nil
	}
	if wantPresent {
		_, status, _, err := o.operatorClient.GetOperatorState()
		if err != nil {
			return false, "", err
		}
		if v1helpers.IsOperatorConditionTrue(status.Conditions, ControllerName+operatorv1.OperatorStatusTypeDegraded) {
			return false, "static resources fail to apply", nil
		}
	}
	return true, "", nil
}

// mismatched lists the objects whose presence differs from wantPresent.
func (o *Operand) mismatched(wantPresent bool) ([]string, error) {
	var mismatched []string
	for _, obj := range o.objects {
		present, err := o.exists(obj)
		if err != nil {
			return nil, err
		}
		if present != wantPresent {
			mismatched = append(mismatched, describe(obj))
		}
	}
	return mismatched, nil
}

func (o *Operand) exists(obj runtime.Object) (bool, error) {
	var err error
	switch t := obj.(type) {
	case *corev1.ServiceAccount:
		_, err = o.kubeInformers.InformersFor(t.Namespace).Core().V1().ServiceAccounts().Lister().ServiceAccounts(t.Namespace).Get(t.Name)
	case *corev1.Service:
		_, err = o.kubeInformers.InformersFor(t.Namespace).Core().V1().Services().Lister().Services(t.Namespace).Get(t.Name)
	case *networkingv1.NetworkPolicy:
		_, err = o.kubeInformers.InformersFor(t.Namespace).Networking().V1().NetworkPolicies().Lister().NetworkPolicies(t.Namespace).Get(t.Name)
	default:
		return false, fmt.Errorf("static resource of type %T has no lister here: add one", obj)
	}
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

func describe(obj runtime.Object) string {
	switch t := obj.(type) {
	case *corev1.ServiceAccount:
		return "serviceaccount/" + t.Namespace + "/" + t.Name
	case *rbacv1.Role:
		return "role/" + t.Namespace + "/" + t.Name
	case *rbacv1.RoleBinding:
		return "rolebinding/" + t.Namespace + "/" + t.Name
	case *corev1.Service:
		return "service/" + t.Namespace + "/" + t.Name
	case *networkingv1.NetworkPolicy:
		return "networkpolicy/" + t.Namespace + "/" + t.Name
	}
	return fmt.Sprintf("%T", obj)
}
