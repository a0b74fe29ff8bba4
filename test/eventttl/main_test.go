// Package eventttl runs the operator against a control plane whose API
// server keeps an Event for eventTTL after its last write
// (kube-apiserver's --event-ttl; 1 h by default, 3 h on OpenShift), so that
// a test can watch Events expire in seconds and show that what the operator
// says with them stays visible while it is true. It needs its own control
// plane: the TTL is an API server flag.
package eventttl

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// eventTTL is the API server's --event-ttl here.
const eventTTL = 20 * time.Second

// env is the package's one cluster and the operator and webhook running
// against it.
var env struct {
	cp       *framework.Cluster
	kube     kubernetes.Interface
	operator operatorclientset.Interface
	running  *framework.Process
	webhook  *framework.WebhookProcess
}

func TestMain(m *testing.M) {
	os.Exit(framework.Suite{Name: "eventttl", SetUp: setUp, TearDown: tearDown}.Run(m))
}

func setUp(ctx context.Context, binaries framework.Binaries) error {
	binary, binDir := binaries.Operator, binaries.ControlPlaneDir
	var err error
	env.cp, err = framework.StartCluster(ctx, framework.ClusterOptions{
		ReleaseVersion: "4.99.0-eventttl",
		Image:          "registry.invalid/openshift/cluster-workload-access-operator:eventttl",
		ControlPlane:   controlplane.Options{BinDir: binDir, EventTTL: eventTTL},
	})
	if err != nil {
		return err
	}
	env.kube = kubernetes.NewForConfigOrDie(env.cp.Config)
	env.operator = operatorclientset.NewForConfigOrDie(env.cp.Config)
	if env.running, err = env.cp.StartOperator(binary, "operator"); err != nil {
		return err
	}
	// APIAccessPolicies are admitted only through the webhook's
	// access-grants check.
	env.webhook, err = env.cp.StartWebhook(ctx, binary, "webhook")
	return err
}

func tearDown(failed bool) {
	if env.webhook != nil {
		if failed {
			fmt.Fprintln(os.Stderr, env.webhook.Tail(40))
		}
		env.webhook.Stop()
	}
	if env.running != nil {
		env.running.Stop()
		if failed {
			fmt.Fprintln(os.Stderr, env.running.Tail(80))
		}
	}
	if env.cp != nil {
		if failed {
			fmt.Fprintln(os.Stderr, env.cp.Logs(30))
		}
		env.cp.Stop()
	}
}
