package iamrole

import (
	"encoding/json"
	"slices"
	"strings"
)

// A trust policy update that adds and removes subjects at once is refused
// whole when IAM refuses what it adds (a policy over IAM's real quota, a
// provider it does not know): then what it removes would stay trusted.
// NarrowedTrust is the update that only removes.

// grant is what one statement of TrustPolicy's form admits: tokens through
// provider ARN whose sub is one of subjects and whose aud is one of
// audiences.
type grant struct {
	arn, hostPath       string
	subjects, audiences []string
}

// NarrowedTrust is the trust policy admitting only what both held and
// wanted admit: for each statement of wanted, the subjects of its :sub that
// a statement of held, of TrustPolicy's form, admits through the same
// provider for the same audience. It admits nothing wanted does not, nor
// anything held's statements of that form do not; a statement of held of
// any other form (an admin's edit in IAM, a Deny among them) is dropped, as
// writing wanted would drop it. ok is false when it would admit nothing
// (IAM refuses a trust policy without statements), removes nothing held's
// statements of that form admit, or is wanted (the update that was
// refused).
func NarrowedTrust(held, wanted string) (policy string, ok bool) {
	heldGrants, wantedGrants := grantsOf(held), grantsOf(wanted)
	var narrowed []grant
	for _, w := range wantedGrants {
		var subjects []string
		for _, sub := range w.subjects {
			if slices.ContainsFunc(heldGrants, func(h grant) bool { return h.admitsAll(w.arn, w.hostPath, sub, w.audiences) }) && !slices.Contains(subjects, sub) {
				subjects = append(subjects, sub)
			}
		}
		if len(subjects) > 0 {
			narrowed = append(narrowed, grant{arn: w.arn, hostPath: w.hostPath, subjects: subjects, audiences: w.audiences})
		}
	}
	if len(narrowed) == 0 {
		return "", false
	}
	if !removesAny(heldGrants, narrowed) {
		return "", false
	}
	policy = grantsPolicy(narrowed)
	if SameDocument(policy, wanted) {
		return "", false
	}
	return policy, true
}

// removesAny says whether some token a grant of held admits, no grant of
// narrowed admits: whether writing narrowed removes anything.
func removesAny(held, narrowed []grant) bool {
	for _, h := range held {
		for _, sub := range h.subjects {
			for _, aud := range h.audiences {
				if !slices.ContainsFunc(narrowed, func(n grant) bool { return n.admitsAll(h.arn, h.hostPath, sub, []string{aud}) }) {
					return true
				}
			}
		}
	}
	return false
}

// admitsAll says whether g admits subject through arn for every audience.
func (g grant) admitsAll(arn, hostPath, subject string, audiences []string) bool {
	if g.arn != arn || g.hostPath != hostPath || !slices.Contains(g.subjects, subject) {
		return false
	}
	for _, aud := range audiences {
		if !slices.Contains(g.audiences, aud) {
			return false
		}
	}
	return true
}

// grantsOf reads the statements of a trust policy that have TrustPolicy's
// form exactly: Allow, one Federated principal, the one action
// sts:AssumeRoleWithWebIdentity, and a Condition of StringEquals on the
// provider's :sub and :aud and nothing else. Any other statement, and a
// document that is not JSON, yields nothing.
func grantsOf(document string) []grant {
	var doc struct {
		Statement json.RawMessage
	}
	if json.Unmarshal([]byte(document), &doc) != nil {
		return nil
	}
	var raws []json.RawMessage
	if json.Unmarshal(doc.Statement, &raws) != nil {
		raws = []json.RawMessage{doc.Statement} // a single statement may stand alone
	}
	var out []grant
	for _, raw := range raws {
		if g, ok := grantOf(raw); ok {
			out = append(out, g)
		}
	}
	return out
}

func grantOf(raw json.RawMessage) (grant, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return grant{}, false
	}
	for key := range fields {
		if key != "Sid" && key != "Effect" && key != "Principal" && key != "Action" && key != "Condition" {
			return grant{}, false // NotAction, Resource, a typo: not a form this reads
		}
	}
	var effect string
	var principal map[string]json.RawMessage
	var condition map[string]map[string]json.RawMessage
	if json.Unmarshal(fields["Effect"], &effect) != nil || effect != "Allow" ||
		json.Unmarshal(fields["Principal"], &principal) != nil || len(principal) != 1 ||
		json.Unmarshal(fields["Condition"], &condition) != nil || len(condition) != 1 || len(condition["StringEquals"]) != 2 {
		return grant{}, false
	}
	arns, ok := strings1(principal["Federated"])
	if !ok || len(arns) != 1 {
		return grant{}, false
	}
	if actions, ok := strings1(fields["Action"]); !ok || len(actions) != 1 || actions[0] != "sts:AssumeRoleWithWebIdentity" {
		return grant{}, false
	}
	g := grant{arn: arns[0]}
	seen := false
	for key, value := range condition["StringEquals"] {
		values, ok := strings1(value)
		hostPath, claim, found := cutLast(key, ":")
		if !ok || !found || (seen && hostPath != g.hostPath) {
			return grant{}, false
		}
		g.hostPath, seen = hostPath, true
		switch claim {
		case "sub":
			g.subjects = values
		case "aud":
			g.audiences = values
		default:
			return grant{}, false
		}
	}
	if len(g.subjects) == 0 || len(g.audiences) == 0 {
		return grant{}, false
	}
	return g, true
}

// strings1 reads a string or a list of strings, as IAM writes either.
func strings1(raw json.RawMessage) ([]string, bool) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		return many, true
	}
	return nil, false
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
