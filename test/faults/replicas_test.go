package faults

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
	"github.com/openshift/cluster-workload-access-operator/test/framework/netns"
)

// webhookReplicas are the webhook Deployment's two replicas: the real
// binary, run as framework.StartWebhook runs one, each on a "pod IP" of its
// own, published through endpoints.
type webhookReplicas struct {
	endpoints *endpoints
	// running are the processes by pod IP.
	running map[string]*framework.WebhookProcess
	// pods counts the pod IPs handed out, started the processes started.
	pods, started int
	// extraArgs come from $FAULTS_WEBHOOK_ARGS, to run the tests against a
	// webhook started otherwise (--shutdown-delay=0s: no graceful drain).
	extraArgs []string
}

// replicaCount is the Deployment's replicas on a HighlyAvailable cluster.
const replicaCount = 2

func startWebhookReplicas(ctx context.Context) (*webhookReplicas, error) {
	e, err := newEndpoints(ctx, env.kube)
	if err != nil {
		return nil, err
	}
	r := &webhookReplicas{endpoints: e, running: map[string]*framework.WebhookProcess{}, extraArgs: strings.Fields(os.Getenv("FAULTS_WEBHOOK_ARGS"))}
	for range replicaCount {
		if _, err := r.startPod(ctx); err != nil {
			return nil, err
		}
	}
	return r, r.waitAllReady(ctx)
}

// startPod starts a replica on a new pod IP, as a Deployment creates a pod.
func (r *webhookReplicas) startPod(ctx context.Context) (string, error) {
	ip := fmt.Sprintf("%s%d", podIPPrefix, firstPodIP+r.pods)
	r.pods++
	if err := netns.AddAddress(ip); err != nil {
		return "", err
	}
	w, err := r.startProcess(ctx, ip)
	if err != nil {
		return "", err
	}
	r.running[ip] = w
	r.endpoints.add(ip, w)
	return ip, nil
}

// restartContainer starts the replica at ip again, in the same pod.
func (r *webhookReplicas) restartContainer(ctx context.Context, ip string) error {
	w, err := r.startProcess(ctx, ip)
	if err != nil {
		return err
	}
	r.running[ip] = w
	r.endpoints.restarted(ip, w)
	return nil
}

func (r *webhookReplicas) startProcess(ctx context.Context, ip string) (*framework.WebhookProcess, error) {
	r.started++
	return env.cp.StartWebhookWith(ctx, env.binary, fmt.Sprintf("webhook-%d-on-%s", r.started, ip), framework.WebhookOptions{
		PodIP: ip, DeploymentShutdown: true, ExtraArgs: r.extraArgs,
	})
}

// kill is SIGKILL: the container dies, the pod stays.
func (r *webhookReplicas) kill(ip string) {
	w := r.running[ip]
	w.Kill()
	w.Stop() // ends its Secret copy; the process is gone already
}

// terminate starts a rollout's deletion of the pod at ip: SIGTERM, and the
// process left to drain. The channel gets the time it exited; forget then
// removes the pod.
func (r *webhookReplicas) terminate(ip string) <-chan time.Time {
	w := r.running[ip]
	exited := make(chan time.Time, 1)
	go func() {
		w.Stop()
		exited <- time.Now()
	}()
	return exited
}

// forget is the pod at ip deleted once its process exited and the kubelet
// saw it (up to its 1 s PLEG relist): its endpoint leaves the slice.
func (r *webhookReplicas) forget(ip string) {
	_ = wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		return !r.endpoints.isReady(ip), nil
	})
	r.endpoints.remove(ip)
	delete(r.running, ip)
}

// ips are the pod IPs in use, sorted.
func (r *webhookReplicas) ips() []string {
	out := make([]string, 0, len(r.running))
	for ip := range r.running {
		out = append(out, ip)
	}
	sort.Strings(out)
	return out
}

// waitReady waits until the slice has ip ready.
func (r *webhookReplicas) waitReady(ctx context.Context, ip string) error {
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return r.endpoints.isReady(ip), nil
	})
	if err != nil {
		return fmt.Errorf("replica %s never became ready in the endpoints: %w", ip, err)
	}
	return nil
}

func (r *webhookReplicas) waitAllReady(ctx context.Context) error {
	for _, ip := range r.ips() {
		if err := r.waitReady(ctx, ip); err != nil {
			return err
		}
	}
	return nil
}

// ensure leaves replicaCount ready replicas, whatever an earlier test did.
func (r *webhookReplicas) ensure(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for ip, w := range r.running {
		if w.Exited() {
			if err := r.restartContainer(ctx, ip); err != nil {
				t.Fatal(err)
			}
		}
	}
	for len(r.running) < replicaCount {
		if _, err := r.startPod(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.waitAllReady(ctx); err != nil {
		t.Fatal(err)
	}
	if errs := r.endpoints.errors(); len(errs) > 0 {
		t.Fatalf("writing the EndpointSlice failed: %v", errs)
	}
}

// admitted is each replica's count of answered admission reviews.
func (r *webhookReplicas) admitted() map[string]float64 {
	out := map[string]float64{}
	for ip, w := range r.running {
		if w.Exited() {
			continue
		}
		v, err := w.Metric(context.Background(), `workload_access_webhook_http_requests_total{code="200",path="/mutate-pods",verb="POST"}`)
		if err == nil {
			out[ip] = v
		}
	}
	return out
}

// tails are the last lines of every replica's log.
func (r *webhookReplicas) tails(n int) string {
	var b strings.Builder
	for _, ip := range r.ips() {
		b.WriteString(r.running[ip].Tail(n))
		b.WriteString("\n")
	}
	return b.String()
}

// stop ends the replicas at the end of the package: killed, as nothing is
// left to drain for, rather than 15 s each.
func (r *webhookReplicas) stop() {
	r.endpoints.stopAll()
	for ip := range r.running {
		r.kill(ip)
	}
}

// dumpOnFailure logs the operator's and the replicas' last lines when t fails.
func dumpOnFailure(t *testing.T) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(env.running.Tail(40))
			t.Log(env.replicas.tails(30))
		}
	})
}
