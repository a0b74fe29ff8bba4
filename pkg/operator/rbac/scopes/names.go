// Package scopes runs the two controllers of ScopeTemplates and
// ScopeInstances (operators.coreos.com/v1alpha1): ScopeTemplates get their
// ClusterRoles while at least one ScopeInstance names them, and each
// ScopeInstance binds those roles to the template's subjects in the
// namespaces it selects, or cluster-wide.
package scopes

import (
	"crypto/sha256"
	"encoding/hex"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/controllerref"
)

// suffixLength is how many hex digits of a SHA-256 end every generated name:
// 40 bits, so two owners' names collide only by chance, and a collision
// surfaces as a Conflict, never as a shared object. The API server's policy
// (07_operator-writes-policy) checks that shape.
const suffixLength = 10

func suffix(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])[:suffixLength]
}

// ClusterRoleName is the ClusterRole of template's entry with generateName:
// the prefix and a suffix derived from the template's name, so the same on
// every sync and different for two templates (the suffix has a fixed
// length, so two prefixes cannot trade characters with it).
func ClusterRoleName(template, generateName string) string {
	return generateName + suffix(template)
}

// BindingName is the RoleBinding or ClusterRoleBinding of instance for role:
// the role's name, so a reader sees what is bound, then a suffix derived
// from the instance's, so two instances of one template never share a
// binding. At most 200+10+1+10 characters.
func BindingName(role, instance string) string {
	return role + "-" + suffix(instance)
}

// controllerRef makes owner, a ScopeTemplate or a ScopeInstance (kind), the
// controller of what it generates.
func controllerRef(kind string, owner metav1.Object) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: scopesv1alpha1.SchemeGroupVersion.String(),
		Kind:       kind,
		Name:       owner.GetName(),
		UID:        owner.GetUID(),
		Controller: ptr.To(true),
	}
}

// controlledBy says whether obj's controller is the ScopeTemplate or
// ScopeInstance (kind) with this UID: a reference of that kind and UID in
// another group is someone else's.
func controlledBy(obj metav1.Object, kind string, uid string) bool {
	return controllerref.ControlledBy(obj, scopesv1alpha1.SchemeGroupVersion.WithKind(kind).GroupKind(), types.UID(uid))
}
