package upgrade

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// leaseName is library-go's leader-election lock, named after the operator.
const leaseName = framework.OperatorName + "-lock"

// ensureRelease moves the cluster to r if it runs another release, without
// checking anything on the way: for a scenario that needs r to start from.
func ensureRelease(t *testing.T, r *release) {
	t.Helper()
	if env.at == r {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := r.payload.Upgrade(ctx, env.cp.Config); err != nil {
		t.Fatal(err)
	}
	env.cp.Payload = r.payload
	replaceOperator(t, r, "operator-"+r.version)
	waitDeploymentAt(t, r)
	if err := env.webhooks.waitDrained(ctx); err != nil {
		t.Fatal(err)
	}
	env.at = r
}

// replaceOperator stops the running operator processes and starts r's, as
// a rollout of the operator's Deployment (one replica) does.
func replaceOperator(t *testing.T, r *release, name string) *framework.Process {
	t.Helper()
	stopOperators(false)
	p, err := startOperator(context.Background(), r, name, false)
	if err != nil {
		t.Fatal(err)
	}
	env.operators = []*framework.Process{p}
	waitLeader(t, p)
	return p
}

func waitLeader(t *testing.T, p *framework.Process) {
	t.Helper()
	framework.Eventually(t, time.Minute, func(context.Context) error {
		if p.Exited() {
			return fmt.Errorf("%s exited:\n%s", p.Name, p.Tail(30))
		}
		if !p.LogContains("Successfully acquired lease") {
			return fmt.Errorf("%s has not acquired the lease", p.Name)
		}
		return nil
	})
}

// rolledOut says whether the webhook Deployment runs image everywhere, as
// `oc rollout status` would say it: every replica updated and available,
// which its pods are once their real process answers the readiness probe
// (pods_test.go).
func rolledOut(d *appsv1.Deployment, image string) error {
	if got := d.Spec.Template.Spec.Containers[0].Image; got != image {
		return fmt.Errorf("the webhook Deployment's image is %s, want %s", got, image)
	}
	s := d.Status
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	if s.ObservedGeneration < d.Generation || s.UpdatedReplicas != want || s.Replicas != want || s.AvailableReplicas != want {
		return fmt.Errorf("the webhook Deployment is rolling out: generation %d observed %d, %d updated, %d replicas, %d available, want %d",
			d.Generation, s.ObservedGeneration, s.UpdatedReplicas, s.Replicas, s.AvailableReplicas, want)
	}
	return nil
}

// waitDeploymentAt waits until the operator has rolled the webhook
// Deployment to r's image.
func waitDeploymentAt(t *testing.T, r *release) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := waitRollout(ctx, r); err != nil {
		t.Fatal(err)
	}
}

// waitRollout waits until the webhook Deployment has rolled out to r's
// image and each of its pods is listed in the endpoints (which follow a
// pod's readiness, a moment later), failing at once when the stand-in
// kubelet could not run a pod.
func waitRollout(ctx context.Context, r *release) error {
	var last error
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if errs := env.webhooks.errors(); len(errs) > 0 {
			return false, fmt.Errorf("running the webhook pods: %v", errs)
		}
		d, err := env.kube.AppsV1().Deployments(framework.OperandNamespace).Get(ctx, framework.WebhookName, metav1.GetOptions{})
		if err == nil {
			err = rolledOut(d, r.image)
		}
		if listed := env.webhooks.listed(r.image); err == nil && listed != d.Status.Replicas {
			err = fmt.Errorf("%d of the webhook's %d pods are listed in the endpoints", listed, d.Status.Replicas)
		}
		last = err
		return err == nil, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("%w: %v", err, last)
	}
	return err
}
