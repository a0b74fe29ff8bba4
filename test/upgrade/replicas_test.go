package upgrade

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// endpointSliceName is the webhook Service's EndpointSlice this package
// writes. No EndpointSlice controller runs on the test control plane (and
// kwok's pods are Ready whatever runs), so the test plays it: a replica's
// address is listed once the process answers /readyz, and unlisted before
// it gets SIGTERM, as the controller unlists a terminating pod.
const endpointSliceName = framework.WebhookName + "-replicas"

// webhookReplicas are the webhook processes behind the Service, each on a
// loopback address of its own as each pod has its IP.
type webhookReplicas struct {
	running []*framework.WebhookProcess
	// binaries[i] is what running[i] runs.
	binaries []string
	started  int
}

// start runs one more replica of binary and lists it.
func (r *webhookReplicas) start(ctx context.Context, binary string) error {
	r.started++
	host := fmt.Sprintf("127.30.0.%d", r.started)
	w, err := env.cp.StartWebhookAt(ctx, binary, fmt.Sprintf("webhook-%d", r.started), host)
	if err != nil {
		return err
	}
	r.running = append(r.running, w)
	r.binaries = append(r.binaries, binary)
	return r.publish(ctx)
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
		if err := r.publish(ctx); err != nil {
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

// publish writes the EndpointSlice listing every running replica.
func (r *webhookReplicas) publish(ctx context.Context) error {
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name:      endpointSliceName,
			Namespace: framework.OperandNamespace,
			Labels: map[string]string{
				discoveryv1.LabelServiceName: framework.WebhookName,
				discoveryv1.LabelManagedBy:   "test.upgrade.workload-access.openshift.io",
			},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	for i, w := range r.running {
		host, port, err := net.SplitHostPort(w.Address)
		if err != nil {
			return err
		}
		_, metricsPort, err := net.SplitHostPort(w.MetricsAddress)
		if err != nil {
			return err
		}
		if i == 0 {
			https, _ := strconv.Atoi(port)
			metrics, _ := strconv.Atoi(metricsPort)
			slice.Ports = []discoveryv1.EndpointPort{
				{Name: ptr.To("https"), Port: ptr.To(int32(https))},
				{Name: ptr.To("metrics"), Port: ptr.To(int32(metrics))},
			}
		}
		slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{host},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
		})
	}
	slices := env.kube.DiscoveryV1().EndpointSlices(framework.OperandNamespace)
	for {
		current, err := slices.Get(ctx, endpointSliceName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = slices.Create(ctx, slice, metav1.CreateOptions{})
		} else if err == nil {
			slice.ResourceVersion = current.ResourceVersion
			_, err = slices.Update(ctx, slice, metav1.UpdateOptions{})
		}
		if err == nil || !apierrors.IsConflict(err) {
			if err != nil {
				return err
			}
			// The API server's informer sees the change within
			// milliseconds; the webhook's own --shutdown-delay covers it
			// in a cluster, where unlisting and SIGTERM are concurrent.
			time.Sleep(200 * time.Millisecond)
			return nil
		}
	}
}
