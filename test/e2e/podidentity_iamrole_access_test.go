package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// The ClusterRoles manifests/…03_user-rbac.yaml ships for IAMRoleRequests,
// and the admission policy that bounds the operator's ServiceAccount writes
// (manifests/…07_operator-serviceaccount-writes-policy.yaml).
const (
	iamRoleRequesterRole  = "workload-access-iam-role-requester"
	iamRoleViewerRole     = "workload-access-iam-role-viewer"
	trustLabelerRole      = "workload-access-namespace-trust-labeler"
	serviceAccountsPolicy = "workload-access-operator-serviceaccount-writes"
	roleARNAnnotation     = "eks.amazonaws.com/role-arn"
	linkedByAnnotation    = "podidentity.openshift.io/linked-by"
)

// podIdentityGrants is what user may do in podidentity.openshift.io
// (cluster-scoped: a namespace's review shows its ClusterRoleBindings' rules),
// one "resource verb" per permission; "*" groups count.
func podIdentityGrants(t *testing.T, user string) []string {
	t.Helper()
	config := rest.CopyConfig(env.cp.Config)
	config.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	review, err := client.AuthorizationV1().SelfSubjectRulesReviews().Create(context.Background(),
		&authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "default"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range review.Status.ResourceRules {
		for _, group := range r.APIGroups {
			if group != podidentityv1alpha1.SchemeGroupVersion.Group && group != "*" {
				continue
			}
			for _, resource := range r.Resources {
				for _, verb := range r.Verbs {
					out = append(out, resource+" "+verb)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Asking for IAM roles is as powerful as the operator's IAM credentials:
// no built-in role (admin, edit, view) holds IAMRoleRequests, and no
// aggregated ClusterRole feeds them any; the payload's requester and
// viewer roles grant exactly their verbs to whom an admin binds them.
func TestIAMRoleRequestsAreForClusterAdminsAndWhomTheyBind(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check judges IAMRoleRequests too
	ctx := context.Background()
	// No ClusterRole that aggregates into another grants anything in the
	// group (a label added later would leak it to every namespace admin).
	roles, err := env.kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range roles.Items {
		aggregated := false
		for k := range role.Labels {
			aggregated = aggregated || strings.Contains(k, "aggregate-to-")
		}
		if !aggregated {
			continue
		}
		for _, r := range role.Rules {
			for _, g := range r.APIGroups {
				if g == podidentityv1alpha1.SchemeGroupVersion.Group {
					t.Errorf("ClusterRole %s aggregates into %v and grants %v on %v in %s", role.Name, role.Labels, r.Verbs, r.Resources, g)
				}
			}
		}
	}

	// Users bound cluster-wide to each role.
	users := map[string]string{"admin": "e2e-iam-admin", "edit": "e2e-iam-edit", "view": "e2e-iam-view",
		iamRoleRequesterRole: "e2e-iam-requester", iamRoleViewerRole: "e2e-iam-auditor", trustLabelerRole: "e2e-iam-labeler"}
	for role, user := range users {
		bindClusterRole(t, user, role, metav1.ObjectMeta{GenerateName: "e2e-iam-"})
	}
	// kube-controller-manager aggregates the payload's roles into admin,
	// edit and view asynchronously: wait until the Bundle rules it ships for
	// them are in, so that anything aggregated with them is too.
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		for _, role := range []string{"admin", "edit", "view"} {
			r, err := env.kube.RbacV1().ClusterRoles().Get(ctx, role, metav1.GetOptions{})
			if err != nil {
				return err
			}
			found := false
			for _, rule := range r.Rules {
				for _, g := range rule.APIGroups {
					found = found || g == "subscription.openshift.io"
				}
			}
			if !found {
				return fmt.Errorf("%s does not aggregate the payload's Bundle rules yet", role)
			}
		}
		return nil
	})
	want := map[string]string{
		"admin": "", "edit": "", "view": "",
		iamRoleRequesterRole: "iamrolerequests create,iamrolerequests update,iamrolerequests patch,iamrolerequests delete," +
			"iamrolerequests get,iamrolerequests list,iamrolerequests watch," +
			"iamrolerequests/status get,iamrolerequests/status list,iamrolerequests/status watch",
		iamRoleViewerRole: "iamrolerequests get,iamrolerequests list,iamrolerequests watch," +
			"iamrolerequests/status get,iamrolerequests/status list,iamrolerequests/status watch",
		// The right to put namespaces into roles' trust by label
		// (manifests/…07_namespace-trust-labels-policy.yaml).
		trustLabelerRole: "namespacetrustlabels label",
	}
	for role, user := range users {
		// RBAC caches bindings briefly.
		framework.Eventually(t, 30*time.Second, func(context.Context) error {
			wantGrants := strings.Split(want[role], ",")
			slices.Sort(wantGrants)
			if got := strings.Join(podIdentityGrants(t, user), ","); got != strings.Trim(strings.Join(wantGrants, ","), ",") {
				return fmt.Errorf("bound to %s cluster-wide, %s may do in podidentity.openshift.io:\n  %q\nwant\n  %q", role, user, got, want[role])
			}
			return nil
		})
	}

	// The requester really creates one, for a ServiceAccount in a namespace
	// where she may write ServiceAccounts (TestIAMRoleRequestersWriteOnly…
	// shows why); the auditor does not.
	ns := testNamespace(t, "iam-requested-")
	grantEdit(t, ns, "e2e-iam-requester-edit", rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: "User", Name: users[iamRoleRequesterRole]})
	request := &podidentityv1alpha1.IAMRoleRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-requested"},
		Spec: podidentityv1alpha1.IAMRoleRequestSpec{
			Storage: podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: ns, Name: "e2e"}},
			ProviderSpec: podidentityv1alpha1.AWSProviderSpec{StatementEntries: []podidentityv1alpha1.StatementEntry{
				{Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: "arn:aws:s3:::e2e/*"},
			}},
		},
	}
	for user, allowed := range map[string]bool{users[iamRoleRequesterRole]: true, users[iamRoleViewerRole]: false, users["admin"]: false, users["edit"]: false} {
		config := rest.CopyConfig(env.cp.Config)
		config.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
		client := operatorclientset.NewForConfigOrDie(config)
		create := func(ctx context.Context) error {
			_, err := client.PodIdentityV1alpha1().IAMRoleRequests().Create(ctx, request, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		}
		if allowed {
			// RBAC caches the new RoleBinding briefly.
			framework.Eventually(t, 30*time.Second, create)
			continue
		}
		err := create(ctx)
		if !apierrors.IsForbidden(err) {
			t.Errorf("%s creating an IAMRoleRequest: %v, want Forbidden", user, err)
		}
	}
}

// The operator holds create, update and patch on every ServiceAccount (an
// IAMRoleRequest may name any); the admission policy admits from it only a
// ServiceAccount an IAMRoleRequest owns, and otherwise changes of the two
// annotations phase 2 writes, to a role under its path.
func TestTheOperatorWritesOnlyRoleAnnotationsOfServiceAccounts(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	ns := testNamespace(t, "sa-writes-")
	operator := asServiceAccount(t, operatorNS, framework.OperatorName)
	const uid = "00000000-0000-0000-0000-00000000e2e0"
	ours := "arn:aws:iam::000000000000:role/workload-access/e2e/e2e-reader"
	owner := []metav1.OwnerReference{{APIVersion: podidentityv1alpha1.SchemeGroupVersion.String(), Kind: "IAMRoleRequest", Name: "reader", UID: uid}}
	linked := func(arn string) map[string]string {
		return map[string]string{roleARNAnnotation: arn, linkedByAnnotation: uid}
	}
	dryCreate := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	dryUpdate := metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}}
	refused := func(what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), serviceAccountsPolicy) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want the %s policy to refuse it saying %q", what, err, serviceAccountsPolicy, want)
		}
	}

	// What the controller creates is admitted. The policy is in place
	// within moments of the payload being applied.
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := operator.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "app"}}, dryCreate)
		if err == nil || !strings.Contains(err.Error(), serviceAccountsPolicy) {
			return fmt.Errorf("an unowned ServiceAccount from the operator: %v, want refused by %s", err, serviceAccountsPolicy)
		}
		return nil
	})
	if _, err := operator.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "app", Annotations: linked(ours), OwnerReferences: owner},
	}, dryCreate); err != nil {
		t.Errorf("the ServiceAccount an IAMRoleRequest has the operator create: %v", err)
	}
	for _, tc := range []struct {
		name, want string
		sa         corev1.ServiceAccount
	}{
		{"owned by something else", "owned by an IAMRoleRequest", corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "app", Annotations: linked(ours),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: uid}}}}},
		{"an imagePullSecret", "no secrets or imagePullSecrets", corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "app", Annotations: linked(ours), OwnerReferences: owner},
			ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}}}},
		{"a token Secret", "no secrets or imagePullSecrets", corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "app", Annotations: linked(ours), OwnerReferences: owner},
			Secrets: []corev1.ObjectReference{{Name: "token"}}}},
		{"another annotation", "no annotation but", corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "app", OwnerReferences: owner,
			Annotations: map[string]string{roleARNAnnotation: ours, "openshift.io/internal-registry-pull-secret-ref": "x"}}}},
		{"a label", "no label outside", corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "app", Annotations: linked(ours), OwnerReferences: owner,
			Labels: map[string]string{"app": "x"}}}},
		{"a role outside its path", "only to a role under the path", corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "app",
			Annotations: linked("arn:aws:iam::000000000000:role/OrganizationAccountAccessRole"), OwnerReferences: owner}}},
	} {
		_, err := operator.CoreV1().ServiceAccounts(ns).Create(ctx, &tc.sa, dryCreate)
		refused("creating a ServiceAccount with "+tc.name, err, tc.want)
	}

	// A ServiceAccount someone else made: the operator may add and remove
	// the two annotations, nothing else.
	existing, err := env.kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{
		ObjectMeta:       metav1.ObjectMeta{Name: "theirs", Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"keep": "me"}},
		ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	change := func(edit func(sa *corev1.ServiceAccount)) error {
		sa := existing.DeepCopy()
		edit(sa)
		_, err := operator.CoreV1().ServiceAccounts(ns).Update(ctx, sa, dryUpdate)
		return err
	}
	if err := change(func(sa *corev1.ServiceAccount) {
		sa.Annotations[roleARNAnnotation], sa.Annotations[linkedByAnnotation] = ours, uid
	}); err != nil {
		t.Errorf("annotating another's ServiceAccount with the role: %v", err)
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": linked(ours)}})
	if _, err := operator.CoreV1().ServiceAccounts(ns).Patch(ctx, "theirs", types.MergePatchType, patch, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("annotating another's ServiceAccount by a merge patch: %v", err)
	}
	for _, tc := range []struct {
		name, want string
		edit       func(sa *corev1.ServiceAccount)
	}{
		{"an imagePullSecret", "no label, owner reference", func(sa *corev1.ServiceAccount) {
			sa.ImagePullSecrets = append(sa.ImagePullSecrets, corev1.LocalObjectReference{Name: "mine"})
		}},
		{"its pull secrets removed", "no label, owner reference", func(sa *corev1.ServiceAccount) { sa.ImagePullSecrets = nil }},
		{"a token Secret", "no label, owner reference", func(sa *corev1.ServiceAccount) { sa.Secrets = []corev1.ObjectReference{{Name: "token"}} }},
		{"token automounting turned on", "no label, owner reference", func(sa *corev1.ServiceAccount) { sa.AutomountServiceAccountToken = ptr.To(true) }},
		{"a label changed", "no label, owner reference", func(sa *corev1.ServiceAccount) { sa.Labels["team"] = "b" }},
		{"an owner reference (adoption)", "no label, owner reference", func(sa *corev1.ServiceAccount) { sa.OwnerReferences = owner }},
		{"another annotation changed", "changes no annotation", func(sa *corev1.ServiceAccount) { sa.Annotations["keep"] = "not" }},
		{"another annotation removed", "changes no annotation", func(sa *corev1.ServiceAccount) { delete(sa.Annotations, "keep") }},
		{"a role outside its path", "only to a role under the path", func(sa *corev1.ServiceAccount) {
			sa.Annotations[roleARNAnnotation] = "arn:aws:iam::000000000000:role/workload-access-admin"
		}},
	} {
		refused("an update of another's ServiceAccount with "+tc.name, change(tc.edit), tc.want)
	}
	// Its RBAC holds delete for OwnerReferencesPermissionEnforcement alone.
	refused("a delete of another's ServiceAccount", operator.CoreV1().ServiceAccounts(ns).Delete(ctx, "theirs",
		metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}), "deletes no ServiceAccount")
	// Others' writes are none of the policy's business.
	sa := existing.DeepCopy()
	sa.ImagePullSecrets, sa.Annotations[roleARNAnnotation] = nil, "arn:aws:iam::000000000000:role/anything"
	if _, err := env.kube.CoreV1().ServiceAccounts(ns).Update(ctx, sa, dryUpdate); err != nil {
		t.Errorf("an admin's update: %v", err)
	}
}
