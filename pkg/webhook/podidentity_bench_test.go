//go:build unix

package webhook

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
)

// staticServiceAccounts is podidentity.ServiceAccounts over a map keyed by
// namespace/name. It is the server's cache-hit path as it costs in
// production: ServiceAccountAnnotations.Annotations is then a lister Get (a
// map lookup under a read lock) and a counter increment; the live GET on a
// miss is an API round trip and not what this benchmark measures.
type staticServiceAccounts map[string]*podidentity.RoleAnnotations

func (s staticServiceAccounts) Annotations(_ context.Context, namespace, name string) (*podidentity.RoleAnnotations, bool, error) {
	annotations, found := s[namespace+"/"+name]
	return annotations, found, nil
}

// benchMutators are the server's mutators with --pod-identity, in the order
// pkg/cmd/webhook registers them: subscription, then pod identity, with the
// config the operator passes (upstream's defaults and the cluster's region).
func benchMutators(b testing.TB, serviceAccounts podidentity.ServiceAccounts) []mutation.Mutator {
	config := podidentity.DefaultConfig()
	config.Region = "eu-west-3"
	return []mutation.Mutator{benchSubscriptionMutator(b), podidentity.New(config, serviceAccounts)}
}

// checkoutRole is the ServiceAccount of checkoutPod with an IAM role, as
// annotated by the usual charts.
var checkoutRole = staticServiceAccounts{"shop/checkout": podidentity.CachedAnnotations(map[string]string{
	podidentityv1alpha1.RoleARNAnnotation:  "arn:aws:iam::111122223333:role/shop-checkout",
	podidentityv1alpha1.AudienceAnnotation: "sts.amazonaws.com",
})}

// checkoutNoRole is the same ServiceAccount without a role: the common case
// on a cluster with pod identity on, where every pod is sent to the
// fail-open webhook and most get nothing.
var checkoutNoRole = staticServiceAccounts{"shop/checkout": nil}

// checkoutPod is mutationtest.CheckoutPod: the realistic 5-6 KB pod every
// webhook benchmark admits, ours and test/scale's comparison alike.
func checkoutPod(annotations map[string]string) *corev1.Pod {
	return mutationtest.CheckoutPod(annotations)
}
