package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/scopes"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

const scopeSA = "scoped-operator"

// scopeTemplate creates a template whose one role lets the ServiceAccount
// saNamespace/scoped-operator (and a group, written without apiGroup as
// people write it) list ConfigMaps, deleted at cleanup.
func scopeTemplate(t *testing.T, saNamespace string) *scopesv1alpha1.ScopeTemplate {
	t.Helper()
	template, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(context.Background(), &scopesv1alpha1.ScopeTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-" + rand.String(6)},
		Spec: scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{
			GenerateName: "configmap-reader-",
			Rules:        []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}}},
			Subjects: []scopesv1alpha1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: scopeSA, Namespace: saNamespace},
				{Kind: rbacv1.GroupKind, Name: "e2e-configmap-readers"}},
		}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.operator.ScopesV1alpha1().ScopeTemplates().Delete(context.Background(), template.Name, metav1.DeleteOptions{})
	})
	return template
}

func scopeInstance(t *testing.T, template string, spec scopesv1alpha1.ScopeInstanceSpec) *scopesv1alpha1.ScopeInstance {
	t.Helper()
	spec.ScopeTemplateName = template
	instance, err := env.operator.ScopesV1alpha1().ScopeInstances().Create(context.Background(), &scopesv1alpha1.ScopeInstance{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-" + rand.String(6)}, Spec: spec,
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.operator.ScopesV1alpha1().ScopeInstances().Delete(context.Background(), instance.Name, metav1.DeleteOptions{})
	})
	return instance
}

// expectRoleBindings waits until instance's RoleBindings are in exactly
// the namespaces given (among those the test watches).
func expectRoleBindings(t *testing.T, instance string, watched []string, want ...string) {
	t.Helper()
	wanted := map[string]bool{}
	for _, ns := range want {
		wanted[ns] = true
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		for _, ns := range watched {
			list, err := env.kube.RbacV1().RoleBindings(ns).List(ctx, metav1.ListOptions{LabelSelector: scopesv1alpha1.ScopeInstanceLabel + "=" + instance})
			if err != nil {
				return err
			}
			if got := len(list.Items) == 1; got != wanted[ns] {
				return fmt.Errorf("namespace %s has %d RoleBindings of instance %s, want them: %v", ns, len(list.Items), instance, wanted[ns])
			}
		}
		return nil
	})
}

func expectInstanceCondition(t *testing.T, instance, conditionType string, status metav1.ConditionStatus, reason, messagePart string) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		got, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, instance, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, conditionType)
		if c == nil || c.Status != status || c.Reason != reason || !strings.Contains(c.Message, messagePart) || got.Status.ObservedGeneration != got.Generation {
			return fmt.Errorf("%s is %+v, want %s/%s containing %q", conditionType, c, status, reason, messagePart)
		}
		return nil
	})
}

func labelNamespace(t *testing.T, ns string, labels map[string]string) {
	t.Helper()
	namespace, err := env.kube.CoreV1().Namespaces().Get(context.Background(), ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	namespace.Labels = labels
	if _, err := env.kube.CoreV1().Namespaces().Update(context.Background(), namespace, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func expectClusterRoles(t *testing.T, template string, n int) []rbacv1.ClusterRole {
	t.Helper()
	var roles []rbacv1.ClusterRole
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		list, err := env.kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: scopesv1alpha1.ScopeTemplateLabel + "=" + template})
		if err != nil {
			return err
		}
		if len(list.Items) != n {
			return fmt.Errorf("template %s has %d ClusterRoles, want %d", template, len(list.Items), n)
		}
		roles = list.Items
		return nil
	})
	return roles
}

// canListConfigMaps asks both a SubjectAccessReview and the API server
// itself (a real list as the ServiceAccount).
func canListConfigMaps(t *testing.T, saNamespace, ns string) bool {
	t.Helper()
	review, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:" + saNamespace + ":" + scopeSA,
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + saNamespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Resource: "configmaps"},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, listErr := asServiceAccount(t, saNamespace, scopeSA).CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if listErr != nil && !apierrors.IsForbidden(listErr) {
		t.Fatal(listErr)
	}
	if review.Status.Allowed != (listErr == nil) {
		t.Fatalf("in %s the review says %v, the list %v", ns, review.Status.Allowed, listErr)
	}
	return review.Status.Allowed
}

// A template's roles exist only while an instance names it; the instance
// binds them in the namespaces it lists and selects, following namespaces
// created, labelled and unlabelled after it; the subject can then do what
// the rules allow there and nowhere else; deleting the instance leaves
// nothing behind.
func TestScopeInstanceBindsInListedAndSelectedNamespaces(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	saNS := testNamespace(t, "scope-sa-")
	template := scopeTemplate(t, saNS)
	framework.Consistently(t, 3*time.Second, func(ctx context.Context) error {
		list, err := env.kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: scopesv1alpha1.ScopeTemplateLabel + "=" + template.Name})
		if err != nil || len(list.Items) > 0 {
			return fmt.Errorf("roles before any instance: %d, %v", len(list.Items), err)
		}
		return nil
	})

	listed, selected, outside := testNamespace(t, "scope-listed-"), testNamespace(t, "scope-selected-"), testNamespace(t, "scope-outside-")
	key := "scope-e2e-" + rand.String(5)
	labelNamespace(t, selected, map[string]string{key: "yes"})
	later := "scope-later-" + rand.String(5)
	start := time.Now()
	instance := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{
		Namespaces:        []string{listed},
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: "yes"}},
	})

	roles := expectClusterRoles(t, template.Name, 1)
	role := roles[0]
	if want := scopes.ClusterRoleName(template.Name, "configmap-reader-"); role.Name != want || role.AggregationRule != nil ||
		metav1.GetControllerOf(&role) == nil || metav1.GetControllerOf(&role).UID != template.UID {
		t.Fatalf("ClusterRole %s (want %s), aggregation %v, controller %v", role.Name, want, role.AggregationRule, metav1.GetControllerOf(&role))
	}
	watched := []string{listed, selected, outside}
	expectRoleBindings(t, instance.Name, watched, listed, selected)

	if !canListConfigMaps(t, saNS, listed) || !canListConfigMaps(t, saNS, selected) {
		t.Error("the template's subject cannot list ConfigMaps where the instance binds it")
	}
	if canListConfigMaps(t, saNS, outside) {
		t.Error("the template's subject can list ConfigMaps outside the instance's namespaces")
	}

	// A namespace created later and then listed (a namespace must exist
	// to be listed), a namespace labelled later, and one unlabelled.
	if _, err := env.kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: later}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.kube.CoreV1().Namespaces().Delete(context.Background(), later, metav1.DeleteOptions{}) })
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(context.Background(), instance.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		current.Spec.Namespaces = append(current.Spec.Namespaces, later)
		_, err = env.operator.ScopesV1alpha1().ScopeInstances().Update(context.Background(), current, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	labelNamespace(t, outside, map[string]string{key: "yes"})
	labelNamespace(t, selected, nil)
	watched = append(watched, later)
	expectRoleBindings(t, instance.Name, watched, listed, later, outside)
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionTrue, scopesv1alpha1.ReasonAllBound, "bound in 3 namespaces")
	if canListConfigMaps(t, saNS, selected) {
		t.Error("the subject can still list ConfigMaps in the namespace that lost its label")
	}
	// Every sync so far found the bindings it made as it wants them: it
	// created and deleted, never updated (the template's group subject has
	// no apiGroup, which the API server stores defaulted).
	writes, err := operatorWrites(start)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		if w.ObjectRef != nil && w.ObjectRef.Resource == "rolebindings" && w.Verb != "create" && w.Verb != "delete" {
			t.Errorf("the operator wrote %s %s/%s: its bindings were already as wanted", w.Verb, w.ObjectRef.Namespace, w.ObjectRef.Name)
		}
	}

	// Rules edited by hand are repaired.
	edited := role.DeepCopy()
	edited.Rules[0].Verbs = []string{"*"}
	if _, err := env.kube.RbacV1().ClusterRoles().Update(context.Background(), edited, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		got, err := env.kube.RbacV1().ClusterRoles().Get(ctx, role.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if strings.Join(got.Rules[0].Verbs, ",") != "get,list" {
			return fmt.Errorf("verbs %v", got.Rules[0].Verbs)
		}
		return nil
	})

	// Nothing left behind: bindings (garbage collector) and the role (no
	// instance names the template any more).
	if err := env.operator.ScopesV1alpha1().ScopeInstances().Delete(context.Background(), instance.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectRoleBindings(t, instance.Name, watched)
	expectClusterRoles(t, template.Name, 0)
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		got, err := env.operator.ScopesV1alpha1().ScopeTemplates().Get(ctx, template.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c := meta.FindStatusCondition(got.Status.Conditions, scopesv1alpha1.ConditionInUse); c == nil || c.Status != metav1.ConditionFalse || len(got.Status.ClusterRoles) > 0 {
			return fmt.Errorf("template status %+v", got.Status)
		}
		return nil
	})
}

// Without namespaces an instance binds cluster-wide; given namespaces it
// switches to RoleBindings and its ClusterRoleBindings go; a missing
// template is reported and nothing stays bound.
func TestScopeInstanceClusterWideAndMissingTemplate(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	saNS := testNamespace(t, "scope-sa-")
	elsewhere := testNamespace(t, "scope-any-")
	template := scopeTemplate(t, saNS)
	instance := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{})
	roleName := scopes.ClusterRoleName(template.Name, "configmap-reader-")
	bindingName := scopes.BindingName(roleName, instance.Name)
	expectCRB := func(want bool) {
		t.Helper()
		framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
			crb, err := env.kube.RbacV1().ClusterRoleBindings().Get(ctx, bindingName, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err) && !want, err == nil && want && crb.RoleRef.Name == roleName:
				return nil
			case err != nil && !apierrors.IsNotFound(err):
				return err
			}
			return fmt.Errorf("ClusterRoleBinding %s: %v, want it: %v", bindingName, err, want)
		})
	}
	expectCRB(true)
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionTrue, scopesv1alpha1.ReasonAllBound, "cluster-wide")
	if !canListConfigMaps(t, saNS, elsewhere) {
		t.Error("a cluster-wide instance does not let the subject list ConfigMaps everywhere")
	}

	got, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(context.Background(), instance.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Spec.Namespaces = []string{saNS}
	if _, err := env.operator.ScopesV1alpha1().ScopeInstances().Update(context.Background(), got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectCRB(false)
	expectRoleBindings(t, instance.Name, []string{saNS, elsewhere}, saNS)
	if canListConfigMaps(t, saNS, elsewhere) {
		t.Error("after the switch to namespaces the subject still lists ConfigMaps elsewhere")
	}

	if err := env.operator.ScopesV1alpha1().ScopeTemplates().Delete(context.Background(), template.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionInvalid, metav1.ConditionTrue, scopesv1alpha1.ReasonScopeTemplateNotFound, template.Name)
	expectRoleBindings(t, instance.Name, []string{saNS, elsewhere})
}

// A ClusterRole of the generated name that someone else made is reported,
// never changed, and never bound.
func TestScopeTemplateConflictLeavesForeignRoleAlone(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	saNS := testNamespace(t, "scope-sa-")
	name := "e2e-" + rand.String(6)
	roleName := scopes.ClusterRoleName(name, "configmap-reader-")
	foreign := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: roleName},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}}
	foreign, err := env.kube.RbacV1().ClusterRoles().Create(context.Background(), foreign, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), roleName, metav1.DeleteOptions{})
	})

	template, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(context.Background(), &scopesv1alpha1.ScopeTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{
			GenerateName: "configmap-reader-",
			Rules:        []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}},
			Subjects:     []scopesv1alpha1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: scopeSA, Namespace: saNS}},
		}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.operator.ScopesV1alpha1().ScopeTemplates().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	instance := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{Namespaces: []string{saNS}})

	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		got, err := env.operator.ScopesV1alpha1().ScopeTemplates().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, scopesv1alpha1.ConditionConflict)
		if c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, roleName) {
			return fmt.Errorf("Conflict is %+v", c)
		}
		return nil
	})
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonClusterRolesNotReady, roleName)
	framework.Consistently(t, 3*time.Second, func(ctx context.Context) error {
		got, err := env.kube.RbacV1().ClusterRoles().Get(ctx, roleName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got.ResourceVersion != foreign.ResourceVersion {
			return fmt.Errorf("the foreign ClusterRole was written: %+v", got)
		}
		bindings, err := env.kube.RbacV1().RoleBindings(saNS).List(ctx, metav1.ListOptions{LabelSelector: scopesv1alpha1.ScopeInstanceLabel})
		if err != nil || len(bindings.Items) > 0 {
			return fmt.Errorf("bindings to a foreign role: %d, %v", len(bindings.Items), err)
		}
		return nil
	})
}

// The operator's ServiceAccount holds bind and escalate on ClusterRoles;
// the operator-writes policy is what keeps it from binding cluster-admin,
// creating an aggregating role, or deleting RBAC it did not generate.
func TestScopeWritesPolicyRefusesTheOperator(t *testing.T) {
	ns := testNamespace(t, "scope-policy-")
	operator := asServiceAccount(t, operatorNS, framework.OperatorName)
	operatorWritesPolicyInEffect(t, operator, ns)
	owner := func(kind, name string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: scopesv1alpha1.SchemeGroupVersion.String(), Kind: kind, Name: name, UID: "00000000-0000-0000-0000-000000000000", Controller: ptr.To(true)}}
	}
	refused := func(what string, err error, want string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: admitted", what)
			return
		}
		if !apierrors.IsForbidden(err) && !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a refusal saying %q", what, err, want)
		}
	}
	_, err := operator.RbacV1().RoleBindings(ns).Create(context.Background(), &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-admin-0123456789", Labels: map[string]string{scopesv1alpha1.ScopeInstanceLabel: "x"}, OwnerReferences: owner("ScopeInstance", "x")},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: ns}},
	}, metav1.CreateOptions{})
	refused("a RoleBinding to cluster-admin", err, "never cluster-admin")
	_, err = operator.RbacV1().ClusterRoleBindings().Create(context.Background(), &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-cluster-admin-0123456789", Labels: map[string]string{scopesv1alpha1.ScopeInstanceLabel: "x"}, OwnerReferences: owner("ScopeInstance", "x")},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: ns}},
	}, metav1.CreateOptions{})
	refused("a ClusterRoleBinding to cluster-admin", err, "never cluster-admin")
	_, err = operator.RbacV1().ClusterRoles().Create(context.Background(), &rbacv1.ClusterRole{
		ObjectMeta:      metav1.ObjectMeta{Name: "e2e-aggregating-0123456789", Labels: map[string]string{scopesv1alpha1.ScopeTemplateLabel: "x"}, OwnerReferences: owner("ScopeTemplate", "x")},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true"}}}},
	}, metav1.CreateOptions{})
	refused("an aggregating scope ClusterRole", err, "without aggregationRule")

	grantEdit(t, ns, "not-generated", rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: ns})
	err = operator.RbacV1().RoleBindings(ns).Delete(context.Background(), "not-generated", metav1.DeleteOptions{})
	refused("deleting a RoleBinding it did not generate", err, "deletes only")
	// The same shapes from an admin are none of this policy's business.
	if err := env.kube.RbacV1().RoleBindings(ns).Delete(context.Background(), "not-generated", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// The operator-writes policy's match condition decides the operator's
// create of a well-formed ScopeInstance binding by itself: the API server
// then converts the binding once, not again for the validations, messages
// and audit annotations (its CPU for an instance over 5,000 namespaces,
// docs/performance.md). It repeats the validations' shape by hand, so each
// binding that differs from a generated one in one way must still reach the
// validations and be refused, naming the rule it breaks.
func TestScopeBindingCreatesAreDecidedByTheMatchCondition(t *testing.T) {
	ns := testNamespace(t, "scope-match-")
	operator := asServiceAccount(t, operatorNS, framework.OperatorName)
	operatorWritesPolicyInEffect(t, operator, ns)
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	const instance, role = "e2e-instance", "reader-0123456789"
	generated := func() *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: role + "-abcdef0123", Labels: map[string]string{scopesv1alpha1.ScopeInstanceLabel: instance},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: scopesv1alpha1.SchemeGroupVersion.String(), Kind: "ScopeInstance", Name: instance,
					UID: "00000000-0000-0000-0000-000000000000", Controller: ptr.To(true)}}},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: ns}},
		}
	}

	const creates = 20
	before := matchConditionExclusions(t, "workload-access-operator-writes", "CREATE")
	for i := 0; i < creates; i++ {
		if _, err := operator.RbacV1().RoleBindings(ns).Create(context.Background(), generated(), dryRun); err != nil {
			t.Fatalf("the operator's generated RoleBinding: %v", err)
		}
		b := generated()
		b.Name = "e2e-" + b.Name
		b.RoleRef.Name = "e2e-" + role
		if _, err := operator.RbacV1().ClusterRoleBindings().Create(context.Background(), &rbacv1.ClusterRoleBinding{ObjectMeta: b.ObjectMeta, RoleRef: b.RoleRef, Subjects: b.Subjects}, dryRun); err != nil {
			t.Fatalf("the operator's generated ClusterRoleBinding: %v", err)
		}
	}
	if got := matchConditionExclusions(t, "workload-access-operator-writes", "CREATE") - before; got < 2*creates {
		t.Errorf("the policy's match condition excluded %v creates of the %d the operator made, want all: the validations were evaluated for generated bindings", got, 2*creates)
	}

	// A namespaced Role of a generated ClusterRole's name, granting only what
	// the operator holds, so that RBAC's escalation check lets the binding
	// reach admission.
	if _, err := env.kube.RbacV1().Roles(ns).Create(context.Background(), &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: role},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const generates, binds = "writes only objects it generates", "binds for a ScopeInstance only ClusterRoles a ScopeTemplate generates"
	for _, c := range []struct {
		what   string
		change func(*rbacv1.RoleBinding)
		want   string
	}{
		{"labelled for a ScopeTemplate too", func(b *rbacv1.RoleBinding) { b.Labels[scopesv1alpha1.ScopeTemplateLabel] = "x" }, generates},
		{"labelled for an APIAccessPolicy too", func(b *rbacv1.RoleBinding) { b.Labels["apiaccess.openshift.io/policy"] = instance }, generates},
		{"labelled for a ClusterBundle too", func(b *rbacv1.RoleBinding) { b.Labels["subscription.openshift.io/cluster-bundle"] = instance }, generates},
		{"controlled by another instance", func(b *rbacv1.RoleBinding) { b.OwnerReferences[0].Name = "other" }, generates},
		{"controlled by a ScopeInstance of another group", func(b *rbacv1.RoleBinding) { b.OwnerReferences[0].APIVersion = "evil.example/v1" }, generates},
		{"controlled by a ScopeTemplate", func(b *rbacv1.RoleBinding) { b.OwnerReferences[0].Kind = "ScopeTemplate" }, generates},
		{"owned but not controlled", func(b *rbacv1.RoleBinding) { b.OwnerReferences[0].Controller = nil }, generates},
		{"controlled by another instance, owned by its own", func(b *rbacv1.RoleBinding) {
			other := b.OwnerReferences[0]
			other.Name, other.UID = "other", "00000000-0000-0000-0000-000000000001"
			b.OwnerReferences[0].Controller = nil
			b.OwnerReferences = append(b.OwnerReferences, other)
		}, generates},
		{"binding view", func(b *rbacv1.RoleBinding) { b.RoleRef.Name, b.Name = "view", "view-abcdef0123" }, binds},
		{"binding a system: role", func(b *rbacv1.RoleBinding) {
			b.RoleRef.Name, b.Name = "system:0123456789", "system:0123456789-abcdef0123"
		}, binds},
		{"binding a namespaced Role", func(b *rbacv1.RoleBinding) { b.RoleRef.Kind = "Role" }, binds},
		{"binding a role not named by a template", func(b *rbacv1.RoleBinding) { b.RoleRef.Name, b.Name = "reader", "reader-abcdef0123" }, binds},
		{"binding a role named with nine hex digits", func(b *rbacv1.RoleBinding) {
			b.RoleRef.Name, b.Name = "reader-012345678", "reader-012345678-abcdef0123"
		}, binds},
		{"binding a role named with an upper-case hex digit", func(b *rbacv1.RoleBinding) {
			b.RoleRef.Name, b.Name = "reader-012345678A", "reader-012345678A-abcdef0123"
		}, binds},
		{"named for another role", func(b *rbacv1.RoleBinding) { b.Name = "writer-0123456789-abcdef0123" }, binds},
		{"named without the hex suffix", func(b *rbacv1.RoleBinding) { b.Name = role + "-abcdefghij" }, binds},
		{"named with more before the suffix", func(b *rbacv1.RoleBinding) { b.Name = role + "-x-abcdef0123" }, binds},
	} {
		b := generated()
		c.change(b)
		_, err := operator.RbacV1().RoleBindings(ns).Create(context.Background(), b, dryRun)
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "workload-access-operator-writes") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("a RoleBinding %s: %v, want refused by workload-access-operator-writes saying %q", c.what, err, c.want)
		}
	}
}

// operatorWritesPolicyInEffect waits until the API server enforces the
// operator-writes policy: it takes a policy up a moment after the payload
// creates it, and a test run alone just after the suite's set-up saw the
// operator's RoleBinding to cluster-admin admitted.
func operatorWritesPolicyInEffect(t *testing.T, operator kubernetes.Interface, ns string) {
	t.Helper()
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		_, err := operator.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster-admin-0123456789", Labels: map[string]string{scopesv1alpha1.ScopeInstanceLabel: "x"}},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: ns}},
		}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "workload-access-operator-writes") {
			return fmt.Errorf("the operator's RoleBinding to cluster-admin: %v, want refused by workload-access-operator-writes", err)
		}
		return nil
	})
}

// matchConditionExclusions reads from the API server's metrics how many
// requests of operation the match conditions of the admission policy named
// policy have excluded (a request they admit to the validations is not
// counted).
func matchConditionExclusions(t *testing.T, policy, operation string) float64 {
	t.Helper()
	body, err := env.kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, line := range strings.Split(string(body), "\n") {
		rest, found := strings.CutPrefix(line, "apiserver_admission_match_condition_evaluation_seconds_count{")
		labels, value, ok := strings.Cut(rest, "} ")
		if !found || !ok || !strings.Contains(labels, `name="`+policy+`"`) || !strings.Contains(labels, `kind="policy"`) || !strings.Contains(labels, `operation="`+operation+`"`) {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		n += v
	}
	return n
}

// canListSecrets asks whether the scoped ServiceAccount may list Secrets in ns.
func canListSecrets(t *testing.T, saNamespace, ns string) bool {
	t.Helper()
	review, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:" + saNamespace + ":" + scopeSA,
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + saNamespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Resource: "secrets"},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return review.Status.Allowed
}

// The access-grants check judged the template and the namespace as they
// were when the instance was written. Someone deletes the template and
// re-creates it with wider rules: the instance does not bind it (it would
// grant what its author was never asked for). A listed namespace deleted
// and re-created (for another team) is not bound in either. Written again,
// the instance binds both as they are now.
func TestScopeInstanceDoesNotFollowAReplacedTemplateOrNamespace(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	ctx := context.Background()
	saNS := testNamespace(t, "scope-pin-sa-")
	template := scopeTemplate(t, saNS)
	target := "scope-pin-" + rand.String(5)
	createTarget := func() {
		t.Helper()
		framework.Eventually(t, time.Minute, func(ctx context.Context) error {
			_, err := env.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: target}}, metav1.CreateOptions{})
			return err // AlreadyExists while the earlier one terminates
		})
	}
	createTarget()
	t.Cleanup(func() {
		_ = env.kube.CoreV1().Namespaces().Delete(context.Background(), target, metav1.DeleteOptions{})
	})
	instance := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{Namespaces: []string{target}})
	expectRoleBindings(t, instance.Name, []string{target}, target)
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		if !canListConfigMaps(t, saNS, target) {
			return fmt.Errorf("not bound yet")
		}
		return nil
	})

	// The template deleted and re-created, wider.
	if err := env.operator.ScopesV1alpha1().ScopeTemplates().Delete(ctx, template.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := env.operator.ScopesV1alpha1().ScopeTemplates().Get(ctx, template.Name, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("template still there: %v", err)
		}
		return nil
	})
	wider := template.DeepCopy()
	wider.ObjectMeta = metav1.ObjectMeta{Name: template.Name}
	wider.Status = scopesv1alpha1.ScopeTemplateStatus{}
	wider.Spec.ClusterRoles[0].Rules[0].Resources = []string{"configmaps", "secrets"}
	replacement, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, wider, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionInvalid, metav1.ConditionTrue, scopesv1alpha1.ReasonScopeTemplateReplaced, "written again")
	framework.Consistently(t, 5*time.Second, func(ctx context.Context) error {
		if canListSecrets(t, saNS, target) {
			return fmt.Errorf("the replaced template's wider rules are granted")
		}
		list, err := env.kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: scopesv1alpha1.ScopeTemplateLabel + "=" + template.Name})
		if err != nil || len(list.Items) > 0 {
			return fmt.Errorf("roles of the re-created template: %d, %v", len(list.Items), err)
		}
		return nil
	})
	expectRoleBindings(t, instance.Name, []string{target})

	// Written again (deleted and re-created, as the condition says): the
	// check judges the new template, and it is bound.
	if err := env.operator.ScopesV1alpha1().ScopeInstances().Delete(ctx, instance.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	again := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{Namespaces: []string{target}})
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		if !canListSecrets(t, saNS, target) {
			return fmt.Errorf("the new template is not bound yet")
		}
		return nil
	})
	got, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, again.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Checked == nil || got.Status.Checked.ScopeTemplateUID != replacement.UID {
		t.Errorf("status.checked %+v, want the new template's UID %s", got.Status.Checked, replacement.UID)
	}

	// The namespace deleted and re-created: not bound in.
	if err := env.kube.CoreV1().Namespaces().Delete(ctx, target, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectInstanceCondition(t, again.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonNamespacesNotFound, target)
	createTarget()
	expectInstanceCondition(t, again.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonNamespacesReplaced, "written again")
	framework.Consistently(t, 5*time.Second, func(context.Context) error {
		if canListSecrets(t, saNS, target) || canListConfigMaps(t, saNS, target) {
			return fmt.Errorf("bound in the re-created namespace")
		}
		return nil
	})
	expectRoleBindings(t, again.Name, []string{target})
}

// The enhancement's own example names its role fooClusterRole-: a
// ScopeTemplate takes any prefix a ClusterRole's name allows, upper case
// included, and refuses what it does not ("/") and Kubernetes' own
// "system:"; the operator-writes policy lets the operator write and bind
// the role.
func TestScopeTemplateGenerateNameAsKubernetesAllows(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	ctx := context.Background()
	rules := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}}
	// The enhancement names it fooServiceAccount, which no ServiceAccount can be called.
	subjects := []scopesv1alpha1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "foo-service-account", Namespace: "foo"}}
	template, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, &scopesv1alpha1.ScopeTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-" + rand.String(6)},
		Spec:       scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{GenerateName: "fooClusterRole-", Rules: rules, Subjects: subjects}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("the enhancement's example is refused: %v", err)
	}
	t.Cleanup(func() {
		_ = env.operator.ScopesV1alpha1().ScopeTemplates().Delete(context.Background(), template.Name, metav1.DeleteOptions{})
	})
	// Roles are made while an instance names the template.
	ns := testNamespace(t, "foo-")
	instance := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{Namespaces: []string{ns}})
	roles := expectClusterRoles(t, template.Name, 1)
	expectRoleBindings(t, instance.Name, []string{ns}, ns)
	if want := scopes.ClusterRoleName(template.Name, "fooClusterRole-"); roles[0].Name != want || !strings.HasPrefix(want, "fooClusterRole-") {
		t.Errorf("ClusterRole %q, want %q", roles[0].Name, want)
	}
	for _, prefix := range []string{"a/b-", "system:foo-"} {
		_, err = env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, &scopesv1alpha1.ScopeTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-" + rand.String(6)},
			Spec:       scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{GenerateName: prefix, Rules: rules, Subjects: subjects}}},
		}, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "generateName") {
			t.Errorf("generateName %q: %v, want Invalid naming generateName", prefix, err)
		}
	}
}

func expectTemplateCondition(t *testing.T, template, conditionType string, status metav1.ConditionStatus, reason string, messageParts ...string) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		got, err := env.operator.ScopesV1alpha1().ScopeTemplates().Get(ctx, template, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, conditionType)
		if c == nil || c.Status != status || c.Reason != reason || c.ObservedGeneration != got.Generation {
			return fmt.Errorf("%s is %+v, want %s/%s of generation %d", conditionType, c, status, reason, got.Generation)
		}
		for _, part := range messageParts {
			if !strings.Contains(c.Message, part) {
				return fmt.Errorf("%s message %q does not contain %q", conditionType, c.Message, part)
			}
		}
		return nil
	})
}

// A rule the CRD accepts and the API server refuses in a ClusterRole (a
// resource rule without apiGroups): the template's RolesReady says
// WriteFailed with the API server's error, and the instance's Bound
// condition quotes it; fixed, the role is written and bound.
func TestScopeTemplateReportsARefusedRole(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	ctx := context.Background()
	ns := testNamespace(t, "scope-refused-")
	template := scopeTemplate(t, ns)
	expectTemplateCondition(t, template.Name, scopesv1alpha1.ConditionRolesReady, metav1.ConditionFalse, scopesv1alpha1.ReasonNoInstances)
	broken, err := env.operator.ScopesV1alpha1().ScopeTemplates().Get(ctx, template.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	broken.Spec.ClusterRoles[0].Rules[0].APIGroups = nil
	if _, err := env.operator.ScopesV1alpha1().ScopeTemplates().Update(ctx, broken, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	instance := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{Namespaces: []string{ns}})
	roleName := scopes.ClusterRoleName(template.Name, "configmap-reader-")
	expectTemplateCondition(t, template.Name, scopesv1alpha1.ConditionRolesReady, metav1.ConditionFalse, scopesv1alpha1.ReasonWriteFailed,
		roleName, "apiGroups: Required value")
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonClusterRolesNotReady,
		"RolesReady condition says WriteFailed")
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonClusterRolesNotReady,
		"apiGroups: Required value")

	fixed, err := env.operator.ScopesV1alpha1().ScopeTemplates().Get(ctx, template.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fixed.Spec.ClusterRoles[0].Rules[0].APIGroups = []string{""}
	if _, err := env.operator.ScopesV1alpha1().ScopeTemplates().Update(ctx, fixed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectTemplateCondition(t, template.Name, scopesv1alpha1.ConditionRolesReady, metav1.ConditionTrue, scopesv1alpha1.ReasonRolesWritten, roleName)
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionTrue, scopesv1alpha1.ReasonAllBound, "bound in 1 namespaces")
}

// A binding the API server refuses (a ServiceAccount subject without a
// namespace in a ClusterRoleBinding, where "the ServiceAccount of that
// name in each bound namespace" means nothing): Bound says BindingFailed
// with the API server's error; bound in a namespace instead, it binds.
func TestScopeInstanceReportsARefusedBinding(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	ctx := context.Background()
	ns := testNamespace(t, "scope-binding-")
	template, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, &scopesv1alpha1.ScopeTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-" + rand.String(6)},
		Spec: scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{
			GenerateName: "configmap-reader-",
			Rules:        []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}},
			Subjects:     []scopesv1alpha1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: scopeSA}},
		}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.operator.ScopesV1alpha1().ScopeTemplates().Delete(context.Background(), template.Name, metav1.DeleteOptions{})
	})
	instance := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{})
	bindingName := scopes.BindingName(scopes.ClusterRoleName(template.Name, "configmap-reader-"), instance.Name)
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonBindingFailed, bindingName)
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonBindingFailed, "subjects[0].namespace: Required value")
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		c, err := operatorCondition(ctx, "ScopeInstanceDegraded")
		if err != nil {
			return err
		}
		if c == nil || !strings.Contains(c.Message, instance.Name) {
			return fmt.Errorf("ScopeInstanceDegraded %+v does not name %s", c, instance.Name)
		}
		return nil
	})

	got, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, instance.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Spec.Namespaces = []string{ns}
	if _, err := env.operator.ScopesV1alpha1().ScopeInstances().Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionTrue, scopesv1alpha1.ReasonAllBound, "bound in 1 namespaces")
	if !canListConfigMaps(t, ns, ns) {
		t.Error("the ServiceAccount of the bound namespace cannot list ConfigMaps there")
	}
}

// An edit of the template's spec reaches its instances: changed rules
// change the ClusterRole, whose bindings stay as they are (same role, same
// binding); an added entry is bound where the instance binds, and a
// removed one is unbound.
func TestScopeTemplateEditReachesItsInstances(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	ctx := context.Background()
	saNS := testNamespace(t, "scope-edit-sa-")
	target := testNamespace(t, "scope-edit-")
	template := scopeTemplate(t, saNS)
	instance := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{Namespaces: []string{target}})
	expectRoleBindings(t, instance.Name, []string{target}, target)
	roleName := scopes.ClusterRoleName(template.Name, "configmap-reader-")
	bindingName := scopes.BindingName(roleName, instance.Name)
	before, err := env.kube.RbacV1().RoleBindings(target).Get(ctx, bindingName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if canListSecrets(t, saNS, target) {
		t.Fatal("the subject lists Secrets before the edit")
	}

	edit := func(change func(*scopesv1alpha1.ScopeTemplate)) {
		t.Helper()
		got, err := env.operator.ScopesV1alpha1().ScopeTemplates().Get(ctx, template.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		change(got)
		if _, err := env.operator.ScopesV1alpha1().ScopeTemplates().Update(ctx, got, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	edit(func(tm *scopesv1alpha1.ScopeTemplate) {
		tm.Spec.ClusterRoles[0].Rules[0].Resources = []string{"configmaps", "secrets"}
	})
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		role, err := env.kube.RbacV1().ClusterRoles().Get(ctx, roleName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got := strings.Join(role.Rules[0].Resources, ","); got != "configmaps,secrets" {
			return fmt.Errorf("ClusterRole resources %s", got)
		}
		return nil
	})
	if !canListSecrets(t, saNS, target) {
		t.Error("the edited rules are not granted where the instance binds")
	}
	after, err := env.kube.RbacV1().RoleBindings(target).Get(ctx, bindingName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.UID != before.UID || after.RoleRef.Name != roleName {
		t.Errorf("the binding was replaced (UID %s, was %s) or points at %s", after.UID, before.UID, after.RoleRef.Name)
	}
	expectTemplateCondition(t, template.Name, scopesv1alpha1.ConditionRolesReady, metav1.ConditionTrue, scopesv1alpha1.ReasonRolesWritten, roleName)

	// An added entry is bound; removed, it is unbound and its role goes.
	subjects := template.Spec.ClusterRoles[0].Subjects
	edit(func(tm *scopesv1alpha1.ScopeTemplate) {
		tm.Spec.ClusterRoles = append(tm.Spec.ClusterRoles, scopesv1alpha1.ClusterRoleTemplate{GenerateName: "pod-reader-",
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}}}, Subjects: subjects})
	})
	podReader := scopes.BindingName(scopes.ClusterRoleName(template.Name, "pod-reader-"), instance.Name)
	expectBinding := func(want bool) {
		t.Helper()
		framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
			_, err := env.kube.RbacV1().RoleBindings(target).Get(ctx, podReader, metav1.GetOptions{})
			if apierrors.IsNotFound(err) == want || (err != nil && !apierrors.IsNotFound(err)) {
				return fmt.Errorf("RoleBinding %s/%s: %v, want it: %v", target, podReader, err, want)
			}
			return nil
		})
	}
	expectBinding(true)
	expectClusterRoles(t, template.Name, 2)
	edit(func(tm *scopesv1alpha1.ScopeTemplate) { tm.Spec.ClusterRoles = tm.Spec.ClusterRoles[:1] })
	expectBinding(false)
	expectClusterRoles(t, template.Name, 1)
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionTrue, scopesv1alpha1.ReasonAllBound, "bound in 1 namespaces")
}

// A ServiceAccount subject whose name no ServiceAccount can have (the
// enhancement's fooServiceAccount) is refused when the template is
// written, not by every binding later; a User or Group name is not a
// ServiceAccount's and keeps its upper case; a kind RBAC does not know is
// refused too.
func TestScopeTemplateRefusesAnInvalidServiceAccountName(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	ctx := context.Background()
	create := func(subject scopesv1alpha1.Subject) error {
		template, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, &scopesv1alpha1.ScopeTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-" + rand.String(6)},
			Spec: scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{GenerateName: "reader-",
				Rules:    []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}},
				Subjects: []scopesv1alpha1.Subject{{Kind: rbacv1.GroupKind, Name: "e2e-readers"}, subject}}}},
		}, metav1.CreateOptions{})
		if err == nil {
			t.Cleanup(func() {
				_ = env.operator.ScopesV1alpha1().ScopeTemplates().Delete(context.Background(), template.Name, metav1.DeleteOptions{})
			})
		}
		return err
	}
	for _, name := range []string{"fooServiceAccount", "foo_sa", "-foo", strings.Repeat("a", 254)} {
		err := create(scopesv1alpha1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: "foo"})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "valid ServiceAccount name") {
			t.Errorf("ServiceAccount %.20q: %v, want Invalid saying it is no valid ServiceAccount name", name, err)
		}
	}
	if err := create(scopesv1alpha1.Subject{Kind: "Robot", Name: "foo"}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "kind") {
		t.Errorf("kind Robot: %v, want Invalid naming kind", err)
	}
	for _, subject := range []scopesv1alpha1.Subject{
		{Kind: rbacv1.ServiceAccountKind, Name: "foo-service-account.v2", Namespace: "foo"},
		{Kind: rbacv1.ServiceAccountKind, Name: strings.Repeat("a", 253)},
		{Kind: rbacv1.UserKind, Name: "fooUser@Example.com"},
		{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:serviceaccounts:Foo"},
	} {
		if err := create(subject); err != nil {
			t.Errorf("%+v refused: %v", subject, err)
		}
	}
}
