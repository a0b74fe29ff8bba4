// Package upgrade runs the operator's fault and release scenarios that need
// a control plane of their own: one started with the previous release's
// CRDs and manifests, whose API server calls the webhook through its
// EndpointSlices, with the webhook Deployment's pods run by the package's
// stand-in kubelet (pods_test.go) so that kube-controller-manager rolls
// them as a cluster would, under a steady pod load. Each scenario prints
// its figures; docs/reliability.md holds them.
package upgrade

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
	"github.com/openshift/cluster-workload-access-operator/test/s3server"
)

// previousRelease is the commit the upgrade starts from and the downgrade
// returns to: the last commit before issue 47 changed two CRDs (the
// IAMRoleRequest's TokensAccepted printer column, the APIAccessPolicy's
// subject validation), which crdchanges_test.go checks across the upgrade
// and back, and after issue 35's drain (--shutdown-delay 15s and
// Connection: close), so no replica of either release meets the
// broken-pipe race (docs/reliability.md). Move it forward when a release
// is cut, with the checks of whatever CRD change that release brings;
// hack/build-operator-at.sh builds its operator once into ~/.cache and
// keeps its manifests beside it.
const previousRelease = "892aa500"

const (
	previousVersion = "4.98.0-upgrade"
	currentVersion  = "4.99.0-upgrade"
	previousImage   = "registry.invalid/openshift/cluster-workload-access-operator:previous"
	currentImage    = "registry.invalid/openshift/cluster-workload-access-operator:current"
	issuerBucket    = "upgrade-oidc"
	region          = "us-east-1"
)

// release is one version of the operator: its binary and its payload.
type release struct {
	name    string
	version string
	image   string
	binary  string
	payload *framework.Payload
}

// env is the package's control plane and what runs against it.
var env struct {
	cp       *framework.Cluster
	kube     kubernetes.Interface
	config   configclient.Interface
	operator operatorclientset.Interface
	dynamic  dynamic.Interface

	previous, current *release
	// at is the release the cluster runs now.
	at *release
	// operators are the operator processes running now.
	operators []*framework.Process
	webhooks  *webhookPods

	s3    *s3server.Server
	s3Dir string
}

func TestMain(m *testing.M) {
	os.Exit(framework.Suite{
		Name:     "upgrade",
		Isolated: "the webhook pods' IPs live in a network namespace of the package's own (pods_test.go)",
		// Outside it builds the previous release (minutes cold); inside it finds it cached.
		Prepare:  resolveReleases,
		SetUp:    setUp,
		TearDown: tearDown,
	}.Run(m))
}

// resolveReleases finds both binaries and payloads: this tree's, and the
// previous release's, built from git.
func resolveReleases(binaries framework.Binaries) error {
	root, err := controlplane.RepoRoot()
	if err != nil {
		return err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("bash", filepath.Join(root, "hack", "build-operator-at.sh"), previousRelease)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the previous release's operator (previousRelease %s in test/upgrade): %v: %s", previousRelease, err, strings.TrimSpace(stderr.String()))
	}
	previousDir := strings.TrimSpace(stdout.String())

	env.previous = &release{name: "previous release " + previousRelease, version: previousVersion, image: previousImage,
		binary: filepath.Join(previousDir, "cluster-workload-access-operator")}
	if env.previous.payload, err = framework.LoadPayload(filepath.Join(previousDir, "manifests"), previousVersion, previousImage); err != nil {
		return fmt.Errorf("the previous release's manifests: %w", err)
	}
	env.current = &release{name: "this tree", version: currentVersion, image: currentImage, binary: binaries.Operator}
	env.current.payload, err = framework.LoadPayload(filepath.Join(root, "manifests"), currentVersion, currentImage)
	return err
}

// setUp starts a cluster at the previous release: its CRDs and manifests,
// its operator and two webhook replicas, with pod identity on (publishing
// to a local S3 server), as the previous release left a cluster.
func setUp(ctx context.Context, binaries framework.Binaries) error {
	s3Binary, binDir := binaries.S3Server, binaries.ControlPlaneDir
	var err error
	if env.s3Dir, err = os.MkdirTemp("", "upgrade-s3-"); err != nil {
		return err
	}
	if env.s3, err = s3server.Start(ctx, s3server.Options{Dir: env.s3Dir, Binary: s3Binary, Region: region}); err != nil {
		return err
	}
	previousManifests := filepath.Join(filepath.Dir(env.previous.binary), "manifests")
	stages, err := filepath.Abs("testdata/kwok-webhook-pods.yaml")
	if err != nil {
		return err
	}
	env.cp, err = framework.StartCluster(ctx, framework.ClusterOptions{
		ReleaseVersion: previousVersion,
		Image:          previousImage,
		Manifests:      previousManifests,
		ControlPlane: controlplane.Options{BinDir: binDir, AuditLog: true, AggregatorRouting: true,
			ServiceAccountIssuer: env.s3.Endpoint + "/" + issuerBucket, KwokStages: []string{stages}},
	})
	if err != nil {
		return err
	}
	env.kube = kubernetes.NewForConfigOrDie(env.cp.Config)
	env.config = configclient.NewForConfigOrDie(env.cp.Config)
	env.operator = operatorclientset.NewForConfigOrDie(env.cp.Config)
	env.dynamic = dynamic.NewForConfigOrDie(env.cp.Config)
	if err := env.cp.EnablePodIdentity(ctx, env.s3, issuerBucket); err != nil {
		return err
	}
	env.at = env.previous
	if env.webhooks, err = startWebhookPods(map[string]string{
		env.previous.image: env.previous.binary, env.current.image: env.current.binary}); err != nil {
		return err
	}
	p, err := startOperator(ctx, env.previous, "operator-previous", false)
	if err != nil {
		return err
	}
	env.operators = []*framework.Process{p}
	if err := waitRollout(ctx, env.previous); err != nil {
		return err
	}
	if errs := env.webhooks.errors(); len(errs) > 0 {
		return fmt.Errorf("running the webhook pods: %v", errs)
	}
	return nil
}

func tearDown(failed bool) {
	if env.webhooks != nil {
		env.webhooks.stopAll(failed)
	}
	stopOperators(failed)
	if env.s3 != nil {
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

// startOperator runs r's operator with a token of its own (so the audit log
// tells its requests from another process's) and r's Deployment env.
func startOperator(ctx context.Context, r *release, name string, noLeaderElection bool) (*framework.Process, error) {
	kubeconfig, err := env.cp.NewOperatorKubeconfig(ctx, name)
	if err != nil {
		return nil, err
	}
	operatorEnv, err := r.payload.OperatorEnv()
	if err != nil {
		return nil, err
	}
	var extra []string
	if noLeaderElection {
		extra = append(extra, "--disable-leader-election")
	}
	p, err := framework.StartOperator(framework.OperatorOptions{
		Binary:     r.binary,
		Kubeconfig: kubeconfig,
		LogDir:     filepath.Join(env.cp.Dir, "logs"),
		Name:       name,
		Env:        operatorEnv,
		ExtraArgs:  extra,
	})
	if err != nil {
		return nil, err
	}
	credentials[p], err = credentialID(kubeconfig)
	return p, err
}

// credentials are the audit log's credential id of each operator process.
var credentials = map[*framework.Process]string{}

// credentialID is how the audit log names the token in kubeconfig:
// "JTI=" and its JWT id.
func credentialID(kubeconfig string) (string, error) {
	config, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		return "", err
	}
	for _, auth := range config.AuthInfos {
		parts := strings.Split(auth.Token, ".")
		if len(parts) != 3 {
			continue
		}
		payload, err := base64.RawURLEncoding.DecodeString(parts[1])
		if err != nil {
			return "", err
		}
		var claims struct {
			ID string `json:"jti"`
		}
		if err := json.Unmarshal(payload, &claims); err != nil {
			return "", err
		}
		return "JTI=" + claims.ID, nil
	}
	return "", fmt.Errorf("%s holds no token", kubeconfig)
}

func stopOperators(failed bool) {
	for _, p := range env.operators {
		p.Stop()
		if failed {
			fmt.Fprintln(os.Stderr, p.Tail(60))
		}
	}
	env.operators = nil
}

// dumpOnFailure prints the operators' and webhooks' logs when t fails.
func dumpOnFailure(t *testing.T) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, p := range env.operators {
			t.Log(p.Tail(60))
		}
		for _, w := range env.webhooks.processes() {
			t.Log(w.Tail(20))
		}
	})
}
