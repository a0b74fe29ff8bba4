package stschain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// roleNameFor is the contract's role name for a request: the
// infrastructureName and the request's name, cut to IAM's 64 characters
// with a stable hash of the whole when longer.
func roleNameFor(request string) string {
	name := env.infrastructureName + "-" + request
	if len(name) <= 64 {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return name[:55] + "-" + hex.EncodeToString(sum[:])[:8]
}

// expectedTrust is the contract's trust policy for a ServiceAccount: web
// identity from the cluster's OIDC provider, for that account's tokens of
// the STS audience only.
func expectedTrust(ns, serviceAccount string) policyDocument {
	return policyDocument{Version: "2012-10-17", Statement: []statement{{
		Effect:    "Allow",
		Principal: map[string]stringList{"Federated": {"arn:aws:iam::" + env.account + ":oidc-provider/" + issuerHostPath()}},
		Action:    stringList{"sts:AssumeRoleWithWebIdentity"},
		Condition: map[string]map[string]stringList{"StringEquals": {
			issuerHostPath() + ":sub": {"system:serviceaccount:" + ns + ":" + serviceAccount},
			issuerHostPath() + ":aud": {stsAudience},
		}},
	}}}
}

// createRoleRequest asks, as an admin would with the enhancement's example,
// for a role that ns/serviceAccount's pods may assume to read
// requestedBucket's objects.
func createRoleRequest(t *testing.T, name, ns, serviceAccount string) *podidentityv1alpha1.IAMRoleRequest {
	t.Helper()
	return createRoleRequestWith(t, name, ns, serviceAccount, []podidentityv1alpha1.StatementEntry{{
		Effect:   "Allow",
		Action:   []string{"s3:GetObject"},
		Resource: "arn:aws:s3:::" + requestedBucket + "/*",
	}})
}

// createRoleRequestWith asks for a role with the statements.
func createRoleRequestWith(t *testing.T, name, ns, serviceAccount string, statements []podidentityv1alpha1.StatementEntry) *podidentityv1alpha1.IAMRoleRequest {
	t.Helper()
	requests := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	request, err := requests.Create(context.Background(), &podidentityv1alpha1.IAMRoleRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: podidentityv1alpha1.IAMRoleRequestSpec{
			Storage: podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: ns, Name: serviceAccount}},
			ProviderSpec: podidentityv1alpha1.AWSProviderSpec{
				APIVersion:       "cloudcredential.openshift.io/v1",
				Kind:             "AWSProviderSpec",
				StatementEntries: statements,
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// A failed test leaves no role behind for the next run of the
		// package (a new IAM store each run, but one cluster per package).
		_ = requests.Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return request
}

// waitForRole waits until the request's role is provisioned and linked to
// its ServiceAccount, for the request's current generation.
func waitForRole(t *testing.T, name string) *podidentityv1alpha1.IAMRoleRequest {
	t.Helper()
	var request *podidentityv1alpha1.IAMRoleRequest
	framework.Eventually(t, 90*time.Second, func(ctx context.Context) error {
		got, err := env.operator.PodIdentityV1alpha1().IAMRoleRequests().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, conditionType := range []string{podidentityv1alpha1.ConditionProvisioned, podidentityv1alpha1.ConditionServiceAccountLinked} {
			c := meta.FindStatusCondition(got.Status.Conditions, conditionType)
			if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != got.Generation {
				return fmt.Errorf("IAMRoleRequest %s (generation %d): %s", name, got.Generation, describeConditions(got.Status.Conditions))
			}
		}
		request = got
		return nil
	})
	return request
}

func describeConditions(conditions []metav1.Condition) string {
	if len(conditions) == 0 {
		return "no conditions"
	}
	var out []string
	for _, c := range conditions {
		out = append(out, fmt.Sprintf("%s=%s %s (generation %d): %q", c.Type, c.Status, c.Reason, c.ObservedGeneration, c.Message))
	}
	return strings.Join(out, "; ")
}

// checkRole compares the role IAM holds for request with the contract.
func checkRole(t *testing.T, request *podidentityv1alpha1.IAMRoleRequest) {
	t.Helper()
	ns, serviceAccount := request.Spec.Storage.ServiceAccount.Namespace, request.Spec.Storage.ServiceAccount.Name
	roleName := roleNameFor(request.Name)
	path := "/workload-access/" + env.infrastructureName + "/"
	wantARN := "arn:aws:iam::" + env.account + ":role" + path + roleName
	if got := request.Status; got.RoleARN != wantARN || got.ServiceAccount != ns+"/"+serviceAccount ||
		got.ProviderStatus == nil || got.ProviderStatus.User != roleName || got.ProviderStatus.Policy != rolePolicyName {
		t.Errorf("status: roleARN %q, serviceAccount %q, providerStatus %+v; want %q, %q, user %q and policy %q",
			got.RoleARN, got.ServiceAccount, got.ProviderStatus, wantARN, ns+"/"+serviceAccount, roleName, rolePolicyName)
	}
	role, err := readRole(context.Background(), roleName)
	if err != nil {
		t.Fatal(err)
	}
	if role.ARN != request.Status.RoleARN || role.Path != path {
		t.Errorf("role %s: ARN %q, path %q; want the status's %q, path %q", roleName, role.ARN, role.Path, request.Status.RoleARN, path)
	}
	wantTags := map[string]string{
		requestUIDTag:  string(request.UID),
		requestNameTag: request.Name,
		"kubernetes.io/cluster/" + env.infrastructureName: "owned",
		clusterTag:        env.infrastructureName,
		namespaceTag:      ns,
		serviceAccountTag: serviceAccount,
	}
	if !reflect.DeepEqual(role.Tags, wantTags) {
		t.Errorf("role %s: tags %v, want %v", roleName, role.Tags, wantTags)
	}
	if want := expectedTrust(ns, serviceAccount); !reflect.DeepEqual(role.Trust, want) {
		t.Errorf("role %s: trust policy\n%s\nwant\n%s", roleName, role.Trust, want)
	}
	wantPolicy := policyDocument{Version: "2012-10-17", Statement: []statement{{
		Effect: "Allow", Action: stringList{"s3:GetObject"}, Resource: stringList{"arn:aws:s3:::" + requestedBucket + "/*"},
	}}}
	if !reflect.DeepEqual(role.Policy, wantPolicy) {
		t.Errorf("role %s: policy %s\n%s\nwant\n%s", roleName, rolePolicyName, role.Policy, wantPolicy)
	}
}

// checkLinked checks that ns/name names the request's role and was linked
// by it.
func checkLinked(t *testing.T, request *podidentityv1alpha1.IAMRoleRequest) {
	t.Helper()
	storage := request.Spec.Storage.ServiceAccount
	sa, err := env.kube.CoreV1().ServiceAccounts(storage.Namespace).Get(context.Background(), storage.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := sa.Annotations[roleARNAnnotation]; got != request.Status.RoleARN {
		t.Errorf("ServiceAccount %s/%s: %s=%q, want the request's roleARN %q", sa.Namespace, sa.Name, roleARNAnnotation, got, request.Status.RoleARN)
	}
	if got := sa.Annotations[linkedByAnnotation]; got != string(request.UID) {
		t.Errorf("ServiceAccount %s/%s: %s=%q, want the request's UID %s", sa.Namespace, sa.Name, linkedByAnnotation, got, request.UID)
	}
}

// An admin asks for a role with the enhancement's example shape; the
// operator, holding only the IAM rights of its CredentialsRequest, creates
// it in IAM and links the ServiceAccount; a pod of that ServiceAccount gets
// credentials for the role from the webhook's injection alone, and no other
// ServiceAccount's pod does; deleting the request deletes the role and
// unlinks the ServiceAccount (or lets a ServiceAccount the operator created
// go with the request).
func TestRoleFromARequestGivesAPodCredentials(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	ns := createNamespace(t)
	requests := env.operator.PodIdentityV1alpha1().IAMRoleRequests()

	// "reader" exists, as the seed's image-registry-sa does; "created" does
	// not, and the operator creates it.
	createServiceAccount(t, ns, "reader", nil)
	asked := time.Now()
	readerRequest := createRoleRequest(t, ns+"-reader", ns, "reader")
	createdRequest := createRoleRequest(t, ns+"-created", ns, "created")
	reader := waitForRole(t, readerRequest.Name)
	ready := time.Since(asked)
	created := waitForRole(t, createdRequest.Name)
	t.Logf("IAMRoleRequest -> role provisioned and ServiceAccount linked: %s (both requests: %s)",
		ready.Round(10*time.Millisecond), time.Since(asked).Round(10*time.Millisecond))
	checkRole(t, reader)
	checkLinked(t, reader)
	checkRole(t, created)
	checkLinked(t, created)
	createdSA, err := env.kube.CoreV1().ServiceAccounts(ns).Get(ctx, "created", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if owners := createdSA.OwnerReferences; len(owners) != 1 || owners[0].UID != created.UID || owners[0].Kind != "IAMRoleRequest" {
		t.Errorf("the ServiceAccount the operator created has owners %+v, want the IAMRoleRequest %s (UID %s)", owners, created.Name, created.UID)
	}
	if t.Failed() {
		t.FailNow()
	}

	// The pod, from its mutated spec alone, assumes the role.
	podAsked := time.Now()
	readerPod := mount(t, createPodOf(t, ns, "reader"))
	if got := envValue(readerPod.Env, "AWS_ROLE_ARN"); got != reader.Status.RoleARN {
		t.Fatalf("the mutated pod's AWS_ROLE_ARN is %q, want the request's roleARN %q", got, reader.Status.RoleARN)
	}
	got, err := runWorkload(ctx, readerPod.Root, workloadEnv(readerPod), requestedBucket+"/"+requestedKey, dataBucket+"/"+otherKey)
	if err != nil {
		t.Fatal(err)
	}
	credentialsAfter := time.Since(podAsked)
	if got.CredentialError != nil || got.CredentialSource != stscreds.WebIdentityProviderName {
		t.Fatalf("credentials from %q, error %v; want them from %s (env %v)", got.CredentialSource, got.CredentialError, stscreds.WebIdentityProviderName, readerPod.Env)
	}
	t.Logf("pod created -> mutated, token requested, credentials from STS and both GetObjects done: %s", credentialsAfter.Round(10*time.Millisecond))
	if allowed := got.Objects[requestedBucket+"/"+requestedKey]; allowed.Error != nil || allowed.Body != requestedBody {
		t.Errorf("GetObject %s/%s: %q, %v; want %q", requestedBucket, requestedKey, allowed.Body, allowed.Error, requestedBody)
	}
	if other := got.Objects[dataBucket+"/"+otherKey]; other.Error == nil || other.Error.Status != 403 || other.Error.Code != "AccessDenied" {
		t.Errorf("GetObject %s/%s with the requested role: %q, %v; want HTTP 403 AccessDenied", dataBucket, otherKey, other.Body, other.Error)
	}

	// A pod of another ServiceAccount, annotated by hand with the same
	// role: the webhook injects it, STS refuses its token.
	intruder := mount(t, createPod(t, ns, "intruder", reader.Status.RoleARN))
	got, err = runWorkload(ctx, intruder.Root, workloadEnv(intruder), requestedBucket+"/"+requestedKey)
	if err != nil {
		t.Fatal(err)
	}
	if got.CredentialError == nil || got.CredentialError.Code != "InvalidIdentityToken" {
		t.Errorf("another ServiceAccount's token: credentials from %q, error %v; want InvalidIdentityToken", got.CredentialSource, got.CredentialError)
	}

	// Deleting the requests deletes their roles, unlinks "reader" and lets
	// "created" be collected with its request.
	deleting := time.Now()
	for _, name := range []string{reader.Name, created.Name} {
		if err := requests.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{reader.Name, created.Name} {
		framework.Eventually(t, time.Minute, func(ctx context.Context) error {
			request, err := requests.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			return fmt.Errorf("IAMRoleRequest %s still exists (finalizers %v): %s", name, request.Finalizers, describeConditions(request.Status.Conditions))
		})
	}
	t.Logf("IAMRoleRequests deleted -> gone, with their roles: %s", time.Since(deleting).Round(10*time.Millisecond))
	for _, request := range []*podidentityv1alpha1.IAMRoleRequest{reader, created} {
		roleName := roleNameFor(request.Name)
		if _, err := env.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(roleName)}); !isNoSuchEntity(err) {
			t.Errorf("GetRole %s after its request was deleted: %v; want NoSuchEntity", roleName, err)
		}
		_, err := env.iam.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(roleName), PolicyName: aws.String(rolePolicyName)})
		if !isNoSuchEntity(err) {
			t.Errorf("GetRolePolicy %s %s after its request was deleted: %v; want NoSuchEntity", roleName, rolePolicyName, err)
		}
	}
	sa, err := env.kube.CoreV1().ServiceAccounts(ns).Get(ctx, "reader", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, annotation := range []string{roleARNAnnotation, linkedByAnnotation} {
		if value, ok := sa.Annotations[annotation]; ok {
			t.Errorf("ServiceAccount %s/reader still has %s=%q after its request was deleted", ns, annotation, value)
		}
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		sa, err := env.kube.CoreV1().ServiceAccounts(ns).Get(ctx, "created", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("the ServiceAccount %s/created the operator created is still there (owners %+v)", ns, sa.OwnerReferences)
	})
	if err := assumeRole(ctx, reader.Status.RoleARN, readerPod.Tokens[envValue(readerPod.Env, "AWS_WEB_IDENTITY_TOKEN_FILE")]); err == nil {
		t.Errorf("STS still hands out credentials for %s after its request was deleted", reader.Status.RoleARN)
	}
}
