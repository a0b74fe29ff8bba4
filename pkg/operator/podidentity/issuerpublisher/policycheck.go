package issuerpublisher

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// The publisher keeps the statements of the bucket policy it did not
// write (an admin's deny of plain HTTP, say). It reads them, though, for
// the two kinds that undo what the issuer relies on, and reports them:
// anyone able to write keys.json can mint tokens AWS trusts, and a reader
// refused the documents is an STS that rejects every token.

// findingKind is what an unsafe statement does.
type findingKind int

const (
	// grantsEveryoneMore: an Allow for everyone of more than s3:GetObject.
	grantsEveryoneMore findingKind = iota
	// deniesAnonymousRead: a Deny for everyone that covers reading the
	// issuer documents.
	deniesAnonymousRead
)

// policyFinding is one unsafe statement, described by what it does and
// never by its Condition's values, which may hold secrets (a Referer
// shared with a CDN, say).
type policyFinding struct {
	kind findingKind
	// index is the statement's position in the policy, from 1.
	index int
	// sid is the statement's Sid, reduced to the characters IAM allows.
	sid string
	// actions are the statement's actions, or NotAction's prefixed "all but".
	actions []string
	// conditional says whether a Condition limits the statement.
	conditional bool
}

// maxListed bounds what a condition message lists.
const (
	maxListedFindings = 5
	maxListedActions  = 4
	maxSidLength      = 64
)

func (f policyFinding) String() string {
	which := fmt.Sprintf("statement %d", f.index)
	if f.sid != "" {
		which += fmt.Sprintf(" (Sid %q)", f.sid)
	}
	actions := f.actions
	if len(actions) > maxListedActions {
		actions = append(actions[:maxListedActions:maxListedActions], fmt.Sprintf("%d more", len(f.actions)-maxListedActions))
	}
	var text string
	switch f.kind {
	case grantsEveryoneMore:
		text = fmt.Sprintf("%s allows everyone %s", which, strings.Join(actions, ", "))
	default:
		text = fmt.Sprintf("%s denies everyone %s on the issuer documents", which, strings.Join(actions, ", "))
	}
	if f.conditional {
		text += " under a Condition (its values are not shown)"
	}
	return text
}

// describeFindings is one message for findings, the first few listed.
func describeFindings(bucket string, findings []policyFinding) string {
	var parts []string
	for i, f := range findings {
		if i == maxListedFindings {
			parts = append(parts, fmt.Sprintf("and %d more", len(findings)-maxListedFindings))
			break
		}
		parts = append(parts, f.String())
	}
	return fmt.Sprintf("the policy of S3 bucket %s has statements the publisher did not write that let anyone change the issuer documents or refuse them to readers: %s",
		bucket, strings.Join(parts, "; "))
}

// unsafeStatements finds, in a bucket policy, the statements that grant
// everyone more than s3:GetObject, and those that deny everyone reading
// one of documents (object ARNs). A policy that is not JSON has none: S3
// accepts only JSON, and the publisher replaces it anyway.
func unsafeStatements(policy string, documents []string) []policyFinding {
	var doc map[string]any
	if json.Unmarshal([]byte(policy), &doc) != nil {
		return nil
	}
	var statements []any
	switch s := doc["Statement"].(type) {
	case []any:
		statements = s
	case map[string]any:
		statements = []any{s}
	}
	var findings []policyFinding
	for i, s := range statements {
		m, ok := s.(map[string]any)
		if !ok || !forEveryone(m) {
			continue
		}
		f := policyFinding{index: i + 1, sid: cleanSid(m["Sid"]), conditional: m["Condition"] != nil}
		f.actions = listedActions(m)
		switch m["Effect"] {
		case "Allow":
			if !onlyGetObject(m) {
				f.kind = grantsEveryoneMore
				findings = append(findings, f)
			}
		case "Deny":
			if coversAction(m, "s3:GetObject") && coversAnyResource(m, documents) && !onlyInsecureTransport(m["Condition"]) {
				f.kind = deniesAnonymousRead
				findings = append(findings, f)
			}
		}
	}
	return findings
}

// forEveryone says whether a statement's principal is everyone, the
// anonymous reader included: "*", {"AWS": "*"} (alone or in a list), or
// NotPrincipal, which names those left out.
func forEveryone(m map[string]any) bool {
	if m["NotPrincipal"] != nil {
		return true
	}
	switch p := m["Principal"].(type) {
	case string:
		return p == "*"
	case map[string]any:
		for _, v := range stringList(p["AWS"]) {
			if v == "*" {
				return true
			}
		}
	}
	return false
}

// onlyGetObject says whether an Allow grants s3:GetObject and nothing else.
func onlyGetObject(m map[string]any) bool {
	if m["NotAction"] != nil {
		return false
	}
	actions := stringList(m["Action"])
	for _, a := range actions {
		if !strings.EqualFold(a, "s3:GetObject") {
			return false
		}
	}
	return len(actions) > 0
}

// coversAction says whether a statement's Action (or NotAction) covers action.
func coversAction(m map[string]any, action string) bool {
	if m["NotAction"] != nil {
		return !anyMatches(stringList(m["NotAction"]), action, true)
	}
	return anyMatches(stringList(m["Action"]), action, true)
}

// coversAnyResource says whether a statement's Resource (or NotResource)
// covers one of resources.
func coversAnyResource(m map[string]any, resources []string) bool {
	for _, r := range resources {
		if m["NotResource"] != nil {
			if !anyMatches(stringList(m["NotResource"]), r, false) {
				return true
			}
		} else if anyMatches(stringList(m["Resource"]), r, false) {
			return true
		}
	}
	return false
}

// onlyInsecureTransport says whether condition limits a Deny to plain
// HTTP, which STS never uses: the usual hardening, not a refusal.
func onlyInsecureTransport(condition any) bool {
	want := map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}}
	if reflect.DeepEqual(condition, want) {
		return true
	}
	want["Bool"] = map[string]any{"aws:SecureTransport": []any{"false"}}
	return reflect.DeepEqual(condition, want)
}

func anyMatches(patterns []string, s string, foldCase bool) bool {
	for _, p := range patterns {
		if foldCase {
			p, s = strings.ToLower(p), strings.ToLower(s)
		}
		if wildcardMatch(p, s) {
			return true
		}
	}
	return false
}

// wildcardMatch matches IAM's wildcards: * any run of characters, ? one.
func wildcardMatch(pattern, s string) bool {
	p, i := 0, 0
	star, resume := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, resume = p, i
			p++
		case star >= 0:
			resume++
			p, i = star+1, resume
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// listedActions are the actions a finding names, cleaned.
func listedActions(m map[string]any) []string {
	prefix, list := "", stringList(m["Action"])
	if m["NotAction"] != nil {
		prefix, list = "all actions but ", stringList(m["NotAction"])
	}
	var out []string
	for _, a := range list {
		out = append(out, prefix+clean(a, "*?:"))
	}
	if len(out) == 0 {
		out = []string{"(no action)"}
	}
	return out
}

// stringList reads a policy element that is a string or a list of them.
func stringList(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func cleanSid(v any) string {
	s, _ := v.(string)
	return clean(s, "")
}

// clean keeps the letters, digits and extra characters of s, at most
// maxSidLength of them: what a condition message may show of a statement.
func clean(s, extra string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() == maxSidLength {
			b.WriteString("...")
			break
		}
		if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || strings.ContainsRune(extra, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
