//go:build unix

package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/subscription"
)

// answerCase is one admission of the 5.9 KB checkoutPod through the
// mutators production runs, as BenchmarkAnswer times it and
// TestAdmissionAllocations counts its allocations.
type answerCase struct {
	name        string
	annotations map[string]string
	// serviceAccounts is what pod identity finds for the pod's
	// ServiceAccount; nil runs the server with pod identity off (the
	// subscription mutator alone).
	serviceAccounts podidentity.ServiceAccounts
	// patchContains are strings the patch must contain; none for no patch.
	patchContains []string
}

// answerCases are the cases issue 36 names: what a pod asks for, with pod
// identity off and on.
func answerCases() []answerCase {
	bundle := map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}
	clusterBundle := map[string]string{v1alpha1.InjectClusterBundleAnnotation: "rhel-cluster"}
	return []answerCase{
		{name: "off-nothing"},
		{name: "off-bundle", annotations: bundle, patchContains: []string{"subscription-"}},
		{name: "off-clusterbundle", annotations: clusterBundle, patchContains: []string{"rhel-cluster-ent"}},
		{name: "on-nothing", serviceAccounts: checkoutNoRole},
		{name: "on-role", serviceAccounts: checkoutRole, patchContains: []string{"AWS_ROLE_ARN"}},
		{name: "on-bundle", annotations: bundle, serviceAccounts: checkoutNoRole, patchContains: []string{"subscription-"}},
		{name: "on-bundle-role", annotations: bundle, serviceAccounts: checkoutRole, patchContains: []string{"subscription-", "AWS_ROLE_ARN"}},
		{name: "on-clusterbundle", annotations: clusterBundle, serviceAccounts: checkoutNoRole, patchContains: []string{"rhel-cluster-ent"}},
	}
}

// handler is the case's pod handler, and body its AdmissionReview.
func (c answerCase) handler(tb testing.TB) (*podHandler, []byte) {
	mutators := []mutation.Mutator{benchSubscriptionMutator(tb)}
	if c.serviceAccounts != nil {
		mutators = benchMutators(tb, c.serviceAccounts)
	}
	return newPodHandler(mutators, newMetrics()), reviewBody(tb, checkoutPod(c.annotations), podResource, "")
}

// check fails unless out allows the pod with the case's patch.
func (c answerCase) check(tb testing.TB, out []byte, failure *metav1.Status) {
	var review admissionv1.AdmissionReview
	if failure != nil || json.Unmarshal(out, &review) != nil || review.Response == nil || !review.Response.Allowed {
		tb.Fatalf("%s: answer %.300s, %v; want the pod allowed", c.name, out, failure)
	}
	patch := review.Response.Patch
	ok := (len(patch) > 0) == (len(c.patchContains) > 0)
	for _, want := range c.patchContains {
		ok = ok && bytes.Contains(patch, []byte(want))
	}
	if !ok {
		tb.Fatalf("%s: patch %.300s; want one with %q", c.name, patch, c.patchContains)
	}
}

// BenchmarkAnswer is the handler's own work on one AdmissionReview of the
// 5.9 KB checkoutPod with the production mutator sets, without TLS and
// HTTP: what BenchmarkHTTPSLoad's cases add over the echo floor. Profile it
// (-cpuprofile) to see where an admission's CPU goes.
func BenchmarkAnswer(b *testing.B) {
	klog.LogToStderr(false)
	defer klog.LogToStderr(true)
	for _, tc := range answerCases() {
		b.Run(tc.name, func(b *testing.B) {
			h, body := tc.handler(b)
			ctx := context.Background()
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			patched := len(tc.patchContains) > 0
			for b.Loop() {
				out, failure := h.answer(ctx, body)
				if failure != nil || bytes.Contains(out, []byte(`"patch"`)) != patched {
					tc.check(b, out, failure)
				}
			}
			out, failure := h.answer(ctx, body)
			tc.check(b, out, failure)
		})
	}
}

// BenchmarkAnswerAmongClusterBundles is a pod that asks for nothing, with
// pod identity off, in a cluster of 1 or 5,000 ClusterBundles none of which
// is always-inject: what the bundles a pod does not get cost its
// admission (docs/performance.md; the same with 1 and 5,000 since the
// always-inject ones are found by index).
func BenchmarkAnswerAmongClusterBundles(b *testing.B) {
	klog.LogToStderr(false)
	defer klog.LogToStderr(true)
	for _, n := range []int{1, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			clusterBundles := subscription.NewClusterBundleCache()
			for i := range n {
				if err := clusterBundles.Add(&v1alpha1.ClusterBundle{ObjectMeta: metav1.ObjectMeta{
					Name: fmt.Sprintf("bundle-%d", i), Labels: map[string]string{"team": "builds"}}}); err != nil {
					b.Fatal(err)
				}
			}
			m, err := subscription.New(subscription.NewBundleCache(), clusterBundles, allowAll{})
			if err != nil {
				b.Fatal(err)
			}
			h, body := newPodHandler([]mutation.Mutator{m}, newMetrics()), reviewBody(b, checkoutPod(nil), podResource, "")
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if out, failure := h.answer(ctx, body); failure != nil || bytes.Contains(out, []byte(`"patch"`)) {
					b.Fatalf("answer %.300s, %v; want the pod allowed unchanged", out, failure)
				}
			}
		})
	}
}
