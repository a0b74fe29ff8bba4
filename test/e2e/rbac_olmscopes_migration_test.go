package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/olmscopes"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// recreateNamespace deletes ns, waits until it is gone, and creates a
// namespace of the same name: another namespace, of another UID.
func recreateNamespace(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	if err := env.kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 2*time.Minute, func(ctx context.Context) error {
		if _, err := env.kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("namespace %s not gone yet: %v", ns, err)
		}
		return nil
	})
	if _, err := env.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// After step 3 of the move (OLM's RBAC removed), a target namespace deleted
// and re-created is not bound for its name alone: the generated instance
// shows NamespacesReplaced and the CSV says what the generator waits for.
// Once OLM's OperatorGroup controller has copied the operator's Role and
// RoleBinding into it (played here), the generator writes the spec again
// and the scope binds there; OLM's copy can then go too.
func TestOLMScopesRecreatedTargetNamespaceIsBoundAgain(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	serveOLMv0(t)
	t.Cleanup(func() { patchOLMScopes(t, "null") })
	grantGeneratorClusterAdmin(t)
	ops, teamA := testNamespace(t, "olm-again-ops-"), testNamespace(t, "olm-again-a-")
	configMaps := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}
	createOperatorGroup(t, ops, ops, teamA)
	revoke := grantAsOLM(t, ops, "againop-v1", []string{ops, teamA}, []rbacv1.PolicyRule{configMaps}, nil)
	uid := createCSV(t, ops, "againop.v0.0.1", "", nil, []rbacv1.PolicyRule{configMaps}, nil)
	patchOLMScopes(t, `{"mode":"Namespaces","namespaces":["`+ops+`"]}`)
	base := "olm-" + ops + "-againop"
	waitForInstance(t, base, ops, teamA)
	expectInstanceCondition(t, base, scopesv1alpha1.ConditionBound, metav1.ConditionTrue, scopesv1alpha1.ReasonAllBound, "")
	revoke() // step 3: the scope alone gives it
	expectCan(t, ops, map[string]bool{"list /configmaps " + ops: true, "list /configmaps " + teamA: true})

	recreateNamespace(t, teamA)
	expectInstanceCondition(t, base, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonNamespacesReplaced, teamA)
	framework.Eventually(t, time.Minute, func(context.Context) error {
		if msg, ok := csvEvents(t, ops, uid)[olmscopes.ReasonNamespaceReplaced]; !ok || !strings.Contains(msg, "namespace "+teamA) {
			return fmt.Errorf("no Event saying what the generator waits for in %s: %v", teamA, csvEvents(t, ops, uid))
		}
		return nil
	})
	framework.Consistently(t, 5*time.Second, func(context.Context) error {
		if csvSACan(t, ops, "list", "", "configmaps", teamA) {
			return fmt.Errorf("bound in the re-created %s before OLM granted anything there", teamA)
		}
		return nil
	})

	// OLM's OperatorGroup controller copies the operator's Role and
	// RoleBinding into the re-created target namespace.
	revokeCopy := grantAsOLM(t, ops, "againop-v1-copied", []string{teamA}, []rbacv1.PolicyRule{configMaps}, nil)
	touchCSV(t, ops, "againop.v0.0.1") // a waiting CSV is retried every minute; a change wakes it now
	expectInstanceCondition(t, base, scopesv1alpha1.ConditionBound, metav1.ConditionTrue, scopesv1alpha1.ReasonAllBound, "")
	if msg := csvEvents(t, ops, uid)[olmscopes.ReasonGenerated]; !strings.Contains(msg, "bound again in namespace "+teamA) {
		t.Errorf("the ScopeGenerated Event does not say it bound %s again: %q", teamA, msg)
	}
	revokeCopy() // step 3 for the copy
	expectCan(t, ops, map[string]bool{"list /configmaps " + ops: true, "list /configmaps " + teamA: true})
	expectNamespaces(t, base, ops, teamA)
}

// watchCan asks, every 200 ms until stop is called, each "verb
// group/resource ns" of want as the CSV's ServiceAccount (as expectCan),
// and stop reports every answer that differed: what "unchanged
// throughout" means.
func watchCan(t *testing.T, csvNS string, want map[string]bool) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []string)
	go func() {
		var wrong []string
		asked := 0
		for ctx.Err() == nil {
			for q, allowed := range want {
				parts := strings.Fields(q)
				group, resource, _ := strings.Cut(parts[1], "/")
				ns := ""
				if len(parts) > 2 {
					ns = parts[2]
				}
				review, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
					User:               "system:serviceaccount:" + csvNS + ":" + olmSA,
					Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + csvNS, "system:authenticated"},
					ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: parts[0], Group: group, Resource: resource},
				}}, metav1.CreateOptions{})
				switch {
				case ctx.Err() != nil:
				case err != nil:
					wrong = append(wrong, fmt.Sprintf("%s %s: %v", time.Now().Format(time.StampMilli), q, err))
				case review.Status.Allowed != allowed:
					wrong = append(wrong, fmt.Sprintf("%s %s: %v, want %v", time.Now().Format(time.StampMilli), q, review.Status.Allowed, allowed))
				default:
					asked++
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
		done <- append(wrong, fmt.Sprintf("(%d answers as wanted)", asked))
	}()
	return func() {
		t.Helper()
		cancel()
		got := <-done
		if len(got) > 1 {
			t.Errorf("the operator's permission checks changed: %s", strings.Join(got, "; "))
		} else {
			t.Logf("the operator's permission checks held throughout %s", got[0])
		}
	}
}

// Back from the scope to OLM's RBAC, as docs/scopes.md's last procedure
// says, after step 3 of the move (the scope all the operator has): OLM's
// RBAC restored and checked by its labels, then the namespace opted out.
// The operator's permission checks (kubectl auth can-i, as
// SubjectAccessReviews) answer the same throughout, and nothing generated
// is left.
func TestOLMScopesMovingBackToOLMsRBAC(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	serveOLMv0(t)
	t.Cleanup(func() { patchOLMScopes(t, "null") })
	grantGeneratorClusterAdmin(t)
	ctx := context.Background()
	ops, teamA, teamB := testNamespace(t, "olm-back-ops-"), testNamespace(t, "olm-back-a-"), testNamespace(t, "olm-back-b-")
	configMaps := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}
	crds := rbacv1.PolicyRule{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get"}}
	createOperatorGroup(t, ops, ops, teamA)
	revoke := grantAsOLM(t, ops, "backop-v1", []string{ops, teamA}, []rbacv1.PolicyRule{configMaps}, []rbacv1.PolicyRule{crds})
	uid := createCSV(t, ops, "backop.v0.0.1", "", nil, []rbacv1.PolicyRule{configMaps}, []rbacv1.PolicyRule{crds})
	patchOLMScopes(t, `{"mode":"Namespaces","namespaces":["`+ops+`"]}`)
	base := "olm-" + ops + "-backop"
	waitForInstance(t, base, ops, teamA)
	waitForInstance(t, base+"-cluster")
	can := map[string]bool{
		"list /configmaps " + ops: true, "list /configmaps " + teamA: true, "list /configmaps " + teamB: false,
		"get apiextensions.k8s.io/customresourcedefinitions": true, "list apiextensions.k8s.io/customresourcedefinitions": false,
	}
	revoke() // step 3 of the move: the scope is all the operator has
	expectCan(t, ops, can)
	stop := watchCan(t, ops, can)

	// 1. Restore OLM's RBAC (OLM's reinstall or upgrade creates it; here,
	// what was removed, as OLM labels it).
	grantAsOLM(t, ops, "backop-v1", []string{ops, teamA}, []rbacv1.PolicyRule{configMaps}, []rbacv1.PolicyRule{crds})
	// 2. Check it by its labels: can-i answers for OLM's RBAC and the
	// scope together, so it cannot tell whether OLM's is back.
	selector := metav1.ListOptions{LabelSelector: "olm.owner=backop-v1"}
	for _, ns := range []string{ops, teamA} {
		roles, err := env.kube.RbacV1().Roles(ns).List(ctx, selector)
		if err != nil {
			t.Fatal(err)
		}
		bindings, err := env.kube.RbacV1().RoleBindings(ns).List(ctx, selector)
		if err != nil {
			t.Fatal(err)
		}
		if len(roles.Items) != 1 || len(bindings.Items) != 1 {
			t.Fatalf("OLM's Role and RoleBinding in %s: %d and %d", ns, len(roles.Items), len(bindings.Items))
		}
	}
	clusterRoles, err := env.kube.RbacV1().ClusterRoles().List(ctx, selector)
	if err != nil {
		t.Fatal(err)
	}
	clusterBindings, err := env.kube.RbacV1().ClusterRoleBindings().List(ctx, selector)
	if err != nil {
		t.Fatal(err)
	}
	if len(clusterRoles.Items) != 1 || len(clusterBindings.Items) != 1 {
		t.Fatalf("OLM's ClusterRole and ClusterRoleBinding: %d and %d", len(clusterRoles.Items), len(clusterBindings.Items))
	}
	// 3. Opt the namespace out: what was generated goes, with its roles
	// and bindings.
	patchOLMScopes(t, `{"mode":"Disabled"}`)
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		ts, is, err := generatedFrom(ctx, uid)
		if err != nil {
			return err
		}
		if len(ts)+len(is) > 0 {
			return fmt.Errorf("still generated: %d templates, %d instances", len(ts), len(is))
		}
		for _, ns := range []string{ops, teamA} {
			list, err := env.kube.RbacV1().RoleBindings(ns).List(ctx, metav1.ListOptions{LabelSelector: scopesv1alpha1.ScopeInstanceLabel})
			if err != nil {
				return err
			}
			if len(list.Items) > 0 {
				return fmt.Errorf("the scope's RoleBindings in %s are still there: %d", ns, len(list.Items))
			}
		}
		crbs, err := env.kube.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{LabelSelector: scopesv1alpha1.ScopeInstanceLabel + "=" + base + "-cluster"})
		if err != nil {
			return err
		}
		if len(crbs.Items) > 0 {
			return fmt.Errorf("the scope's ClusterRoleBindings are still there: %d", len(crbs.Items))
		}
		return nil
	})
	// 4. can-i as before, now from OLM's RBAC alone.
	time.Sleep(2 * time.Second)
	stop()
	expectCan(t, ops, can)
}

// The narrower grant of docs/security.md instead of cluster-admin: a
// ClusterRole aggregating the ClusterRoles OLM labels as a CSV's
// (olm.owner.kind=ClusterServiceVersion) and the admin's ClusterRoles
// holding the CSVs' namespaced permissions, plus create on the bindings.
// Without the namespaced permissions' role, the access-grants check
// refuses the generator; with it, the scope is generated and binds.
func TestOLMScopesNarrowerGeneratorGrant(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	serveOLMv0(t)
	t.Cleanup(func() { patchOLMScopes(t, "null") })
	ctx := context.Background()
	ops, teamA := testNamespace(t, "olm-narrow-ops-"), testNamespace(t, "olm-narrow-a-")
	configMaps := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}
	crds := rbacv1.PolicyRule{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get"}}
	generator := []rbacv1.Subject{{Kind: "ServiceAccount", Name: olmscopes.GeneratorServiceAccount, Namespace: olmscopes.GeneratorServiceAccountNamespace}}
	const aggregateLabel = "workload-access.openshift.io/aggregate-to-olm-scope-generator"
	// The recipe, as docs/security.md writes it.
	for _, role := range []*rbacv1.ClusterRole{
		{ObjectMeta: metav1.ObjectMeta{Name: "olm-scope-generator-rules"}, AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{"olm.owner.kind": "ClusterServiceVersion"}},
			{MatchLabels: map[string]string{aggregateLabel: "true"}}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "olm-scope-generator-bindings"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"rolebindings", "clusterrolebindings"}, Verbs: []string{"create"}}}},
	} {
		if _, err := env.kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name}, Subjects: generator,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name}}
		if _, err := env.kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = env.kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
			_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
		})
	}
	createOperatorGroup(t, ops, ops, teamA)
	revoke := grantAsOLM(t, ops, "narrowop-v1", []string{ops, teamA}, []rbacv1.PolicyRule{configMaps}, []rbacv1.PolicyRule{crds})
	uid := createCSV(t, ops, "narrowop.v0.0.1", "", nil, []rbacv1.PolicyRule{configMaps}, []rbacv1.PolicyRule{crds})
	generatorCan := func(verb, group, resource string) bool {
		review, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               olmscopes.GeneratorUser,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource},
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return review.Status.Allowed
	}
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		if !generatorCan("get", "apiextensions.k8s.io", "customresourcedefinitions") {
			return fmt.Errorf("OLM's ClusterRole is not aggregated into the generator's yet")
		}
		return nil
	})
	if generatorCan("list", "", "secrets") || generatorCan("delete", "", "namespaces") {
		t.Errorf("the narrower grant gives the generator more than the CSVs' rules")
	}

	// With less (OLM's ClusterRoles only): the namespaced permissions are
	// not held cluster-wide, so the ScopeTemplate is refused.
	patchOLMScopes(t, `{"mode":"Namespaces","namespaces":["`+ops+`"]}`)
	framework.Eventually(t, time.Minute, func(context.Context) error {
		if msg, ok := csvEvents(t, ops, uid)[olmscopes.ReasonRefused]; !ok || !strings.Contains(msg, "configmaps") {
			return fmt.Errorf("no refusal naming the namespaced permission yet: %v", csvEvents(t, ops, uid))
		}
		return nil
	})
	if ts, is, err := generatedFrom(ctx, uid); err != nil || len(ts)+len(is) > 0 {
		t.Fatalf("generated with less than the recipe: %d templates, %d instances (%v)", len(ts), len(is), err)
	}

	// The admin's ClusterRole of the CSV's namespaced permissions, copied
	// from OLM's Role in the install namespace.
	roles, err := env.kube.RbacV1().Roles(ops).List(ctx, metav1.ListOptions{LabelSelector: "olm.owner=narrowop-v1"})
	if err != nil || len(roles.Items) != 1 {
		t.Fatalf("OLM's Role in %s: %v %v", ops, roles, err)
	}
	permissions := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "olm-scope-generator-narrowop", Labels: map[string]string{aggregateLabel: "true"}},
		Rules: roles.Items[0].Rules}
	if _, err := env.kube.RbacV1().ClusterRoles().Create(ctx, permissions, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), permissions.Name, metav1.DeleteOptions{})
	})
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		if !generatorCan("list", "", "configmaps") {
			return fmt.Errorf("the admin's ClusterRole is not aggregated yet")
		}
		return nil
	})
	touchCSV(t, ops, "narrowop.v0.0.1") // a refused CSV is retried every minute; a change wakes it now
	base := "olm-" + ops + "-narrowop"
	waitForInstance(t, base, ops, teamA)
	waitForInstance(t, base+"-cluster")
	expectInstanceCondition(t, base, scopesv1alpha1.ConditionBound, metav1.ConditionTrue, scopesv1alpha1.ReasonAllBound, "")
	expectInstanceCondition(t, base+"-cluster", scopesv1alpha1.ConditionBound, metav1.ConditionTrue, scopesv1alpha1.ReasonAllBound, "")
	revoke() // step 3: the scope alone gives it
	expectCan(t, ops, map[string]bool{"list /configmaps " + ops: true, "list /configmaps " + teamA: true,
		"get apiextensions.k8s.io/customresourcedefinitions": true})
}
