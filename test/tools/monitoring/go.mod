// The monitoring.coreos.com CRDs (ServiceMonitor, PrometheusRule) the e2e
// control plane installs, as prometheus-operator generates and ships them
// (example/prometheus-operator-crd); nothing here is built.
module github.com/openshift/cluster-workload-access-operator/test/tools/monitoring

go 1.26.0

require github.com/prometheus-operator/prometheus-operator v0.85.0
