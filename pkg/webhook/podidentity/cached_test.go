package podidentity

import (
	"fmt"
	"maps"
	"strings"
	"testing"

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
		{"nothing read", map[string]string{"helm.sh/chart": "x", AnnotationPrefix + "pad": pad}, nil},
		{"the four, unchanged", map[string]string{
			RoleARNAnnotation: role, AudienceAnnotation: "sts.amazonaws.com", RegionalSTSAnnotation: "true", TokenExpirationAnnotation: "3600",
			AnnotationPrefix + "pad": pad, SkipContainersAnnotation: "web", "other": "x",
		}, map[string]string{RoleARNAnnotation: role, AudienceAnnotation: "sts.amazonaws.com", RegionalSTSAnnotation: "true", TokenExpirationAnnotation: "3600"}},
		{"an empty role, kept", map[string]string{RoleARNAnnotation: ""}, map[string]string{RoleARNAnnotation: ""}},
		{"every value at its limit", map[string]string{
			RoleARNAnnotation: strings.Repeat("a", 2048), AudienceAnnotation: strings.Repeat("a", 256),
			RegionalSTSAnnotation: strings.Repeat("a", 16), TokenExpirationAnnotation: strings.Repeat("a", 64),
		}, map[string]string{
			RoleARNAnnotation: strings.Repeat("a", 2048), AudienceAnnotation: strings.Repeat("a", 256),
			RegionalSTSAnnotation: strings.Repeat("a", 16), TokenExpirationAnnotation: strings.Repeat("a", 64),
		}},
		{"every value past its limit, cut one byte past it", map[string]string{
			RoleARNAnnotation: pad, AudienceAnnotation: pad, RegionalSTSAnnotation: pad, TokenExpirationAnnotation: pad,
		}, map[string]string{
			RoleARNAnnotation: pad[:2049], AudienceAnnotation: pad[:257], RegionalSTSAnnotation: pad[:17], TokenExpirationAnnotation: pad[:65],
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
	sa := CachedAnnotations(map[string]string{AudienceAnnotation: strings.Repeat("a", 10_000), RoleARNAnnotation: ""})
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
