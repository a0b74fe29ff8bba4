package iamrole

// IAM limits a role's trust policy ("role trust policy length") to 2,048
// characters by default, raisable through AWS Service Quotas to 4,096;
// like every policy size limit of IAM it does not count whitespace.
const (
	DefaultTrustPolicySize = 2048
	MaxTrustPolicySize     = 4096
)

// TrustPolicySize is the size IAM counts of a policy document: its
// characters other than whitespace.
func TrustPolicySize(document string) int { return countNonSpace(document) }

// TrustFill is the trust policy of one ServiceAccount name in a set of
// namespaces, and how many of them it holds.
type TrustFill struct {
	// Policy is the trust policy of the first Fitted namespaces; "" when
	// not even one fits.
	Policy string
	// Fitted is how many namespaces, from the first, Policy holds.
	Fitted int
	// Size is Policy's size as IAM counts it.
	Size int
}

// FillTrustPolicy is the trust policy admitting ServiceAccount name in the
// first of namespaces (in the order given: oldest-judged first) that fit in
// limit characters, as IAM counts them, for tokens of audience through the
// providers: one statement per provider, whose StringEquals on :sub lists
// one exact subject per namespace. A namespace that does not fit leaves it
// and every later one out, so that one judged later never takes the place
// of one judged before. The policy is always whole: never cut to fit.
func FillTrustPolicy(providers []Provider, namespaces []string, name, audience string, limit int) TrustFill {
	subjects := make([]string, 0, len(namespaces))
	for _, ns := range namespaces {
		subjects = append(subjects, Subject(ns, name))
	}
	// The size grows with each subject, so the largest prefix that fits is
	// found by bisection; each guess is measured on the document itself.
	lo, hi := 0, len(subjects) // lo fits (0 trivially), hi+1 does not
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if TrustPolicySize(trustPolicy(providers, subjects[:mid], audience)) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return TrustFill{}
	}
	policy := trustPolicy(providers, subjects[:lo], audience)
	return TrustFill{Policy: policy, Fitted: lo, Size: TrustPolicySize(policy)}
}
