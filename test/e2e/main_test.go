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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/issuerpublisher"
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
	s3    *s3server.Server
	s3Dir string
}

// issuerURL is where the suite's issuer is published (path style).
func issuerURL() string { return env.s3.Endpoint + "/" + issuerBucket }

// issuerBucket is where the suite's issuer is published.
const issuerBucket = "e2e-oidc"

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
	root, err := controlplane.RepoRoot()
	if err != nil {
		return err
	}
	if env.binary, err = operatorBinary(root); err != nil {
		return err
	}
	// The S3 server first: the API server's service account issuer is the
	// URL the operator publishes the issuer at, so its tokens verify
	// against the published keys.
	if env.s3Dir, err = os.MkdirTemp("", "e2e-s3-"); err != nil {
		return err
	}
	if env.s3, err = s3server.Start(ctx, s3server.Options{Dir: env.s3Dir, Region: e2eRegion}); err != nil {
		return err
	}
	env.cp, err = framework.StartCluster(ctx, framework.ClusterOptions{
		ReleaseVersion: releaseVersion,
		Image:          operatorImage,
		ControlPlane:   controlplane.Options{AuditLog: true, ServiceAccountIssuer: issuerURL()},
	})
	if err != nil {
		return err
	}
	env.payload = env.cp.Payload
	env.kube = kubernetes.NewForConfigOrDie(env.cp.Config)
	env.config = configclient.NewForConfigOrDie(env.cp.Config)
	env.operator = operatorclientset.NewForConfigOrDie(env.cp.Config)
	if err := enablePodIdentity(ctx); err != nil {
		return err
	}
	env.running, err = startOperator("operator-main")
	return err
}

// enablePodIdentity turns pod identity on before the operator starts, as an
// admin would on a cluster that is not AWS, publishing to the local S3
// server with the credentials the CredentialsRequest would provision.
func enablePodIdentity(ctx context.Context) error {
	_, err := env.kube.CoreV1().Secrets(operatorNS).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: issuerCredentialsSecret},
		Data: map[string][]byte{
			"aws_access_key_id":     []byte(env.s3.AccessKeyID),
			"aws_secret_access_key": []byte(env.s3.SecretAccessKey),
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	wa, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Get(ctx, operatorv1alpha1.WorkloadAccessName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	wa.Spec.PodIdentity = operatorv1alpha1.PodIdentitySpec{
		Mode:   operatorv1alpha1.PodIdentityEnabled,
		Region: e2eRegion,
		Issuer: operatorv1alpha1.IssuerPublishingSpec{Bucket: issuerBucket, Endpoint: env.s3.Endpoint},
	}
	// The kube-apiserver operator's ConfigMap of trusted service account
	// keys: here, the control plane's one key.
	saKey, err := os.ReadFile(env.cp.ServiceAccountPublicKeyFile())
	if err != nil {
		return err
	}
	if _, err := env.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: issuerpublisher.SigningCertsNamespace}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	if _, err := env.kube.CoreV1().ConfigMaps(issuerpublisher.SigningCertsNamespace).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: issuerpublisher.SigningCertsConfigMap},
		Data:       map[string]string{"service-account-001.pub": string(saKey)},
	}, metav1.CreateOptions{}); err != nil {
		return err
	}
	// The Authentication an AWS cluster has: its issuer is the published one.
	if _, err := env.config.ConfigV1().Authentications().Create(ctx, &configv1.Authentication{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec:       configv1.AuthenticationSpec{ServiceAccountIssuer: issuerURL()},
	}, metav1.CreateOptions{}); err != nil {
		return err
	}
	_, err = env.operator.OperatorV1alpha1().WorkloadAccesses().Update(ctx, wa, metav1.UpdateOptions{})
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

func startOperator(name string) (*framework.Process, error) {
	return env.cp.StartOperator(env.binary, name)
}
