// Command cluster-workload-access-operator is the operator and, from the same
// image, its admission webhook.
package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"

	operatorcmd "github.com/openshift/cluster-workload-access-operator/pkg/cmd/operator"
	versioncmd "github.com/openshift/cluster-workload-access-operator/pkg/cmd/version"
	webhookcmd "github.com/openshift/cluster-workload-access-operator/pkg/cmd/webhook"
)

func main() {
	os.Exit(cli.Run(newRootCommand(context.Background())))
}

func newRootCommand(ctx context.Context) *cobra.Command {
	root := &cobra.Command{
		Use:   "cluster-workload-access-operator",
		Short: "OpenShift operator that gives workloads and users the access they need",
		Run: func(cmd *cobra.Command, _ []string) {
			_ = cmd.Help()
		},
	}
	root.AddCommand(operatorcmd.NewCommand(ctx), webhookcmd.NewCommand(ctx), versioncmd.NewCommand())
	return root
}
