package iamrole

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"unicode"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

// policyVersion is the only IAM policy language version with variables.
const policyVersion = "2012-10-17"

// ErrPolicyTooLarge: the statements make a policy over MaxPolicySize.
var ErrPolicyTooLarge = errors.New("policy too large")

type document struct {
	Version   string      `json:"Version"`
	Statement []statement `json:"Statement"`
}

type statement struct {
	Effect    string                         `json:"Effect"`
	Principal map[string]string              `json:"Principal,omitempty"`
	Action    any                            `json:"Action"`
	Resource  string                         `json:"Resource,omitempty"`
	Condition map[string]map[string][]string `json:"Condition,omitempty"`
}

// PolicyDocument is the role's inline policy: one statement per entry, as
// the enhancement writes it. A policy over IAM's MaxPolicySize characters
// (whitespace not counted) is ErrPolicyTooLarge, so nothing is sent that
// IAM would refuse half-way.
func PolicyDocument(entries []podidentityv1alpha1.StatementEntry) (string, error) {
	if len(entries) == 0 {
		return "", errors.New("no statementEntries: a policy needs at least one statement")
	}
	doc := document{Version: policyVersion}
	for _, e := range entries {
		s := statement{Effect: e.Effect, Action: slices.Clone(e.Action), Resource: e.Resource}
		if len(e.PolicyCondition) > 0 {
			s.Condition = e.PolicyCondition
		}
		doc.Statement = append(doc.Statement, s)
	}
	text, err := marshal(doc)
	if err != nil {
		return "", err
	}
	if n := countNonSpace(text); n > MaxPolicySize {
		return "", fmt.Errorf("%w: the statements make a policy of %d characters (whitespace not counted); IAM allows %d per role", ErrPolicyTooLarge, n, MaxPolicySize)
	}
	return text, nil
}

// Provider is an IAM OIDC provider a role trusts: its ARN, and the
// issuer's host and path, the prefix of its condition keys.
type Provider struct {
	ARN, HostPath string
}

// TrustPolicy lets the pods of one ServiceAccount, with tokens of audience,
// assume the role through the given OIDC providers and nothing else: one
// statement per provider, since each names its own condition keys. Several
// while the cluster's issuer moves (tokens of the old one are accepted for
// a while); one otherwise.
func TrustPolicy(providers []Provider, namespace, name, audience string) string {
	return trustPolicy(providers, []string{Subject(namespace, name)}, audience)
}

// Subject is the token's sub claim of a ServiceAccount.
func Subject(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

func trustPolicy(providers []Provider, subjects []string, audience string) string {
	grants := make([]grant, 0, len(providers))
	for _, p := range providers {
		grants = append(grants, grant{arn: p.ARN, hostPath: p.HostPath, subjects: subjects, audiences: []string{audience}})
	}
	return grantsPolicy(grants)
}

// grantsPolicy is the trust policy of one statement per grant.
func grantsPolicy(grants []grant) string {
	doc := document{Version: policyVersion}
	for _, g := range grants {
		doc.Statement = append(doc.Statement, statement{
			Effect:    "Allow",
			Principal: map[string]string{"Federated": g.arn},
			Action:    "sts:AssumeRoleWithWebIdentity",
			Condition: map[string]map[string][]string{"StringEquals": {
				g.hostPath + ":sub": g.subjects,
				g.hostPath + ":aud": g.audiences,
			}},
		})
	}
	text, err := marshal(doc)
	if err != nil {
		panic(err) // strings and maps of strings always marshal
	}
	return text
}

// TrustedProviders are the provider ARNs a trust policy names as
// Federated principals, in order; nil for a document that is not one.
func TrustedProviders(trust string) []string {
	var doc struct {
		Statement []struct {
			Principal struct {
				Federated any
			}
		}
	}
	if err := json.Unmarshal([]byte(trust), &doc); err != nil {
		return nil
	}
	var arns []string
	for _, s := range doc.Statement {
		switch f := s.Principal.Federated.(type) {
		case string:
			arns = append(arns, f)
		case []any:
			for _, a := range f {
				if text, ok := a.(string); ok {
					arns = append(arns, text)
				}
			}
		}
	}
	return arns
}

// marshal writes compact JSON without HTML escaping: IAM stores what it is
// sent, and "<" as \u003c would only make documents harder to read.
func marshal(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func countNonSpace(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

// DecodeDocument is a policy document as IAM returns it (GetRole's
// AssumeRolePolicyDocument, GetRolePolicy's PolicyDocument): percent-encoded
// per RFC 3986, where "+" is a plus sign, not a space. A document that is
// not encoded (IAM-compatible servers differ) is returned as it is.
func DecodeDocument(raw string) (string, error) {
	if strings.HasPrefix(strings.TrimSpace(raw), "{") && json.Valid([]byte(raw)) {
		return raw, nil
	}
	decoded, err := url.PathUnescape(raw)
	if err != nil {
		return "", fmt.Errorf("the policy document IAM returned is neither JSON nor percent-encoded JSON: %w", err)
	}
	if !json.Valid([]byte(decoded)) {
		return "", errors.New("the policy document IAM returned does not decode to JSON")
	}
	return decoded, nil
}

// SameDocument says whether two policy documents mean the same to IAM as
// far as this operator writes them: equal after decoding, with a
// one-element list equal to its element ("Action": ["s3:*"] and "s3:*")
// and lists of strings compared as sets. IAM may return a document
// rewritten that way; any other difference is drift to repair. A document
// that is not JSON is never the same as anything.
func SameDocument(a, b string) bool {
	na, errA := normalized(a)
	nb, errB := normalized(b)
	return errA == nil && errB == nil && reflect.DeepEqual(na, nb)
}

func normalized(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the document")
	}
	return normalize(v), nil
}

func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = normalize(e)
		}
		return out
	case []any:
		items := make([]any, len(t))
		allStrings := true
		for i, e := range t {
			items[i] = normalize(e)
			if _, ok := items[i].(string); !ok {
				allStrings = false
			}
		}
		if allStrings {
			strs := make([]string, len(items))
			for i, e := range items {
				strs[i] = e.(string)
			}
			slices.Sort(strs)
			strs = slices.Compact(strs)
			items = items[:len(strs)]
			for i, s := range strs {
				items[i] = s
			}
		}
		if len(items) == 1 {
			return items[0]
		}
		return items
	default:
		return v
	}
}
