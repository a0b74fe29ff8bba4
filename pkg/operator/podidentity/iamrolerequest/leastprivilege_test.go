package iamrolerequest

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamrole"
)

const manifestPath = "../../../../manifests/0000_50_workload-access_02_iam-credentialsrequest.yaml"

// credentialsRequest is the part of the shipped CredentialsRequest read here.
// Strict: a misspelt field (condition for policyCondition) fails the test.
type credentialsRequest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string
	Metadata   struct {
		Name, Namespace string
		Annotations     map[string]string
	}
	Spec struct {
		SecretRef           struct{ Name, Namespace string } `json:"secretRef"`
		ServiceAccountNames []string                         `json:"serviceAccountNames"`
		ProviderSpec        struct {
			APIVersion       string `json:"apiVersion"`
			Kind             string
			StatementEntries []struct {
				Effect          string
				Action          []string
				Resource        string
				PolicyCondition map[string]map[string]any `json:"policyCondition"`
			} `json:"statementEntries"`
		} `json:"providerSpec"`
	}
}

func readCredentialsRequest(t *testing.T) credentialsRequest {
	t.Helper()
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	var cr credentialsRequest
	if err := yaml.UnmarshalStrict(data, &cr); err != nil {
		t.Fatal(err)
	}
	return cr
}

// policyOf is the IAM policy the cloud credential operator makes of the
// request's statements. withoutKey drops conditions on that key (and a
// statement's Condition left empty).
func policyOf(t *testing.T, cr credentialsRequest, withoutKey string) string {
	t.Helper()
	type statement struct {
		Effect    string
		Action    []string
		Resource  string
		Condition map[string]map[string]any `json:",omitempty"`
	}
	doc := struct {
		Version   string
		Statement []statement
	}{Version: "2012-10-17"}
	for _, e := range cr.Spec.ProviderSpec.StatementEntries {
		s := statement{Effect: e.Effect, Action: e.Action, Resource: e.Resource, Condition: map[string]map[string]any{}}
		for op, keys := range e.PolicyCondition {
			for k, v := range keys {
				if k == withoutKey {
					continue
				}
				if s.Condition[op] == nil {
					s.Condition[op] = map[string]any{}
				}
				s.Condition[op][k] = v
			}
		}
		if len(s.Condition) == 0 {
			s.Condition = nil
		}
		doc.Statement = append(doc.Statement, s)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	// The grant names every partition (arn:*:), which AWS IAM accepts;
	// versitygw accepts only the aws partition in a policy, the one its
	// roles are in. The test's policy names that partition.
	return strings.ReplaceAll(string(out), `"arn:*:`, `"arn:aws:`)
}

// The CredentialsRequest grants exactly the IAM calls the controller makes
// (iamAPI), each on the operator's role path or the OIDC providers, to the
// operator's Secret.
func TestCredentialsRequestGrantsExactlyTheCallsMade(t *testing.T) {
	cr := readCredentialsRequest(t)
	if cr.Metadata.Name != CredentialsSecret || cr.Metadata.Namespace != "openshift-cloud-credential-operator" ||
		cr.Spec.SecretRef.Name != CredentialsSecret || cr.Spec.SecretRef.Namespace != operatorclient.OperatorNamespace ||
		cr.Spec.ProviderSpec.Kind != "AWSProviderSpec" || cr.Metadata.Annotations["capability.openshift.io/name"] != "CloudCredential" ||
		!slices.Equal(cr.Spec.ServiceAccountNames, []string{"cluster-workload-access-operator"}) {
		t.Errorf("CredentialsRequest %+v", cr)
	}
	api := reflect.TypeFor[iamAPI]()
	var want []string
	for i := range api.NumMethod() {
		want = append(want, "iam:"+api.Method(i).Name)
	}
	// AWS requires iam:TagRole for the tags CreateRole carries, besides the
	// controller's own TagRole of an existing role.
	if !slices.Contains(want, "iam:TagRole") {
		want = append(want, "iam:TagRole")
	}
	slices.Sort(want)
	boundary := map[string]any{"iam:PermissionsBoundary": []any{"arn:*:iam::*:policy" + iamrole.BoundaryPathPrefix + "*"}}
	tagKeys := map[string]any{"aws:TagKeys": []any{"openshift.io/workload-access/*", "kubernetes.io/cluster/*"}}
	// A write to an existing role needs its boundary, not only the tag,
	// which the TagRole statement may add to any role under the path.
	write := map[string]map[string]any{"ArnLike": boundary, "Null": {"iam:ResourceTag/" + iamrole.TagRequestUID: []any{"false"}}}
	conditions := map[string]map[string]map[string]any{
		"iam:GetOpenIDConnectProvider":   nil,
		"iam:GetRole":                    nil,
		"iam:GetRolePolicy":              nil,
		"iam:CreateRole":                 {"ArnLike": boundary},
		"iam:TagRole":                    {"ForAllValues:StringLike": tagKeys},
		"iam:UpdateAssumeRolePolicy":     write,
		"iam:PutRolePermissionsBoundary": write,
		"iam:PutRolePolicy":              write,
		"iam:DeleteRolePolicy":           write,
		"iam:DeleteRole":                 write,
	}
	var granted []string
	for _, e := range cr.Spec.ProviderSpec.StatementEntries {
		if e.Effect != "Allow" {
			t.Errorf("statement %+v: only Allow", e)
		}
		// arn:*: every partition the controller makes roles in.
		wantResource := "arn:*:iam::*:role" + iamrole.PathPrefix + "*"
		if slices.Equal(e.Action, []string{"iam:GetOpenIDConnectProvider"}) {
			wantResource = "arn:*:iam::*:oidc-provider/*"
		}
		if e.Resource != wantResource {
			t.Errorf("%v granted on %s, want %s", e.Action, e.Resource, wantResource)
		}
		for _, a := range e.Action {
			granted = append(granted, a)
			if wantCondition, known := conditions[a]; !known || !reflect.DeepEqual(e.PolicyCondition, wantCondition) {
				t.Errorf("%s granted with the condition %v, want %v", a, e.PolicyCondition, wantCondition)
			}
		}
	}
	slices.Sort(granted)
	if !slices.Equal(granted, want) {
		t.Errorf("granted %v, the controller calls %v", granted, want)
	}
}

// The whole lifecycle with an IAM user whose policy is the shipped
// CredentialsRequest's statements, on versitygw, which evaluates IAM
// policies on IAM calls: resource ARNs, iam:ResourceTag/<key> of an
// existing role, aws:RequestTag/<key> and aws:TagKeys of CreateRole and
// TagRole. It has no iam:PermissionsBoundary key (no permissions boundaries
// at all), so:
//   - with the statements exactly as shipped, CreateRole is refused, as AWS
//     refuses a CreateRole without a boundary, and so is every write to a
//     role the operator did not create, tagged as its own with these keys,
//     as AWS refuses it for a role without a boundary;
//   - with only the iam:PermissionsBoundary conditions dropped, everything
//     the controller does succeeds, and calls outside the grant are refused.
//
// aws:TagKeys on CreateRole is checked here only against the TagRole
// statement's presence: versitygw does not require iam:TagRole for tags
// given to CreateRole, as AWS does.
func TestLeastPrivilegeLifecycle(t *testing.T) {
	cr := readCredentialsRequest(t)
	ctx := context.Background()

	t.Run("as shipped, no CreateRole and no write without a boundary", func(t *testing.T) {
		f := newFixture(t, true)
		keyID, secret := f.user("shipped", policyOf(t, cr, ""))
		f.useKeys(keyID, secret)
		f.request("app", "apps", "app")
		if err := f.sync("app"); err != nil {
			t.Fatal(err)
		}
		f.wantRetry(retryInitial)
		f.wantCondition("app", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonAccessDenied,
			"iam:CreateRole", "spec.podIdentity.roles.permissionsBoundary")
		if _, ok := f.http.find("GetOpenIDConnectProvider"); !ok {
			t.Error("GetOpenIDConnectProvider was not called before CreateRole")
		}

		// A role under the path that the operator did not create, tagged as
		// its own with these keys: every write is still refused, since it
		// needs the role's boundary under policy/workload-access/, which such
		// a role lacks (versitygw sets iam:PermissionsBoundary for no role,
		// as AWS sets it for none without a boundary).
		user := iamClient(f.s, keyID, secret)
		name := aws.String(f.infraName + "-handmade")
		if _, err := f.root.CreateRole(ctx, &iam.CreateRoleInput{RoleName: name, Path: aws.String(iamrole.RolePath(f.infraName)),
			AssumeRolePolicyDocument: aws.String(f.trustFor("apps", "handmade", testAudience))}); err != nil {
			t.Fatal(err)
		}
		if _, err := user.TagRole(ctx, &iam.TagRoleInput{RoleName: name, Tags: []iamtypes.Tag{iamTag(iamrole.TagRequestUID, "forged")}}); err != nil {
			t.Logf("TagRole: %v; tagging as an admin", err)
			if _, err := f.root.TagRole(ctx, &iam.TagRoleInput{RoleName: name, Tags: []iamtypes.Tag{iamTag(iamrole.TagRequestUID, "forged")}}); err != nil {
				t.Fatal(err)
			}
		}
		for what, call := range map[string]func() error{
			"UpdateAssumeRolePolicy": func() error {
				_, err := user.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: name, PolicyDocument: aws.String(f.trustFor("apps", "attacker", testAudience))})
				return err
			},
			"PutRolePolicy": func() error {
				_, err := user.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: name, PolicyName: aws.String(iamrole.PolicyName),
					PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)})
				return err
			},
			"DeleteRolePolicy": func() error {
				_, err := user.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: name, PolicyName: aws.String(iamrole.PolicyName)})
				return err
			},
			"DeleteRole": func() error {
				_, err := user.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: name})
				return err
			},
		} {
			if code := awscall.ErrorCode(call()); code != "AccessDenied" {
				t.Errorf("%s on a role the operator did not create, tagged %s: %q, want AccessDenied", what, iamrole.TagRequestUID, code)
			}
		}
	})

	t.Run("without the boundary key, the lifecycle succeeds", func(t *testing.T) {
		f := newFixture(t, true)
		keyID, secret := f.user("operator", policyOf(t, cr, "iam:PermissionsBoundary"))
		f.useKeys(keyID, secret)
		f.serviceAccount("apps", "app", nil)
		f.request("app", "apps", "app")
		if err := f.sync("app"); err != nil {
			t.Fatalf("create: %v", err)
		}
		f.wantCondition("app", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionTrue, podidentityv1alpha1.ReasonProvisioned)
		f.wantCondition("app", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionTrue, podidentityv1alpha1.ReasonLinked)

		name := aws.String(f.roleName("app"))
		if _, err := f.root.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: name,
			PolicyDocument: aws.String(f.trustFor("apps", "other", testAudience))}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.root.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: name, PolicyName: aws.String(iamrole.PolicyName)}); err != nil {
			t.Fatal(err)
		}
		f.resetRecords()
		if err := f.sync("app"); err != nil {
			t.Fatalf("repair: %v", err)
		}
		if w := strings.Join(f.http.writes(), ","); w != "UpdateAssumeRolePolicy,PutRolePolicy" {
			t.Errorf("repair wrote %s", w)
		}
		// A role without the namespace tag (made by an earlier version) is
		// tagged under the grant.
		if _, err := f.root.UntagRole(ctx, &iam.UntagRoleInput{RoleName: name, TagKeys: []string{iamrole.TagNamespace}}); err != nil {
			t.Fatal(err)
		}
		f.resetRecords()
		if err := f.sync("app"); err != nil {
			t.Fatalf("tag repair: %v", err)
		}
		if w := strings.Join(f.http.writes(), ","); w != "TagRole" {
			t.Errorf("tag repair wrote %s", w)
		}
		f.wantCondition("app", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionTrue, podidentityv1alpha1.ReasonProvisioned)

		// Outside the grant: refused by IAM, whatever the operator's code does.
		user := iamClient(f.s, keyID, secret)
		theirs := f.trustFor("apps", "theirs", testAudience)
		if _, err := f.root.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(f.infraName + "-theirs"), Path: aws.String(iamrole.RolePath(f.infraName)),
			AssumeRolePolicyDocument: aws.String(theirs)}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.root.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(f.infraName + "-elsewhere"), Path: aws.String("/"),
			AssumeRolePolicyDocument: aws.String(theirs)}); err != nil {
			t.Fatal(err)
		}
		for what, call := range map[string]func() error{
			"GetRole outside /workload-access/": func() error {
				_, err := user.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(f.infraName + "-elsewhere")})
				return err
			},
			"CreateRole outside /workload-access/": func() error {
				_, err := user.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(f.infraName + "-mine"), Path: aws.String("/"), AssumeRolePolicyDocument: aws.String(theirs)})
				return err
			},
			"UpdateAssumeRolePolicy on a role without the request-uid tag": func() error {
				_, err := user.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String(f.infraName + "-theirs"), PolicyDocument: aws.String(theirs)})
				return err
			},
			"DeleteRole on a role without the request-uid tag": func() error {
				_, err := user.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(f.infraName + "-theirs")})
				return err
			},
			"CreateUser": func() error {
				_, err := user.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(f.infraName + "-escalate")})
				return err
			},
			"PutUserPolicy": func() error {
				_, err := user.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("operator-" + f.infraName), PolicyName: aws.String("more"),
					PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*","Resource":"*"}]}`)})
				return err
			},
		} {
			if code := awscall.ErrorCode(call()); code != "AccessDenied" {
				t.Errorf("%s: %q, want AccessDenied", what, code)
			}
		}

		// A role of a request's name outside the path: GetRole is refused as
		// for an absent role, CreateRole finds the name taken.
		if _, err := f.root.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(f.roleName("outside")), Path: aws.String("/"),
			AssumeRolePolicyDocument: aws.String(theirs)}); err != nil {
			t.Fatal(err)
		}
		f.request("outside", "apps", "outside")
		if err := f.sync("outside"); err != nil {
			t.Fatal(err)
		}
		f.wantCondition("outside", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonRoleNameTaken, "exists outside /workload-access/")
		f.markDeleted("outside")
		if err := f.sync("outside"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.root.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(f.roleName("outside"))}); err != nil {
			t.Errorf("the role outside the path: %v", err)
		}

		f.markDeleted("app")
		f.resetRecords()
		if err := f.sync("app"); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if w := strings.Join(f.http.writes(), ","); w != "DeleteRolePolicy,DeleteRole" {
			t.Errorf("deletion wrote %s", w)
		}
		if _, err := f.getRole("app"); awscall.ErrorCode(err) != "NoSuchEntity" {
			t.Errorf("the role is still there: %v", err)
		}
	})
}

// Under the shipped grant, GetRole of a role that is gone is refused, not
// NoSuchEntity: a refusal cannot tell a role deleted by hand from a grant
// narrowed since. A request that recorded a role keeps its finalizer and
// its roleARN, says why and what to check, is retried with backoff, and
// IAMRoleRequestDegraded says so; the admin who saw the role gone removes
// the finalizer.
func TestDeletionOfARoleAlreadyGoneUnderThePathGrant(t *testing.T) {
	cr := readCredentialsRequest(t)
	ctx := context.Background()
	f := newFixture(t, true)
	keyID, secret := f.user("operator", policyOf(t, cr, "iam:PermissionsBoundary"))
	f.useKeys(keyID, secret)
	f.serviceAccount("apps", "app", nil)
	f.request("app", "apps", "app")
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	arn := f.get("app").Status.RoleARN
	if arn == "" {
		t.Fatal("no role was provisioned")
	}
	name := aws.String(f.roleName("app"))
	if _, err := f.root.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: name, PolicyName: aws.String(iamrole.PolicyName)}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.root.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: name}); err != nil {
		t.Fatal(err)
	}
	f.drainEvents()
	f.markDeleted("app")
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	f.wantRetry(retryInitial)
	got := f.get("app")
	if len(got.Finalizers) != 1 || got.Status.RoleARN != arn {
		t.Errorf("finalizers %v, roleARN %q: want the finalizer and %s kept", got.Finalizers, got.Status.RoleARN, arn)
	}
	f.wantCondition("app", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonAccessDenied,
		"IAM refused to read role "+*name, "keeps status.roleARN and the finalizer", "aws iam get-role --role-name "+*name, "keeps its finalizer")
	f.wantDegraded(true, "IAMRoleRequest app", arn, "IAM refused to read role")
	sa, _ := f.kube.CoreV1().ServiceAccounts("apps").Get(ctx, "app", metav1.GetOptions{})
	if sa.Annotations[podidentityv1alpha1.RoleARNAnnotation] != arn {
		t.Errorf("the ServiceAccount was unlinked while the request stays: %v", sa.Annotations)
	}
}

// Under the grant, every write to an existing role but its boundary's needs
// the role's boundary under policy/workload-access/, so a role whose boundary
// was removed in IAM gets it back before anything else is written to it.
// versitygw keeps no boundary and refuses PutRolePermissionsBoundary, so
// every sync finds it missing: what is shown here is the order of the calls.
func TestBoundaryIsRepairedBeforeAnyOtherWrite(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, true)
	f.wa.Spec.PodIdentity.Roles.PermissionsBoundary = "arn:aws:iam::000000000000:policy/workload-access/boundary"
	f.request("app", "apps", "app")
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	name := aws.String(f.roleName("app"))
	if _, err := f.root.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: name,
		PolicyDocument: aws.String(f.trustFor("apps", "other", testAudience))}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.root.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: name, PolicyName: aws.String(iamrole.PolicyName)}); err != nil {
		t.Fatal(err)
	}
	f.resetRecords()
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(f.http.writes(), ","); w != "PutRolePermissionsBoundary" {
		t.Errorf("the repair of a role without its boundary wrote %s, want PutRolePermissionsBoundary before anything else", w)
	}
	f.wantCondition("app", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonIAMError, "iam:PutRolePermissionsBoundary")
}
