package issuerpublisher

import (
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	operatorlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// issuerMismatchDesc is 1 while the issuer is published and
// Authentication/cluster names another (reason ServiceAccountIssuerDiffers)
// or does not exist (AuthenticationMissing), 0 while they match; absent
// while nothing is published. The info alert
// WorkloadAccessServiceAccountIssuerMismatch reads it.
var issuerMismatchDesc = metrics.NewDesc("workload_access_pod_identity_issuer_mismatch",
	"1 while the published pod identity issuer is not the cluster's service account issuer (AWS STS refuses the cluster's tokens), by reason; 0 while they match; absent while nothing is published.",
	[]string{"reason"}, nil, metrics.ALPHA, "")

// bucketPolicyUnsafeDesc is 1 while IssuerBucketPolicySafe is False, by
// reason (the policy lets everyone change the documents, or refuses them to
// readers), 0 while it is True; absent while the policy is not read. The
// warning alert WorkloadAccessIssuerBucketPolicyUnsafe reads it.
var bucketPolicyUnsafeDesc = metrics.NewDesc("workload_access_pod_identity_issuer_bucket_policy_unsafe",
	"1 while the policy of the pod identity issuer bucket lets anyone change the issuer documents or refuses them to readers, by reason; 0 while it lets everyone read them and nothing more; absent while it is not read.",
	[]string{"reason"}, nil, metrics.ALPHA, "")

// RegisterMetrics adds the collector to the registry library-go's
// controllercmd serves on /metrics. It reads the condition this
// controller wrote, from the informer's cache, when Prometheus scrapes.
func RegisterMetrics(workloadAccesses operatorlisters.WorkloadAccessLister) error {
	return legacyregistry.CustomRegister(&issuerCollector{workloadAccesses: workloadAccesses})
}

type issuerCollector struct {
	metrics.BaseStableCollector
	workloadAccesses operatorlisters.WorkloadAccessLister
}

func (c *issuerCollector) DescribeWithStability(ch chan<- *metrics.Desc) {
	ch <- issuerMismatchDesc
	ch <- bucketPolicyUnsafeDesc
}

func (c *issuerCollector) CollectWithStability(ch chan<- metrics.Metric) {
	wa, err := c.workloadAccesses.Get(operatorclient.ConfigName)
	if err != nil {
		return
	}
	for _, cond := range wa.Status.Conditions {
		switch cond.Type {
		case ServiceAccountIssuerMatches:
			switch {
			case cond.Status == "True":
				ch <- metrics.NewLazyConstMetric(issuerMismatchDesc, metrics.GaugeValue, 0, cond.Reason)
			case cond.Reason == ReasonIssuerDiffers || cond.Reason == ReasonAuthenticationAbsent:
				ch <- metrics.NewLazyConstMetric(issuerMismatchDesc, metrics.GaugeValue, 1, cond.Reason)
			}
		case IssuerBucketPolicySafe:
			switch {
			case cond.Status == "True":
				ch <- metrics.NewLazyConstMetric(bucketPolicyUnsafeDesc, metrics.GaugeValue, 0, cond.Reason)
			case cond.Reason == ReasonPolicyGrantsEveryoneMore || cond.Reason == ReasonPolicyDeniesAnonymousRead:
				ch <- metrics.NewLazyConstMetric(bucketPolicyUnsafeDesc, metrics.GaugeValue, 1, cond.Reason)
			}
		}
	}
}
