package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
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
// Once admitted, only a change of the ServiceAccount is judged again.
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

	// Admitted once, the request is judged again only if its ServiceAccount
	// changes (which CEL refuses anyway): with her edit gone she may still
	// change its statements, as the operator its finalizer.
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
