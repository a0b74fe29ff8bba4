package apiaccess

import (
	"fmt"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/controllerref"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/crdaccess"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/rbacsubjects"
)

// selected are the CRDs the policy selects, sorted by name; invalid says
// why the selection cannot be used. CRDs being deleted are not selected:
// their roles go with them. Names of CRDs that do not exist select nothing.
func (c *controller) selected(policy *apiaccessv1alpha1.APIAccessPolicy) (crds []*apiextensionsv1.CustomResourceDefinition, invalid string, err error) {
	selector, err := crdaccess.Selector(policy.Spec.CRDs)
	if err != nil {
		return nil, fmt.Sprintf("spec.crds.selector: %v", err), nil
	}
	if selector != nil {
		if crds, err = c.crds.List(selector); err != nil {
			return nil, "", err
		}
	} else {
		for _, name := range policy.Spec.CRDs.Names {
			crd, err := c.crds.Get(name)
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return nil, "", err
			}
			crds = append(crds, crd)
		}
	}
	out := crds[:0:0]
	for _, crd := range crds {
		if crd.DeletionTimestamp == nil {
			out = append(out, crd)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, "", nil
}

// ownerRef makes the policy the controller of what is generated for it: the
// garbage collector deletes it with the policy, and the operator-writes
// admission policy admits only objects so owned.
func ownerRef(policy *apiaccessv1alpha1.APIAccessPolicy) []metav1.OwnerReference {
	return []metav1.OwnerReference{{
		APIVersion: apiaccessv1alpha1.SchemeGroupVersion.String(),
		Kind:       "APIAccessPolicy",
		Name:       policy.Name,
		UID:        policy.UID,
		Controller: ptr.To(true),
	}}
}

func generatedMeta(policy *apiaccessv1alpha1.APIAccessPolicy, namespace, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Namespace:       namespace,
		Name:            name,
		Labels:          map[string]string{apiaccessv1alpha1.PolicyLabel: policy.Name},
		OwnerReferences: ownerRef(policy),
	}
}

// desiredRole is a generated role as the policy's mode wants it: with its
// aggregation label in Aggregate mode, without in Bind mode.
func desiredRole(policy *apiaccessv1alpha1.APIAccessPolicy, role apiaccessv1alpha1.GeneratedRole) *rbacv1.ClusterRole {
	out := &rbacv1.ClusterRole{ObjectMeta: generatedMeta(policy, "", role.Name), Rules: role.Rules}
	if policy.Spec.Mode == apiaccessv1alpha1.ModeAggregate {
		out.Labels[role.AggregateLabel] = "true"
	}
	return out
}

func roleRef(name string) rbacv1.RoleRef {
	return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}
}

// bindingsFor are the bindings of spec.bindings[index] for one CRD whose
// roles may be bound (usable): a ClusterRoleBinding without namespaces, a
// RoleBinding in each listed namespace otherwise. View holders also get the
// CRD's crdview role, always cluster-wide: it grants get on the
// cluster-scoped CRD, which a RoleBinding cannot grant.
func bindingsFor(policy *apiaccessv1alpha1.APIAccessPolicy, index int, api apiaccessv1alpha1.CRDAPI, usable map[string]bool) (
	clusterBindings []*rbacv1.ClusterRoleBinding, bindings []*rbacv1.RoleBinding) {
	entry := policy.Spec.Bindings[index]
	subjects := rbacsubjects.Defaulted(rbacSubjects(entry.Subjects))
	role := api.RoleFor(entry.Role).Name
	if usable[role] {
		name := crdaccess.BindingName(policy.Name, index, role)
		if len(entry.Namespaces) == 0 {
			clusterBindings = append(clusterBindings, &rbacv1.ClusterRoleBinding{
				ObjectMeta: generatedMeta(policy, "", name), RoleRef: roleRef(role), Subjects: subjects})
		}
		for _, ns := range entry.Namespaces {
			bindings = append(bindings, &rbacv1.RoleBinding{
				ObjectMeta: generatedMeta(policy, ns, name), RoleRef: roleRef(role), Subjects: subjects})
		}
	}
	crdView := api.RoleBaseName() + apiaccessv1alpha1.CRDViewSuffix
	if entry.Role == apiaccessv1alpha1.RoleView && usable[crdView] {
		clusterBindings = append(clusterBindings, &rbacv1.ClusterRoleBinding{
			ObjectMeta: generatedMeta(policy, "", crdaccess.BindingName(policy.Name, index, crdView)), RoleRef: roleRef(crdView), Subjects: subjects})
	}
	return clusterBindings, bindings
}

// rbacSubjects are a binding entry's subjects as a binding holds them.
func rbacSubjects(in []apiaccessv1alpha1.Subject) []rbacv1.Subject {
	out := make([]rbacv1.Subject, len(in))
	for i, s := range in {
		out[i] = rbacv1.Subject(s)
	}
	return out
}

// bundleProvided says whether role is the CRD's bundle's own: installed by
// the same ClusterExtension (OLM v1's owner labels on both).
func bundleProvided(crd *apiextensionsv1.CustomResourceDefinition, role metav1.Object) bool {
	kind, name := crd.Labels[apiaccessv1alpha1.OLMOwnerKindLabel], crd.Labels[apiaccessv1alpha1.OLMOwnerNameLabel]
	return kind == apiaccessv1alpha1.OLMOwnerKindClusterExtension && name != "" &&
		role.GetLabels()[apiaccessv1alpha1.OLMOwnerKindLabel] == kind && role.GetLabels()[apiaccessv1alpha1.OLMOwnerNameLabel] == name
}

// ours says whether obj was generated for policy: its controller is this
// policy, by UID. The label alone proves nothing (anyone who may create or
// label a ClusterRole or binding can set it), and an object of a policy
// deleted and re-created under the same name is the garbage collector's.
func ours(policy *apiaccessv1alpha1.APIAccessPolicy, obj metav1.Object) bool {
	return controllerref.ControlledBy(obj, policyKind, policy.UID)
}

// policyKind is what a controller reference to an APIAccessPolicy names:
// the kind in another group is someone else's.
var policyKind = apiaccessv1alpha1.SchemeGroupVersion.WithKind("APIAccessPolicy").GroupKind()

// claim says who holds obj, an object of a name policy would use that is
// not its own, for the Conflict condition.
func claim(policy *apiaccessv1alpha1.APIAccessPolicy, obj metav1.Object) string {
	label := obj.GetLabels()[apiaccessv1alpha1.PolicyLabel]
	owner := metav1.GetControllerOfNoCopy(obj)
	switch {
	case owner != nil && controllerref.Refers(*owner, policyKind) && owner.Name == policy.Name:
		return "left by an earlier APIAccessPolicy " + policy.Name + ", for the garbage collector to delete"
	case owner != nil && controllerref.Refers(*owner, policyKind):
		return "managed by APIAccessPolicy " + owner.Name
	case owner != nil && owner.Kind == "APIAccessPolicy":
		return "controlled by an APIAccessPolicy of another API group (" + owner.APIVersion + "), not the operator's"
	case label == policy.Name:
		return "labelled for this policy but not created by it"
	case label != "":
		return "labelled for APIAccessPolicy " + label + " but not created by it"
	}
	return "not created by the operator"
}

// ownerInSync says whether obj's owner references are exactly the policy's.
func ownerInSync(policy *apiaccessv1alpha1.APIAccessPolicy, obj metav1.Object) bool {
	refs := obj.GetOwnerReferences()
	want := ownerRef(policy)[0]
	return len(refs) == 1 && refs[0].UID == want.UID && refs[0].Name == want.Name && refs[0].Kind == want.Kind &&
		refs[0].APIVersion == want.APIVersion && ptr.Deref(refs[0].Controller, false) && refs[0].BlockOwnerDeletion == nil
}
