package unmanagednotice

import (
	"fmt"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
)

// FuzzNotice: whatever the CRDs' names and labels and the policies' modes
// and selections (anyone who may write a policy or a CRD chooses them),
// Notice never panics, says nothing only without CRDs, says Managed only
// when an Aggregate or Bind policy exists, and names at most maxNamed CRDs.
func FuzzNotice(f *testing.F) {
	f.Add("widgets.example.com", "ext", 3, "Aggregate", "ext", "", "", "")
	f.Add("a", "", 0, "Bind", "", "a", "k", "v")
	f.Add("", "x", 40, "Unmanaged", "", "", "k", "")
	f.Add("w", "ext", 12, "Bind", "", "", "", "In")
	f.Fuzz(func(t *testing.T, name, extension string, count int, mode, byExtension, byName, key, operator string) {
		count = min(max(count, 0), 50)
		var crds []*apiextensionsv1.CustomResourceDefinition
		for i := range count {
			crds = append(crds, crd(name+strings.Repeat("x", i), extension))
		}
		selection := apiaccessv1alpha1.CRDSelection{ClusterExtension: byExtension}
		switch {
		case byExtension != "":
		case byName != "":
			selection.Names = []string{byName}
		default:
			selection.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: key, Operator: metav1.LabelSelectorOperator(operator), Values: []string{extension}}}}
		}
		p := policy("p", apiaccessv1alpha1.AccessMode(mode), selection)
		reason, message := Notice(crds, []*apiaccessv1alpha1.APIAccessPolicy{p})
		switch {
		case (reason == "") != (count == 0):
			t.Fatalf("%d CRDs, reason %q", count, reason)
		case reason == ReasonManaged && p.Spec.Mode != apiaccessv1alpha1.ModeAggregate && p.Spec.Mode != apiaccessv1alpha1.ModeBind:
			t.Fatalf("managed by a %q policy", mode)
		case reason != "" && reason != ReasonManaged && reason != ReasonUnmanaged:
			t.Fatalf("reason %q", reason)
		}
		if reason == ReasonUnmanaged {
			// The unmanaged ones are named, not all: a CRD a Bind policy
			// selects by name is not among them.
			var unmanaged, total int
			if _, err := fmt.Sscanf(message, "access to the APIs of %d of its %d CRDs", &unmanaged, &total); err != nil || total != count || unmanaged > count {
				t.Fatalf("%d CRDs, message %q (%v)", count, message, err)
			}
			if unmanaged > maxNamed && !strings.Contains(message, " more;") {
				t.Fatalf("%d unmanaged CRDs named in full: %s", unmanaged, message)
			}
		}
	})
}
