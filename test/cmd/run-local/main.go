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

	fmt.Printf(`
The local cluster is up and the operator runs against it as its ServiceAccount.

  export KUBECONFIG=%s
  kubectl get clusteroperator workload-access -o yaml
  kubectl get workloadaccess cluster -o yaml     # per-controller conditions
  kubectl get all,sa,role,rolebinding -n openshift-workload-access

Operator log: %s
Component logs: %s
Press Ctrl-C to stop everything.
`, cluster.AdminKubeconfig, operator.LogPath, filepath.Join(dir, "logs"))

	select {
	case <-ctx.Done():
		return nil
	case <-operator.Done():
		return fmt.Errorf("the operator exited:\n%s", operator.Tail(40))
	}
}
