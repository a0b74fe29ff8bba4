// Package version is the `version` subcommand.
package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/openshift/cluster-workload-access-operator/pkg/version"
)

// NewCommand prints the build's version.
func NewCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of this binary",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := version.Get()
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "%s (commit %q, built %s, %s, %s)\n", v.GitVersion, v.GitCommit, v.BuildDate, v.GoVersion, v.Platform)
			return err
		},
	}
}
