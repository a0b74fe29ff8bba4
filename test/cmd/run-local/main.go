// Command run-local brings up the test control plane on loopback, applies
// the operator's CVO payload to it and runs the operator against it as its
// own ServiceAccount, until interrupted. `make run-local` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

func main() {
	binary := flag.String("operator-binary", "_output/bin/cluster-workload-access-operator", "operator binary to run")
	dir := flag.String("dir", "_output/local", "where the control plane keeps its PKI, data and logs")
	flag.Parse()
	if err := run(*binary, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "run-local:", err)
		os.Exit(1)
	}
}

func run(binary, dir string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := controlplane.RepoRoot()
	if err != nil {
		return err
	}
	if binary, err = filepath.Abs(binary); err != nil {
		return err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	_ = os.RemoveAll(dir) // a fresh cluster each run
	manifests := filepath.Join(root, "manifests")
	const version = "0.0.1-local"
	payload, err := framework.LoadPayload(manifests, version, "registry.invalid/cluster-workload-access-operator:local")
	if err != nil {
		return err
	}
	crds, err := framework.CRDFiles(manifests)
	if err != nil {
		return err
	}
	crds = append(crds, framework.OpenShiftCRDs(root)...)

	startCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cp, err := controlplane.Start(startCtx, controlplane.Options{Dir: dir, CRDs: crds, Nodes: true})
	if err != nil {
		return err
	}
	defer cp.Stop()
	if err := framework.CreateInfrastructure(startCtx, configclient.NewForConfigOrDie(cp.Config), configv1.HighlyAvailableTopologyMode); err != nil {
		return err
	}
	if err := payload.Apply(startCtx, cp.Config); err != nil {
		return err
	}
	kube := kubernetes.NewForConfigOrDie(cp.Config)
	token, err := kube.CoreV1().ServiceAccounts("openshift-workload-access-operator").CreateToken(startCtx, "cluster-workload-access-operator",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](7 * 24 * 3600)}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	operatorKubeconfig := filepath.Join(dir, "operator.kubeconfig")
	if err := cp.WriteKubeconfig(operatorKubeconfig, &clientcmdapi.AuthInfo{Token: token.Status.Token}); err != nil {
		return err
	}
	operator, err := framework.StartOperator(framework.OperatorOptions{
		Binary: binary, Kubeconfig: operatorKubeconfig, LogDir: filepath.Join(dir, "logs"),
		Name: "operator", ReleaseVersion: version,
	})
	if err != nil {
		return err
	}
	defer operator.Stop()

	fmt.Printf(`
The local cluster is up and the operator runs against it as its ServiceAccount.

  export KUBECONFIG=%s
  kubectl get clusteroperator workload-access -o yaml
  kubectl get workloadaccess cluster -o yaml     # per-controller conditions
  kubectl get all,sa,role,rolebinding -n openshift-workload-access

Operator log: %s
Component logs: %s
Press Ctrl-C to stop everything.
`, cp.AdminKubeconfig, operator.LogPath, filepath.Join(dir, "logs"))

	select {
	case <-ctx.Done():
	case <-waitExit(operator):
		return fmt.Errorf("the operator exited:\n%s", operator.Tail(40))
	}
	return nil
}

func waitExit(p *framework.OperatorProcess) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		for !p.Exited() {
			time.Sleep(time.Second)
		}
		close(ch)
	}()
	return ch
}
