package upgrade

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
	"github.com/openshift/cluster-workload-access-operator/test/framework/netns"
)

// The webhook Service's endpoints are written by this package: no
// EndpointSlice controller runs on the test control plane (and kwok's pods
// are Ready whatever runs). Each replica gets an EndpointSlice of its own
// once its process answers /readyz, and loses it before it gets SIGTERM, as
// the controller unlists a terminating pod. The API server picks among
// the slices at random for each call (--enable-aggregator-routing).
// Each replica listens on a "pod IP" of its own, a TEST-NET-1 address on the
// loopback of the package's network namespace (netns.Rerun in
// main_test.go): EndpointSlices may not hold loopback addresses.

// The replicas' pod IPs: 192.0.2.101 on (netns.IssuerAddress, 192.0.2.10, is
// the namespace's too, unused here).
const (
	podIPPrefix = "192.0.2."
	firstPodIP  = 100
)

// webhookReplicas are the webhook processes behind the Service.
type webhookReplicas struct {
	running []*framework.WebhookProcess
	// binaries[i] is what running[i] runs.
	binaries []string
	started  int
}

// start runs one more replica of binary and lists it.
func (r *webhookReplicas) start(ctx context.Context, binary string) error {
	r.started++
	ip := fmt.Sprintf("%s%d", podIPPrefix, firstPodIP+r.started)
	if err := netns.AddAddress(ip); err != nil {
		return err
	}
	w, err := env.cp.StartWebhookWith(ctx, binary, fmt.Sprintf("webhook-%d", r.started), framework.WebhookOptions{PodIP: ip, DeploymentShutdown: true})
	if err != nil {
		return err
	}
	r.running = append(r.running, w)
	r.binaries = append(r.binaries, binary)
	return list(ctx, w)
}

// scale starts replicas of binary until n run.
func (r *webhookReplicas) scale(ctx context.Context, binary string, n int) error {
	for len(r.running) < n {
		if err := r.start(ctx, binary); err != nil {
			return err
		}
	}
	return nil
}

// roll replaces every replica not running binary, one at a time, as a
// Deployment rollout with maxSurge does: the new replica is listed once
// ready, then the old one is unlisted and drained (SIGTERM).
func (r *webhookReplicas) roll(ctx context.Context, binary string) error {
	for i := 0; i < len(r.running); {
		if r.binaries[i] == binary {
			i++
			continue
		}
		if err := r.start(ctx, binary); err != nil {
			return err
		}
		old := r.running[i]
		r.running = append(r.running[:i:i], r.running[i+1:]...)
		r.binaries = append(r.binaries[:i:i], r.binaries[i+1:]...)
		if err := unlist(ctx, old); err != nil {
			return err
		}
		old.Stop()
	}
	return nil
}

func (r *webhookReplicas) stopAll(failed bool) {
	for _, w := range r.running {
		w.Stop()
		if failed {
			fmt.Fprintln(os.Stderr, w.Tail(20))
		}
	}
	r.running, r.binaries = nil, nil
}

func sliceName(w *framework.WebhookProcess) string { return framework.WebhookName + "-" + w.Name }

// list writes w's EndpointSlice: the API server may call it from now on.
func list(ctx context.Context, w *framework.WebhookProcess) error {
	host, port, err := net.SplitHostPort(w.Address)
	if err != nil {
		return err
	}
	_, metricsPort, err := net.SplitHostPort(w.MetricsAddress)
	if err != nil {
		return err
	}
	https, _ := strconv.Atoi(port)
	metrics, _ := strconv.Atoi(metricsPort)
	_, err = env.kube.DiscoveryV1().EndpointSlices(framework.OperandNamespace).Create(ctx, &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name: sliceName(w),
			Labels: map[string]string{
				discoveryv1.LabelServiceName: framework.WebhookName,
				discoveryv1.LabelManagedBy:   "test.upgrade.workload-access.openshift.io",
			},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{
			{Name: ptr.To("https"), Port: ptr.To(int32(https))},
			{Name: ptr.To("metrics"), Port: ptr.To(int32(metrics))},
		},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{host}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
	}, metav1.CreateOptions{})
	return err
}

// unlist deletes w's EndpointSlice. The API server's informer sees it
// within milliseconds; in a cluster, where unlisting and SIGTERM happen at
// once, the webhook's --shutdown-delay covers the propagation.
func unlist(ctx context.Context, w *framework.WebhookProcess) error {
	err := env.kube.DiscoveryV1().EndpointSlices(framework.OperandNamespace).Delete(ctx, sliceName(w), metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
