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
	consoleclient "github.com/openshift/client-go/console/clientset/versioned/typed/console/v1"
	sharedresourceclient "github.com/openshift/client-go/sharedresource/clientset/versioned"
	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/loglevel"
	"github.com/openshift/library-go/pkg/operator/status"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	subscriptionclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	subscriptioninformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/bundles"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/cabundlesync"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/clusterbundles"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/consolesamples"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/managementstate"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/relatedobjects"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/staticresources"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/versioncontroller"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/webhookavailability"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/webhookcerts"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/webhookdeployment"
)

// informerResync is the safety-net resync of the shared informers; the
// controllers react to events, not to this.
const informerResync = 10 * time.Minute

// degradedInertia is how long a controller must keep failing before the
// ClusterOperator says Degraded: a blip is not a page.
const degradedInertia = 2 * time.Minute

// clientQPS and clientBurst replace client-go's 5/10 requests per second,
// which made 1,000 new ClusterBundles (about 9 requests each) take half an
// hour; the kube-controller-manager's own defaults are 20/30.
const clientQPS, clientBurst = 50, 100

// shareAPIRecheck is how often an operator started without the Shared
// Resource CSI driver's API looks for it again.
const shareAPIRecheck = time.Minute

func withRate(config *rest.Config) *rest.Config {
	out := rest.CopyConfig(config)
	out.QPS, out.Burst = clientQPS, clientBurst
	return out
}

// Options are what RunOperator needs beyond the controller context.
type Options struct {
	// ReleaseVersion is the payload version this operator reports once at level.
	ReleaseVersion string
	// Image is the operator's own image; the webhook runs from it too.
	Image string
}

// RunOperator builds and starts every controller, then blocks until ctx ends.
func (o Options) RunOperator(ctx context.Context, cc *controllercmd.ControllerContext) error {
	if o.ReleaseVersion == "" {
		return fmt.Errorf("the release version is unknown: set RELEASE_VERSION")
	}
	if o.Image == "" {
		return fmt.Errorf("the operator image is unknown: set OPERATOR_IMAGE")
	}

	// Clients. Protobuf for core types; JSON for CRDs.
	kubeConfig, protoKubeConfig := withRate(cc.KubeConfig), withRate(cc.ProtoKubeConfig)
	kubeClient, err := kubernetes.NewForConfig(protoKubeConfig)
	if err != nil {
		return err
	}
	configClient, err := configclient.NewForConfig(kubeConfig)
	if err != nil {
		return err
	}
	operatorClient, operatorInformers, err := operatorclient.New(cc.Clock, kubeConfig)
	if err != nil {
		return err
	}
	subscriptionClient, err := subscriptionclient.NewForConfig(kubeConfig)
	if err != nil {
		return err
	}
	shareClient, err := sharedresourceclient.NewForConfig(kubeConfig)
	if err != nil {
		return err
	}
	consoleClient, err := consoleclient.NewForConfig(kubeConfig)
	if err != nil {
		return err
	}
	// ClusterBundles need the Shared Resource CSI driver's API, which
	// OpenShift serves only with TechPreview. Informers on a missing API
	// never sync, so without it a stand-in controller marks ClusterBundles
	// Invalid, and the operator restarts once the API appears.
	shareAPI, err := clusterbundles.SharedResourceAPIInstalled(kubeClient.Discovery())
	if err != nil {
		return fmt.Errorf("looking for the sharedresource.openshift.io API: %w", err)
	}

	// Shared informers for the two namespaces the operator works in.
	kubeInformers := v1helpers.NewKubeInformersForNamespaces(kubeClient, operatorclient.OperatorNamespace, operatorclient.OperandNamespace)
	// Its own MutatingWebhookConfiguration, watched by name.
	webhookConfigInformers, webhookConfigs := cabundlesync.NewInformer(kubeClient, informerResync)
	configInformers := configinformers.NewSharedInformerFactory(configClient, informerResync)
	infrastructures := configInformers.Config().V1().Infrastructures()
	apiservers := configInformers.Config().V1().APIServers()
	// Bundles in every namespace and ClusterBundles; of the shares and
	// ClusterRoles, only those generated for a ClusterBundle (by label).
	// Never Secrets or ConfigMaps cluster-wide: bundles read them live.
	subscriptionInformers := subscriptioninformers.NewSharedInformerFactory(subscriptionClient, informerResync)
	var clusterBundleOwned clusterbundles.Informers
	if shareAPI {
		clusterBundleOwned = clusterbundles.NewInformers(kubeClient, shareClient, informerResync)
	}
	recorder := cc.EventRecorder

	// Controllers, one job each.
	staticResources := staticresources.NewController(kubeClient, kubeInformers,
		infrastructures.Lister(), infrastructures.Informer(), operatorClient, recorder)
	staticOperand := staticresources.NewOperand(kubeInformers, operatorClient)
	staticResourcesAvailability := staticresources.NewAvailabilityController(staticOperand, recorder)

	webhookCerts := webhookcerts.New(kubeClient, kubeInformers, operatorClient, recorder)
	webhookCABundle := cabundlesync.New(kubeClient, kubeInformers, webhookConfigs, operatorClient, recorder)
	webhookDeployment, err := webhookdeployment.New(o.Image, kubeClient, kubeInformers,
		infrastructures.Lister(), infrastructures.Informer(), apiservers.Lister(), apiservers.Informer(), operatorClient, recorder)
	if err != nil {
		return err
	}
	webhookOperand := webhookavailability.NewOperand(o.Image, kubeInformers, webhookConfigs, operatorClient)
	webhookAvailability := webhookavailability.NewController(webhookOperand, recorder)

	var clusterBundles factory.Controller
	if shareAPI {
		clusterBundles = clusterbundles.New(subscriptionInformers.Subscription().V1alpha1().ClusterBundles(),
			subscriptionClient.SubscriptionV1alpha1(), clusterBundleOwned, shareClient, kubeClient, operatorClient, recorder)
	} else {
		clusterBundles = clusterbundles.NewUnavailable(subscriptionInformers.Subscription().V1alpha1().ClusterBundles(),
			subscriptionClient.SubscriptionV1alpha1(), operatorClient, recorder)
	}
	namespacedBundles := bundles.New(subscriptionInformers.Subscription().V1alpha1().Bundles(),
		subscriptionClient.SubscriptionV1alpha1(), kubeClient, operatorClient, recorder)
	consoleSamples, err := consolesamples.New(consoleClient, operatorClient, recorder)
	if err != nil {
		return err
	}

	managementState := managementstate.New(operatorClient, recorder)

	versions := status.NewVersionGetter()
	operatorVersion := versioncontroller.New(operatorClient, versions, o.ReleaseVersion,
		[]versioncontroller.Operand{staticOperand, webhookOperand},
		append(staticresources.Informers(kubeInformers), webhookOperand.Informers()...),
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

	// Start informers. Each controller waits for the caches it reads before
	// its first sync. There is no global wait: the operand namespace's
	// objects are readable only once the CVO has created the namespace and
	// the operator's RoleBinding in it, and the rest must not wait for that.
	starters := []interface{ Start(<-chan struct{}) }{kubeInformers, configInformers, operatorInformers, webhookConfigInformers,
		subscriptionInformers}
	if shareAPI {
		starters = append(starters, clusterBundleOwned)
	}
	for _, informers := range starters {
		informers.Start(ctx.Done())
	}
	if !cache.WaitForCacheSync(ctx.Done(),
		operatorClient.Informer().HasSynced,
		configInformers.Config().V1().ClusterOperators().Informer().HasSynced,
	) {
		return fmt.Errorf("informer caches did not sync: %w", ctx.Err())
	}

	for _, c := range []factory.Controller{
		staticResources, staticResourcesAvailability,
		webhookCerts, webhookCABundle, webhookDeployment, webhookAvailability,
		clusterBundles, namespacedBundles, consoleSamples,
		managementState, operatorVersion, logLevel, clusterOperatorStatus,
	} {
		go c.Run(ctx, 1)
	}
	klog.Infof("%s %s running", operatorclient.OperatorName, o.ReleaseVersion)
	if shareAPI {
		<-ctx.Done()
		return nil
	}
	klog.Warningf("the sharedresource.openshift.io API is not served: ClusterBundles are marked Invalid until it is")
	// Returns ErrSharedResourceAPIAppeared, and the Deployment restarts the
	// operator with the full ClusterBundle controller, or nil once ctx ends.
	return clusterbundles.WaitForSharedResourceAPI(ctx, kubeClient.Discovery(), shareAPIRecheck)
}
