// Package operator is the `operator` subcommand: library-go's controllercmd
// (leader election, secure metrics and health serving) around the starter.
package operator

import (
	"context"
	"os"

	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/spf13/cobra"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/objectevents"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/clusterbundles"
	"github.com/openshift/cluster-workload-access-operator/pkg/version"
)

// NewCommand returns `operator`. RELEASE_VERSION (set by the CVO manifest)
// is the version reported on the ClusterOperator once at level;
// OPERATOR_IMAGE is the image the webhook Deployment runs.
func NewCommand(ctx context.Context) *cobra.Command {
	opts := operator.Options{ReleaseVersion: os.Getenv("RELEASE_VERSION"), Image: os.Getenv("OPERATOR_IMAGE"),
		SharedResourceDriver: clusterbundles.DefaultDriverServiceAccount}
	// A closure, not opts.RunOperator: that would copy opts before the
	// flags below are parsed into it.
	run := func(ctx context.Context, cc *controllercmd.ControllerContext) error { return opts.RunOperator(ctx, cc) }
	cfg := controllercmd.NewControllerCommandConfig(operatorclient.OperatorName, version.Get(), run, clock.RealClock{})
	// library-go's recorder makes one correlator per controller; each keeps
	// as few recent Events as objectevents' (see CorrelatorCacheSize).
	correlator := events.RecommendedClusterSingletonCorrelatorOptions()
	correlator.LRUCacheSize = objectevents.CorrelatorCacheSize
	cfg.WithEventRecorderOptions(correlator)
	cmd := cfg.NewCommandWithContext(ctx)
	cmd.Use = "operator"
	cmd.Short = "Run the cluster-workload-access-operator"

	// Leader election timings default to library-go's HA (or single-node)
	// values; tests shorten them to see a fail-over within seconds.
	flags := cmd.Flags()
	flags.DurationVar(&cfg.LeaseDuration.Duration, "leader-election-lease-duration", 0, "Leader election lease duration; 0 keeps library-go's topology-aware default.")
	flags.DurationVar(&cfg.RenewDeadline.Duration, "leader-election-renew-deadline", 0, "Leader election renew deadline; 0 keeps the default.")
	flags.DurationVar(&cfg.RetryPeriod.Duration, "leader-election-retry-period", 0, "Leader election retry period; 0 keeps the default.")
	// Hidden: only test/upgrade uses it, to show what leader election
	// prevents (two processes writing the same objects at once).
	flags.BoolVar(&cfg.DisableLeaderElection, "disable-leader-election", false, "Run every controller without holding the lease (tests only).")
	_ = flags.MarkHidden("disable-leader-election")
	// Who the Shared Resource CSI driver runs as, to check that it may read
	// each ClusterBundle's sources.
	flags.StringVar(&opts.SharedResourceDriver.Namespace, "shared-resource-driver-namespace", opts.SharedResourceDriver.Namespace,
		"Namespace of the Shared Resource CSI driver's service account.")
	flags.StringVar(&opts.SharedResourceDriver.Name, "shared-resource-driver-service-account", opts.SharedResourceDriver.Name,
		"Service account the Shared Resource CSI driver reads Secrets and ConfigMaps with.")
	return cmd
}
