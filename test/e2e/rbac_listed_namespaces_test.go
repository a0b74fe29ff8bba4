package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// kubeImpersonating is a clientset acting as user, with the group every
// authenticated user has.
func kubeImpersonating(t *testing.T, user string) kubernetes.Interface {
	t.Helper()
	client, err := kubernetes.NewForConfig(impersonating(user))
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// listsMissing is the admission refusal of a kind's object that lists a
// namespace that does not exist.
func listsMissing(kind, name, namespace string) string {
	return fmt.Sprintf(`%s %q lists namespace %q, which does not exist: a listed namespace is bound for whoever creates it, `+
		`so list only namespaces that exist; create it first (oc create namespace %s), then apply again`, kind, name, namespace, namespace)
}

// accessGrantsChecked waits until the access-grants webhook answers: until
// the operator has registered it, the ValidatingAdmissionPolicy refuses
// every ScopeInstance, whatever it lists.
func accessGrantsChecked(t *testing.T, template string) {
	t.Helper()
	probe := &scopesv1alpha1.ScopeInstance{ObjectMeta: metav1.ObjectMeta{Name: "e2e-probe-" + rand.String(5)},
		Spec: scopesv1alpha1.ScopeInstanceSpec{ScopeTemplateName: template}}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		_, err := env.operator.ScopesV1alpha1().ScopeInstances().Create(ctx, probe, dryRun)
		return err
	})
}

// namespaceSquatter is a user who may only create namespaces (as
// OpenShift's self-provisioner may create projects), made admin of each
// namespace they create, as OpenShift's project template makes a project's
// requester. It creates the namespace and a ServiceAccount in it.
func namespaceSquatter(t *testing.T, name string) func(namespace, serviceAccount string) {
	t.Helper()
	grantClusterRole(t, name, "e2e-namespace-creator-"+name,
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"create"}})
	client := kubeImpersonating(t, name)
	return func(namespace, serviceAccount string) {
		t.Helper()
		framework.Eventually(t, time.Minute, func(ctx context.Context) error {
			_, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
			return err // Forbidden until the grant is seen
		})
		t.Cleanup(func() {
			_ = env.kube.CoreV1().Namespaces().Delete(context.Background(), namespace, metav1.DeleteOptions{})
		})
		bindBuiltin(t, namespace, "admin", name)
		framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
			_, err := client.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: serviceAccount}}, metav1.CreateOptions{})
			return err
		})
	}
}

// terminatingNamespace is a namespace being deleted, held so by a
// ConfigMap's finalizer until the test ends.
func terminatingNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ctx := context.Background()
	ns := testNamespace(t, prefix)
	const finalizer = "e2e.workload-access.openshift.io/hold"
	if _, err := env.kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "hold", Finalizers: []string{finalizer}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cm, err := env.kube.CoreV1().ConfigMaps(ns).Get(context.Background(), "hold", metav1.GetOptions{})
			if err != nil {
				return nil
			}
			cm.Finalizers = nil
			_, err = env.kube.CoreV1().ConfigMaps(ns).Update(context.Background(), cm, metav1.UpdateOptions{})
			return err
		})
	})
	if err := env.kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		got, err := env.kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil || got.DeletionTimestamp == nil {
			return fmt.Errorf("namespace %s not being deleted: %v", ns, err)
		}
		return nil
	})
	return ns
}

// refusedWith is wantRefused that lets the test go on: to show what an
// object admitted by mistake would lead to.
func refusedWith(t *testing.T, what string, err error, message string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), message) {
		t.Errorf("%s: got %v, want a refusal containing %q", what, err, message)
	}
}

// noBindingsIn checks for a while that nothing the operator generates for
// ScopeInstances or APIAccessPolicies appears in namespace.
func noBindingsIn(t *testing.T, namespace string) {
	t.Helper()
	framework.Consistently(t, 10*time.Second, func(ctx context.Context) error {
		for _, label := range []string{scopesv1alpha1.ScopeInstanceLabel, apiaccessv1alpha1.PolicyLabel} {
			list, err := env.kube.RbacV1().RoleBindings(namespace).List(ctx, metav1.ListOptions{LabelSelector: label})
			if err != nil {
				return err
			}
			if len(list.Items) > 0 {
				return fmt.Errorf("RoleBinding %s/%s (%s) in the namespace someone else created", namespace, list.Items[0].Name, label)
			}
		}
		return nil
	})
}

// A ScopeInstance listing a namespace that does not exist is refused, as
// Kubernetes refuses a RoleBinding there: the namespace would be bound for
// whoever creates it. A user who may only create namespaces creates it,
// with a ServiceAccount of the template's subject name (a subject without
// a namespace means that ServiceAccount in each bound namespace), and gets
// nothing. The same for a namespace being deleted, and for a change of
// spec; a change of labels is not refused for a namespace deleted since.
// Created first, the namespace is bound.
func TestAListedNamespaceMustExist(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	suffix := rand.String(5)
	template := scopeTemplate(t, "") // the ServiceAccount scoped-operator in each bound namespace
	accessGrantsChecked(t, template.Name)
	existing := testNamespace(t, "listed-exists-")
	missing := "listed-later-" + suffix
	instance := &scopesv1alpha1.ScopeInstance{ObjectMeta: metav1.ObjectMeta{Name: "e2e-listed-" + suffix},
		Spec: scopesv1alpha1.ScopeInstanceSpec{ScopeTemplateName: template.Name, Namespaces: []string{existing, missing}}}

	t.Run("a missing namespace", func(t *testing.T) {
		_, err := env.operator.ScopesV1alpha1().ScopeInstances().Create(ctx, instance, metav1.CreateOptions{})
		if err == nil {
			t.Cleanup(func() {
				_ = env.operator.ScopesV1alpha1().ScopeInstances().Delete(context.Background(), instance.Name, metav1.DeleteOptions{})
			})
		}
		// Not fatal: what an admitted instance would do is the point.
		refusedWith(t, "a ScopeInstance listing a namespace that does not exist", err, listsMissing("ScopeInstance", instance.Name, missing))

		// Mallory may create namespaces and nothing else.
		squat := namespaceSquatter(t, "e2e-mallory-"+suffix)
		squat(missing, scopeSA)
		noBindingsIn(t, missing)
		if canListConfigMaps(t, missing, missing) {
			t.Error("the ServiceAccount in the namespace Mallory created got the template's rules")
		}
	})

	t.Run("a namespace being deleted", func(t *testing.T) {
		leaving := terminatingNamespace(t, "listed-leaving-")
		leaver := instance.DeepCopy()
		leaver.Name, leaver.Spec.Namespaces = "e2e-leaving-"+suffix, []string{leaving}
		_, err := env.operator.ScopesV1alpha1().ScopeInstances().Create(ctx, leaver, dryRun)
		wantRefused(t, "a ScopeInstance listing a namespace being deleted", err, fmt.Sprintf(
			`ScopeInstance %q lists namespace %q, which is being deleted: a listed namespace is bound for whoever creates it, so list only namespaces that exist; wait until it is gone, create it again (oc create namespace %s), then apply again`,
			leaver.Name, leaving, leaving))
	})

	t.Run("a change of spec, not of labels", func(t *testing.T) {
		own := testNamespace(t, "listed-own-")
		mine := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{Namespaces: []string{own}})
		expectRoleBindings(t, mine.Name, []string{own}, own)
		later := "listed-not-yet-" + suffix
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			current, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, mine.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			current.Spec.Namespaces = append(current.Spec.Namespaces, later)
			_, err = env.operator.ScopesV1alpha1().ScopeInstances().Update(ctx, current, metav1.UpdateOptions{})
			return err
		})
		wantRefused(t, "a ScopeInstance widened to a namespace that does not exist", err, fmt.Sprintf(`lists namespace %q, which does not exist`, later))

		// own is deleted: a label is still admitted, and the instance
		// reports the namespace gone.
		if err := env.kube.CoreV1().Namespaces().Delete(ctx, own, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		framework.Eventually(t, time.Minute, func(ctx context.Context) error {
			_, err := env.kube.CoreV1().Namespaces().Get(ctx, own, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("namespace %s still there: %v", own, err)
			}
			return nil
		})
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			current, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, mine.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			current.Labels = map[string]string{"team": "a"}
			_, err = env.operator.ScopesV1alpha1().ScopeInstances().Update(ctx, current, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("a label on an instance whose namespace was deleted since: %v", err)
		}
		expectInstanceCondition(t, mine.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonNamespacesNotFound, "written again")
	})

	t.Run("created first, it is bound", func(t *testing.T) {
		first := testNamespace(t, "listed-first-")
		created := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{Namespaces: []string{existing, first}})
		expectRoleBindings(t, created.Name, []string{existing, first}, existing, first)
	})
}

// The same for a Bind-mode APIAccessPolicy: a binding into a namespace that
// does not exist, to a ServiceAccount there, is refused; whoever creates
// the namespace and the ServiceAccount gets nothing.
func TestABindPolicyListingAMissingNamespaceIsRefused(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	suffix := rand.String(5)
	template := scopeTemplate(t, "")
	accessGrantsChecked(t, template.Name)
	crd := createWidgetCRD(t, "listedns"+strings.ToLower(suffix))
	missing := "policy-later-" + suffix
	policy := &apiaccessv1alpha1.APIAccessPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-listed-" + suffix},
		Spec: apiaccessv1alpha1.APIAccessPolicySpec{
			CRDs: apiaccessv1alpha1.CRDSelection{Names: []string{crd.Name}},
			Mode: apiaccessv1alpha1.ModeBind,
			Bindings: []apiaccessv1alpha1.AccessBinding{{
				Role: apiaccessv1alpha1.RoleEdit, Namespaces: []string{missing},
				Subjects: []apiaccessv1alpha1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "app", Namespace: missing}},
			}},
		},
	}
	_, err := env.operator.APIAccessV1alpha1().APIAccessPolicies().Create(ctx, policy, metav1.CreateOptions{})
	if err == nil {
		t.Cleanup(func() {
			_ = env.operator.APIAccessV1alpha1().APIAccessPolicies().Delete(context.Background(), policy.Name, metav1.DeleteOptions{})
		})
	}
	refusedWith(t, "a Bind policy listing a namespace that does not exist", err, listsMissing("APIAccessPolicy", policy.Name, missing))

	squat := namespaceSquatter(t, "e2e-mallory-"+suffix)
	squat(missing, "app")
	noBindingsIn(t, missing)
	review, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:" + missing + ":app",
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + missing, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: missing, Verb: "create", Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if review.Status.Allowed {
		t.Errorf("the ServiceAccount in the namespace Mallory created may create %s", crd.Name)
	}
}

// The Oria seed wrote namespaceSelector as a plain map. A client that only
// warns on unknown fields (kubectl apply --validate=warn, Helm, an
// unstructured client) sends it, and the API server drops the unknown keys,
// leaving {}: a selector of every namespace. The CRD refuses it, saying
// what a selector looks like; the same for an APIAccessPolicy's CRD
// selector, which would select every CRD.
func TestAPlainMapSelectorIsRefusedWhenItsKeysAreDropped(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	suffix := rand.String(5)
	template := scopeTemplate(t, "")
	accessGrantsChecked(t, template.Name)
	cases := []struct {
		name   string
		gvr    schema.GroupVersionResource
		object map[string]any
		says   string
	}{{
		name: "ScopeInstance",
		gvr:  scopesv1alpha1.SchemeGroupVersion.WithResource("scopeinstances"),
		object: map[string]any{
			"apiVersion": scopesv1alpha1.SchemeGroupVersion.String(), "kind": "ScopeInstance",
			"metadata": map[string]any{"name": "e2e-seed-" + suffix},
			"spec":     map[string]any{"scopeTemplateName": template.Name, "namespaceSelector": map[string]any{"fooKey": "barValue"}},
		},
		says: "namespaceSelector must select something, in label selector form: matchLabels: {team: a} or matchExpressions: [{key: team, operator: In, values: [a]}]",
	}, {
		name: "APIAccessPolicy",
		gvr:  apiaccessv1alpha1.SchemeGroupVersion.WithResource("apiaccesspolicies"),
		object: map[string]any{
			"apiVersion": apiaccessv1alpha1.SchemeGroupVersion.String(), "kind": "APIAccessPolicy",
			"metadata": map[string]any{"name": "e2e-seed-" + suffix},
			"spec":     map[string]any{"mode": "Aggregate", "crds": map[string]any{"selector": map[string]any{"team": "a"}}},
		},
		says: "selector must select something, in label selector form: matchLabels: {team: a}",
	}}
	for _, tc := range cases {
		for _, validation := range []string{metav1.FieldValidationWarn, metav1.FieldValidationIgnore} {
			t.Run(tc.name+" "+validation, func(t *testing.T) {
				client := dynamicAs(t, "").Resource(tc.gvr)
				_, err := client.Create(ctx, &unstructured.Unstructured{Object: tc.object}, metav1.CreateOptions{FieldValidation: validation})
				if err == nil {
					t.Cleanup(func() {
						_ = client.Delete(context.Background(), tc.object["metadata"].(map[string]any)["name"].(string), metav1.DeleteOptions{})
					})
				}
				wantRefused(t, "a selector whose keys were dropped", err, tc.says, "which would select every")
				if !apierrors.IsInvalid(err) {
					t.Errorf("refused as %v, want Invalid (the CRD's validation)", apierrors.ReasonForError(err))
				}
			})
		}
	}
}

// The check sees every listed namespace exist, but the controllers pin
// them later, at their first sync: here the operator is Unmanaged (as it
// could be down) while a listed namespace is deleted and created again by
// a user who may only create namespaces, with the ServiceAccounts the
// ScopeInstance and the Bind policy name. Managed again, neither binds in
// it: it was created after their specs were written, so it is not the one
// the check judged.
func TestANamespaceReplacedBeforeTheFirstSyncIsNotBound(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	suffix := rand.String(5)
	template := scopeTemplate(t, "")
	accessGrantsChecked(t, template.Name)
	crd := createWidgetCRD(t, "firstsync"+strings.ToLower(suffix))
	target := "first-sync-" + suffix
	if _, err := env.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: target}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.CoreV1().Namespaces().Delete(context.Background(), target, metav1.DeleteOptions{})
	})

	setManagementState(t, operatorv1.Unmanaged)
	t.Cleanup(func() { setManagementState(t, operatorv1.Managed) })
	instance := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{Namespaces: []string{target}})
	policy := createPolicy(t, "e2e-first-sync-"+suffix, apiaccessv1alpha1.APIAccessPolicySpec{
		CRDs: apiaccessv1alpha1.CRDSelection{Names: []string{crd.Name}},
		Mode: apiaccessv1alpha1.ModeBind,
		Bindings: []apiaccessv1alpha1.AccessBinding{{Role: apiaccessv1alpha1.RoleEdit, Namespaces: []string{target},
			Subjects: []apiaccessv1alpha1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "app", Namespace: target}}}},
	})
	written := time.Now()

	if err := env.kube.CoreV1().Namespaces().Delete(ctx, target, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		_, err := env.kube.CoreV1().Namespaces().Get(ctx, target, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("namespace %s still there: %v", target, err)
		}
		return nil
	})
	// Past the 2 s the controllers allow for clocks and one-second stamps.
	time.Sleep(time.Until(written.Add(4 * time.Second)))
	squat := namespaceSquatter(t, "e2e-mallory-"+suffix)
	squat(target, scopeSA)
	if _, err := env.kube.CoreV1().ServiceAccounts(target).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "app"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, instance.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.ObservedGeneration != 0 {
		t.Fatalf("the operator synced the instance while Unmanaged: %+v", got.Status)
	}

	setManagementState(t, operatorv1.Managed)
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonNamespacesReplaced, target)
	waitPolicy(t, policy.Name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		return conditionIs(p, apiaccessv1alpha1.ConditionRBACManaged, metav1.ConditionFalse, apiaccessv1alpha1.ReasonNamespacesReplaced)
	})
	noBindingsIn(t, target)
	if canListConfigMaps(t, target, target) {
		t.Error("the ServiceAccount in the re-created namespace got the template's rules")
	}
}
