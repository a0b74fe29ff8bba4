package iamrolerequest

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscredentials "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

// onAWS points the controller at AWS IAM and STS, as on a cluster without
// endpoint overrides; the recorder sends those calls on to versitygw.
func (f *fixture) onAWS() {
	f.t.Helper()
	to, err := url.Parse(f.s.IAMEndpoint)
	if err != nil {
		f.t.Fatal(err)
	}
	f.http.aws = to
	f.wa.Spec.PodIdentity.Roles.IAMEndpoint, f.wa.Spec.PodIdentity.Roles.STSEndpoint = "", ""
}

// account is the one versitygw's STS names for the root credentials.
func (f *fixture) account() string {
	f.t.Helper()
	client := sts.New(sts.Options{Region: testRegion, Credentials: awscredentials.NewStaticCredentialsProvider(f.s.AccessKeyID, f.s.SecretAccessKey, ""),
		BaseEndpoint: aws.String(f.s.IAMEndpoint), RetryMaxAttempts: 1})
	out, err := client.GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	if err != nil {
		f.t.Fatal(err)
	}
	return aws.ToString(out.Account)
}

// grantedBoundaries are the ArnLike iam:PermissionsBoundary patterns of the
// shipped grant's CreateRole and PutRolePermissionsBoundary statements.
func grantedBoundaries(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, e := range readCredentialsRequest(t).Spec.ProviderSpec.StatementEntries {
		for _, a := range e.Action {
			if a != "iam:CreateRole" && a != "iam:PutRolePermissionsBoundary" {
				continue
			}
			values, _ := e.PolicyCondition["ArnLike"]["iam:PermissionsBoundary"].([]any)
			for _, v := range values {
				if s, ok := v.(string); ok {
					out[strings.TrimPrefix(a, "iam:")] = append(out[strings.TrimPrefix(a, "iam:")], s)
				}
			}
		}
	}
	if len(out["CreateRole"]) == 0 || len(out["PutRolePermissionsBoundary"]) == 0 {
		t.Fatalf("the shipped grant conditions CreateRole and PutRolePermissionsBoundary on no boundary: %v", out)
	}
	return out
}

// arnLike matches as IAM's ArnLike does: * is any run of characters, / included.
func arnLike(pattern, arn string) bool {
	quoted := strings.ReplaceAll(regexp.QuoteMeta(pattern), `\*`, ".*")
	return regexp.MustCompile("^" + strings.ReplaceAll(quoted, `\?`, ".") + "$").MatchString(arn)
}

// On AWS IAM, no CreateRole and no PutRolePermissionsBoundary is ever sent
// without a boundary the shipped grant allows: AWS would refuse it, and the
// boundary is what caps every role the operator's keys make. versitygw
// cannot evaluate boundaries, so this records what is sent and compares it
// with the grant read from the manifest.
func TestNoRoleWithoutAGrantedBoundary(t *testing.T) {
	f := newFixture(t, true)
	f.onAWS()
	account := f.account()
	grant := grantedBoundaries(t)

	// Day 1 begins with the boundary: it is asked for first, before the
	// operator's keys exist.
	keys := f.secret
	f.secret = nil
	f.request("no-keys", "apps", "no-keys")
	if err := f.sync("no-keys"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("no-keys", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonPermissionsBoundaryNotSet)
	f.secret = keys

	for _, c := range []struct{ request, boundary, reason, messageHas string }{
		{"unset", "", podidentityv1alpha1.ReasonPermissionsBoundaryNotSet, "aws iam create-policy --path /workload-access/"},
		{"elsewhere", "arn:aws:iam::" + account + ":policy/boundary", podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, "not under the policy path /workload-access/"},
		{"china", "arn:aws-cn:iam::" + account + ":policy/workload-access/boundary", podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, "partition aws-cn"},
		{"other-account", "arn:aws:iam::999999999999:policy/workload-access/boundary", podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, "account 999999999999"},
	} {
		f.wa.Spec.PodIdentity.Roles.PermissionsBoundary = c.boundary
		f.request(c.request, "apps", c.request)
		f.resetRecords()
		f.retries = nil
		if err := f.sync(c.request); err != nil {
			t.Fatal(err)
		}
		f.wantCondition(c.request, podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, c.reason, c.messageHas, "nothing was sent to IAM")
		for _, call := range f.http.calls {
			if call.action != "GetCallerIdentity" {
				t.Errorf("%s: the controller called %s; with the boundary %q nothing goes to IAM", c.request, call.action, c.boundary)
			}
		}
		if len(f.retries) != 0 {
			t.Errorf("%s: retried after %v; an admin's setting is awaited, not retried", c.request, f.retries)
		}
	}

	// A granted boundary: the role is created with it; versitygw keeps no
	// boundary, so the next sync puts it again, with the same one.
	granted := "arn:aws:iam::" + account + ":policy/workload-access/boundary"
	f.wa.Spec.PodIdentity.Roles.PermissionsBoundary = granted
	f.request("bounded", "apps", "bounded")
	f.resetRecords()
	for range 2 {
		if err := f.sync("bounded"); err != nil {
			t.Fatal(err)
		}
	}
	sent := map[string]int{}
	for _, call := range f.http.calls {
		patterns, checked := grant[call.action]
		if !checked {
			continue
		}
		sent[call.action]++
		got := call.params.Get("PermissionsBoundary")
		allowed := false
		for _, p := range patterns {
			allowed = allowed || arnLike(p, got)
		}
		if got != granted || !allowed {
			t.Errorf("%s sent with the boundary %q: want %s, which the grant's %v allows", call.action, got, granted, patterns)
		}
	}
	if sent["CreateRole"] != 1 || sent["PutRolePermissionsBoundary"] != 1 {
		t.Errorf("sent %v, want one CreateRole and one PutRolePermissionsBoundary", sent)
	}
}
