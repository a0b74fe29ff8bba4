package iamrole

// Wanted is the role an IAMRoleRequest asks for, as far as IAM can drift
// from it.
type Wanted struct {
	// Trust and Policy are JSON documents (TrustPolicy, PolicyDocument).
	Trust, Policy string
	// Boundary is the permissions boundary's ARN, "" for none wanted.
	Boundary string
}

// Held is what IAM holds: documents as IAM returns them (percent-encoded).
type Held struct {
	Trust string
	// Policy is the inline policy PolicyName; PolicyFound is false when
	// the role has none of that name.
	Policy      string
	PolicyFound bool
	Boundary    string
}

// Drift is what must be written for held to be wanted.
type Drift struct {
	Trust, Policy, Boundary bool
}

// None says nothing needs writing.
func (d Drift) None() bool { return !d.Trust && !d.Policy && !d.Boundary }

// Compare tells what differs. A document IAM returns that cannot be
// decoded counts as different: writing ours over it is the repair. A
// boundary on the role while none is wanted is left alone: removing one
// would only widen what the role may do.
func Compare(wanted Wanted, held Held) Drift {
	return Drift{
		Trust:    !sameEncoded(held.Trust, wanted.Trust),
		Policy:   !held.PolicyFound || !sameEncoded(held.Policy, wanted.Policy),
		Boundary: wanted.Boundary != "" && held.Boundary != wanted.Boundary,
	}
}

func sameEncoded(heldRaw, wanted string) bool {
	decoded, err := DecodeDocument(heldRaw)
	return err == nil && SameDocument(decoded, wanted)
}
