package webhook

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	"github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
)

// oneRole is a ServiceAccounts view in which every ServiceAccount has a role.
type oneRole struct{}

func (oneRole) Annotations(context.Context, string, string) (*podidentity.RoleAnnotations, bool, error) {
	return podidentity.CachedAnnotations(map[string]string{podidentityv1alpha1.RoleARNAnnotation: "arn:aws:iam::111122223333:role/reader"}), true, nil
}

// tokenOf is the audience and lifetime of the token a new pod gets.
func tokenOf(t *testing.T, m *podidentity.Mutator) (string, int64) {
	t.Helper()
	got, result := mutationtest.Admit(t, m, "shop", &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "shop"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}},
	})
	if result.Denied != nil {
		t.Fatal(result.Denied.Message)
	}
	for _, v := range got.Spec.Volumes {
		if v.Name == podidentity.VolumeName {
			token := v.Projected.Sources[0].ServiceAccountToken
			return token.Audience, ptr.Deref(token.ExpirationSeconds, 0)
		}
	}
	t.Fatal("no token volume")
	return "", 0
}

// The running webhook's mutator follows WorkloadAccess cluster's
// spec.podIdentity through the informer: created, edited, deleted.
func TestPodIdentityFollowsTheWorkloadAccess(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wa := &operatorv1alpha1.WorkloadAccess{ObjectMeta: metav1.ObjectMeta{Name: operatorv1alpha1.WorkloadAccessName}}
	wa.Spec.PodIdentity.DefaultAudience = "first.example"
	client := fake.NewSimpleClientset(wa)
	informers := externalversions.NewSharedInformerFactory(client, 0)
	informer := informers.Operator().V1alpha1().WorkloadAccesses().Informer()
	m := podidentity.New(podidentity.Config{DefaultTokenExpiration: 7200}, oneRole{})
	synced, err := followClusterDefaults(informer, m)
	if err != nil {
		t.Fatal(err)
	}
	informers.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), synced) {
		t.Fatal("not synced")
	}
	// Ready means the WorkloadAccess was applied: no pod gets the flags'
	// audience first.
	if aud, exp := tokenOf(t, m); aud != "first.example" || exp != 7200 {
		t.Errorf("after sync: %s, %d s; want first.example, 7200 s", aud, exp)
	}

	wa.Spec.PodIdentity.DefaultAudience = "second.example"
	wa.Spec.PodIdentity.DefaultTokenExpirationSeconds = 3600
	if _, err := client.OperatorV1alpha1().WorkloadAccesses().Update(ctx, wa, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() (string, int64) { return tokenOf(t, m) }, "second.example", 3600)

	if err := client.OperatorV1alpha1().WorkloadAccesses().Delete(ctx, wa.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() (string, int64) { return tokenOf(t, m) }, "sts.amazonaws.com", 7200)
}

func eventually(t *testing.T, get func() (string, int64), wantAudience string, wantExpiration int64) {
	t.Helper()
	var aud string
	var exp int64
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		aud, exp = get()
		return aud == wantAudience && exp == wantExpiration, nil
	})
	if err != nil {
		t.Errorf("token %s, %d s; want %s, %d s", aud, exp, wantAudience, wantExpiration)
	}
}

func TestClusterDefaultsOfTheSpec(t *testing.T) {
	for _, tc := range []struct {
		spec operatorv1alpha1.PodIdentitySpec
		want podidentity.ClusterDefaults
	}{
		{operatorv1alpha1.PodIdentitySpec{}, podidentity.ClusterDefaults{}},
		{operatorv1alpha1.PodIdentitySpec{DefaultAudience: "a", DefaultTokenExpirationSeconds: 900, DefaultSTSEndpoints: operatorv1alpha1.STSEndpointsRegional},
			podidentity.ClusterDefaults{Audience: "a", TokenExpiration: 900, RegionalSTS: ptr.To(true)}},
		{operatorv1alpha1.PodIdentitySpec{DefaultSTSEndpoints: operatorv1alpha1.STSEndpointsSDKDefault},
			podidentity.ClusterDefaults{RegionalSTS: ptr.To(false)}},
	} {
		got := clusterDefaults(tc.spec)
		if got.Audience != tc.want.Audience || got.TokenExpiration != tc.want.TokenExpiration || (got.RegionalSTS == nil) != (tc.want.RegionalSTS == nil) ||
			(got.RegionalSTS != nil && *got.RegionalSTS != *tc.want.RegionalSTS) {
			t.Errorf("clusterDefaults(%+v) = %+v, want %+v", tc.spec, got, tc.want)
		}
	}
}
