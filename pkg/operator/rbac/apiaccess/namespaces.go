package apiaccess

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	corelisters "k8s.io/client-go/listers/core/v1"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	apiaccesslisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/apiaccess/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/specwritten"
)

// checkedFor is what the policy's current generation was first bound
// against: its status' pins for this generation, or none yet, with when
// the spec was written taken once per generation (a later metadata write
// moves the object's own times), bounded by now, the first read.
func checkedFor(policy *apiaccessv1alpha1.APIAccessPolicy, now time.Time) *apiaccessv1alpha1.CheckedNamespaces {
	checked := &apiaccessv1alpha1.CheckedNamespaces{Generation: policy.Generation}
	if c := policy.Status.Checked; c != nil && c.Generation == policy.Generation {
		checked = c.DeepCopy()
	}
	if checked.SpecWrittenAt == nil {
		checked.SpecWrittenAt = specwritten.At(policy, now)
	}
	return checked
}

// listsNamespaces says whether any of the policy's bindings lists
// namespaces: its status then keeps what it was checked against even
// while nothing is bound yet.
func listsNamespaces(policy *apiaccessv1alpha1.APIAccessPolicy) bool {
	return slices.ContainsFunc(policy.Spec.Bindings, func(b apiaccessv1alpha1.AccessBinding) bool { return len(b.Namespaces) > 0 })
}

// inCheckedNamespaces keeps the RoleBindings whose namespace is the one
// the spec was checked against: the first seen under that name for this
// generation, if created before the spec was written (the check refuses a
// listed namespace that does not exist), pinned in checked by UID then.
// Those in a namespace deleted and re-created since (another UID), or
// created after the spec was written, are left out and named in replaced.
// Those in a namespace the cache does not hold are left out too, and named
// in absent: the namespace may exist already, re-created by someone the
// cache has not shown yet, and a create by name would bind in it unjudged.
// Its arrival in the cache wakes the policy, which judges it then.
func inCheckedNamespaces(namespaces corelisters.NamespaceLister, checked *apiaccessv1alpha1.CheckedNamespaces,
	bindings []*rbacv1.RoleBinding) (kept []*rbacv1.RoleBinding, replaced, absent []string, err error) {
	verdict := map[string]bool{}
	for _, b := range bindings {
		ok, judged := verdict[b.Namespace]
		if !judged {
			ns, err := namespaces.Get(b.Namespace)
			switch {
			case apierrors.IsNotFound(err):
				ok = false
			case err != nil:
				return nil, nil, nil, err
			default:
				ok = pinNamespace(checked, ns)
				if !ok {
					replaced = append(replaced, b.Namespace)
				}
			}
			verdict[b.Namespace] = ok
		}
		switch {
		case ok:
			kept = append(kept, b)
		case !slices.Contains(replaced, b.Namespace):
			absent = append(absent, qualified(b))
		}
	}
	slices.Sort(replaced)
	slices.Sort(absent)
	return kept, replaced, absent, nil
}

// pinNamespace says whether ns is the namespace pinned under its name,
// pinning it when none is and it was created before the spec was written
// (sorted by name, so a resync writes nothing).
func pinNamespace(checked *apiaccessv1alpha1.CheckedNamespaces, ns *corev1.Namespace) bool {
	i, found := slices.BinarySearchFunc(checked.Namespaces, ns.Name, func(p apiaccessv1alpha1.NamespaceUID, name string) int {
		return strings.Compare(p.Name, name)
	})
	if found {
		return checked.Namespaces[i].UID == ns.UID
	}
	if !specwritten.Existed(ns, checked.SpecWrittenAt) {
		return false
	}
	checked.Namespaces = slices.Insert(checked.Namespaces, i, apiaccessv1alpha1.NamespaceUID{Name: ns.Name, UID: ns.UID})
	return true
}

// policiesBindingIn wakes the policies with a binding in a namespace that
// came, went or changed.
func policiesBindingIn(lister apiaccesslisters.APIAccessPolicyLister) func(runtime.Object) []string {
	return func(obj runtime.Object) []string {
		ns, ok := obj.(*corev1.Namespace)
		if !ok {
			return nil
		}
		policies, err := lister.List(labels.Everything())
		if err != nil {
			return nil
		}
		var keys []string
		for _, p := range policies {
			if slices.ContainsFunc(p.Spec.Bindings, func(b apiaccessv1alpha1.AccessBinding) bool { return slices.Contains(b.Namespaces, ns.Name) }) {
				keys = append(keys, p.Name)
			}
		}
		return keys
	}
}
