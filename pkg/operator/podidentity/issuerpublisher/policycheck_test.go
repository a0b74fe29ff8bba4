package issuerpublisher

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
)

// documents of bucket b, as unsafeStatements gets them.
var bDocuments = documentARNs("b", "us-east-2")

func TestUnsafeStatements(t *testing.T) {
	ours := `{"Sid":"AllowReadPublicAccess","Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":["arn:aws:s3:::b/keys.json","arn:aws:s3:::b/.well-known/openid-configuration"]}`
	for _, tc := range []struct {
		name, statement string
		// want is the findings' descriptions, in order.
		want []string
	}{
		{"ours", ours, nil},
		{"an admin's read of every object", `{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}`, nil},
		{"an admin's deny of plain HTTP", `{"Sid":"DenyHTTP","Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["arn:aws:s3:::b","arn:aws:s3:::b/*"],"Condition":{"Bool":{"aws:SecureTransport":"false"}}}`, nil},
		{"the same, the value in a list", `{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":"arn:aws:s3:::b/*","Condition":{"Bool":{"aws:SecureTransport":["false"]}}}`, nil},
		{"a write for one account", `{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::444455556666:root"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::b/*"}`, nil},
		{"a deny of one account", `{"Effect":"Deny","Principal":{"AWS":"arn:aws:iam::444455556666:root"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}`, nil},
		{"a deny of everyone elsewhere", `{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/private/*"}`, nil},
		{"a deny of everyone's writes", `{"Effect":"Deny","Principal":"*","Action":["s3:PutObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::b/*"}`, nil},

		{"a public write", `{"Sid":"PlantedWrite","Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::b/*"}`,
			[]string{`statement 1 (Sid "PlantedWrite") allows everyone s3:PutObject`}},
		{"a public s3:*, principal as AWS in a list", `{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam::444455556666:root","*"]},"Action":"s3:*","Resource":"*"}`,
			[]string{`statement 1 allows everyone s3:*`}},
		{"a public read that also lists", `{"Effect":"Allow","Principal":"*","Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::b","arn:aws:s3:::b/*"]}`,
			[]string{`statement 1 allows everyone s3:GetObject, s3:ListBucket`}},
		{"s3:Get* reaches the policy and ACLs", `{"Effect":"Allow","Principal":"*","Action":"s3:Get*","Resource":"arn:aws:s3:::b/*"}`,
			[]string{`statement 1 allows everyone s3:Get*`}},
		{"NotAction", `{"Effect":"Allow","Principal":"*","NotAction":"s3:DeleteBucket","Resource":"arn:aws:s3:::b/*"}`,
			[]string{`statement 1 allows everyone all actions but s3:DeleteBucket`}},
		{"NotPrincipal", `{"Effect":"Allow","NotPrincipal":{"AWS":"arn:aws:iam::444455556666:root"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::b/*"}`,
			[]string{`statement 1 allows everyone s3:PutObject`}},
		{"a conditioned public write, its secret not shown", `{"Sid":"CDN","Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::b/*","Condition":{"StringLike":{"aws:Referer":"s3cr3t-referer-token"}}}`,
			[]string{`statement 1 (Sid "CDN") allows everyone s3:PutObject under a Condition (its values are not shown)`}},
		{"a deny of reads", `{"Sid":"NoReads","Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/keys.json"}`,
			[]string{`statement 1 (Sid "NoReads") denies everyone s3:GetObject on the issuer documents`}},
		{"a deny by wildcard, case folded", `{"Effect":"Deny","Principal":{"AWS":"*"},"Action":"S3:get*","Resource":"arn:aws:s3:::b/.well-known/*"}`,
			[]string{`statement 1 denies everyone S3:get* on the issuer documents`}},
		{"a deny of all but writes", `{"Effect":"Deny","Principal":"*","NotAction":"s3:PutObject","Resource":"arn:aws:s3:::b/*"}`,
			[]string{`statement 1 denies everyone all actions but s3:PutObject on the issuer documents`}},
		{"a deny of all but another object", `{"Effect":"Deny","Principal":"*","Action":"s3:*","NotResource":"arn:aws:s3:::b/index.html"}`,
			[]string{`statement 1 denies everyone s3:* on the issuer documents`}},
		{"a deny outside a VPC", `{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*","Condition":{"StringNotEquals":{"aws:SourceVpce":"vpce-1a2b3c4d"}}}`,
			[]string{`statement 1 denies everyone s3:GetObject on the issuer documents under a Condition (its values are not shown)`}},
		{"a Sid and actions that are not names", `{"Sid":"<script>\n","Effect":"Allow","Principal":"*","Action":["s3:Put\u0000Object","s3:A","s3:B","s3:C","s3:D"],"Resource":"*"}`,
			[]string{`statement 1 (Sid "script") allows everyone s3:PutObject, s3:A, s3:B, s3:C, 1 more`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			policy := `{"Version":"2012-10-17","Statement":[` + tc.statement + `]}`
			var got []string
			for _, f := range unsafeStatements(policy, bDocuments) {
				got = append(got, f.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings\n%q\nwant\n%q", got, tc.want)
			}
			// A statement alone, not in a list, is read the same.
			if n := len(unsafeStatements(`{"Statement":`+tc.statement+`}`, bDocuments)); n != len(tc.want) {
				t.Errorf("%d findings for the statement outside a list", n)
			}
		})
	}
}

func TestWildcardMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"", "", true}, {"", "a", false},
		{"s3:*", "s3:GetObject", true}, {"s3:Get*", "s3:GetObject", true}, {"s3:Put*", "s3:GetObject", false},
		{"s3:?etObject", "s3:GetObject", true}, {"s3:GetObject?", "s3:GetObject", false},
		{"a*b*c", "axxbyyc", true}, {"a*b*c", "axxbyy", false}, {"*a*a*a*", "aaaa", true}, {"a**", "a", true},
		{"arn:aws:s3:::b/*", "arn:aws:s3:::b/.well-known/openid-configuration", true},
		{"arn:aws:s3:::b/*/keys.json", "arn:aws:s3:::b/keys.json", false},
	} {
		if got := wildcardMatch(tc.pattern, tc.s); got != tc.want {
			t.Errorf("wildcardMatch(%q, %q) = %v", tc.pattern, tc.s, got)
		}
	}
}

func (f *fixture) warnings(reason string) []string {
	var out []string
	for _, e := range f.recorder.Events() {
		if e.Reason == reason {
			out = append(out, e.Type+": "+e.Message)
		}
	}
	return out
}

// A public write planted in the bucket policy is kept (the publisher owns
// one statement, not the policy), but reported: a False condition naming
// the statement and an Event, once. The condition never shows a
// Condition's values. Once the statement goes, the condition turns True.
func TestUnsafeBucketPolicyIsReported(t *testing.T) {
	f := newFixture(t, healthy(t))
	f.mustSync()
	f.wantCondition(IssuerBucketPolicySafe, operatorv1.ConditionTrue, "AsExpected", "lets everyone read the issuer documents and nothing more")

	bucket := f.s3.buckets["mycluster-workload-access-oidc"]
	clean := bucket.policy
	planted := strings.Replace(clean, `"Statement":[`, `"Statement":[{"Sid":"PlantedWrite","Effect":"Allow","Principal":{"AWS":"*"},"Action":["s3:PutObject"],"Resource":"arn:aws:s3:::mycluster-workload-access-oidc/*","Condition":{"StringEquals":{"aws:Referer":"s3cr3t"}}},`, 1)
	bucket.policy = planted
	f.clock.now = f.clock.now.Add(ResyncInterval)
	f.mustSync()
	f.wantCondition(IssuerBucketPolicySafe, operatorv1.ConditionFalse, ReasonPolicyGrantsEveryoneMore,
		`statement 1 (Sid "PlantedWrite") allows everyone s3:PutObject under a Condition`)
	f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionFalse, "AsExpected")
	if bucket.policy != planted {
		t.Errorf("the policy was rewritten: %s", bucket.policy)
	}
	if c := f.condition(IssuerBucketPolicySafe); strings.Contains(c.Message, "s3cr3t") {
		t.Errorf("the condition shows a Condition's value: %s", c.Message)
	}
	if w := f.warnings("IssuerBucketPolicyUnsafe"); len(w) != 1 || !strings.HasPrefix(w[0], "Warning: ") || strings.Contains(w[0], "s3cr3t") {
		t.Errorf("events %q", w)
	}

	// Nothing changed: no second Event, no write.
	f.s3.calls = nil
	f.clock.now = f.clock.now.Add(ResyncInterval)
	f.mustSync()
	if w := f.warnings("IssuerBucketPolicyUnsafe"); len(w) != 1 {
		t.Errorf("events %q after a resync", w)
	}
	if w := f.s3.writes(); len(w) != 0 {
		t.Errorf("wrote %v", w)
	}

	// S3 fails before the policy is read: the last reading stands.
	f.s3.fail = map[string]error{"HeadBucket": errors.New("connection refused")}
	f.clock.now = f.clock.now.Add(ResyncInterval)
	if err := f.sync(); err == nil {
		t.Fatal("no error")
	}
	f.wantCondition(IssuerBucketPolicySafe, operatorv1.ConditionFalse, ReasonPolicyGrantsEveryoneMore)
	f.s3.fail = nil

	// A deny of the anonymous read joins it.
	bucket.policy = strings.Replace(planted, `"Statement":[`, `"Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::mycluster-workload-access-oidc/keys.json"},`, 1)
	f.clock.now = f.clock.now.Add(ResyncInterval)
	f.mustSync()
	f.wantCondition(IssuerBucketPolicySafe, operatorv1.ConditionFalse, ReasonPolicyDeniesAnonymousRead,
		"statement 1 denies everyone s3:GetObject on the issuer documents", `statement 2 (Sid "PlantedWrite")`)
	if w := f.warnings("IssuerBucketPolicyUnsafe"); len(w) != 2 {
		t.Errorf("events %q", w)
	}

	bucket.policy = clean
	f.clock.now = f.clock.now.Add(ResyncInterval)
	f.mustSync()
	f.wantCondition(IssuerBucketPolicySafe, operatorv1.ConditionTrue, "AsExpected")
	if w := f.warnings("IssuerBucketPolicySafe"); len(w) != 1 || !strings.HasPrefix(w[0], "Normal: ") {
		t.Errorf("events %q", w)
	}

	// Pod identity off: nothing published, nothing to judge.
	f.was.Update(&operatorv1alpha1.WorkloadAccess{ObjectMeta: f.workloadAccess().ObjectMeta, Spec: operatorv1alpha1.WorkloadAccessSpec{
		PodIdentity: operatorv1alpha1.PodIdentitySpec{Mode: operatorv1alpha1.PodIdentityDisabled}}})
	f.mustSync()
	f.wantCondition(IssuerBucketPolicySafe, operatorv1.ConditionUnknown, ReasonNotPublished)
}

// Every call on the bucket expects it to belong to the account of the
// credentials, which STS names once per set of credentials; a bucket of
// that name in another account is refused, and nothing is written to it.
func TestEveryBucketCallExpectsTheCredentialsAccount(t *testing.T) {
	f := newFixture(t, healthy(t))
	f.mustSync()
	f.clock.now = f.clock.now.Add(ResyncInterval)
	f.mustSync()
	if len(f.s3.withoutOwner) != 0 {
		t.Errorf("calls without an expected bucket owner: %v", f.s3.withoutOwner)
	}
	if f.accountLookups != 1 {
		t.Errorf("%d account lookups for one set of credentials", f.accountLookups)
	}

	squatted := newFixture(t, healthy(t))
	squatted.s3.buckets["mycluster-workload-access-oidc"] = &fakeBucket{owner: "999988887777", objects: map[string]fakeObject{}}
	if err := squatted.sync(); err == nil {
		t.Fatal("published into another account's bucket")
	}
	squatted.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionTrue, ReasonAccessDenied,
		`S3 HeadBucket on bucket "mycluster-workload-access-oidc": Forbidden`, "belong to account "+testAccount)
	if w := squatted.s3.writes(); len(w) != 0 {
		t.Errorf("wrote %v to another account's bucket", w)
	}
}

func TestAccountLookupFailureIsReported(t *testing.T) {
	f := newFixture(t, healthy(t))
	f.c.lookupAccount = func(context.Context, connection) (string, error) {
		return "", errors.New("no answer from " + testSecret)
	}
	if err := f.sync(); err == nil {
		t.Fatal("published without knowing the account")
	}
	f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionTrue, ReasonCallerIdentityUnknown, "STS GetCallerIdentity")
	if strings.Contains(f.condition("IssuerPublisherDegraded").Message, testSecret) || len(f.s3.calls) != 0 {
		t.Errorf("condition %q, S3 calls %v", f.condition("IssuerPublisherDegraded").Message, f.s3.calls)
	}
}

// Fuzzes what is read from a bucket policy anyone with s3:PutBucketPolicy
// may have written: no panic; findings show only cleaned text; the policy
// the publisher writes is recognised as its own on the next read and
// keeps every finding.
func FuzzUnsafeStatements(f *testing.F) {
	for _, seed := range []string{
		``, `{`, `null`, `{"Statement":null}`, `{"Statement":"x"}`, `{"Statement":[1,"a",null]}`,
		`{"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}}`,
		`{"Version":"2012-10-17","Statement":[{"Sid":"X","Effect":"Deny","NotPrincipal":{"AWS":["*"]},"NotAction":["s3:Put*"],"NotResource":"arn:aws:s3:::b/x","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`,
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":[1,"*"]},"Action":[null,"s3:GetObject","*"],"Resource":[{}]}]}`,
	} {
		f.Add(seed)
	}
	ours := readStatement("b", "us-east-2")
	f.Fuzz(func(t *testing.T, policy string) {
		findings := unsafeStatements(policy, bDocuments)
		for _, finding := range findings {
			text := finding.String()
			for _, r := range text {
				if r < ' ' || r > '~' {
					t.Fatalf("finding %q shows %q", text, r)
				}
			}
		}
		written, _ := withReadStatement(policy, ours)
		if _, again := withReadStatement(written, ours); again {
			t.Fatalf("%s is not recognised as ours", written)
		}
		if after := unsafeStatements(written, bDocuments); len(after) < len(findings) {
			t.Fatalf("writing our statement hid findings: %v -> %v", findings, after)
		}
	})
}
