// Package faults runs the real operator and webhook binaries under a steady
// load of pod creations while something a payload component must survive
// happens to them: a webhook replica killed, a rolling restart of the
// webhook, kube-apiserver restarted. Each test prints its figures (pods
// refused, time to recover, LIST calls) and fails when they miss their goal;
// docs/reliability.md has the table and how to rerun it (make test-faults).
//
// The package has a control plane of its own because kube-apiserver runs
// with --enable-aggregator-routing=true: it calls the webhook Service through
// its EndpointSlice's ready endpoints, as OpenShift's does, so two webhook
// processes on two loopback "pod IPs" are two replicas behind one Service.
package faults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
	"github.com/openshift/cluster-workload-access-operator/test/s3server"
)

const (
	releaseVersion = "4.99.0-faults"
	operatorImage  = "registry.invalid/openshift/cluster-workload-access-operator:faults"
	region         = "us-east-1"
	issuerBucket   = "faults-oidc"
)

// env is the package's cluster, the operator and the webhook replicas.
var env struct {
	cp       *framework.Cluster
	kube     kubernetes.Interface
	operator operatorclientset.Interface
	binary   string
	running  *framework.Process
	s3       *s3server.Server
	s3Dir    string
	// replicas are the webhook processes behind the Service (replicas.go).
	replicas *webhookReplicas
	// load is the namespace and fixtures the pod load creates pods from.
	load *loadFixtures
	// started is when setUp began: the audit log since then holds every
	// informer's first list (apiserverrestart_test.go).
	started time.Time
}

func TestMain(m *testing.M) {
	os.Exit(framework.Suite{
		Name:     "faults",
		Isolated: "the webhook replicas' pod IPs live in a network namespace of the package's own (netns_test.go)",
		SetUp:    setUp,
		TearDown: tearDown,
	}.Run(m))
}

func setUp(ctx context.Context, binaries framework.Binaries) error {
	env.started = time.Now()
	env.binary = binaries.Operator
	s3Binary := binaries.S3Server
	var err error
	// Pod identity runs, publishing its issuer to a local S3 server, so the
	// webhook injects AWS credentials into pods of role ServiceAccounts.
	if env.s3Dir, err = os.MkdirTemp("", "faults-s3-"); err != nil {
		return err
	}
	if env.s3, err = s3server.Start(ctx, s3server.Options{Dir: env.s3Dir, Binary: s3Binary, Region: region}); err != nil {
		return err
	}
	env.cp, err = framework.StartCluster(ctx, framework.ClusterOptions{
		ReleaseVersion: releaseVersion,
		Image:          operatorImage,
		ControlPlane: controlplane.Options{
			AuditLog: true, AggregatorRouting: true,
			ServiceAccountIssuer: env.s3.Endpoint + "/" + issuerBucket,
		},
	})
	if err != nil {
		return err
	}
	env.kube = kubernetes.NewForConfigOrDie(env.cp.Config)
	env.operator = operatorclientset.NewForConfigOrDie(env.cp.Config)
	if err := env.cp.EnablePodIdentity(ctx, env.s3, issuerBucket); err != nil {
		return err
	}
	if env.running, err = startOperator(); err != nil {
		return err
	}
	if env.load, err = createLoadFixtures(ctx); err != nil {
		return err
	}
	env.replicas, err = startWebhookReplicas(ctx)
	return err
}

func tearDown(failed bool) {
	if env.replicas != nil {
		if failed {
			fmt.Fprintln(os.Stderr, env.replicas.tails(30))
		}
		env.replicas.stop()
	}
	if env.running != nil {
		env.running.Stop()
		if failed {
			fmt.Fprintln(os.Stderr, env.running.Tail(60))
		}
	}
	if env.s3 != nil {
		env.s3.Stop()
		_ = os.RemoveAll(env.s3Dir)
	}
	if env.cp != nil {
		if failed {
			fmt.Fprintln(os.Stderr, env.cp.Logs(30))
		}
		env.cp.Stop()
	}
}

// startOperator runs the operator as its Deployment does, leader election
// timings included: library-go's defaults ride out 78 s of API server
// downtime, where the short ones framework.StartOperator sets for quick
// fail-overs give up after 6 s and exit (TestAPIServerRestart).
func startOperator() (*framework.Process, error) {
	operatorEnv, err := env.cp.Payload.OperatorEnv()
	if err != nil {
		return nil, err
	}
	return framework.StartOperator(framework.OperatorOptions{
		Binary:     env.binary,
		Kubeconfig: env.cp.OperatorKubeconfig,
		LogDir:     filepath.Join(env.cp.Dir, "logs"),
		Name:       "operator",
		Env:        operatorEnv,
		// 0 keeps library-go's defaults; later flags win.
		ExtraArgs: []string{"--leader-election-lease-duration=0s", "--leader-election-renew-deadline=0s", "--leader-election-retry-period=0s"},
	})
}
