package rbacsubjects

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

func TestDefaulted(t *testing.T) {
	in := []rbacv1.Subject{
		{Kind: rbacv1.UserKind, Name: "alice"},
		{Kind: rbacv1.GroupKind, Name: "readers"},
		{Kind: rbacv1.ServiceAccountKind, Name: "robot", Namespace: "ns"},
		{Kind: rbacv1.UserKind, APIGroup: "example.com", Name: "kept"},
	}
	want := []rbacv1.Subject{
		{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"},
		{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "readers"},
		{Kind: rbacv1.ServiceAccountKind, Name: "robot", Namespace: "ns"},
		{Kind: rbacv1.UserKind, APIGroup: "example.com", Name: "kept"},
	}
	got := Defaulted(in)
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("Defaulted = %+v, want %+v", got, want)
	}
	if in[0].APIGroup != "" {
		t.Error("Defaulted changed its input")
	}
	if Defaulted(nil) != nil {
		t.Error("Defaulted(nil) is not nil")
	}
}
