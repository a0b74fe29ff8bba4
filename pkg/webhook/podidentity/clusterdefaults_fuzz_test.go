package podidentity

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
)

// FuzzClusterDefaults hands the mutator any defaults, as a WorkloadAccess
// written past its CRD could. A pod then gets the default audience exactly
// when parseAudience accepts it (and it is UTF-8, as JSON carries it) and the default lifetime exactly when it is
// within [MinTokenExpiration, MaxTokenExpiration], the flags' values
// otherwise; a problem is reported for each value not used; and the pod is
// never refused for it.
func FuzzClusterDefaults(f *testing.F) {
	f.Add("sts.example.com", int64(3600), uint8(1))
	f.Add(" padded", int64(599), uint8(2))
	f.Add("", int64(MaxTokenExpiration+1), uint8(0))
	f.Add("a\nb", int64(-1), uint8(3))
	f.Fuzz(func(t *testing.T, audience string, expiration int64, sts uint8) {
		m := New(DefaultConfig(), serviceAccounts{ns + "/frontend": withRole()})
		cluster := ClusterDefaults{Audience: audience, TokenExpiration: expiration}
		if sts&1 != 0 {
			regional := sts&2 != 0
			cluster.RegionalSTS = &regional
		}
		problems := m.SetClusterDefaults(cluster)
		got, result := mutationtest.Admit(t, m, ns, pod(nil))
		if result.Denied != nil {
			t.Fatalf("refused: %s", result.Denied.Message)
		}
		token := got.Spec.Volumes[0].Projected.Sources[0].ServiceAccountToken
		wantAudience, audienceProblem := DefaultConfig().DefaultAudience, false
		if audience != "" {
			if parseAudience(audience) == nil && utf8.ValidString(audience) {
				wantAudience = audience
			} else {
				audienceProblem = true
			}
		}
		wantExpiration, expirationProblem := DefaultConfig().DefaultTokenExpiration, false
		if expiration != 0 {
			if expiration >= MinTokenExpiration && expiration <= MaxTokenExpiration {
				wantExpiration = expiration
			} else {
				expirationProblem = true
			}
		}
		if token.Audience != wantAudience || *token.ExpirationSeconds != wantExpiration {
			t.Fatalf("token %q for %d s, want %q for %d s", token.Audience, *token.ExpirationSeconds, wantAudience, wantExpiration)
		}
		if want := btoi(audienceProblem) + btoi(expirationProblem); len(problems) != want {
			t.Fatalf("%d problems, want %d: %q", len(problems), want, problems)
		}
		regional := strings.Contains(envOf(got.Spec.Containers[1].Env), "AWS_STS_REGIONAL_ENDPOINTS=regional")
		if want := sts&3 == 3; regional != want {
			t.Fatalf("regional STS %v, want %v", regional, want)
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
