package iamrole

import (
	"regexp"
	"strings"
	"testing"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

// grantedBoundary is the shipped grant's iam:PermissionsBoundary pattern;
// iamrolerequest's TestCredentialsRequestGrantsExactlyTheCallsMade pins the
// manifest to it.
var grantedBoundary = "arn:*:iam::*:policy" + BoundaryPathPrefix + "*"

// arnLike matches as IAM's ArnLike does: * is any run of characters, / included.
func arnLike(pattern, arn string) bool {
	quoted := regexp.QuoteMeta(pattern)
	quoted = strings.ReplaceAll(quoted, `\*`, ".*")
	quoted = strings.ReplaceAll(quoted, `\?`, ".")
	return regexp.MustCompile("^" + quoted + "$").MatchString(arn)
}

func TestCheckBoundary(t *testing.T) {
	const account = "123456789012"
	for _, c := range []struct {
		boundary, partition, account string
		reason, messageHas           string
	}{
		{"", "aws", "", podidentityv1alpha1.ReasonPermissionsBoundaryNotSet, "aws iam create-policy --path /workload-access/"},
		{"", "aws-cn", account, podidentityv1alpha1.ReasonPermissionsBoundaryNotSet, `arn:aws-cn:iam::123456789012:policy/workload-access/workload-access-boundary`},
		{"arn:aws:iam::123456789012:policy/workload-access/boundary", "aws", "", "", ""},
		{"arn:aws:iam::123456789012:policy/workload-access/team/boundary", "aws", account, "", ""},
		{"arn:aws-us-gov:iam::123456789012:policy/workload-access/b", "aws-us-gov", account, "", ""},
		{"arn:aws:iam::123456789012:policy/boundary", "aws", "", podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, "not under the policy path /workload-access/"},
		{"arn:aws:iam::123456789012:policy/workload-accessX/b", "aws", "", podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, "not under the policy path"},
		{"arn:aws:iam::123456789012:policy/workload-access/", "aws", "", podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, "not under the policy path"},
		{"arn:aws:iam::aws:policy/AdministratorAccess", "aws", "", podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, "not under the policy path"},
		{"arn:aws:iam::123456789012:role/workload-access/b", "aws", "", podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, "not the ARN of a managed IAM policy"},
		{"arn:aws:iam::123456789012:policy/workload-access/b", "aws-cn", "", podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed,
			"name the policy as arn:aws-cn:iam::123456789012:policy/workload-access/b"},
		{"arn:aws:iam::210987654321:policy/workload-access/b", "aws", account, podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, "of the account 210987654321"},
	} {
		p := CheckBoundary(c.boundary, c.partition, c.account)
		switch {
		case c.reason == "" && p != nil:
			t.Errorf("CheckBoundary(%q, %s, %q) refused: %s", c.boundary, c.partition, c.account, p.Message)
		case c.reason != "" && p == nil:
			t.Errorf("CheckBoundary(%q, %s, %q) accepted, want %s", c.boundary, c.partition, c.account, c.reason)
		case p != nil && (p.Reason != c.reason || !strings.Contains(p.Message, c.messageHas)):
			t.Errorf("CheckBoundary(%q, %s, %q) = %s %q, want %s with %q", c.boundary, c.partition, c.account, p.Reason, p.Message, c.reason, c.messageHas)
		}
		if p == nil && !arnLike(grantedBoundary, c.boundary) {
			t.Errorf("CheckBoundary accepted %q, which the grant's %s refuses", c.boundary, grantedBoundary)
		}
		// The ARN the message tells the admin to set is one the grant allows.
		if p != nil {
			for _, suggested := range regexp.MustCompile(`arn:[a-z-]+:iam::[0-9<>a-z]+:policy/[^"' ]+`).FindAllString(p.Message, -1) {
				if strings.Contains(suggested, "workload-access-boundary") && !arnLike(grantedBoundary, suggested) {
					t.Errorf("the message suggests %s, which the grant's %s refuses", suggested, grantedBoundary)
				}
			}
		}
	}
}

// A boundary from the WorkloadAccess is an admin's input: whatever it is,
// the check answers without panicking, and what it accepts the grant allows,
// in the partition asked for.
func FuzzCheckBoundary(f *testing.F) {
	f.Add("arn:aws:iam::123456789012:policy/workload-access/b", "aws", "123456789012")
	f.Add("arn:aws-cn:iam::123456789012:policy/workload-access/a/b", "aws-cn", "")
	f.Add("arn:::::", "aws", "")
	f.Add("arn:aws:iam::1:policy/workload-access//", "aws", "1")
	f.Fuzz(func(t *testing.T, boundary, partition, account string) {
		p := CheckBoundary(boundary, partition, account)
		if p != nil {
			if p.Message == "" || (p.Reason != podidentityv1alpha1.ReasonPermissionsBoundaryNotSet && p.Reason != podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed) {
				t.Fatalf("refusal %+v", p)
			}
			return
		}
		if !arnLike(grantedBoundary, boundary) || !strings.HasPrefix(boundary, "arn:"+partition+":") {
			t.Fatalf("accepted %q for partition %q, outside the grant %s", boundary, partition, grantedBoundary)
		}
		if account != "" && strings.Split(boundary, ":")[4] != account {
			t.Fatalf("accepted %q for the account %q", boundary, account)
		}
	})
}
