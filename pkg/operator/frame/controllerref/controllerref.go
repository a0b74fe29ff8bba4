// Package controllerref tells whether an object's controller reference
// names a given owner: by API group, kind and UID, all three. Ownership is
// what lets a controller change or delete an object, so a reference of the
// right kind and UID in another group (evil.example/v1, kind ScopeInstance)
// is someone else's: anyone who may write the object may set one, and the
// operator-writes admission policy stops only references to the real group.
package controllerref

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// ControlledBy says whether obj's controller is the object of kind gk with
// this UID.
func ControlledBy(obj metav1.Object, gk schema.GroupKind, uid types.UID) bool {
	ref := metav1.GetControllerOfNoCopy(obj)
	return ref != nil && ref.UID == uid && Refers(*ref, gk)
}

// Refers says whether ref is to an object of kind gk, in its group (any
// version). An apiVersion that does not parse refers to nothing.
func Refers(ref metav1.OwnerReference, gk schema.GroupKind) bool {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	return err == nil && gv.Group == gk.Group && ref.Kind == gk.Kind
}
