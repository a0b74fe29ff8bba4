// Package e2e runs the real operator binary against a real control plane
// (etcd, kube-apiserver, kube-controller-manager, kube-scheduler and a kwok
// node) started once for the package, and asserts what a cluster admin would
// see with kubectl.
package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	"k8s.io/client-go/kubernetes"

	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
	"github.com/openshift/cluster-workload-access-operator/test/s3server"
)

const (
	releaseVersion = "4.99.0-e2e"
	operatorImage  = "registry.invalid/openshift/cluster-workload-access-operator:e2e"
	// Short names for what nearly every test reads.
	operatorNS      = framework.OperatorNamespace
	operandNS       = framework.OperandNamespace
	clusterOperator = framework.ClusterOperatorName
)

// env is the package's shared cluster and the operator running against it.
var env struct {
	cp       *framework.Cluster
	kube     kubernetes.Interface
	config   configclient.Interface
	operator operatorclientset.Interface
	payload  *framework.Payload
	binary   string
	// running is the operator process most tests share; tests that stop it
	// must start a replacement (see replaceOperator).
	running *framework.Process
	// webhook is the webhook binary serving the Service's ClusterIP, started
	// by the first test that needs it (ensureWebhook).
	webhook  *framework.WebhookProcess
	webhooks int
	// s3 is the S3-compatible server the issuer is published to; the suite
	// runs with pod identity Enabled, publishing to issuerBucket there.
	s3 *s3server.Server
	// s3Binary and binDir are versitygw and the control plane's binaries.
	s3Binary, binDir string
	s3Dir            string
}

// issuerURL is where the suite's issuer is published (path style).
func issuerURL() string { return env.s3.Endpoint + "/" + issuerBucket }

// issuerBucket is where the suite's issuer is published.
const issuerBucket = "e2e-oidc"

func TestMain(m *testing.M) {
	os.Exit(framework.Suite{Name: "e2e", SetUp: setUp, TearDown: tearDown}.Run(m))
}

func setUp(ctx context.Context, binaries framework.Binaries) error {
	env.binary, env.s3Binary, env.binDir = binaries.Operator, binaries.S3Server, binaries.ControlPlaneDir
	var err error
	// The S3 server first: the API server's service account issuer is the
	// URL the operator publishes the issuer at, so its tokens verify
	// against the published keys.
	if env.s3Dir, err = os.MkdirTemp("", "e2e-s3-"); err != nil {
		return err
	}
	if env.s3, err = s3server.Start(ctx, s3server.Options{Dir: env.s3Dir, Binary: env.s3Binary, Region: e2eRegion}); err != nil {
		return err
	}
	env.cp, err = framework.StartCluster(ctx, framework.ClusterOptions{
		ReleaseVersion: releaseVersion,
		Image:          operatorImage,
		ControlPlane:   controlplane.Options{BinDir: env.binDir, AuditLog: true, ServiceAccountIssuer: issuerURL()},
	})
	if err != nil {
		return err
	}
	env.payload = env.cp.Payload
	env.kube = kubernetes.NewForConfigOrDie(env.cp.Config)
	env.config = configclient.NewForConfigOrDie(env.cp.Config)
	env.operator = operatorclientset.NewForConfigOrDie(env.cp.Config)
	// Pod identity on, as an admin would turn it on off AWS, publishing to
	// the local S3 server.
	if err := env.cp.EnablePodIdentity(ctx, env.s3, issuerBucket); err != nil {
		return err
	}
	// As an admin does for the Shared Resource CSI driver: a role to read
	// ClusterBundle sources, bound in each source namespace (testNamespace).
	if err := createDriverReadRole(ctx); err != nil {
		return err
	}
	env.running, err = startOperator("operator-main")
	return err
}

func tearDown(failed bool) {
	if env.webhook != nil {
		if failed {
			fmt.Fprintln(os.Stderr, env.webhook.Tail(40))
		}
		stopWebhook()
	}
	if env.running != nil {
		env.running.Stop()
		if failed {
			fmt.Fprintln(os.Stderr, env.running.Tail(80))
		}
	}
	if env.s3 != nil {
		if failed {
			fmt.Fprintln(os.Stderr, env.s3.Tail(20))
		}
		env.s3.Stop()
		_ = os.RemoveAll(env.s3Dir)
	}
	if env.cp != nil {
		if failed {
			fmt.Fprintln(os.Stderr, env.cp.Logs(40))
		}
		env.cp.Stop()
	}
}

func startOperator(name string) (*framework.Process, error) {
	return env.cp.StartOperator(env.binary, name)
}
