// Package operator wires the operator: clients, then shared informers, then
// one controller per job, then start. Read RunOperator top to bottom to learn
// what the operator does.
package operator

import (
	"context"
	"fmt"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/loglevel"
	"github.com/openshift/library-go/pkg/operator/status"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/managementstate"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/relatedobjects"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/staticresources"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/versioncontroller"
)

// informerResync is the safety-net resync of the shared informers; the
// controllers react to events, not to this.
const informerResync = 10 * time.Minute

// degradedInertia is how long a controller must keep failing before the
// ClusterOperator says Degraded: a blip is not a page.
const degradedInertia = 2 * time.Minute

// Options are what RunOperator needs beyond the controller context.
type Options struct {
	// ReleaseVersion is the payload version this operator reports once at level.
	ReleaseVersion string
}

// RunOperator builds and starts every controller, then blocks until ctx ends.
func (o Options) RunOperator(ctx context.Context, cc *controllercmd.ControllerContext) error {
	if o.ReleaseVersion == "" {
		return fmt.Errorf("the release version is unknown: set RELEASE_VERSION")
	}

	// Clients. Protobuf for core types; JSON for CRDs.
	kubeClient, err := kubernetes.NewForConfig(cc.ProtoKubeConfig)
	if err != nil {
		return err
	}
	configClient, err := configclient.NewForConfig(cc.KubeConfig)
	if err != nil {
		return err
	}
	operatorClient, operatorInformers, err := operatorclient.New(cc.Clock, cc.KubeConfig)
	if err != nil {
		return err
	}

	// Shared informers: cluster-scoped ("") for namespaces, and the two
	// namespaces the operator works in.
	kubeInformers := v1helpers.NewKubeInformersForNamespaces(kubeClient, "", operatorclient.OperatorNamespace, operatorclient.OperandNamespace)
	configInformers := configinformers.NewSharedInformerFactory(configClient, informerResync)
	recorder := cc.EventRecorder

	// Controllers, one job each.
	staticResources := staticresources.NewController(kubeClient, kubeInformers, operatorClient, recorder)

	staticOperand := staticresources.NewOperand(kubeInformers, operatorClient)
	staticResourcesAvailability := staticresources.NewAvailabilityController(staticOperand, recorder)
	managementState := managementstate.New(operatorClient, recorder)

	versions := status.NewVersionGetter()
	operatorVersion := versioncontroller.New(operatorClient, versions, o.ReleaseVersion,
		[]versioncontroller.Operand{staticOperand},
		staticresources.Informers(kubeInformers),
		recorder)

	logLevel := loglevel.NewClusterOperatorLoggingController(operatorClient, recorder)

	clusterOperatorStatus := status.NewClusterOperatorStatusController(
		operatorclient.ClusterOperatorName,
		relatedobjects.List(),
		configClient.ConfigV1(),
		configInformers.Config().V1().ClusterOperators(),
		operatorClient,
		versions,
		recorder,
		cc.Clock,
	).WithDegradedInertia(status.MustNewInertia(degradedInertia).Inertia)

	// Start informers, and run controllers only on synced caches.
	starters := []interface{ Start(<-chan struct{}) }{kubeInformers, configInformers, operatorInformers}
	for _, informers := range starters {
		informers.Start(ctx.Done())
	}
	if !cache.WaitForCacheSync(ctx.Done(),
		operatorClient.Informer().HasSynced,
		configInformers.Config().V1().ClusterOperators().Informer().HasSynced,
	) {
		return fmt.Errorf("informer caches did not sync: %w", ctx.Err())
	}
	for ns, byType := range kubeInformers.WaitForCacheSync(ctx.Done()) {
		for informerType, synced := range byType {
			if !synced {
				return fmt.Errorf("%v informer for namespace %q did not sync: %w", informerType, ns, ctx.Err())
			}
		}
	}

	for _, c := range []factory.Controller{
		staticResources, staticResourcesAvailability, managementState, operatorVersion, logLevel, clusterOperatorStatus,
	} {
		go c.Run(ctx, 1)
	}
	klog.Infof("%s %s running", operatorclient.OperatorName, o.ReleaseVersion)
	<-ctx.Done()
	return nil
}
