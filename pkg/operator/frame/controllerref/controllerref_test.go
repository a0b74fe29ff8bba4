package controllerref

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

func TestControlledByComparesGroupKindAndUID(t *testing.T) {
	scopeInstance := schema.GroupKind{Group: "operators.coreos.com", Kind: "ScopeInstance"}
	const uid = "4d1c4d1c-0000-0000-0000-000000000001"
	for _, tc := range []struct {
		name string
		ref  metav1.OwnerReference
		want bool
	}{
		{"ours", metav1.OwnerReference{APIVersion: "operators.coreos.com/v1alpha1", Kind: "ScopeInstance", UID: uid, Controller: ptr.To(true)}, true},
		{"ours, another version", metav1.OwnerReference{APIVersion: "operators.coreos.com/v1", Kind: "ScopeInstance", UID: uid, Controller: ptr.To(true)}, true},
		{"our kind and UID in another group", metav1.OwnerReference{APIVersion: "evil.example/v1", Kind: "ScopeInstance", UID: uid, Controller: ptr.To(true)}, false},
		{"our kind and UID in the core group", metav1.OwnerReference{APIVersion: "v1", Kind: "ScopeInstance", UID: uid, Controller: ptr.To(true)}, false},
		{"an apiVersion that does not parse", metav1.OwnerReference{APIVersion: "operators.coreos.com/v1/x", Kind: "ScopeInstance", UID: uid, Controller: ptr.To(true)}, false},
		{"no apiVersion", metav1.OwnerReference{Kind: "ScopeInstance", UID: uid, Controller: ptr.To(true)}, false},
		{"another kind", metav1.OwnerReference{APIVersion: "operators.coreos.com/v1alpha1", Kind: "ScopeTemplate", UID: uid, Controller: ptr.To(true)}, false},
		{"another UID", metav1.OwnerReference{APIVersion: "operators.coreos.com/v1alpha1", Kind: "ScopeInstance", UID: "other", Controller: ptr.To(true)}, false},
		{"an owner, not the controller", metav1.OwnerReference{APIVersion: "operators.coreos.com/v1alpha1", Kind: "ScopeInstance", UID: uid}, false},
	} {
		obj := &metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{tc.ref}}
		if got := ControlledBy(obj, scopeInstance, uid); got != tc.want {
			t.Errorf("%s: ControlledBy = %v, want %v", tc.name, got, tc.want)
		}
	}
}
