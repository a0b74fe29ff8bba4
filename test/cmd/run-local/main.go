// Command run-local brings up the test control plane on loopback, applies
// the operator's CVO payload to it, runs the operator against it as its own
// ServiceAccount and the webhook on its Service's address, until
// interrupted. `make run-local` runs it.
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
	binary, err := filepath.Abs(binary)
	if err != nil {
		return err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	_ = os.RemoveAll(dir) // a fresh cluster each run

	startCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cluster, err := framework.StartCluster(startCtx, framework.ClusterOptions{
		ReleaseVersion: "0.0.1-local",
		Image:          "registry.invalid/cluster-workload-access-operator:local",
		ControlPlane:   controlplane.Options{Dir: dir},
	})
	if err != nil {
		return err
	}
	defer cluster.Stop()
	operator, err := cluster.StartOperator(binary, "operator")
	if err != nil {
		return err
	}
	defer operator.Stop()
	webhook, err := cluster.StartWebhook(startCtx, binary, "webhook")
	if err != nil {
		return err
	}
	defer webhook.Stop()

	fmt.Printf(`
The local cluster is up. The operator runs against it as its ServiceAccount,
and the webhook serves the API server on %s with the certificate the
operator issued.

  export KUBECONFIG=%s
  kubectl get clusteroperator %s -o yaml
  kubectl get workloadaccess cluster -o yaml     # per-controller conditions
  kubectl get all,sa,role,rolebinding,secret,configmap,pdb -n %s
  kubectl get mutatingwebhookconfiguration %s -o yaml
  kubectl run demo --image=registry.invalid/demo --restart=Never   # admitted by the webhook
  kubectl get bundles -A; kubectl get clusterbundles   # subscription injection: docs/subscriptions.md

Operator log: %s
Webhook log:  %s
Component logs: %s
Press Ctrl-C to stop everything.
`, webhook.Address, cluster.AdminKubeconfig,
		framework.ClusterOperatorName, framework.OperandNamespace, framework.WebhookName,
		operator.LogPath, webhook.LogPath, filepath.Join(dir, "logs"))

	select {
	case <-ctx.Done():
		return nil
	case <-operator.Done():
		return fmt.Errorf("the operator exited:\n%s", operator.Tail(40))
	case <-webhook.Done():
		return fmt.Errorf("the webhook exited:\n%s", webhook.Tail(40))
	}
}
