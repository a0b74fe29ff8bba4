package stschain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
)

// The names of the IAM roles contract (issue 25 phase 2), written out here
// rather than taken from the controller, so that the test checks the
// contract and not the controller against itself.
const (
	// iamGrantManifest is the CredentialsRequest of the operator's own IAM
	// rights; the cloud credential operator turns it into an IAM user's keys.
	iamGrantManifest = "manifests/0000_50_workload-access_02_iam-credentialsrequest.yaml"
	// operatorIAMUser is the IAM user the cloud credential operator would
	// create for that request.
	operatorIAMUser = "stschain-workload-access-operator"
	// rolePolicyName names the inline policy of every role.
	rolePolicyName = "workload-access"
	// requestUIDTag proves a role belongs to a request.
	requestUIDTag = "openshift.io/workload-access/request-uid"
	// requestNameTag names the request, for people.
	requestNameTag = "openshift.io/workload-access/request"
	// linkedByAnnotation is the UID of the request that annotated a
	// ServiceAccount.
	linkedByAnnotation = "podidentity.openshift.io/linked-by"
	// roleRequestFinalizer holds a request until its role is gone.
	roleRequestFinalizer = "podidentity.openshift.io/iam-role"
)

// iamGrant is what the operator's CredentialsRequest asks for: where the
// cloud credential operator writes the keys, and the statements of the
// IAM user's policy.
type iamGrant struct {
	SecretNamespace, SecretName string
	Statements                  []credentialsStatement
}

// credentialsStatement is a statement of the cloud credential operator's
// AWSProviderSpec, whose condition field is policyCondition.
type credentialsStatement struct {
	Effect          string                    `json:"effect"`
	Action          []string                  `json:"action"`
	Resource        string                    `json:"resource"`
	PolicyCondition map[string]map[string]any `json:"policyCondition,omitempty"`
}

// readIAMGrant reads the operator's IAM CredentialsRequest from manifests/.
func readIAMGrant() (*iamGrant, error) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(root, iamGrantManifest))
	if err != nil {
		return nil, err
	}
	// Strict, so that a field this test does not know (a condition the
	// user's policy would then lack) fails it rather than widening the grant.
	var request struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata"`
		Spec              struct {
			ServiceAccountNames []string               `json:"serviceAccountNames"`
			SecretRef           corev1.SecretReference `json:"secretRef"`
			ProviderSpec        struct {
				metav1.TypeMeta  `json:",inline"`
				StatementEntries []credentialsStatement `json:"statementEntries"`
			} `json:"providerSpec"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict(data, &request); err != nil {
		return nil, fmt.Errorf("%s: %w", iamGrantManifest, err)
	}
	if request.Kind != "CredentialsRequest" || len(request.Spec.ProviderSpec.StatementEntries) == 0 || request.Spec.SecretRef.Name == "" {
		return nil, fmt.Errorf("%s: want a CredentialsRequest with a secretRef and statementEntries, got kind %q, %d statements, secretRef %+v",
			iamGrantManifest, request.Kind, len(request.Spec.ProviderSpec.StatementEntries), request.Spec.SecretRef)
	}
	return &iamGrant{
		SecretNamespace: request.Spec.SecretRef.Namespace,
		SecretName:      request.Spec.SecretRef.Name,
		Statements:      request.Spec.ProviderSpec.StatementEntries,
	}, nil
}

// boundaryConditionKey is the condition key IAM sets to the permissions
// boundary a CreateRole or PutRolePermissionsBoundary carries, and to the
// role's own boundary for the other writes to a role.
const boundaryConditionKey = "iam:PermissionsBoundary"

// withoutBoundaryConditions is statements without their conditions on
// boundaryConditionKey, and what was dropped. versitygw implements no
// permissions boundaries: it ignores CreateRole's PermissionsBoundary,
// never sets the key (so a condition on it refuses every CreateRole and
// every write to a role) and has no PutRolePermissionsBoundary. Every other
// statement and condition of the grant stays as written.
func withoutBoundaryConditions(statements []credentialsStatement) ([]credentialsStatement, []string) {
	var out []credentialsStatement
	var dropped []string
	for _, st := range statements {
		conditions := map[string]map[string]any{}
		for operator, keys := range st.PolicyCondition {
			kept := map[string]any{}
			for key, value := range keys {
				if strings.EqualFold(key, boundaryConditionKey) {
					dropped = append(dropped, fmt.Sprintf("%v without its condition %s %s %v", st.Action, operator, key, value))
					continue
				}
				kept[key] = value
			}
			if len(kept) > 0 {
				conditions[operator] = kept
			}
		}
		st.PolicyCondition = conditions
		out = append(out, st)
	}
	return out, dropped
}

// policyFromStatements is the IAM policy a CredentialsRequest's statements
// stand for, as the cloud credential operator writes it.
func policyFromStatements(entries []credentialsStatement) (string, error) {
	var statements []map[string]any
	for _, e := range entries {
		s := map[string]any{"Effect": e.Effect, "Action": e.Action, "Resource": e.Resource}
		if len(e.PolicyCondition) > 0 {
			s["Condition"] = e.PolicyCondition
		}
		statements = append(statements, s)
	}
	doc, err := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": statements})
	// The grant names every partition (arn:*:), which AWS IAM accepts;
	// versitygw accepts only the aws partition, its roles' own.
	return strings.ReplaceAll(string(doc), `"arn:*:`, `"arn:aws:`), err
}

// grantRoles gives the operator IAM credentials the way a cluster does: an
// IAM user whose only policy is the operator's CredentialsRequest, its keys
// in the Secret that request names, and WorkloadAccess pointing the roles
// controller at this IAM and STS. It returns the user's IAM client.
func grantRoles(ctx context.Context) (*iam.Client, error) {
	grant, err := readIAMGrant()
	if err != nil {
		return nil, err
	}
	statements, dropped := withoutBoundaryConditions(grant.Statements)
	for _, d := range dropped {
		fmt.Printf("stschain: versitygw has no permissions boundaries: the operator's IAM user is granted %s\n", d)
	}
	doc, err := policyFromStatements(statements)
	if err != nil {
		return nil, err
	}
	if _, err := env.iam.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(operatorIAMUser)}); err != nil {
		return nil, fmt.Errorf("CreateUser %s: %w", operatorIAMUser, err)
	}
	_, err = env.iam.PutUserPolicy(ctx, &iam.PutUserPolicyInput{
		UserName: aws.String(operatorIAMUser), PolicyName: aws.String("workload-access-iam"), PolicyDocument: aws.String(doc),
	})
	if err != nil {
		return nil, fmt.Errorf("PutUserPolicy with the statements of %s: %w\n%s", iamGrantManifest, err, doc)
	}
	key, err := env.iam.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(operatorIAMUser)})
	if err != nil {
		return nil, fmt.Errorf("CreateAccessKey: %w", err)
	}
	keyID, secret := aws.ToString(key.AccessKey.AccessKeyId), aws.ToString(key.AccessKey.SecretAccessKey)
	_, err = env.kube.CoreV1().Secrets(grant.SecretNamespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: grant.SecretName},
		Data:       map[string][]byte{"aws_access_key_id": []byte(keyID), "aws_secret_access_key": []byte(secret)},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating the Secret %s/%s that %s names: %w", grant.SecretNamespace, grant.SecretName, iamGrantManifest, err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		wa, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return err
		}
		wa.Spec.PodIdentity.Roles.IAMEndpoint = env.s3.IAMEndpoint
		wa.Spec.PodIdentity.Roles.STSEndpoint = env.s3.IAMEndpoint
		_, err = env.operator.OperatorV1alpha1().WorkloadAccesses().Update(ctx, wa, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("setting WorkloadAccess spec.podIdentity.roles: %w", err)
	}
	creds := credentials.NewStaticCredentialsProvider(keyID, secret, "")
	return iam.New(iam.Options{Region: region, Credentials: creds, BaseEndpoint: aws.String(env.s3.IAMEndpoint), RetryMaxAttempts: 1}), nil
}

// accountOf is the account STS names for the operator's IAM user.
func accountOf(ctx context.Context, client *iam.Client) (string, error) {
	opts := client.Options()
	stsClient := sts.New(sts.Options{Region: region, Credentials: opts.Credentials, BaseEndpoint: aws.String(env.s3.IAMEndpoint)})
	out, err := stsClient.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return "", err
	}
	return aws.ToString(out.Account), nil
}

// iamRole is a role as IAM holds it.
type iamRole struct {
	ARN, Path string
	Tags      map[string]string
	// Trust and Policy are the trust policy and the inline policy
	// rolePolicyName.
	Trust, Policy policyDocument
	// PermissionsBoundary is the boundary's ARN, if any.
	PermissionsBoundary string
}

// readRole reads a role back from IAM with the admin's credentials.
func readRole(ctx context.Context, name string) (*iamRole, error) {
	got, err := env.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
	if err != nil {
		return nil, fmt.Errorf("GetRole %s: %w", name, err)
	}
	role := &iamRole{ARN: aws.ToString(got.Role.Arn), Path: aws.ToString(got.Role.Path), Tags: map[string]string{}}
	if b := got.Role.PermissionsBoundary; b != nil {
		role.PermissionsBoundary = aws.ToString(b.PermissionsBoundaryArn)
	}
	if role.Trust, err = parsePolicy(aws.ToString(got.Role.AssumeRolePolicyDocument)); err != nil {
		return nil, fmt.Errorf("role %s's trust policy: %w", name, err)
	}
	tags, err := env.iam.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: aws.String(name)})
	if err != nil {
		return nil, fmt.Errorf("ListRoleTags %s: %w", name, err)
	}
	for _, tag := range tags.Tags {
		role.Tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
	}
	inline, err := env.iam.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(rolePolicyName)})
	if err != nil {
		return nil, fmt.Errorf("GetRolePolicy %s %s: %w", name, rolePolicyName, err)
	}
	if role.Policy, err = parsePolicy(aws.ToString(inline.PolicyDocument)); err != nil {
		return nil, fmt.Errorf("role %s's policy %s: %w", name, rolePolicyName, err)
	}
	return role, nil
}

// isNoSuchEntity says whether IAM answered that what was asked for does not
// exist.
func isNoSuchEntity(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "NoSuchEntity"
}

// errorCode is the AWS error code of err ("" when it has none).
func errorCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// policyDocument is an IAM policy in a form two spellings of the same
// policy compare equal in: every value IAM allows as a string or a list is
// a sorted list.
type policyDocument struct {
	Version   string      `json:"Version"`
	Statement []statement `json:"Statement"`
}

type statement struct {
	// Sid is read so that it is no unknown field, and cleared: the
	// contract leaves it open.
	Sid       string                           `json:"Sid,omitempty"`
	Effect    string                           `json:"Effect"`
	Principal map[string]stringList            `json:"Principal,omitempty"`
	Action    stringList                       `json:"Action"`
	Resource  stringList                       `json:"Resource,omitempty"`
	Condition map[string]map[string]stringList `json:"Condition,omitempty"`
}

// stringList is a policy value written as one string or a list of them.
type stringList []string

func (l *stringList) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*l = stringList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return err
	}
	slices.Sort(many)
	*l = many
	return nil
}

// parsePolicy reads a policy as IAM returns it: URL-encoded JSON, with
// Statement one object or a list.
func parsePolicy(encoded string) (policyDocument, error) {
	text, err := url.QueryUnescape(encoded)
	if err != nil {
		return policyDocument{}, err
	}
	var raw struct {
		Version   string          `json:"Version"`
		Statement json.RawMessage `json:"Statement"`
	}
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return policyDocument{}, fmt.Errorf("%w: %s", err, text)
	}
	// Strict: an element this type does not hold (NotAction, NotResource,
	// NotPrincipal) would otherwise compare equal by being dropped.
	doc := policyDocument{Version: raw.Version}
	var one statement
	if err := decodeStrict(raw.Statement, &doc.Statement); err != nil {
		if err := decodeStrict(raw.Statement, &one); err != nil {
			return policyDocument{}, fmt.Errorf("%w: %s", err, text)
		}
		doc.Statement = []statement{one}
	}
	for i := range doc.Statement {
		doc.Statement[i].Sid = ""
	}
	return doc, nil
}

func decodeStrict(data []byte, out any) error {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	return decoder.Decode(out)
}

func (d policyDocument) String() string {
	out, _ := json.Marshal(d)
	return string(out)
}

// setUpRoles is the part of the package's setup phase 2 needs: the
// operator's IAM grant, and the cluster's infrastructureName and IAM account
// that role names and ARNs are made of.
func setUpRoles(ctx context.Context) error {
	var err error
	if env.operatorIAM, err = grantRoles(ctx); err != nil {
		return err
	}
	if env.account, err = accountOf(ctx, env.operatorIAM); err != nil {
		return fmt.Errorf("GetCallerIdentity with the operator's IAM keys: %w", err)
	}
	config, err := configclient.NewForConfig(env.cp.Config)
	if err != nil {
		return err
	}
	infra, err := config.ConfigV1().Infrastructures().Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		return err
	}
	if env.infrastructureName = infra.Status.InfrastructureName; env.infrastructureName == "" {
		return errors.New("infrastructures/cluster has no status.infrastructureName")
	}
	return nil
}

// The operator's IAM keys, holding exactly the statements of its
// CredentialsRequest, reach roles under its own path only: IAM refuses them
// a role elsewhere, an admin's role, and a change to their own rights.
func TestOperatorIAMGrantStopsAtItsRolePath(t *testing.T) {
	ctx := context.Background()
	ns := createNamespace(t)
	adminRole := ns + "-reader"
	createRole(t, ns, "reader")
	trust := policy(t, map[string]any{
		"Effect":    "Allow",
		"Principal": map[string]any{"Federated": env.providerARN},
		"Action":    "sts:AssumeRoleWithWebIdentity",
	})
	anything := policy(t, map[string]any{"Effect": "Allow", "Action": "*", "Resource": "*"})
	for call, do := range map[string]func() error{
		"CreateRole outside /workload-access/": func() error {
			_, err := env.operatorIAM.CreateRole(ctx, &iam.CreateRoleInput{
				RoleName: aws.String(ns + "-outside"), Path: aws.String("/stschain/"), AssumeRolePolicyDocument: aws.String(trust),
			})
			return err
		},
		"PutRolePolicy on an admin's role": func() error {
			_, err := env.operatorIAM.PutRolePolicy(ctx, &iam.PutRolePolicyInput{
				RoleName: aws.String(adminRole), PolicyName: aws.String(rolePolicyName), PolicyDocument: aws.String(anything),
			})
			return err
		},
		"UpdateAssumeRolePolicy of an admin's role": func() error {
			_, err := env.operatorIAM.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{
				RoleName: aws.String(adminRole), PolicyDocument: aws.String(trust),
			})
			return err
		},
		"DeleteRole of an admin's role": func() error {
			_, err := env.operatorIAM.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(adminRole)})
			return err
		},
		"PutUserPolicy on its own user": func() error {
			_, err := env.operatorIAM.PutUserPolicy(ctx, &iam.PutUserPolicyInput{
				UserName: aws.String(operatorIAMUser), PolicyName: aws.String("more"), PolicyDocument: aws.String(anything),
			})
			return err
		},
	} {
		if err := do(); errorCode(err) != "AccessDenied" {
			t.Errorf("%s with the operator's IAM keys: %v; want AccessDenied", call, err)
		}
	}
}

// grantAsShipped is an IAM client for a user of its own whose policy is the
// grant's statements exactly as the manifest writes them, the
// iam:PermissionsBoundary conditions included. versitygw never sets that key,
// as AWS sets none for a role that has no permissions boundary, so a
// statement that requires one refuses such a role on both; what versitygw
// cannot show is a role that has a boundary.
func grantAsShipped(t *testing.T, user string) *iam.Client {
	t.Helper()
	ctx := context.Background()
	grant, err := readIAMGrant()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := policyFromStatements(grant.Statements)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.iam.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(user)}); err != nil {
		t.Fatalf("CreateUser %s: %v", user, err)
	}
	if _, err := env.iam.PutUserPolicy(ctx, &iam.PutUserPolicyInput{
		UserName: aws.String(user), PolicyName: aws.String("workload-access-iam"), PolicyDocument: aws.String(doc),
	}); err != nil {
		t.Fatalf("PutUserPolicy with the statements of %s: %v\n%s", iamGrantManifest, err, doc)
	}
	key, err := env.iam.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(user)})
	if err != nil {
		t.Fatal(err)
	}
	creds := credentials.NewStaticCredentialsProvider(aws.ToString(key.AccessKey.AccessKeyId), aws.ToString(key.AccessKey.SecretAccessKey), "")
	return iam.New(iam.Options{Region: region, Credentials: creds, BaseEndpoint: aws.String(env.s3.IAMEndpoint), RetryMaxAttempts: 1})
}

// The operator's IAM keys cannot make a role under their path that they did
// not create their own by tagging it: a hand-made role there (or another
// tool's) has no permissions boundary under policy/workload-access/, and the
// grant changes or deletes only a role that has one, whatever its tags say.
// The role stays as the admin made it.
func TestOperatorIAMGrantCannotTakeOverARoleByTaggingIt(t *testing.T) {
	ctx := context.Background()
	ns := createNamespace(t)
	operator := grantAsShipped(t, ns+"-grant-as-shipped")
	name := aws.String(ns + "-handmade")
	trust := policy(t, map[string]any{
		"Effect":    "Allow",
		"Principal": map[string]any{"Federated": env.providerARN},
		"Action":    "sts:AssumeRoleWithWebIdentity",
		"Condition": map[string]any{"StringEquals": map[string]any{
			issuerHostPath() + ":sub": "system:serviceaccount:" + ns + ":handmade",
			issuerHostPath() + ":aud": stsAudience,
		}},
	})
	admins := policy(t, map[string]any{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::" + dataBucket + "/*"})
	if _, err := env.iam.CreateRole(ctx, &iam.CreateRoleInput{
		RoleName: name, Path: aws.String("/workload-access/" + ns + "/"), AssumeRolePolicyDocument: aws.String(trust),
	}); err != nil {
		t.Fatalf("CreateRole as an admin: %v", err)
	}
	if _, err := env.iam.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: name, PolicyName: aws.String("admins"), PolicyDocument: aws.String(admins)}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = env.iam.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: name, PolicyName: aws.String("admins")})
		_, _ = env.iam.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: name, PolicyName: aws.String(rolePolicyName)})
		_, _ = env.iam.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: name})
	})

	// The tag the operator's own roles carry. Whether the keys may add it
	// (AWS has no condition key that tells the TagRole of a CreateRole from
	// one on an existing role) does not matter: the role carries it below
	// either way.
	uid := []iamtypes.Tag{{Key: aws.String(requestUIDTag), Value: aws.String("00000000-0000-0000-0000-000000000000")}}
	if _, err := operator.TagRole(ctx, &iam.TagRoleInput{RoleName: name, Tags: uid}); err != nil {
		t.Logf("TagRole %s with the operator's IAM keys: %v; tagging it as an admin", requestUIDTag, err)
		if _, err := env.iam.TagRole(ctx, &iam.TagRoleInput{RoleName: name, Tags: uid}); err != nil {
			t.Fatal(err)
		}
	}

	outsider := policy(t, map[string]any{
		"Effect":    "Allow",
		"Principal": map[string]any{"AWS": "arn:aws:iam::999999999999:root"},
		"Action":    "sts:AssumeRole",
	})
	anything := policy(t, map[string]any{"Effect": "Allow", "Action": "*", "Resource": "*"})
	for _, try := range []struct {
		call string
		do   func() error
	}{
		{"UpdateAssumeRolePolicy to an outside account", func() error {
			_, err := operator.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: name, PolicyDocument: aws.String(outsider)})
			return err
		}},
		{"PutRolePolicy allowing everything", func() error {
			_, err := operator.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: name, PolicyName: aws.String(rolePolicyName), PolicyDocument: aws.String(anything)})
			return err
		}},
		{"DeleteRolePolicy of the admin's policy", func() error {
			_, err := operator.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: name, PolicyName: aws.String("admins")})
			return err
		}},
		{"DeleteRole", func() error {
			_, err := operator.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: name})
			return err
		}},
	} {
		if err := try.do(); errorCode(err) != "AccessDenied" {
			t.Errorf("%s of a role tagged %s that the operator did not create, with the operator's IAM keys: %v; want AccessDenied", try.call, requestUIDTag, err)
		}
	}

	got, err := env.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: name})
	if err != nil {
		t.Fatalf("the admin's role: %v", err)
	}
	held, err := parsePolicy(aws.ToString(got.Role.AssumeRolePolicyDocument))
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := parsePolicy(trust); held.String() != want.String() {
		t.Errorf("the admin's role now trusts %s, want %s", held, want)
	}
	if _, err := env.iam.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: name, PolicyName: aws.String("admins")}); err != nil {
		t.Errorf("the admin's inline policy: %v", err)
	}
	if _, err := env.iam.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: name, PolicyName: aws.String(rolePolicyName)}); !isNoSuchEntity(err) {
		t.Errorf("inline policy %s on the admin's role: %v, want NoSuchEntity", rolePolicyName, err)
	}
}
