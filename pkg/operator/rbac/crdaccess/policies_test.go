package crdaccess

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
)

// FuzzSelector: whatever a policy's selector holds, Selector returns a
// selector or an error, never panics, and a selector it returns never
// matches a CRD without the labels a matchLabels entry requires.
func FuzzSelector(f *testing.F) {
	f.Add("ext", "app", "x", "In", "a,b")
	f.Add("", "a/b", "", "Bogus", "")
	f.Add("", "", "", "Exists", "")
	f.Fuzz(func(t *testing.T, extension, key, value, operator, values string) {
		selection := apiaccessv1alpha1.CRDSelection{ClusterExtension: extension}
		if extension == "" {
			selection.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{key: value},
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: metav1.LabelSelectorOperator(operator), Values: strings.Split(values, ",")}}}
		}
		selector, err := Selector(selection)
		if err != nil {
			return
		}
		if selector == nil {
			t.Fatal("a selection by extension or selector gave no selector")
		}
		if extension == "" && selector.Matches(labels.Set{}) && key != "" {
			t.Fatalf("selector %q matches a CRD without label %q", selector, key)
		}
		if extension != "" && selector.Matches(labels.Set{apiaccessv1alpha1.OLMOwnerNameLabel: extension}) {
			t.Fatalf("selector %q ignores the owner kind", selector)
		}
	})
}

// FuzzBindingName: binding names are never longer than a name may be and
// differ for different inputs that are cut.
func FuzzBindingName(f *testing.F) {
	f.Add("p", 0, "A.b-admin")
	f.Add(strings.Repeat("p", 63), 31, strings.Repeat("K", 250))
	f.Fuzz(func(t *testing.T, policy string, index int, role string) {
		name := BindingName(policy, index, role)
		if len(name) > maxNameLength {
			t.Fatalf("%d characters", len(name))
		}
		if other := BindingName(policy, index, role+"x"); other == name {
			t.Fatalf("two roles share the binding name %q", name)
		}
	})
}

func TestBindingNamesStayNames(t *testing.T) {
	long := BindingName(strings.Repeat("p", 63), 31, strings.Repeat("K", 63)+"."+strings.Repeat("g", 200)+"-view-crdview")
	if len(long) != maxNameLength {
		t.Errorf("len %d", len(long))
	}
	if BindingName("p", 0, "A.b-admin") != "p-0-A.b-admin" {
		t.Errorf("short names are kept")
	}
}
