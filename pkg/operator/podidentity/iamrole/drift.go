package iamrole

import "strings"

// Wanted is the role an IAMRoleRequest asks for, as far as IAM can drift
// from it.
type Wanted struct {
	// Trust and Policy are JSON documents (TrustPolicy, PolicyDocument).
	Trust, Policy string
	// Boundary is the permissions boundary's ARN, "" for none wanted.
	Boundary string
	// Tags are Tags of the role's Owner.
	Tags []Tag
}

// Held is what IAM holds: documents as IAM returns them (percent-encoded).
type Held struct {
	Trust string
	// Policy is the inline policy PolicyName; PolicyFound is false when
	// the role has none of that name.
	Policy      string
	PolicyFound bool
	Boundary    string
	Tags        []Tag
}

// Drift is what must be written for held to be wanted; TagsToWrite says
// which tags.
type Drift struct {
	Trust, Policy, Boundary, Tags bool
}

// None says nothing needs writing.
func (d Drift) None() bool { return !d.Trust && !d.Policy && !d.Boundary && !d.Tags }

// Compare tells what differs. A document IAM returns that cannot be
// decoded counts as different: writing ours over it is the repair. A
// boundary on the role while none is wanted is left alone: removing one
// would only widen what the role may do.
func Compare(wanted Wanted, held Held) Drift {
	return Drift{
		Trust:    !sameEncoded(held.Trust, wanted.Trust),
		Policy:   !held.PolicyFound || !sameEncoded(held.Policy, wanted.Policy),
		Boundary: wanted.Boundary != "" && held.Boundary != wanted.Boundary,
		Tags:     len(TagsToWrite(wanted.Tags, held.Tags)) > 0,
	}
}

// TagsToWrite are the wanted tags the role lacks or holds with another
// value: one TagRole of them brings the role to its tags, since TagRole
// replaces the value of a key the role has. Keys are compared regardless of
// case, as IAM keeps one tag per key in any case and matches condition keys
// so. Tags that are not wanted are left alone: every key the operator
// writes it always wants (the ServiceAccount cannot change), so none of its
// own is ever stale, and removing another's is not its business (nor in its
// IAM grant).
func TagsToWrite(wanted, held []Tag) []Tag {
	var out []Tag
	for _, w := range wanted {
		found := false
		for _, h := range held {
			if strings.EqualFold(h.Key, w.Key) {
				found = h.Value == w.Value
				break
			}
		}
		if !found {
			out = append(out, w)
		}
	}
	return out
}

func sameEncoded(heldRaw, wanted string) bool {
	decoded, err := DecodeDocument(heldRaw)
	return err == nil && SameDocument(decoded, wanted)
}
