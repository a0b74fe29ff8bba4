package podidentity

import (
	"strings"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

// serviceAccountLimits is every ServiceAccount annotation the mutator
// reads, with the longest value it accepts in bytes. Anything longer is
// refused, so a cache need not hold more: a ServiceAccount is user input,
// and a cache of every one in the cluster lives in each webhook replica.
var serviceAccountLimits = [...]struct {
	key   string
	limit int
}{
	// IAM's own limit on an ARN; a valid role ARN is under 700 (partition,
	// 12-digit account, a 512-character path and a 64-character name).
	{podidentityv1alpha1.RoleARNAnnotation, 2048},
	// A token audience is a name such as sts.amazonaws.com; 256 leaves room
	// for any URL-like one STS could be configured with.
	{podidentityv1alpha1.AudienceAnnotation, 256},
	// strconv.ParseBool's longest word is "false".
	{podidentityv1alpha1.RegionalSTSAnnotation, 16},
	// The longest accepted number, 4294967296, is 10 digits; 64 leaves room
	// for a sign and leading zeros.
	{podidentityv1alpha1.TokenExpirationAnnotation, 64},
}

// CachedAnnotations is what a cache of ServiceAccounts keeps for the
// mutator: the annotations it reads, each cut to one byte past its limit
// (which the mutator refuses as too long, naming the limit), copied so the
// decoded object is not kept alive. nil when there are none.
func CachedAnnotations(annotations map[string]string) map[string]string {
	var out map[string]string
	for _, l := range serviceAccountLimits {
		v, ok := annotations[l.key]
		if !ok {
			continue
		}
		if out == nil {
			out = make(map[string]string, len(serviceAccountLimits))
		}
		out[l.key] = strings.Clone(v[:min(len(v), l.limit+1)])
	}
	return out
}

// oversize refuses the first annotation longer than its limit.
func oversize(annotations map[string]string, serviceAccount string) *denial {
	for _, l := range serviceAccountLimits {
		if v := annotations[l.key]; len(v) > l.limit {
			return deny(reasonOversizeAnnotation, "annotation %s on ServiceAccount %s is longer than %d bytes, the most the webhook reads of it; "+
				"correct the annotation: the pod is refused rather than started without the credentials its ServiceAccount asks for",
				l.key, serviceAccount, l.limit)
		}
	}
	return nil
}
