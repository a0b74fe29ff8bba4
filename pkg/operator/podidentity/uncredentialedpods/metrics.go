package uncredentialedpods

import (
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

var uncredentialedDesc = metrics.NewDesc("workload_access_pod_identity_uncredentialed_pods",
	"Running pods whose ServiceAccount grants an AWS IAM role and that lack the credentials the pod identity webhook would give them, by the pods' namespace (pod_namespace: Prometheus keeps namespace for the operator's own).",
	[]string{"pod_namespace"}, nil, metrics.ALPHA, "")

// registerMetrics adds the count to the registry library-go's controllercmd
// serves on /metrics, read from the controller's state at each scrape.
func registerMetrics(s *state) error {
	return legacyregistry.CustomRegister(&collector{state: s})
}

type collector struct {
	metrics.BaseStableCollector
	state *state
}

func (c *collector) DescribeWithStability(ch chan<- *metrics.Desc) { ch <- uncredentialedDesc }

func (c *collector) CollectWithStability(ch chan<- metrics.Metric) {
	for namespace, n := range c.state.byNamespace() {
		ch <- metrics.NewLazyConstMetric(uncredentialedDesc, metrics.GaugeValue, float64(n), namespace)
	}
}
