package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/util/retry"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// requesterAttenuation is what the access-grants check says when an
// IAMRoleRequest's requester may not write its ServiceAccount.
const requesterAttenuation = "an IAMRoleRequest has the operator write that ServiceAccount"

// waitRoleRequestsChecked waits until the access-grants check judges
// IAMRoleRequests: until the operator has registered it, the
// access-grants-checked policy refuses every one, a cluster admin's too.
func waitRoleRequestsChecked(t *testing.T) {
	t.Helper()
	probe := &podidentityv1alpha1.IAMRoleRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-probe"},
		Spec: podidentityv1alpha1.IAMRoleRequestSpec{
			Storage: podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: "default", Name: "e2e-probe"}},
			ProviderSpec: podidentityv1alpha1.AWSProviderSpec{StatementEntries: []podidentityv1alpha1.StatementEntry{
				{Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: "arn:aws:s3:::e2e/*"}}},
		},
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		_, err := env.operator.PodIdentityV1alpha1().IAMRoleRequests().Create(ctx, probe, dryRun)
		return err
	})
}

// An IAMRoleRequest has the operator annotate, or create, the
// ServiceAccount it names, with the operator's own rights. Whom an admin
// binds to the requester role may have that done only where they may
// write ServiceAccounts themselves: not in another team's namespace, not in
// openshift-*; with edit in their own, yes. A cluster admin may anywhere.
// Once admitted, a change of the statements is not judged again (the writes
// that move the role's trust are: TestIAMRoleRequestTrustMovesOnlyWithServiceAccountWrites).
func TestIAMRoleRequestersWriteOnlyServiceAccountsTheyMay(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	user := "e2e-requester-" + rand.String(5)
	bindClusterRole(t, user, iamRoleRequesterRole, metav1.ObjectMeta{GenerateName: "e2e-iam-requester-"})
	own := testNamespace(t, "iam-requester-own-")
	other := testNamespace(t, "iam-requester-other-")
	requests := asUser(t, user).PodIdentityV1alpha1().IAMRoleRequests()
	request := func(namespace string) *podidentityv1alpha1.IAMRoleRequest {
		return &podidentityv1alpha1.IAMRoleRequest{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-requester-" + rand.String(5)},
			Spec: podidentityv1alpha1.IAMRoleRequestSpec{
				Storage: podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: namespace, Name: "app"}},
				ProviderSpec: podidentityv1alpha1.AWSProviderSpec{StatementEntries: []podidentityv1alpha1.StatementEntry{
					{Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: "arn:aws:s3:::e2e/*"}}},
			},
		}
	}
	refusal := func(namespace string) string {
		return fmt.Sprintf(`user %q may not patch or create serviceaccounts in namespace %q: %s`, user, namespace, requesterAttenuation)
	}

	// The requester role alone: her binding is cached by RBAC, then the
	// check refuses her own namespace too (the policy would refuse with
	// another message while the check is not registered).
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		_, err := requests.Create(ctx, request(own), dryRun)
		if err == nil || !strings.Contains(err.Error(), requesterAttenuation) {
			return fmt.Errorf("the requester role alone, for %s/app: %v, want refused by the access-grants check", own, err)
		}
		return nil
	})
	_, err := requests.Create(ctx, request(own), dryRun)
	wantRefused(t, "a request without ServiceAccount rights", err, refusal(own))

	// With edit in her namespace (patch and create serviceaccounts).
	grantEdit(t, own, "e2e-requester-edit", rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: "User", Name: user})
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := requests.Create(ctx, request(own), dryRun)
		return err
	})
	for _, namespace := range []string{other, operandNS, "openshift-config", "kube-system"} {
		_, err := requests.Create(ctx, request(namespace), dryRun)
		wantRefused(t, "a request for "+namespace+"/app", err, refusal(namespace))
	}
	for _, namespace := range []string{other, operandNS} {
		if _, err := env.operator.PodIdentityV1alpha1().IAMRoleRequests().Create(ctx, request(namespace), dryRun); err != nil {
			t.Errorf("a cluster admin's request for %s/app: %v", namespace, err)
		}
	}

	// Admitted once, a change of its statements is not judged again: with
	// her edit gone she may still make it, as the operator adds its
	// finalizer.
	created, err := requests.Create(ctx, request(own), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// No IAM here to serve the controller's finalizer: drop it.
		_, _ = env.operator.PodIdentityV1alpha1().IAMRoleRequests().Patch(context.Background(), created.Name, types.MergePatchType,
			[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		_ = env.operator.PodIdentityV1alpha1().IAMRoleRequests().Delete(context.Background(), created.Name, metav1.DeleteOptions{})
	})
	if err := env.kube.RbacV1().RoleBindings(own).Delete(ctx, "e2e-requester-edit", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := requests.Create(ctx, request(own), dryRun)
		if err == nil || !strings.Contains(err.Error(), refusal(own)) {
			return fmt.Errorf("with her edit removed, a new request for %s/app: %v, want refused", own, err)
		}
		return nil
	})
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := requests.Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		current.Spec.ProviderSpec.StatementEntries[0].Action = []string{"s3:GetObject", "s3:ListBucket"}
		_, err = requests.Update(ctx, current, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Errorf("changing the statements of her admitted request: %v", err)
	}
}

// The attack of issue 46: a requester bound only to the requester role,
// with no rights on ServiceAccounts in namespace N, may not move the trust
// of a request for N: not confirm a re-created N (a namespace-only user's,
// whose ServiceAccount would get the role), not strip the finalizer, not
// delete the request while its role may exist (its namespace is pinned).
// Each refusal says which write and what is missing. A requester with edit
// in N may make each of them. No IAM is reachable here: the operator pins
// the namespace before it calls IAM, so the pin stands for the role.
func TestIAMRoleRequestTrustMovesOnlyWithServiceAccountWrites(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	waitRoleRequestsChecked(t)
	ctx := context.Background()
	namespaces := env.kube.CoreV1().Namespaces()
	requester, editor := "e2e-requester-"+rand.String(5), "e2e-editor-"+rand.String(5)
	bindClusterRole(t, requester, iamRoleRequesterRole, metav1.ObjectMeta{GenerateName: "e2e-iam-requester-"})
	bindClusterRole(t, editor, iamRoleRequesterRole, metav1.ObjectMeta{GenerateName: "e2e-iam-requester-"})

	name := "iam-trust-" + rand.String(5)
	first, err := namespaces.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = namespaces.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	admin := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	created := adminRoleRequest(t, "e2e-trust-"+rand.String(5),
		podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: name, Name: "app"}}, nil)
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		r, err := admin.Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if r.Status.NamespaceUID != string(first.UID) || !slices.Contains(r.Finalizers, podidentityv1alpha1.IAMRoleFinalizer) {
			return fmt.Errorf("status.namespaceUID %q, finalizers %v: want %s pinned and the finalizer", r.Status.NamespaceUID, r.Finalizers, first.UID)
		}
		return nil
	})

	// A namespace-only user deletes N and makes it again: another UID.
	if err := namespaces.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var squatted *corev1.Namespace
	framework.Eventually(t, 2*time.Minute, func(ctx context.Context) error {
		squatted, err = namespaces.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		return err
	})
	grantEdit(t, name, "e2e-editor-edit", rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: "User", Name: editor})

	patchOf := func(uid string) []byte {
		return []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation, uid))
	}
	unfinalize := []byte(`{"metadata":{"finalizers":null}}`)
	dry := metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}
	missing := func(user, doing string) []string {
		return []string{fmt.Sprintf(`user %q may not patch or create serviceaccounts in namespace %q`, user, name),
			requesterAttenuation, "so whoever may " + doing + " must be able to"}
	}

	// The requester alone: each write is refused, and says which it was.
	mine := asUser(t, requester).PodIdentityV1alpha1().IAMRoleRequests()
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := mine.Get(ctx, created.Name, metav1.GetOptions{})
		return err // RBAC caches bindings briefly
	})
	_, err = mine.Patch(ctx, created.Name, types.MergePatchType, patchOf(string(squatted.UID)), metav1.PatchOptions{})
	wantRefused(t, "the requester's confirmation of the re-created namespace", err,
		append(missing(requester, "confirm a namespace"), podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation+"="+string(squatted.UID))...)
	_, err = mine.Patch(ctx, created.Name, types.MergePatchType, unfinalize, metav1.PatchOptions{})
	wantRefused(t, "the requester's removal of the finalizer", err,
		append(missing(requester, "remove the finalizer"), "status.namespaceUID "+string(first.UID))...)
	err = mine.Delete(ctx, created.Name, metav1.DeleteOptions{})
	wantRefused(t, "the requester's delete", err, missing(requester, "delete the request")...)
	// A write that moves no trust is still hers to make.
	if _, err := mine.Patch(ctx, created.Name, types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"a"}}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("the requester's label: %v", err)
	}
	current, err := admin.Get(ctx, created.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if current.DeletionTimestamp != nil || !slices.Contains(current.Finalizers, podidentityv1alpha1.IAMRoleFinalizer) ||
		current.Annotations[podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation] != "" || current.Status.NamespaceUID != string(first.UID) {
		t.Fatalf("after the refusals: deletion %v, finalizers %v, annotations %v, pin %q", current.DeletionTimestamp, current.Finalizers, current.Annotations, current.Status.NamespaceUID)
	}

	// With edit in N: each is admitted (dry runs, then the delete itself).
	theirs := asUser(t, editor).PodIdentityV1alpha1().IAMRoleRequests()
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := theirs.Patch(ctx, created.Name, types.MergePatchType, patchOf(string(squatted.UID)), dry)
		return err
	})
	if _, err := theirs.Patch(ctx, created.Name, types.MergePatchType, unfinalize, dry); err != nil {
		t.Errorf("the editor's removal of the finalizer: %v", err)
	}
	if err := theirs.Delete(ctx, created.Name, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("the editor's delete (dry run): %v", err)
	}
	if err := theirs.Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
		t.Errorf("the editor's delete: %v", err)
	}
}

// A set request by list takes a confirmation of several namespaces at once
// (UIDs separated by commas). Whoever sets it must be able to write the
// ServiceAccount in every listed namespace, not only in some: a requester
// with edit in one of two is refused and told which writes she lacks,
// whether she sets the annotation or adds a UID to it; with edit in both she
// may. No IAM is reachable here: the judgement is the webhook's.
func TestSetConfirmationNeedsServiceAccountWritesInEveryListedNamespace(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	waitRoleRequestsChecked(t)
	ctx := context.Background()
	n1, n2 := testNamespace(t, "iam-set-confirm-"), testNamespace(t, "iam-set-confirm-")
	requester := "e2e-set-requester-" + rand.String(5)
	bindClusterRole(t, requester, iamRoleRequesterRole, metav1.ObjectMeta{GenerateName: "e2e-iam-requester-"})
	grantEdit(t, n1, "e2e-set-requester-edit", rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: "User", Name: requester})

	admin := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	created := adminRoleRequest(t, "e2e-set-confirm-"+rand.String(5),
		podidentityv1alpha1.Storage{ServiceAccounts: &podidentityv1alpha1.ServiceAccountSetStorage{Name: "app", Namespaces: []string{n1, n2}}},
		map[string]string{podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation: "uid-one"})
	confirm := func(uids string) []byte {
		return []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation, uids))
	}
	mine := asUser(t, requester).PodIdentityV1alpha1().IAMRoleRequests()
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := mine.Get(ctx, created.Name, metav1.GetOptions{})
		return err // RBAC caches bindings briefly
	})
	for what, uids := range map[string]string{"setting two UIDs": "uid-a,uid-b", "adding a UID to the confirmed one": "uid-one, uid-b"} {
		_, err := mine.Patch(ctx, created.Name, types.MergePatchType, confirm(uids), metav1.PatchOptions{})
		wantRefused(t, "a requester with edit in one listed namespace of two "+what, err, requesterAttenuation, "confirm a namespace",
			"patch serviceaccounts in namespace "+n2+", create serviceaccounts in namespace "+n2,
			podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation+"="+uids)
		if strings.Contains(err.Error(), "serviceaccounts in namespace "+n1) {
			t.Errorf("the refusal names namespace %s, where she may write ServiceAccounts: %v", n1, err)
		}
	}
	current, err := admin.Get(ctx, created.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := current.Annotations[podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation]; got != "uid-one" {
		t.Fatalf("after the refusals the confirmation is %q, want uid-one", got)
	}
	// Removing a confirmation moves no trust.
	if _, err := mine.Patch(ctx, created.Name, types.MergePatchType, []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:null}}}`, podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation)),
		metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("the requester's removal of the confirmation: %v", err)
	}

	// With edit in both listed namespaces, she may.
	grantEdit(t, n2, "e2e-set-requester-edit", rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: "User", Name: requester})
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := mine.Patch(ctx, created.Name, types.MergePatchType, confirm("uid-a,uid-b"), metav1.PatchOptions{})
		return err
	})
}

// adminRoleRequest creates, as an admin, an IAMRoleRequest named name whose
// role may read e2e/*. No IAM serves the controller's finalizer here: at
// cleanup an admin drops it (retried until the access-grants check is back,
// should the test have taken it away) and deletes the request.
func adminRoleRequest(t *testing.T, name string, storage podidentityv1alpha1.Storage, annotations map[string]string) *podidentityv1alpha1.IAMRoleRequest {
	t.Helper()
	requests := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	created, err := requests.Create(context.Background(), &podidentityv1alpha1.IAMRoleRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
		Spec: podidentityv1alpha1.IAMRoleRequestSpec{
			Storage: storage,
			ProviderSpec: podidentityv1alpha1.AWSProviderSpec{StatementEntries: []podidentityv1alpha1.StatementEntry{
				{Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: "arn:aws:s3:::e2e/*"}}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		framework.Eventually(t, time.Minute, func(ctx context.Context) error {
			_, err := requests.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		})
		_ = requests.Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return created
}
