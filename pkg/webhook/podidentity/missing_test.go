package podidentity

import (
	"context"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// injected is the outline of p as the mutator, with config, admitted it.
func injected(t *testing.T, config Config, accounts ServiceAccounts, p *corev1.Pod) *mutation.PodOutline {
	t.Helper()
	req := mutation.RequestFor(admissionv1.Create, ns, "", p, nil)
	r := New(config, accounts).Mutate(context.Background(), req)
	if r.Denied != nil {
		t.Fatalf("refused: %+v", r.Denied)
	}
	out, err := req.Outline.Apply(r.Patch)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMissingAgreesWithTheMutator: a pod lacks what the mutator would give
// it now, by the same annotations, and nothing once the mutator admitted it.
func TestMissingAgreesWithTheMutator(t *testing.T) {
	withAnnotations := func(a map[string]string) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Annotations = a } }
	for _, tc := range []struct {
		name string
		sa   map[string]string // frontend's annotations; nil: no such ServiceAccount
		pod  func(*corev1.Pod)
		// outline changes the pod after admission (injected) or instead
		// of it.
		admit   bool
		outline func(*mutation.PodOutline)
		want    []string
	}{
		{name: "admitted without the webhook", sa: withRole(), want: []string{"migrate", "web", "proxy"}},
		{name: "admitted by the webhook", sa: withRole(), admit: true},
		{name: "no ServiceAccount", want: nil},
		{name: "a ServiceAccount without a role", sa: map[string]string{"other": "x"}},
		{name: "an empty role, as charts leave it", sa: map[string]string{podidentityv1alpha1.RoleARNAnnotation: ""}},
		{name: "skip-containers", sa: withRole(), pod: withAnnotations(map[string]string{podidentityv1alpha1.SkipContainersAnnotation: "proxy,migrate"}),
			want: []string{"web"}},
		{name: "allow-containers", sa: withRole(), pod: withAnnotations(map[string]string{podidentityv1alpha1.AllowContainersAnnotation: "proxy"}),
			want: []string{"proxy"}},
		{name: "the skip label", sa: withRole(), pod: func(p *corev1.Pod) { p.Labels = map[string]string{podidentityv1alpha1.SkipLabel: ""} }},
		{name: "a mirror pod", sa: withRole(), pod: withAnnotations(map[string]string{mutation.MirrorPodAnnotation: "0a1b"})},
		// Created again it would be refused, with the reason: not this report.
		{name: "a malformed annotation", sa: withRole(podidentityv1alpha1.TokenExpirationAnnotation, "soon")},
		{name: "a container lost its mount", sa: withRole(), admit: true, want: []string{"proxy"},
			outline: func(o *mutation.PodOutline) { o.Spec.Containers[1].VolumeMounts = nil }},
		{name: "the volume is not a token", sa: withRole(), admit: true, want: []string{"migrate", "web", "proxy"},
			outline: func(o *mutation.PodOutline) { o.Spec.Volumes[0].Projected = nil }},
		{name: "a container sets its own role but has no token", sa: withRole(), want: []string{"migrate", "web", "proxy"},
			pod: func(p *corev1.Pod) {
				p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "AWS_ROLE_ARN", Value: "arn:aws:iam::1:role/own"}}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			accounts := serviceAccounts{}
			if tc.sa != nil {
				accounts[ns+"/frontend"] = tc.sa
			}
			p := pod(nil)
			if tc.pod != nil {
				tc.pod(p)
			}
			var o *mutation.PodOutline
			if tc.admit {
				o = injected(t, DefaultConfig(), accounts, p)
			} else {
				o = mutation.OutlineOf(p)
			}
			if tc.outline != nil {
				tc.outline(o)
			}
			got := New(DefaultConfig(), accounts).Missing(context.Background(), ns, o)
			switch {
			case tc.want == nil && got != nil:
				t.Errorf("reported %+v, want nothing", got)
			case tc.want != nil && got == nil:
				t.Errorf("reported nothing, want %v", tc.want)
			case got != nil && (!slices.Equal(got.Containers, tc.want) || got.RoleARN != role || got.ServiceAccount != ns+"/frontend"):
				t.Errorf("reported %+v, want containers %v of %s/frontend's %s", got, tc.want, ns, role)
			}
		})
	}
}

// TestMissingIgnoresTheRegionAndRegionalSTS: a pod admitted before the
// cluster had a region, or before its ServiceAccount asked for regional
// STS, has its credentials; only a restart would add those variables.
func TestMissingIgnoresTheRegionAndRegionalSTS(t *testing.T) {
	before := serviceAccounts{ns + "/frontend": withRole()}
	o := injected(t, DefaultConfig(), before, pod(nil))
	now := DefaultConfig()
	now.Region, now.DefaultRegionalSTS = "eu-west-3", true
	after := serviceAccounts{ns + "/frontend": withRole(podidentityv1alpha1.RegionalSTSAnnotation, "true")}
	if got := New(now, after).Missing(context.Background(), ns, o); got != nil {
		t.Errorf("reported %+v", got)
	}
}
