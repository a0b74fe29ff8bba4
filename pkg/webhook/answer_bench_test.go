//go:build unix

package webhook

import (
	"bytes"
	"context"
	"testing"

	"k8s.io/klog/v2"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// BenchmarkAnswer is the handler's own work on one AdmissionReview of the
// 5.6 KB checkoutPod with the production mutator sets, without TLS and
// HTTP: what BenchmarkHTTPSLoad's cases add over the echo floor. Profile it
// (-cpuprofile) to see where an admission's CPU goes.
func BenchmarkAnswer(b *testing.B) {
	klog.LogToStderr(false)
	defer klog.LogToStderr(true)
	bundle := map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}
	cases := []struct {
		name        string
		annotations map[string]string
		mutators    func(*testing.B) []mutation.Mutator
		patched     bool
	}{
		{"off-nothing", nil, subscriptionOnly, false},
		{"on-nothing", nil, func(b *testing.B) []mutation.Mutator { return benchMutators(b, checkoutNoRole) }, false},
		{"on-role", nil, func(b *testing.B) []mutation.Mutator { return benchMutators(b, checkoutRole) }, true},
		{"on-bundle-role", bundle, func(b *testing.B) []mutation.Mutator { return benchMutators(b, checkoutRole) }, true},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			h := newPodHandler(tc.mutators(b), newMetrics())
			body := reviewBody(b, checkoutPod(tc.annotations), podResource, "")
			ctx := context.Background()
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				out, failure := h.answer(ctx, body)
				if failure != nil || bytes.Contains(out, []byte(`"patch"`)) != tc.patched {
					b.Fatalf("answer %.300s, %v", out, failure)
				}
			}
		})
	}
}
