package iamrole

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNarrowedTrust(t *testing.T) {
	aud := "sts.amazonaws.com"
	fill := func(namespaces ...string) string {
		return FillTrustPolicy(setProviders, namespaces, "app", aud, MaxTrustPolicySize).Policy
	}
	moved := append(slices.Clone(setProviders), Provider{ARN: "arn:aws:iam::111122223333:oidc-provider/new.example.com", HostPath: "new.example.com"})
	for _, c := range []struct {
		name, held, wanted string
		want               []string // the :sub lists of the narrowed policy, "" when none is
	}{
		{"a namespace leaves while others join: only the leaving goes",
			fill("a", "b", "c"), fill("a", "c", "d", "e"), []string{"system:serviceaccount:a:app,system:serviceaccount:c:app"}},
		{"only joining: nothing to remove", fill("a"), fill("a", "b"), nil},
		{"only leaving: that is the refused update itself", fill("a", "b"), fill("a"), nil},
		{"nothing in common: no policy admits nothing", fill("a"), fill("b"), nil},
		{"the issuer moves and a namespace leaves: the held provider keeps the rest",
			fill("a", "b"), FillTrustPolicy(moved, []string{"a", "c"}, "app", aud, MaxTrustPolicySize).Policy, []string{"system:serviceaccount:a:app"}},
		{"another audience held: nothing is admitted for the wanted one",
			FillTrustPolicy(setProviders, []string{"a", "b"}, "app", "other", MaxTrustPolicySize).Policy, fill("a", "c"), nil},
		{"a held statement of another form admits nothing",
			strings.Replace(fill("a", "b"), `"Action"`, `"NotAction"`, 1), fill("a", "c"), nil},
		{"held is not JSON", "%7B", fill("a"), nil},
		{"the providers in another order, nothing left: nothing to remove",
			FillTrustPolicy([]Provider{moved[1], moved[0]}, []string{"a", "b"}, "app", aud, MaxTrustPolicySize).Policy,
			FillTrustPolicy(moved, []string{"a", "b", "c"}, "app", aud, MaxTrustPolicySize).Policy, nil},
		{"a Deny an admin added in IAM is dropped, as writing wanted would drop it",
			strings.Replace(fill("a", "b"), `"Statement":[`, `"Statement":[{"Effect":"Deny","Principal":{"Federated":"`+setProviders[0].ARN+
				`"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"example.com/oidc:sub":"system:serviceaccount:a:app"}}},`, 1),
			fill("a", "c"), []string{"system:serviceaccount:a:app"}},
		{"a statement whose keys name no one issuer admits nothing",
			strings.Replace(fill("a", "b"), `"example.com/oidc:sub"`, `":sub"`, 1), fill("a", "c"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := NarrowedTrust(c.held, c.wanted)
			if ok != (c.want != nil) {
				t.Fatalf("ok %v, want %v: %s", ok, c.want != nil, got)
			}
			if !ok {
				return
			}
			var subs []string
			for _, s := range subjectsOf(t, got) {
				subs = append(subs, strings.Join(s, ","))
			}
			if !slices.Equal(subs, c.want) {
				t.Errorf("narrowed :sub lists %v, want %v\n%s", subs, c.want, got)
			}
			for _, g := range grantsOf(got) {
				if !within(g, grantsOf(c.held)) || !within(g, grantsOf(c.wanted)) {
					t.Errorf("narrowed grant %+v admits what held or wanted did not", g)
				}
			}
		})
	}
}

// within says whether every token g admits, some grant of gs admits.
func within(g grant, gs []grant) bool {
	for _, sub := range g.subjects {
		if !slices.ContainsFunc(gs, func(h grant) bool { return h.admitsAll(g.arn, g.hostPath, sub, g.audiences) }) {
			return false
		}
	}
	return true
}

// FuzzNarrowedTrust: whatever IAM holds (a document anyone with IAM rights
// may have written) and whichever namespaces are wanted, the narrowed
// policy admits nothing that held or wanted does not admit, and is one this
// package can read back.
func FuzzNarrowedTrust(f *testing.F) {
	aud := "sts.amazonaws.com"
	f.Add(FillTrustPolicy(setProviders, []string{"a", "b", "c"}, "app", aud, MaxTrustPolicySize).Policy, "a,c,d", "app")
	f.Add(`{"Statement":{"Effect":"Allow","Principal":{"Federated":["`+setProviders[0].ARN+`"]},"Action":["sts:AssumeRoleWithWebIdentity"],"Condition":{"StringEquals":{"example.com/oidc:sub":"system:serviceaccount:a:app","example.com/oidc:aud":["sts.amazonaws.com","x"]}}}}`, "a,b", "app")
	f.Add(`{"Statement":[{"Effect":"Allow","Principal":{"Federated":"x"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"a:b:sub":"s","a:b:aud":"x"}}}]}`, "s", "")
	f.Add("", "", "")
	f.Fuzz(func(t *testing.T, held, list, name string) {
		if !utf8.ValidString(list) || !utf8.ValidString(name) {
			return // names are ASCII (the CRD's patterns)
		}
		namespaces := strings.Split(list, ",")
		if len(namespaces) > 100 {
			namespaces = namespaces[:100]
		}
		wanted := FillTrustPolicy(setProviders, namespaces, name, aud, 1<<20).Policy
		got, ok := NarrowedTrust(held, wanted)
		if !ok {
			if got != "" {
				t.Fatalf("not ok, yet a policy: %s", got)
			}
			return
		}
		grants := grantsOf(got)
		if len(grants) == 0 {
			t.Fatalf("a narrowed policy this package cannot read: %s", got)
		}
		heldGrants, wantedGrants := grantsOf(held), grantsOf(wanted)
		for _, g := range grants {
			if !within(g, heldGrants) || !within(g, wantedGrants) {
				t.Fatalf("narrowed grant %+v is not within held %+v and wanted %+v", g, heldGrants, wantedGrants)
			}
		}
		if SameDocument(got, held) || SameDocument(got, wanted) {
			t.Fatalf("narrowed is held or wanted: %s", got)
		}
	})
}
