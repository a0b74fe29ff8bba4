package grants

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

// BenchmarkCheckScopeTemplate checks a typical template (one role, three
// rules, nine permissions) for a requester who holds them all cluster-wide,
// and reports the access reviews one request costs.
func BenchmarkCheckScopeTemplate(b *testing.B) {
	tmpl := template("operator",
		rule([]string{""}, []string{"configmaps", "services"}, []string{"get", "list", "watch"}),
		rule([]string{"apps"}, []string{"deployments"}, []string{"get", "update"}),
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"operator-tls"}, Verbs: []string{"get"}},
	)
	auth := newFake()
	for _, p := range []Permission{
		res("get", "", "configmaps"), res("list", "", "configmaps"), res("watch", "", "configmaps"),
		res("get", "", "services"), res("list", "", "services"), res("watch", "", "services"),
		res("get", "apps", "deployments"), res("update", "apps", "deployments"),
		{Verb: "get", Resource: "secrets", Name: "operator-tls"},
	} {
		auth.hold("", p)
	}
	c := &Checker{Instances: noInstances, Authorizer: auth}
	req := create(b, ScopeTemplates, tmpl)
	b.ReportAllocs()
	reviews := 0
	for b.Loop() {
		d := c.Check(context.Background(), req)
		if !d.Allowed {
			b.Fatal(d.Message)
		}
		reviews += d.Reviews
		auth.asked = auth.asked[:0]
	}
	b.ReportMetric(float64(reviews)/float64(b.N), "reviews/op")
}
