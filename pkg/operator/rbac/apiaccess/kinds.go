package apiaccess

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	rbacv1listers "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
)

// object is what every generated kind is: a pointer to an API object.
type object interface {
	comparable
	metav1.Object
}

// kind is one kind the controller generates (ClusterRole,
// ClusterRoleBinding, RoleBinding), so that the three are planned,
// written and cleaned up by the same code.
type kind[T object] struct {
	name string
	// cached reads the label-filtered informer: only objects carrying
	// the policy label are there.
	cached func(namespace, name string) (T, error)
	// owned lists the cached objects labelled for policy.
	owned func(policy string) ([]T, error)
	// exists says whether any object of that name exists, from a cache of
	// every object's name; nil when the kind has none, and the API server
	// is asked instead.
	exists func(namespace, name string) (bool, error)
	get    func(ctx context.Context, namespace, name string) (T, error)
	create func(ctx context.Context, obj T) error
	update func(ctx context.Context, obj T) error
	delete func(ctx context.Context, namespace, name string, uid types.UID) error
	// content copies what the controller decides (rules, subjects) from
	// desired into a copy of existing, and says whether that changed it.
	content func(existing, desired T) (T, bool)
}

func policySelector(policy string) labels.Selector {
	return labels.SelectorFromSet(labels.Set{apiaccessv1alpha1.PolicyLabel: policy})
}

func deleteOptions(uid types.UID) metav1.DeleteOptions {
	return metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(uid))}
}

// clusterRoleKind reads the policy's roles from lister and every role's
// name from names (keyed by name).
func clusterRoleKind(kube kubernetes.Interface, lister rbacv1listers.ClusterRoleLister, names cache.Store) kind[*rbacv1.ClusterRole] {
	client := kube.RbacV1().ClusterRoles()
	return kind[*rbacv1.ClusterRole]{
		name:   "ClusterRole",
		cached: func(_, name string) (*rbacv1.ClusterRole, error) { return lister.Get(name) },
		owned:  func(policy string) ([]*rbacv1.ClusterRole, error) { return lister.List(policySelector(policy)) },
		exists: func(_, name string) (bool, error) {
			_, exists, err := names.GetByKey(name)
			return exists, err
		},
		get: func(ctx context.Context, _, name string) (*rbacv1.ClusterRole, error) {
			return client.Get(ctx, name, metav1.GetOptions{})
		},
		create: func(ctx context.Context, obj *rbacv1.ClusterRole) error {
			_, err := client.Create(ctx, obj, metav1.CreateOptions{})
			return err
		},
		update: func(ctx context.Context, obj *rbacv1.ClusterRole) error {
			_, err := client.Update(ctx, obj, metav1.UpdateOptions{})
			return err
		},
		delete: func(ctx context.Context, _, name string, uid types.UID) error {
			return client.Delete(ctx, name, deleteOptions(uid))
		},
		content: func(existing, desired *rbacv1.ClusterRole) (*rbacv1.ClusterRole, bool) {
			out := existing.DeepCopy()
			out.Rules, out.AggregationRule = desired.Rules, nil
			return out, !equality.Semantic.DeepEqual(existing.Rules, desired.Rules) || existing.AggregationRule != nil
		},
	}
}

func clusterRoleBindingKind(kube kubernetes.Interface, lister rbacv1listers.ClusterRoleBindingLister) kind[*rbacv1.ClusterRoleBinding] {
	client := kube.RbacV1().ClusterRoleBindings()
	return kind[*rbacv1.ClusterRoleBinding]{
		name:   "ClusterRoleBinding",
		cached: func(_, name string) (*rbacv1.ClusterRoleBinding, error) { return lister.Get(name) },
		owned: func(policy string) ([]*rbacv1.ClusterRoleBinding, error) {
			return lister.List(policySelector(policy))
		},
		get: func(ctx context.Context, _, name string) (*rbacv1.ClusterRoleBinding, error) {
			return client.Get(ctx, name, metav1.GetOptions{})
		},
		create: func(ctx context.Context, obj *rbacv1.ClusterRoleBinding) error {
			_, err := client.Create(ctx, obj, metav1.CreateOptions{})
			return err
		},
		update: func(ctx context.Context, obj *rbacv1.ClusterRoleBinding) error {
			_, err := client.Update(ctx, obj, metav1.UpdateOptions{})
			return err
		},
		delete: func(ctx context.Context, _, name string, uid types.UID) error {
			return client.Delete(ctx, name, deleteOptions(uid))
		},
		// roleRef is immutable, and part of the name: only subjects change.
		content: func(existing, desired *rbacv1.ClusterRoleBinding) (*rbacv1.ClusterRoleBinding, bool) {
			out := existing.DeepCopy()
			out.Subjects = desired.Subjects
			return out, !equality.Semantic.DeepEqual(existing.Subjects, desired.Subjects)
		},
	}
}

func roleBindingKind(kube kubernetes.Interface, lister rbacv1listers.RoleBindingLister) kind[*rbacv1.RoleBinding] {
	client := kube.RbacV1()
	return kind[*rbacv1.RoleBinding]{
		name: "RoleBinding",
		cached: func(namespace, name string) (*rbacv1.RoleBinding, error) {
			return lister.RoleBindings(namespace).Get(name)
		},
		owned: func(policy string) ([]*rbacv1.RoleBinding, error) { return lister.List(policySelector(policy)) },
		get: func(ctx context.Context, namespace, name string) (*rbacv1.RoleBinding, error) {
			return client.RoleBindings(namespace).Get(ctx, name, metav1.GetOptions{})
		},
		create: func(ctx context.Context, obj *rbacv1.RoleBinding) error {
			_, err := client.RoleBindings(obj.Namespace).Create(ctx, obj, metav1.CreateOptions{})
			return err
		},
		update: func(ctx context.Context, obj *rbacv1.RoleBinding) error {
			_, err := client.RoleBindings(obj.Namespace).Update(ctx, obj, metav1.UpdateOptions{})
			return err
		},
		delete: func(ctx context.Context, namespace, name string, uid types.UID) error {
			return client.RoleBindings(namespace).Delete(ctx, name, deleteOptions(uid))
		},
		content: func(existing, desired *rbacv1.RoleBinding) (*rbacv1.RoleBinding, bool) {
			out := existing.DeepCopy()
			out.Subjects = desired.Subjects
			return out, !equality.Semantic.DeepEqual(existing.Subjects, desired.Subjects)
		},
	}
}
