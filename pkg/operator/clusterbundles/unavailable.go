package clusterbundles

import (
	"context"
	"errors"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	sharedresourcev1alpha1 "github.com/openshift/api/sharedresource/v1alpha1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/discovery"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	subscriptionclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/subscription/v1alpha1"
	subscriptioninformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/subscription/v1alpha1"
	subscriptionlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/bundlestatus"
)

// UnavailableMessage is the Invalid message of every ClusterBundle while the
// Shared Resource CSI driver's API is missing.
const UnavailableMessage = "the Shared Resource CSI driver API (sharedresource.openshift.io/v1alpha1 SharedSecret, SharedConfigMap) " +
	"is not installed on this cluster; ClusterBundles cannot be shared until it is"

// SharedResourceAPIInstalled says whether the API server serves both
// SharedSecrets and SharedConfigMaps. Without them (OpenShift without
// TechPreview) informers on them would never sync.
func SharedResourceAPIInstalled(client discovery.DiscoveryInterface) (bool, error) {
	resources, err := client.ServerResourcesForGroupVersion(sharedresourcev1alpha1.GroupVersion.String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	found := map[string]bool{}
	for _, r := range resources.APIResources {
		found[r.Name] = true
	}
	return found["sharedsecrets"] && found["sharedconfigmaps"], nil
}

// ErrSharedResourceAPIAppeared ends the operator so that its Deployment
// restarts it with the full ClusterBundle controller.
var ErrSharedResourceAPIAppeared = errors.New("the sharedresource.openshift.io API appeared; restarting to start the ClusterBundle controller")

// WaitForSharedResourceAPI checks every interval until the API is served,
// then returns ErrSharedResourceAPIAppeared; it returns nil when ctx ends.
func WaitForSharedResourceAPI(ctx context.Context, client discovery.DiscoveryInterface, interval time.Duration) error {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
		// An error is a failed check, not an answer: try again next time.
		if installed, err := SharedResourceAPIInstalled(client); err == nil && installed {
			return ErrSharedResourceAPIAppeared
		}
	}
}

type unavailable struct {
	operatorClient v1helpers.OperatorClient
	bundles        subscriptionlisters.ClusterBundleLister
	bundleClient   subscriptionclient.ClusterBundlesGetter
	sweeps         bundlestatus.Sweeps
	failures       *bundlestatus.Failures
}

// NewUnavailable replaces the ClusterBundle controller when the Shared
// Resource CSI driver's API is not installed: it marks every ClusterBundle
// Invalid with reason SharedResourceUnavailable and generates nothing.
// Namespaced Bundles need no shares and keep working.
func NewUnavailable(bundleInformer subscriptioninformers.ClusterBundleInformer, bundleClient subscriptionclient.ClusterBundlesGetter,
	operatorClient v1helpers.OperatorClient, recorder events.Recorder) factory.Controller {
	c := &unavailable{
		operatorClient: operatorClient,
		bundles:        bundleInformer.Lister(),
		bundleClient:   bundleClient,
		failures:       bundlestatus.NewFailures(ControllerName, "ClusterBundle", operatorClient),
	}
	return factory.New().
		WithInformersQueueKeysFunc(nameKey, bundleInformer.Informer()).
		// A return to Managed revisits every bundle.
		WithInformers(operatorClient.Informer()).
		WithSync(func(ctx context.Context, syncCtx factory.SyncContext) error {
			return c.failures.Record(ctx, syncCtx.QueueKey(), c.sync(ctx, syncCtx))
		}).
		ToController(ControllerName, recorder.WithComponentSuffix("cluster-bundle"))
}

func (c *unavailable) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	spec, _, _, err := c.operatorClient.GetOperatorState()
	if err != nil {
		return err
	}
	if syncCtx.QueueKey() == factory.DefaultQueueKey {
		if !c.sweeps.Due(spec.ManagementState) {
			return nil
		}
		if spec.ManagementState == operatorv1.Managed {
			all, err := c.bundles.List(labels.Everything())
			if err != nil {
				return err
			}
			for _, bundle := range all {
				syncCtx.Queue().Add(bundle.Name)
			}
		}
		c.sweeps.Done(spec.ManagementState)
		return nil
	}
	if spec.ManagementState != operatorv1.Managed {
		return nil
	}
	bundle, err := c.bundles.Get(syncCtx.QueueKey())
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if bundle.DeletionTimestamp != nil {
		return nil
	}
	status := bundle.Status.DeepCopy()
	status.ObservedGeneration = bundle.Generation
	if bundlestatus.SetInvalid(&status.Conditions, bundle.Generation, subscriptionv1alpha1.ReasonSharedResourceUnavailable, UnavailableMessage) {
		syncCtx.Recorder().Warningf("ClusterBundleInvalid", "ClusterBundle %s is invalid (%s): %s",
			bundle.Name, subscriptionv1alpha1.ReasonSharedResourceUnavailable, UnavailableMessage)
	}
	// The status of a bundle once valid stays, stale but harmless: without
	// the API, the webhook cannot mount its shares anyway.
	return updateStatus(ctx, c.bundleClient, bundle, status)
}
