package podidentity

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"unsafe"

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
		{"an empty role: nothing", map[string]string{podidentityv1alpha1.RoleARNAnnotation: "", podidentityv1alpha1.AudienceAnnotation: "sts.amazonaws.com"}, nil},
		{"no role: nothing", map[string]string{podidentityv1alpha1.AudienceAnnotation: "sts.amazonaws.com", podidentityv1alpha1.TokenExpirationAnnotation: "3600"}, nil},
		{"a role alone", map[string]string{podidentityv1alpha1.RoleARNAnnotation: role, "other": "x"}, map[string]string{podidentityv1alpha1.RoleARNAnnotation: role}},
		{"an empty audience, kept as present", map[string]string{podidentityv1alpha1.RoleARNAnnotation: role, podidentityv1alpha1.AudienceAnnotation: ""},
			map[string]string{podidentityv1alpha1.RoleARNAnnotation: role, podidentityv1alpha1.AudienceAnnotation: ""}},
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
			kept := CachedAnnotations(tc.in)
			if got := kept.Map(); !maps.Equal(got, tc.want) || (kept == nil) != (tc.want == nil) {
				t.Errorf("kept %d annotations %v, want %d", len(got), keys(got), len(tc.want))
			}
		})
	}
}

// RoleAnnotations answers the mutator as the map it replaces did: a value
// and whether it is there at all, for each of the four; nil answers none.
func TestRoleAnnotationsLookup(t *testing.T) {
	var none *RoleAnnotations
	if none.RoleARN() != "" || none.Map() != nil {
		t.Errorf("nil: role %q, map %v", none.RoleARN(), none.Map())
	}
	for i := range serviceAccountLimits {
		if v, ok := none.lookup(i); ok || v != "" {
			t.Errorf("nil has annotation %d: %q", i, v)
		}
	}
	kept := CachedAnnotations(map[string]string{podidentityv1alpha1.RoleARNAnnotation: role, podidentityv1alpha1.AudienceAnnotation: "", podidentityv1alpha1.TokenExpirationAnnotation: "3600"})
	if kept.RoleARN() != role {
		t.Errorf("role %q", kept.RoleARN())
	}
	for _, tc := range []struct {
		index int
		value string
		ok    bool
	}{{roleARNIndex, role, true}, {audienceIndex, "", true}, {regionalSTSIndex, "", false}, {tokenExpirationIndex, "3600", true}} {
		if v, ok := kept.lookup(tc.index); v != tc.value || ok != tc.ok {
			t.Errorf("%s: %q %v, want %q %v", serviceAccountLimits[tc.index].key, v, ok, tc.value, tc.ok)
		}
	}
	// The cached values are copies: the decoded object they came from is
	// not kept alive by the cache.
	arn := strings.Clone(role)
	if got := CachedAnnotations(map[string]string{podidentityv1alpha1.RoleARNAnnotation: arn}).RoleARN(); unsafe.StringData(got) == unsafe.StringData(arn) {
		t.Error("the role ARN shares the decoded object's memory")
	}
}

// A ServiceAccount that grants no role is not read any further: an oversize
// annotation beside no role ARN leaves its pods alone.
func TestOversizeAnnotationsWithoutARoleLeaveThePodAlone(t *testing.T) {
	sa := map[string]string{podidentityv1alpha1.AudienceAnnotation: strings.Repeat("a", 10_000), podidentityv1alpha1.RoleARNAnnotation: ""}
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
