package scopes

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

// An instance written before the CRD refused an empty namespaceSelector
// (what a plain label map becomes when a client drops unknown fields)
// binds nothing, and says how to write a selector, rather than binding in
// every namespace.
func TestAnEmptySelectorBindsNothing(t *testing.T) {
	ctx := context.Background()
	instance := newInstance("i", "t", nil, nil)
	instance.Spec.NamespaceSelector = &metav1.LabelSelector{}
	f := newFixture(t, newTemplate("t", "reader-"), instance, newNamespace("a", nil), newNamespace("b", map[string]string{"team": "x"}))
	f.syncTemplate("t")
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if rbs, _ := f.kube.RbacV1().RoleBindings("").List(ctx, metav1.ListOptions{}); len(rbs.Items) != 0 {
		t.Errorf("an empty selector bound in %d namespaces", len(rbs.Items))
	}
	got, _ := f.scopes.ScopesV1alpha1().ScopeInstances().Get(ctx, "i", metav1.GetOptions{})
	if c := condition(t, got.Status.Conditions, scopesv1alpha1.ConditionInvalid); c.Status != metav1.ConditionTrue ||
		c.Reason != scopesv1alpha1.ReasonInvalidNamespaceSelector || !strings.Contains(c.Message, "would select every namespace") ||
		!strings.Contains(c.Message, "matchLabels: {team: a}") {
		t.Errorf("Invalid %+v", c)
	}
}
