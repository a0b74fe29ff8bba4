package framework

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
)

// ClusterOptions say which payload to install on which control plane.
type ClusterOptions struct {
	ReleaseVersion string
	Image          string
	// Manifests is the payload's directory; empty means this tree's
	// manifests/ (an upgrade test starts from an older release's).
	Manifests string
	// ControlPlane is passed to controlplane.Start; CRDs and Nodes are filled in.
	ControlPlane controlplane.Options
}

// Cluster is a control plane with the operator's payload applied, as the
// CVO would leave it just before the operator's first start.
type Cluster struct {
	*controlplane.ControlPlane
	Payload *Payload
	// OperatorKubeconfig holds a token of the operator's ServiceAccount, so
	// the operator runs with exactly its manifests' RBAC.
	OperatorKubeconfig string
}

// StartCluster starts the control plane with every CRD installed, creates
// infrastructures/cluster, applies manifests/ and mints the operator's token.
func StartCluster(ctx context.Context, opts ClusterOptions) (*Cluster, error) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		return nil, err
	}
	manifests := opts.Manifests
	if manifests == "" {
		manifests = filepath.Join(root, "manifests")
	}
	payload, err := LoadPayload(manifests, opts.ReleaseVersion, opts.Image)
	if err != nil {
		return nil, err
	}
	crds, err := CRDFiles(manifests)
	if err != nil {
		return nil, err
	}
	monitoring, err := MonitoringCRDs(root)
	if err != nil {
		return nil, err
	}
	cpOpts := opts.ControlPlane
	cpOpts.CRDs = append(append(crds, OpenShiftCRDs(root)...), monitoring...)
	cpOpts.Nodes = true
	cp, err := controlplane.Start(ctx, cpOpts)
	if err != nil {
		return nil, err
	}
	c := &Cluster{ControlPlane: cp, Payload: payload}
	if err := c.install(ctx); err != nil {
		cp.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) install(ctx context.Context) error {
	if err := CreateInfrastructure(ctx, configclient.NewForConfigOrDie(c.Config), configv1.HighlyAvailableTopologyMode); err != nil {
		return err
	}
	if err := c.Payload.Apply(ctx, c.Config); err != nil {
		return err
	}
	var err error
	c.OperatorKubeconfig, err = c.serviceAccountKubeconfig(ctx, kubernetes.NewForConfigOrDie(c.Config),
		OperatorNamespace, OperatorName, "operator")
	return err
}

// serviceAccountKubeconfig writes <file>.kubeconfig holding a week-long token
// of the ServiceAccount, and returns its path.
func (c *Cluster) serviceAccountKubeconfig(ctx context.Context, kube kubernetes.Interface, namespace, name, file string) (string, error) {
	token, err := kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64((7 * 24 * time.Hour).Seconds()))}},
		metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for %s/%s: %w", namespace, name, err)
	}
	path := filepath.Join(c.Dir, file+".kubeconfig")
	return path, c.WriteKubeconfig(path, &clientcmdapi.AuthInfo{Token: token.Status.Token})
}

// NewOperatorKubeconfig writes <file>.kubeconfig with a token of its own
// for the operator's ServiceAccount: the audit log tells apart processes
// given different ones (AuditEvent.CredentialID).
func (c *Cluster) NewOperatorKubeconfig(ctx context.Context, file string) (string, error) {
	kube, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return "", err
	}
	return c.serviceAccountKubeconfig(ctx, kube, OperatorNamespace, OperatorName, file)
}

// StartOperator runs the operator binary against this cluster as its ServiceAccount.
func (c *Cluster) StartOperator(binary, name string) (*Process, error) {
	return c.StartOperatorIn(nil, binary, name)
}

// StartOperatorIn is StartOperator with the process in cgroup (nil for
// none), and the runtime's gctrace in its log.
func (c *Cluster) StartOperatorIn(cgroup *MemoryCgroup, binary, name string) (*Process, error) {
	env, err := c.Payload.OperatorEnv()
	if err != nil {
		return nil, err
	}
	if cgroup != nil {
		env = append(env, "GODEBUG=gctrace=1")
	}
	return StartOperator(OperatorOptions{
		Binary:       binary,
		Kubeconfig:   c.OperatorKubeconfig,
		LogDir:       filepath.Join(c.Dir, "logs"),
		Name:         name,
		Env:          env,
		MemoryCgroup: cgroup,
	})
}
