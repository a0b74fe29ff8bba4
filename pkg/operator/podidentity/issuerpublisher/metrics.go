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

func (c *issuerCollector) DescribeWithStability(ch chan<- *metrics.Desc) { ch <- issuerMismatchDesc }

func (c *issuerCollector) CollectWithStability(ch chan<- metrics.Metric) {
	wa, err := c.workloadAccesses.Get(operatorclient.ConfigName)
	if err != nil {
		return
	}
	for _, cond := range wa.Status.Conditions {
		if cond.Type != ServiceAccountIssuerMatches {
			continue
		}
		switch {
		case cond.Status == "True":
			ch <- metrics.NewLazyConstMetric(issuerMismatchDesc, metrics.GaugeValue, 0, cond.Reason)
		case cond.Reason == ReasonIssuerDiffers || cond.Reason == ReasonAuthenticationAbsent:
			ch <- metrics.NewLazyConstMetric(issuerMismatchDesc, metrics.GaugeValue, 1, cond.Reason)
		}
	}
}
