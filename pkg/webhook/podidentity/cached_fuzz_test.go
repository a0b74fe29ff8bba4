package podidentity

import (
	"context"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// FuzzCachedAnnotations cuts any annotations down for the cache. Nothing is
// kept without a role ARN; with one, exactly the four read keys that are
// present stay, each a prefix of what was written, at most one byte past
// its limit and whole when within it; a pod of that ServiceAccount is
// refused as oversize exactly when it grants a role and a value is too long.
func FuzzCachedAnnotations(f *testing.F) {
	f.Add(podidentityv1alpha1.RoleARNAnnotation, role, podidentityv1alpha1.AudienceAnnotation, "sts.amazonaws.com")
	f.Add(podidentityv1alpha1.RoleARNAnnotation, strings.Repeat("a", 3000), podidentityv1alpha1.AnnotationPrefix+"pad", strings.Repeat("x", 5000))
	f.Add(podidentityv1alpha1.TokenExpirationAnnotation, strings.Repeat("0", 65), podidentityv1alpha1.RoleARNAnnotation, role)
	f.Add(podidentityv1alpha1.AudienceAnnotation, strings.Repeat("a", 300), podidentityv1alpha1.RoleARNAnnotation, "")
	f.Add(podidentityv1alpha1.AudienceAnnotation, "", podidentityv1alpha1.RoleARNAnnotation, role)
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		in := map[string]string{k1: v1, k2: v2, "other": "x"}
		cached := CachedAnnotations(in)
		if (cached == nil) != (in[podidentityv1alpha1.RoleARNAnnotation] == "") {
			t.Fatalf("kept %+v of a role ARN %q", cached, in[podidentityv1alpha1.RoleARNAnnotation])
		}
		kept := cached.Map()
		tooLong := false
		for k, v := range kept {
			limit := serviceAccountLimit(k)
			switch {
			case limit == 0:
				t.Fatalf("kept %s, which the mutator does not read", k)
			case !strings.HasPrefix(in[k], v) || len(v) > limit+1 || (len(in[k]) <= limit && v != in[k]):
				t.Fatalf("kept %d of %d bytes under %s (limit %d)", len(v), len(in[k]), k, limit)
			}
			tooLong = tooLong || len(v) > limit
		}
		for k := range in {
			if _, ok := kept[k]; cached != nil && !ok && serviceAccountLimit(k) > 0 {
				t.Fatalf("dropped %s", k)
			}
		}
		result := New(DefaultConfig(), keptServiceAccounts{ns + "/frontend": cached}).Mutate(context.Background(),
			mutation.RequestFor(admissionv1.Create, ns, "", pod(nil), nil))
		oversizeRefusal := result.Denied != nil && result.Denied.Reason == reasonOversizeAnnotation
		if want := tooLong && cached != nil; oversizeRefusal != want {
			t.Fatalf("refused as oversize: %v, want %v (%+v)", oversizeRefusal, want, result.Denied)
		}
	})
}
