package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/olmscopes"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// permissionsGolden is every permission the operator's, the webhook's and
// the OLM scope generator's ServiceAccounts hold, as the API server's
// authorizer reports them; docs/security.md explains each. UPDATE_PERMISSIONS=1 rewrites it.
const permissionsGolden = "testdata/permissions.txt"

// TestEffectivePermissions asks the API server what the operator's and the
// webhook's ServiceAccounts may do (SelfSubjectRulesReview, impersonating
// each), cluster-wide and in every namespace the payload binds them in,
// beyond what any ServiceAccount may do, and compares it with the table
// reviewed in permissionsGolden: a grant widened in manifests/ or
// bindata/ fails here until the table, and docs/security.md, say so.
func TestEffectivePermissions(t *testing.T) {
	dumpOnFailure(t)
	// Whatever the operator applies in the operand namespace is in place.
	framework.Eventually(t, time.Minute, operandObjectsPresent)
	anywhere := testNamespace(t, "permissions-")
	namespaces := []string{framework.OperatorNamespace, framework.OperandNamespace, "kube-system", "default"}
	var got []string
	for _, subject := range []struct{ namespace, name string }{
		{framework.OperatorNamespace, framework.OperatorName},
		{framework.OperandNamespace, framework.WebhookName},
		{framework.OperatorNamespace, olmscopes.GeneratorServiceAccount},
	} {
		// Baseline: what a ServiceAccount bound to nothing gets from the
		// groups every ServiceAccount is in.
		baseline := rules(t, subject.namespace, "no-bindings-at-all", anywhere)
		cluster := rules(t, subject.namespace, subject.name, anywhere).Difference(baseline)
		for _, r := range sets.List(cluster) {
			got = append(got, fmt.Sprintf("%s/%s\tcluster\t%s", subject.namespace, subject.name, r))
		}
		for _, ns := range namespaces {
			for _, r := range sets.List(rules(t, subject.namespace, subject.name, ns).Difference(cluster).Difference(rules(t, subject.namespace, "no-bindings-at-all", ns))) {
				got = append(got, fmt.Sprintf("%s/%s\t%s\t%s", subject.namespace, subject.name, ns, r))
			}
		}
	}
	table := strings.Join(got, "\n") + "\n"
	if os.Getenv("UPDATE_PERMISSIONS") == "1" {
		if err := os.WriteFile(permissionsGolden, []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: review it and docs/security.md", permissionsGolden)
		return
	}
	want, err := os.ReadFile(permissionsGolden)
	if err != nil {
		t.Fatal(err)
	}
	wantLines := strings.Split(strings.TrimRight(string(want), "\n"), "\n")
	if added, removed := diffLines(wantLines, got); len(added)+len(removed) > 0 {
		t.Errorf("the operator's or the webhook's effective permissions changed (format: subject, scope, apiGroup/resource[/name] verb).\n"+
			"granted now, not in %s:\n  %s\nin %s, no longer granted:\n  %s\n"+
			"if intended, rerun with UPDATE_PERMISSIONS=1 and update docs/security.md",
			permissionsGolden, strings.Join(added, "\n  "), permissionsGolden, strings.Join(removed, "\n  "))
	}
}

// rules is what the ServiceAccount namespace/name may do in ns, one
// "apiGroup/resource[/name] verb" per permission.
func rules(t *testing.T, namespace, name, ns string) sets.Set[string] {
	t.Helper()
	review, err := asServiceAccount(t, namespace, name).AuthorizationV1().SelfSubjectRulesReviews().Create(context.Background(),
		&authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if review.Status.Incomplete {
		t.Fatalf("the authorizer could not list every rule of %s/%s in %s: %s", namespace, name, ns, review.Status.EvaluationError)
	}
	out := sets.New[string]()
	for _, r := range review.Status.ResourceRules {
		names := r.ResourceNames
		if len(names) == 0 {
			names = []string{""}
		}
		for _, group := range r.APIGroups {
			if group == "" {
				group = "core"
			}
			for _, resource := range r.Resources {
				for _, n := range names {
					for _, verb := range r.Verbs {
						what := group + "/" + resource
						if n != "" {
							what += "/" + n
						}
						out.Insert(what + " " + verb)
					}
				}
			}
		}
	}
	for _, r := range review.Status.NonResourceRules {
		for _, u := range r.NonResourceURLs {
			for _, verb := range r.Verbs {
				out.Insert("url:" + u + " " + verb)
			}
		}
	}
	return out
}

// diffLines is what got has that want lacks, and the reverse.
func diffLines(want, got []string) (added, removed []string) {
	w, g := sets.New(want...), sets.New(got...)
	added, removed = sets.List(g.Difference(w)), sets.List(w.Difference(g))
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}

// asServiceAccount is a client that acts as the ServiceAccount
// namespace/name, with the groups the API server gives its tokens.
func asServiceAccount(t *testing.T, namespace, name string) kubernetes.Interface {
	t.Helper()
	config := rest.CopyConfig(env.cp.Config)
	config.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + namespace + ":" + name,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	return client
}
