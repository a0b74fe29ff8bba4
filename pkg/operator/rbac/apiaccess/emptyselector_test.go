package apiaccess

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
)

// A policy written before the CRD refused an empty CRD selector (what a
// plain label map becomes when a client drops unknown fields) generates
// nothing and says how to write a selector, rather than selecting every
// CRD in the cluster.
func TestAnEmptyCRDSelectorGeneratesNothing(t *testing.T) {
	other := crd("gadgets", "other.example.com", "Gadget", nil)
	c := newCluster(policy(apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.CRDSelection{Selector: &metav1.LabelSelector{}}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets, other})
	c.sync(t)
	if names := c.roleNames(t); len(names) != 0 {
		t.Errorf("an empty selector generated %v", names)
	}
	got := condition(t, c.status(t), apiaccessv1alpha1.ConditionInvalid)
	if got.Status != metav1.ConditionTrue || got.Reason != apiaccessv1alpha1.ReasonInvalidSelector ||
		!strings.Contains(got.Message, "would select every CRD") || !strings.Contains(got.Message, "matchLabels: {team: a}") {
		t.Errorf("Invalid %+v", got)
	}
}
