package scopes

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	rbacinformers "k8s.io/client-go/informers/rbac/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	scopeinformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
)

// byOwner indexes generated objects by their generator label's value, and
// ScopeInstances by the template they name.
const byOwner = "byOwner"

// generatedInformers are what the two controllers generate, watched by
// generator label (the cluster's other roles and bindings are not cached),
// and every Namespace stripped to name, labels and deletion, which is all
// a selector needs.
type generatedInformers struct {
	roles               rbacinformers.ClusterRoleInformer
	clusterRoleBindings rbacinformers.ClusterRoleBindingInformer
	roleBindings        rbacinformers.RoleBindingInformer
	namespaces          coreinformers.NamespaceInformer
	start               []func(stop <-chan struct{})
}

func newGeneratedInformers(kube kubernetes.Interface) (*generatedInformers, error) {
	byLabel := func(label string) informers.SharedInformerOption {
		return informers.WithTweakListOptions(func(options *metav1.ListOptions) { options.LabelSelector = label })
	}
	templateOwned := informers.NewSharedInformerFactoryWithOptions(kube, informerkit.Resync, byLabel(scopesv1alpha1.ScopeTemplateLabel))
	instanceOwned := informers.NewSharedInformerFactoryWithOptions(kube, informerkit.Resync, byLabel(scopesv1alpha1.ScopeInstanceLabel))
	all := informers.NewSharedInformerFactoryWithOptions(kube, informerkit.Resync, informers.WithTransform(informerkit.SlimNamespaceWithLabels))
	g := &generatedInformers{
		roles:               templateOwned.Rbac().V1().ClusterRoles(),
		clusterRoleBindings: instanceOwned.Rbac().V1().ClusterRoleBindings(),
		roleBindings:        instanceOwned.Rbac().V1().RoleBindings(),
		namespaces:          all.Core().V1().Namespaces(),
		start:               []func(<-chan struct{}){templateOwned.Start, instanceOwned.Start, all.Start},
	}
	for _, add := range []struct {
		informer cache.SharedIndexInformer
		label    string
	}{
		{g.roles.Informer(), scopesv1alpha1.ScopeTemplateLabel},
		{g.clusterRoleBindings.Informer(), scopesv1alpha1.ScopeInstanceLabel},
		{g.roleBindings.Informer(), scopesv1alpha1.ScopeInstanceLabel},
	} {
		if err := add.informer.AddIndexers(cache.Indexers{byOwner: labelIndex(add.label)}); err != nil {
			return nil, err
		}
	}
	return g, nil
}

func labelIndex(label string) cache.IndexFunc {
	return func(obj any) ([]string, error) {
		if o, ok := obj.(metav1.Object); ok && o.GetLabels()[label] != "" {
			return []string{o.GetLabels()[label]}, nil
		}
		return nil, nil
	}
}

// indexInstancesByTemplate lets both controllers find a template's instances
// without scanning them all.
func indexInstancesByTemplate(instances scopeinformers.ScopeInstanceInformer) error {
	err := instances.Informer().AddIndexers(cache.Indexers{byOwner: func(obj any) ([]string, error) {
		if instance, ok := obj.(*scopesv1alpha1.ScopeInstance); ok {
			return []string{instance.Spec.ScopeTemplateName}, nil
		}
		return nil, nil
	}})
	// Already there (a second New on the same informers) is no error.
	if err != nil && instances.Informer().GetIndexer().GetIndexers()[byOwner] != nil {
		return nil
	}
	return err
}

// ownedBy returns the objects in indexer whose generator label names owner.
func ownedBy[T any](indexer cache.Indexer, owner string) ([]T, error) {
	objs, err := indexer.ByIndex(byOwner, owner)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(objs))
	for _, obj := range objs {
		if t, ok := obj.(T); ok {
			out = append(out, t)
		}
	}
	return out, nil
}
