package podidentity

import (
	"strings"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

// serviceAccountLimits is every ServiceAccount annotation the mutator
// reads, with the longest value it accepts in bytes, in the order of
// RoleAnnotations.values. Anything longer is refused, so a cache need not
// hold more: a ServiceAccount is user input, and a cache of every one in
// the cluster lives in each webhook replica.
var serviceAccountLimits = [...]struct {
	key   string
	limit int
}{
	// IAM's own limit on an ARN; a valid role ARN is under 700 (partition,
	// 12-digit account, a 512-character path and a 64-character name).
	roleARNIndex: {podidentityv1alpha1.RoleARNAnnotation, 2048},
	// A token audience is a name such as sts.amazonaws.com; 256 leaves room
	// for any URL-like one STS could be configured with.
	audienceIndex: {podidentityv1alpha1.AudienceAnnotation, 256},
	// strconv.ParseBool's longest word is "false".
	regionalSTSIndex: {podidentityv1alpha1.RegionalSTSAnnotation, 16},
	// The longest accepted number, 4294967296, is 10 digits; 64 leaves room
	// for a sign and leading zeros.
	tokenExpirationIndex: {podidentityv1alpha1.TokenExpirationAnnotation, 64},
}

// The place of each annotation in serviceAccountLimits and
// RoleAnnotations.values.
const (
	roleARNIndex = iota
	audienceIndex
	regionalSTSIndex
	tokenExpirationIndex
)

// RoleAnnotations is what a cache of ServiceAccounts keeps of one that
// grants a role: the four annotations the mutator reads, in a struct of
// about 80 bytes rather than a map of about 340 before its strings (the
// webhook caches every ServiceAccount in the cluster, and at 100,000 of
// them the maps were a third of its heap; docs/performance.md).
type RoleAnnotations struct {
	// values are the annotations of serviceAccountLimits, in its order,
	// each cut to one byte past its limit (which the mutator refuses as
	// too long, naming the limit) and copied so that the decoded object
	// is not kept alive.
	values [len(serviceAccountLimits)]string
	// present has bit i set when the ServiceAccount has annotation i, so
	// that an empty annotation (malformed) differs from none (the default).
	present uint8
}

// CachedAnnotations is what a cache of ServiceAccounts keeps for the
// mutator of annotations. nil when they grant no role (no role ARN, or an
// empty one, how charts leave it unset): the mutator reads nothing else of
// such a ServiceAccount, and most in a cluster are such.
func CachedAnnotations(annotations map[string]string) *RoleAnnotations {
	if annotations[podidentityv1alpha1.RoleARNAnnotation] == "" {
		return nil
	}
	out := &RoleAnnotations{}
	for i, l := range serviceAccountLimits {
		if v, ok := annotations[l.key]; ok {
			out.values[i] = strings.Clone(v[:min(len(v), l.limit+1)])
			out.present |= 1 << i
		}
	}
	return out
}

// RoleARN is the role-arn annotation as kept; empty for nil.
func (a *RoleAnnotations) RoleARN() string {
	v, _ := a.lookup(roleARNIndex)
	return v
}

// lookup is annotation i as kept, and whether the ServiceAccount has it.
func (a *RoleAnnotations) lookup(i int) (string, bool) {
	if a == nil || a.present&(1<<i) == 0 {
		return "", false
	}
	return a.values[i], true
}

// Clone is a copy of a, its strings copied too; nil for nil. A cache that
// kept a while other objects were live around it copies it once they are
// garbage, so that what it keeps packs into spans of its own
// (clusterreads' first sync).
func (a *RoleAnnotations) Clone() *RoleAnnotations {
	if a == nil {
		return nil
	}
	out := &RoleAnnotations{present: a.present}
	for i, v := range a.values {
		out.values[i] = strings.Clone(v)
	}
	return out
}

// Map is the kept annotations by name; nil for nil. For tests; the mutator
// reads the struct.
func (a *RoleAnnotations) Map() map[string]string {
	if a == nil {
		return nil
	}
	out := make(map[string]string, len(serviceAccountLimits))
	for i, l := range serviceAccountLimits {
		if v, ok := a.lookup(i); ok {
			out[l.key] = v
		}
	}
	return out
}

// oversize refuses the first annotation longer than its limit.
func oversize(annotations *RoleAnnotations, serviceAccount string) *denial {
	for i, l := range serviceAccountLimits {
		if v, _ := annotations.lookup(i); len(v) > l.limit {
			return deny(reasonOversizeAnnotation, "annotation %s on ServiceAccount %s is longer than %d bytes, the most the webhook reads of it; "+
				"correct the annotation: the pod is refused rather than started without the credentials its ServiceAccount asks for",
				l.key, serviceAccount, l.limit)
		}
	}
	return nil
}
