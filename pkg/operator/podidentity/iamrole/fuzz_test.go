package iamrole

import (
	"encoding/json"
	"errors"
	"net/url"
	"testing"
	"unicode/utf8"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

// FuzzPolicyDocument: any statement an IAMRoleRequest can hold makes a JSON
// policy that holds it back exactly, or a size error; never a panic and
// never a document over IAM's limit.
func FuzzPolicyDocument(f *testing.F) {
	f.Add("Allow", "s3:*", "s3:GetObject", "*", "StringEquals", "aws:SourceVpc", "vpc-1", 1)
	f.Add("Deny", "iam:*", "", "arn:aws:s3:::b/<x>&\u2028", "", "", "", 3)
	f.Add("Allow", "\xff", "\"", "\\", "Null", "k", "\x00", 100)
	f.Fuzz(func(t *testing.T, effect, action1, action2, resource, operator, key, value string, copies int) {
		if copies < 1 || copies > 100 {
			copies = 1 + (copies%100+100)%100
		}
		entry := podidentityv1alpha1.StatementEntry{Effect: effect, Action: []string{action1}, Resource: resource}
		if action2 != "" {
			entry.Action = append(entry.Action, action2)
		}
		if operator != "" {
			entry.PolicyCondition = map[string]map[string][]string{operator: {key: {value}}}
		}
		entries := make([]podidentityv1alpha1.StatementEntry, copies)
		for i := range entries {
			entries[i] = entry
		}
		text, err := PolicyDocument(entries)
		if errors.Is(err, ErrPolicyTooLarge) {
			return
		}
		if err != nil {
			t.Fatalf("PolicyDocument: %v", err)
		}
		if countNonSpace(text) > MaxPolicySize {
			t.Fatalf("a policy of %d characters was accepted", countNonSpace(text))
		}
		var back struct {
			Version   string
			Statement []struct {
				Effect    string
				Action    []string
				Resource  string
				Condition map[string]map[string][]string
			}
		}
		if err := json.Unmarshal([]byte(text), &back); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, text)
		}
		if back.Version != policyVersion || len(back.Statement) != copies {
			t.Fatalf("version %q, %d statements", back.Version, len(back.Statement))
		}
		s := back.Statement[0]
		// Invalid UTF-8 becomes U+FFFD in JSON; compare only what survives.
		if validUTF8(effect, action1, action2, resource, operator, key, value) {
			if s.Effect != effect || s.Resource != resource || len(s.Action) != len(entry.Action) || s.Action[0] != action1 {
				t.Fatalf("statement changed: %+v from %+v", s, entry)
			}
			if operator != "" && s.Condition[operator][key][0] != value {
				t.Fatalf("condition changed: %+v", s.Condition)
			}
		}
		// What IAM returns (encoded) is the same document, and no drift.
		if !SameDocument(text, text) {
			t.Fatal("a document is not the same as itself")
		}
		if d := Compare(Wanted{Trust: text, Policy: text}, Held{Trust: url.PathEscape(text), Policy: url.QueryEscape(text), PolicyFound: true}); d.Trust {
			t.Fatalf("drift in an unchanged document: %+v", d)
		}
	})
}

// FuzzDecodeDocument: whatever IAM (or something posing as it) returns,
// decoding and comparing never panic, and a document survives IAM's
// encoding.
func FuzzDecodeDocument(f *testing.F) {
	f.Add(`%7B%22Version%22%3A%222012-10-17%22%7D`)
	f.Add(`{"Statement":[{"Action":["a"]}]}`)
	f.Add(`%`)
	f.Add(`[1,2,[3]]`)
	f.Fuzz(func(t *testing.T, raw string) {
		decoded, err := DecodeDocument(raw)
		if err == nil && !json.Valid([]byte(decoded)) {
			t.Fatalf("DecodeDocument(%q) = %q, not JSON", raw, decoded)
		}
		_ = SameDocument(raw, decoded)
		if json.Valid([]byte(raw)) {
			back, err := DecodeDocument(url.PathEscape(raw))
			if err != nil {
				t.Fatalf("an encoded document did not decode: %v", err)
			}
			if back != raw {
				t.Fatalf("an encoded document came back as %q", back)
			}
		}
	})
}

// validUTF8 says whether every string survives JSON unchanged (invalid
// UTF-8 becomes U+FFFD, as does U+FFFD itself).
func validUTF8(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}
