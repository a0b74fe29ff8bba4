package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// userMay asks the API server whether user may verb resource in namespace
// ("" cluster-wide).
func userMay(t *testing.T, user, verb, resource, namespace string) bool {
	t.Helper()
	review, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user, Groups: []string{"system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: namespace, Verb: verb, Resource: resource},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return review.Status.Allowed
}

// A template's subjects are bound at once by the instances that name it: a
// user who holds view everywhere and may patch ScopeTemplates, but may
// create no binding, cannot re-point a cluster-wide template's subjects to
// someone else (issue 46 §2: before, the check asked only for the rules,
// which view covers, and the other user could then list pods everywhere).
func TestATemplatesNewSubjectsAreJudgedAsTheBindingsTheyCause(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	suffix := rand.String(5)
	editor, bound, mallory := "e2e-template-editor-"+suffix, "e2e-bound-"+suffix, "e2e-mallory-"+suffix
	bindClusterRole(t, editor, "view", metav1.ObjectMeta{GenerateName: "e2e-view-"})
	grantClusterRole(t, editor, "e2e-template-patcher-"+suffix,
		rbacv1.PolicyRule{APIGroups: []string{scopesv1alpha1.GroupName}, Resources: []string{"scopetemplates"}, Verbs: []string{"get", "patch", "update"}})

	template, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, &scopesv1alpha1.ScopeTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-pod-lister-" + suffix},
		Spec: scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{
			GenerateName: "pod-lister-",
			Rules:        []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}}},
			Subjects:     []scopesv1alpha1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: bound}},
		}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.operator.ScopesV1alpha1().ScopeTemplates().Delete(context.Background(), template.Name, metav1.DeleteOptions{})
	})
	instance := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{})
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionTrue, scopesv1alpha1.ReasonAllBound, "cluster-wide")
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		if !userMay(t, bound, "list", "pods", "") {
			return fmt.Errorf("%s may not list pods cluster-wide yet", bound)
		}
		return nil
	})

	patch := []byte(fmt.Sprintf(`[{"op":"replace","path":"/spec/clusterRoles/0/subjects","value":[{"apiGroup":%q,"kind":"User","name":%q}]}]`, rbacv1.GroupName, mallory))
	_, err = asUser(t, editor).ScopesV1alpha1().ScopeTemplates().Patch(ctx, template.Name, types.JSONPatchType, patch, metav1.PatchOptions{})
	wantRefused(t, "re-pointing the template's subjects", err,
		fmt.Sprintf(`verb "create" on "clusterrolebindings" (group "rbac.authorization.k8s.io") cluster-wide (to create the bindings), which user %q does not hold`, editor))
	framework.Consistently(t, 5*time.Second, func(context.Context) error {
		if userMay(t, mallory, "list", "pods", "") {
			return fmt.Errorf("%s may list pods cluster-wide", mallory)
		}
		return nil
	})

	// The same patch of the rules alone binds no one new: judged as the
	// ClusterRoles, which view covers.
	rules := []byte(`[{"op":"replace","path":"/spec/clusterRoles/0/rules/0/verbs","value":["list","get"]}]`)
	if _, err := asUser(t, editor).ScopesV1alpha1().ScopeTemplates().Patch(ctx, template.Name, types.JSONPatchType, rules, metav1.PatchOptions{}); err != nil {
		t.Errorf("a change of rules the editor holds: %v", err)
	}
}

// A listed namespace is the one the check judged, whatever else the
// instance says: beside a selector too, a namespace of its name deleted and
// made again by a user who may only create namespaces, with a
// ServiceAccount of the subject's name, is not bound (issue 46 §1: before,
// the selector turned the pin off and the re-created namespace was bound).
func TestAListedNamespaceBesideASelectorIsPinned(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	suffix := rand.String(5)
	template, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, &scopesv1alpha1.ScopeTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-secret-reader-" + suffix},
		Spec: scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{
			GenerateName: "secret-reader-",
			Rules:        []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list"}}},
			// The ServiceAccount of that name in each namespace bound in.
			Subjects: []scopesv1alpha1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "deployer"}},
		}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.operator.ScopesV1alpha1().ScopeTemplates().Delete(context.Background(), template.Name, metav1.DeleteOptions{})
	})
	listed := "e2e-team-dev-" + suffix
	if _, err := env.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: listed}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.CoreV1().Namespaces().Delete(context.Background(), listed, metav1.DeleteOptions{})
	})
	instance := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{Namespaces: []string{listed},
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"e2e-team": suffix}}})
	expectRoleBindings(t, instance.Name, []string{listed}, listed)

	if err := env.kube.CoreV1().Namespaces().Delete(ctx, listed, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonNamespacesNotFound, listed)
	namespaceSquatter(t, "e2e-squatter-"+suffix)(listed, "deployer")
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonNamespacesReplaced, listed)
	noBindingsIn(t, listed)
}

// Managed fields are the client's to write: a spec written with an entry
// stamped 2099, while the operator is Unmanaged (as it could be down), and a
// listed namespace deleted before the operator's first sync and made again
// after it by a user who may only create namespaces. The namespace is not
// pinned: when the spec was written is bounded by the first sync (issue 46
// §5: before, 2099 made every namespace created later count as judged).
func TestAForgedWriteTimeDoesNotPinANamespaceMadeLater(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	suffix := rand.String(5)
	template := scopeTemplate(t, "")
	accessGrantsChecked(t, template.Name)
	target := "e2e-forged-" + suffix
	if _, err := env.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: target}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.CoreV1().Namespaces().Delete(context.Background(), target, metav1.DeleteOptions{})
	})

	setManagementState(t, operatorv1.Unmanaged)
	t.Cleanup(func() { setManagementState(t, operatorv1.Managed) })
	instance := scopeInstance(t, template.Name, scopesv1alpha1.ScopeInstanceSpec{Namespaces: []string{target}})
	forged := metav1.NewTime(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC))
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		got, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, instance.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		got.Labels = map[string]string{"e2e-forged": "yes"}
		got.ManagedFields = append(got.ManagedFields, metav1.ManagedFieldsEntry{Manager: "e2e-forger", Operation: metav1.ManagedFieldsOperationUpdate,
			APIVersion: scopesv1alpha1.SchemeGroupVersion.String(), Time: &forged, FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:e2e-forged":{}}}}`)}})
		updated, err := env.operator.ScopesV1alpha1().ScopeInstances().Update(ctx, got, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		for _, f := range updated.ManagedFields {
			if f.Manager == "e2e-forger" && f.Time != nil && f.Time.Equal(&forged) {
				return nil
			}
		}
		return fmt.Errorf("the API server did not keep the forged entry: %+v", updated.ManagedFields)
	})

	if err := env.kube.CoreV1().Namespaces().Delete(ctx, target, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		if live, err := env.kube.CoreV1().Namespaces().Get(ctx, target, metav1.GetOptions{}); err == nil {
			return fmt.Errorf("namespace %s still there (deleting: %v)", target, live.DeletionTimestamp != nil)
		}
		return nil
	})
	setManagementState(t, operatorv1.Managed)
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonNamespacesNotFound, target)
	got, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, instance.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Status.Checked; c == nil || c.SpecWrittenAt == nil || c.SpecWrittenAt.After(time.Now()) {
		t.Errorf("status.checked %+v: the spec's write time is after now", c)
	}

	// Past the 2 s the controllers allow for clocks and one-second stamps.
	time.Sleep(3 * time.Second)
	namespaceSquatter(t, "e2e-forged-squatter-"+suffix)(target, scopeSA)
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonNamespacesReplaced, target)
	noBindingsIn(t, target)
}
