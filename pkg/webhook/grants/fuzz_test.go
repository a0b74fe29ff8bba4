package grants

import (
	"context"
	"errors"
	"strings"
	"testing"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

// FuzzCheck decodes and checks arbitrary object JSON as each kind: the check
// never panics, never admits what it could not read, always says why it
// refuses, and never asks more than its cap.
func FuzzCheck(f *testing.F) {
	f.Add(0, "CREATE", []byte(`{"metadata":{"name":"x"},"spec":{"clusterRoles":[{"generateName":"r","rules":[{"apiGroups":[""],"resources":["secrets"],"verbs":["get","delete"]}],"subjects":[{"kind":"User","name":"bob"}]}]}}`), []byte(nil))
	f.Add(0, "UPDATE", []byte(`{"spec":{"clusterRoles":[{"rules":[{"nonResourceURLs":["/metrics"],"verbs":["*"]}]}]}}`), []byte(`{"spec":{}}`))
	f.Add(1, "CREATE", []byte(`{"spec":{"scopeTemplateName":"t","namespaces":["a","b"]}}`), []byte(nil))
	f.Add(1, "CREATE", []byte(`{"spec":{"scopeTemplateName":"t","namespaceSelector":{}}}`), []byte(nil))
	f.Add(1, "CREATE", []byte(`{"spec":{"scopeTemplateName":"broken"}}`), []byte(nil))
	f.Add(2, "CREATE", []byte(`{"spec":{"crds":{"names":["widgets.example.com"]},"mode":"Bind","bindings":[{"role":"Edit","namespaces":["a"]}]}}`), []byte(nil))
	f.Add(2, "CREATE", []byte(`{"spec":{"crds":{"selector":{}},"mode":"Aggregate"}}`), []byte(nil))
	f.Add(2, "UPDATE", []byte(`{"spec":{"mode":"Unmanaged"}}`), []byte(`[]`))
	f.Add(0, "CREATE", []byte(`null`), []byte(nil))

	resources := []struct{ group, resource string }{
		{scopesv1alpha1.GroupName, ScopeTemplates}, {scopesv1alpha1.GroupName, ScopeInstances}, {apiaccessv1alpha1.GroupName, APIAccessPolicies},
	}
	templates := fakeTemplates{templates: map[string]*scopesv1alpha1.ScopeTemplate{"t": template("t", readSecrets)}}
	f.Fuzz(func(t *testing.T, kind int, operation string, object, old []byte) {
		r := resources[uint(kind)%3]
		auth := newFake().hold("a", res("get", "", "secrets"))
		var tmpl Templates = templates
		if strings.Contains(string(object), "broken") {
			tmpl = fakeTemplates{err: errors.New("broken")}
		}
		c := &Checker{Instances: noInstances, Authorizer: auth, Templates: tmpl, Namespaces: namespacesOf(map[string]bool{"a": true, "b": false}), MaxReviews: 200}
		d := c.Check(context.Background(), Request{Group: r.group, Resource: r.resource, Operation: operation, Object: object, OldObject: old, Requester: alice})
		if !d.Allowed && d.Message == "" {
			t.Fatalf("refused without a reason: %+v", d)
		}
		if d.Allowed && d.Reason != "" {
			t.Fatalf("allowed with a refusal reason: %+v", d)
		}
		if d.Reviews > 200 || len(auth.questions()) > 200 || d.Reviews != len(auth.questions()) {
			t.Fatalf("asked %d (reported %d), cap 200", len(auth.questions()), d.Reviews)
		}
		if d.Allowed && (operation == "CREATE" || operation == "UPDATE") {
			if _, err := decode(r.group, r.resource, object); err != nil {
				t.Fatalf("admitted an object that does not decode: %v", err)
			}
		}
	})
}
