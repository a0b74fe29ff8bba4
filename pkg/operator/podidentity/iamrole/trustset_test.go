package iamrole

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var setProviders = []Provider{{ARN: "arn:aws:iam::111122223333:oidc-provider/example.com/oidc", HostPath: "example.com/oidc"}}

// subjectsOf reads back, per statement, the :sub list of a trust policy.
func subjectsOf(t *testing.T, policy string) [][]string {
	t.Helper()
	var doc struct {
		Statement []struct {
			Condition map[string]map[string][]string
		}
	}
	if err := json.Unmarshal([]byte(policy), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, policy)
	}
	var out [][]string
	for _, s := range doc.Statement {
		for key, values := range s.Condition["StringEquals"] {
			if strings.HasSuffix(key, ":sub") {
				out = append(out, values)
			}
		}
	}
	return out
}

func TestFillTrustPolicy(t *testing.T) {
	namespaces := []string{"team-a-1", "team-a-2", "team-a-3"}
	all := FillTrustPolicy(setProviders, namespaces, "app", "sts.amazonaws.com", DefaultTrustPolicySize)
	if all.Fitted != 3 || all.Size != TrustPolicySize(all.Policy) || all.Size > DefaultTrustPolicySize {
		t.Fatalf("all three fit in 2,048: got %+v", all)
	}
	want := []string{"system:serviceaccount:team-a-1:app", "system:serviceaccount:team-a-2:app", "system:serviceaccount:team-a-3:app"}
	if got := subjectsOf(t, all.Policy); len(got) != 1 || !slices.Equal(got[0], want) {
		t.Fatalf("subjects %v, want %v", got, want)
	}
	one := FillTrustPolicy(setProviders, namespaces[:1], "app", "sts.amazonaws.com", DefaultTrustPolicySize)
	if one.Policy != TrustPolicy(setProviders, "team-a-1", "app", "sts.amazonaws.com") {
		t.Errorf("a set of one is not the single request's trust policy:\n%s\n%s", one.Policy, TrustPolicy(setProviders, "team-a-1", "app", "sts.amazonaws.com"))
	}

	// The limit exactly at two namespaces' size: two fit, the third (the
	// youngest) is left out; one character less and only the first fits.
	two := FillTrustPolicy(setProviders, namespaces[:2], "app", "sts.amazonaws.com", MaxTrustPolicySize)
	for _, c := range []struct {
		limit, fitted int
	}{{two.Size, 2}, {two.Size - 1, 1}, {one.Size, 1}, {one.Size - 1, 0}, {0, 0}} {
		got := FillTrustPolicy(setProviders, namespaces, "app", "sts.amazonaws.com", c.limit)
		if got.Fitted != c.fitted {
			t.Errorf("limit %d: %d fit, want %d", c.limit, got.Fitted, c.fitted)
		}
		if got.Fitted == 0 && got.Policy != "" {
			t.Errorf("limit %d: a policy without subjects: %s", c.limit, got.Policy)
		}
		if got.Fitted > 0 && !slices.Equal(subjectsOf(t, got.Policy)[0], want[:c.fitted]) {
			t.Errorf("limit %d: subjects %v, want the oldest %d", c.limit, subjectsOf(t, got.Policy), c.fitted)
		}
	}

	// Whitespace is not counted, as IAM counts.
	if n := TrustPolicySize("{ \"a\" :\n\t\"b c\" }"); n != 10 {
		t.Errorf("size %d, want 10", n)
	}

	// Two issuers while the cluster's issuer moves: each statement holds
	// every subject, and the size counts both.
	moving := append(slices.Clone(setProviders), Provider{ARN: "arn:aws:iam::111122223333:oidc-provider/old.example.com", HostPath: "old.example.com"})
	both := FillTrustPolicy(moving, namespaces, "app", "sts.amazonaws.com", DefaultTrustPolicySize)
	if got := subjectsOf(t, both.Policy); both.Fitted != 3 || len(got) != 2 || !slices.Equal(got[0], want) || !slices.Equal(got[1], want) {
		t.Errorf("two providers: fitted %d, subjects %v", both.Fitted, got)
	}
}

// How many namespaces fit the default and the raised limit, with names of
// a typical length: the figure docs/aws-roles.md gives.
func TestTrustPolicyCapacity(t *testing.T) {
	var namespaces []string
	for i := range 200 {
		namespaces = append(namespaces, fmt.Sprintf("team-a-%03d", i))
	}
	provider := []Provider{{ARN: "arn:aws:iam::111122223333:oidc-provider/sjenning-abcde-workload-access-oidc.s3.us-west-1.amazonaws.com",
		HostPath: "sjenning-abcde-workload-access-oidc.s3.us-west-1.amazonaws.com"}}
	small := FillTrustPolicy(provider, namespaces, "app", DefaultAudience, DefaultTrustPolicySize)
	large := FillTrustPolicy(provider, namespaces, "app", DefaultAudience, MaxTrustPolicySize)
	t.Logf("namespaces of 10 characters, ServiceAccount app: %d fit in %d, %d in %d", small.Fitted, DefaultTrustPolicySize, large.Fitted, MaxTrustPolicySize)
	if small.Fitted != 41 || large.Fitted != 94 {
		t.Errorf("capacity changed: %d and %d; update docs/aws-roles.md", small.Fitted, large.Fitted)
	}
}

// FuzzFillTrustPolicy: whatever the names and limit, the policy is whole
// JSON within the limit, holds exactly the first Fitted subjects, and one
// more would not have fit.
func FuzzFillTrustPolicy(f *testing.F) {
	f.Add("team-a-1,team-a-2,team-a-3", "app", "sts.amazonaws.com", 600)
	f.Add("a", "\"\\\u2028<", " ", 0)
	f.Add(strings.Repeat("x,", 300), "n", "aud", 4096)
	f.Fuzz(func(t *testing.T, list, name, audience string, limit int) {
		if !utf8.ValidString(list) || !utf8.ValidString(name) || !utf8.ValidString(audience) {
			return // names are ASCII (the CRD's patterns); JSON would replace the rest
		}
		namespaces := strings.Split(list, ",")
		if len(namespaces) > 400 {
			namespaces = namespaces[:400]
		}
		limit %= 8192
		got := FillTrustPolicy(setProviders, namespaces, name, audience, limit)
		if got.Fitted == 0 {
			if got.Policy != "" {
				t.Fatalf("no subject fits, yet a policy: %s", got.Policy)
			}
		} else {
			if got.Size > limit || got.Size != TrustPolicySize(got.Policy) {
				t.Fatalf("size %d (counted %d) over limit %d", got.Size, TrustPolicySize(got.Policy), limit)
			}
			var want []string
			for _, ns := range namespaces[:got.Fitted] {
				want = append(want, Subject(ns, name))
			}
			if subs := subjectsOf(t, got.Policy); len(subs) != 1 || !slices.Equal(subs[0], want) {
				t.Fatalf("subjects %v, want %v", subs, want)
			}
		}
		if got.Fitted < len(namespaces) {
			more := FillTrustPolicy(setProviders, namespaces[:got.Fitted+1], name, audience, 1<<30)
			if more.Size <= limit {
				t.Fatalf("%d fitted, but %d make %d <= %d", got.Fitted, got.Fitted+1, more.Size, limit)
			}
		}
	})
}
