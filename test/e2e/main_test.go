// Package e2e runs the real operator binary against a real control plane
// (etcd, kube-apiserver, kube-controller-manager, kube-scheduler and a kwok
// node) started once for the package, and asserts what a cluster admin would
// see with kubectl.
package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

const (
	releaseVersion  = "4.99.0-e2e"
	operatorImage   = "registry.invalid/openshift/cluster-workload-access-operator:e2e"
	operatorNS      = "openshift-workload-access-operator"
	operandNS       = "openshift-workload-access"
	operatorSA      = "cluster-workload-access-operator"
	operatorUser    = "system:serviceaccount:" + operatorNS + ":" + operatorSA
	clusterOperator = "workload-access"
)

// env is the package's shared cluster and the operator running against it.
var env struct {
	root               string
	cp                 *controlplane.ControlPlane
	kube               kubernetes.Interface
	config             configclient.Interface
	operator           operatorclientset.Interface
	payload            *framework.Payload
	binary             string
	operatorKubeconfig string
	logDir             string
	// running is the operator process most tests share; tests that stop it
	// must start a replacement (see restartOperator).
	running *framework.OperatorProcess
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := setUp(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "e2e setup failed: %v\n", err)
		tearDown(true)
		return 1
	}
	code := m.Run()
	tearDown(code != 0)
	return code
}

func setUp(ctx context.Context) error {
	var err error
	if env.root, err = controlplane.RepoRoot(); err != nil {
		return err
	}
	if env.binary, err = operatorBinary(env.root); err != nil {
		return err
	}
	manifests := filepath.Join(env.root, "manifests")
	if env.payload, err = framework.LoadPayload(manifests, releaseVersion, operatorImage); err != nil {
		return err
	}
	crds, err := framework.CRDFiles(manifests)
	if err != nil {
		return err
	}
	crds = append(crds, framework.OpenShiftCRDs(env.root)...)

	if env.cp, err = controlplane.Start(ctx, controlplane.Options{CRDs: crds, AuditLog: true, Nodes: true}); err != nil {
		return err
	}
	env.logDir = filepath.Join(env.cp.Dir, "logs")
	env.kube = kubernetes.NewForConfigOrDie(env.cp.Config)
	env.config = configclient.NewForConfigOrDie(env.cp.Config)
	env.operator = operatorclientset.NewForConfigOrDie(env.cp.Config)

	if err := framework.CreateInfrastructure(ctx, env.config, configv1.HighlyAvailableTopologyMode); err != nil {
		return err
	}
	if err := env.payload.Apply(ctx, env.cp.Config); err != nil {
		return err
	}
	if env.operatorKubeconfig, err = serviceAccountKubeconfig(ctx, operatorNS, operatorSA); err != nil {
		return err
	}
	env.running, err = startOperator("operator-main")
	return err
}

func tearDown(failed bool) {
	if env.running != nil {
		env.running.Stop()
		if failed {
			fmt.Fprintln(os.Stderr, env.running.Tail(80))
		}
	}
	if env.cp != nil {
		if failed {
			fmt.Fprintln(os.Stderr, env.cp.Logs(40))
		}
		env.cp.Stop()
	}
}

// operatorBinary is $OPERATOR_BINARY (the Makefile passes what `make build`
// produced) or a fresh build into _output/.
func operatorBinary(root string) (string, error) {
	if bin := os.Getenv("OPERATOR_BINARY"); bin != "" {
		return filepath.Abs(bin)
	}
	out := filepath.Join(root, "_output", "e2e", "cluster-workload-access-operator")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/cluster-workload-access-operator")
	cmd.Dir = root
	if output, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the operator: %v\n%s", err, output)
	}
	return out, nil
}

// serviceAccountKubeconfig writes a kubeconfig holding a bound token for
// the ServiceAccount, so the operator runs with exactly its manifests' RBAC.
func serviceAccountKubeconfig(ctx context.Context, namespace, name string) (string, error) {
	token, err := env.kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](24 * 3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for %s/%s: %w", namespace, name, err)
	}
	path := filepath.Join(env.cp.Dir, name+".kubeconfig")
	return path, env.cp.WriteKubeconfig(path, &clientcmdapi.AuthInfo{Token: token.Status.Token})
}

func startOperator(name string) (*framework.OperatorProcess, error) {
	return framework.StartOperator(framework.OperatorOptions{
		Binary:         env.binary,
		Kubeconfig:     env.operatorKubeconfig,
		LogDir:         env.logDir,
		Name:           name,
		ReleaseVersion: releaseVersion,
	})
}
