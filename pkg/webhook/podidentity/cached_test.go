package podidentity

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
)

// A cache keeps only the four annotations the mutator reads on a
// ServiceAccount, each at most one byte past its limit.
func TestCachedAnnotationsKeepOnlyWhatIsReadAndBoundIt(t *testing.T) {
	pad := strings.Repeat("x", 150_000)
	for _, tc := range []struct {
		name string
		in   map[string]string
		want map[string]string
	}{
		{"none", nil, nil},
		{"nothing read", map[string]string{"helm.sh/chart": "x", podidentityv1alpha1.AnnotationPrefix + "pad": pad}, nil},
		{"the four, unchanged", map[string]string{
			podidentityv1alpha1.RoleARNAnnotation: role, podidentityv1alpha1.AudienceAnnotation: "sts.amazonaws.com", podidentityv1alpha1.RegionalSTSAnnotation: "true", podidentityv1alpha1.TokenExpirationAnnotation: "3600",
			podidentityv1alpha1.AnnotationPrefix + "pad": pad, podidentityv1alpha1.SkipContainersAnnotation: "web", "other": "x",
		}, map[string]string{podidentityv1alpha1.RoleARNAnnotation: role, podidentityv1alpha1.AudienceAnnotation: "sts.amazonaws.com", podidentityv1alpha1.RegionalSTSAnnotation: "true", podidentityv1alpha1.TokenExpirationAnnotation: "3600"}},
		{"an empty role, kept", map[string]string{podidentityv1alpha1.RoleARNAnnotation: ""}, map[string]string{podidentityv1alpha1.RoleARNAnnotation: ""}},
		{"every value at its limit", map[string]string{
			podidentityv1alpha1.RoleARNAnnotation: strings.Repeat("a", 2048), podidentityv1alpha1.AudienceAnnotation: strings.Repeat("a", 256),
			podidentityv1alpha1.RegionalSTSAnnotation: strings.Repeat("a", 16), podidentityv1alpha1.TokenExpirationAnnotation: strings.Repeat("a", 64),
		}, map[string]string{
			podidentityv1alpha1.RoleARNAnnotation: strings.Repeat("a", 2048), podidentityv1alpha1.AudienceAnnotation: strings.Repeat("a", 256),
			podidentityv1alpha1.RegionalSTSAnnotation: strings.Repeat("a", 16), podidentityv1alpha1.TokenExpirationAnnotation: strings.Repeat("a", 64),
		}},
		{"every value past its limit, cut one byte past it", map[string]string{
			podidentityv1alpha1.RoleARNAnnotation: pad, podidentityv1alpha1.AudienceAnnotation: pad, podidentityv1alpha1.RegionalSTSAnnotation: pad, podidentityv1alpha1.TokenExpirationAnnotation: pad,
		}, map[string]string{
			podidentityv1alpha1.RoleARNAnnotation: pad[:2049], podidentityv1alpha1.AudienceAnnotation: pad[:257], podidentityv1alpha1.RegionalSTSAnnotation: pad[:17], podidentityv1alpha1.TokenExpirationAnnotation: pad[:65],
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CachedAnnotations(tc.in); !maps.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
				t.Errorf("kept %d annotations %v, want %d", len(got), keys(got), len(tc.want))
			}
		})
	}
}

// A ServiceAccount that grants no role is not read any further: an oversize
// annotation beside no role ARN leaves its pods alone.
func TestOversizeAnnotationsWithoutARoleLeaveThePodAlone(t *testing.T) {
	sa := CachedAnnotations(map[string]string{podidentityv1alpha1.AudienceAnnotation: strings.Repeat("a", 10_000), podidentityv1alpha1.RoleARNAnnotation: ""})
	_, result := mutationtest.Admit(t, New(DefaultConfig(), serviceAccounts{ns + "/frontend": sa}), ns, pod(nil))
	if result.Denied != nil || len(result.Patch) != 0 {
		t.Errorf("denied %+v, patch %+v", result.Denied, result.Patch)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s (%d bytes)", k, len(v)))
	}
	return out
}
