package webhook

import (
	"strings"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"github.com/spf13/pflag"

	"github.com/openshift/cluster-workload-access-operator/bindata"
)

// endpointPropagation is what the drain allows, after the kubelet marks the
// pod not ready, for the EndpointSlice controller to write it and the API
// server's endpoint resolver to see it.
const endpointPropagation = 5 * time.Second

// The webhook Deployment's drain adds up: readiness fails on SIGTERM and the
// pod keeps serving until the readiness probe has failed and endpoints have
// dropped it; in-flight admissions then get longer than the API server
// waits for any of them; and the kubelet's grace period covers both, with
// no preStop hook spending it first. test/faults rolls two replicas under
// load with these figures.
func TestDeploymentDrainAgreesWithProbeAndTimeouts(t *testing.T) {
	deploy := resourceread.ReadDeploymentV1OrDie(bindata.MustAsset("operand/webhook-deployment.yaml"))
	spec := deploy.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers, want the webhook alone", len(spec.Containers))
	}
	container := spec.Containers[0]

	// The container's flags as the binary parses them (the defaults, and
	// the Deployment's args on top).
	o := NewOptions()
	fs := pflag.NewFlagSet("webhook", pflag.ContinueOnError)
	o.AddFlags(fs)
	var ours []string
	for _, arg := range container.Args {
		if strings.HasPrefix(arg, "--shutdown-") {
			ours = append(ours, arg)
		}
	}
	if err := fs.Parse(ours); err != nil {
		t.Fatalf("the Deployment's shutdown flags %v: %v", ours, err)
	}

	probe := container.ReadinessProbe
	if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != "/readyz" {
		t.Fatalf("readiness probe %+v, want GET /readyz", probe)
	}
	notReadyWithin := time.Duration(probe.FailureThreshold*probe.PeriodSeconds) * time.Second
	if o.ShutdownDelay < notReadyWithin+endpointPropagation {
		t.Errorf("--shutdown-delay %s: the readiness probe fails within %d × %d s = %s, and endpoints need up to %s more; "+
			"the listener would close while the API server still sends to the pod", o.ShutdownDelay, probe.FailureThreshold, probe.PeriodSeconds, notReadyWithin, endpointPropagation)
	}

	longest := int32(0)
	for _, name := range []string{"operand/webhook-mutatingwebhookconfiguration.yaml", "operand/webhook-mutatingwebhookconfiguration-pod-identity.yaml"} {
		for _, w := range resourceread.ReadMutatingWebhookConfigurationV1OrDie(bindata.MustAsset(name)).Webhooks {
			longest = max(longest, *w.TimeoutSeconds)
		}
	}
	for _, w := range resourceread.ReadValidatingWebhookConfigurationV1OrDie(bindata.MustAsset("operand/webhook-validatingwebhookconfiguration.yaml")).Webhooks {
		longest = max(longest, *w.TimeoutSeconds)
	}
	if o.ShutdownTimeout <= time.Duration(longest)*time.Second {
		t.Errorf("--shutdown-timeout %s: an admission in flight may run for the longest timeoutSeconds, %d s", o.ShutdownTimeout, longest)
	}

	if container.Lifecycle != nil && container.Lifecycle.PreStop != nil {
		t.Errorf("a preStop hook runs before SIGTERM and spends the grace period the drain counts on: %+v", container.Lifecycle.PreStop)
	}
	if spec.TerminationGracePeriodSeconds == nil {
		t.Fatal("no terminationGracePeriodSeconds: the default 30 s is shorter than the drain")
	}
	grace := time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second
	if grace <= o.ShutdownDelay+o.ShutdownTimeout {
		t.Errorf("terminationGracePeriodSeconds %s: the kubelet would SIGKILL a replica still draining (--shutdown-delay %s + --shutdown-timeout %s)",
			grace, o.ShutdownDelay, o.ShutdownTimeout)
	}
}
