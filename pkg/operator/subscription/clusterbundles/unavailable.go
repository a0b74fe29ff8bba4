package clusterbundles

import (
	"context"
	"errors"
	"time"

	sharedresourcev1alpha1 "github.com/openshift/api/sharedresource/v1alpha1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/record"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	subscriptionclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/reconcileloop"
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

// APIWatchControllerName names the controller that waits for the API.
const APIWatchControllerName = "ClusterBundleAPIWatch"

// apiRecheck is how often the stand-in looks for the API again: one
// discovery GET of a single group version, cheap enough to keep the wait
// after installing the driver short.
const apiRecheck = 10 * time.Second

// newAPIWatch checks discovery every apiRecheck and, once the API is served,
// asks for a restart. An error is a failed check, not an answer: it tries
// again next time.
func newAPIWatch(client discovery.DiscoveryInterface, restart func(error), recorder events.Recorder) factory.Controller {
	return factory.New().
		WithSync(func(context.Context, factory.SyncContext) error {
			if installed, err := SharedResourceAPIInstalled(client); err == nil && installed {
				restart(ErrSharedResourceAPIAppeared)
			}
			return nil
		}).
		ResyncEvery(apiRecheck).
		ToController(APIWatchControllerName, recorder.WithComponentSuffix("cluster-bundle-api-watch"))
}

// newUnavailable replaces the ClusterBundle controller when the Shared
// Resource CSI driver's API is not installed: it marks every ClusterBundle
// Invalid with reason SharedResourceUnavailable and generates nothing.
// Namespaced Bundles need no shares and keep working.
func newUnavailable(in Inputs) factory.Controller {
	return reconcileloop.New(ControllerName, Source(in.ClusterBundles), nil,
		markUnavailable(in.BundleClient, in.ObjectEvents), in.OperatorClient, in.Recorder, "cluster-bundle")
}

// markUnavailable is the stand-in's reconcile. The status of a bundle once
// valid stays, stale but harmless: without the API, the webhook cannot
// mount its shares anyway.
func markUnavailable(client subscriptionclient.ClusterBundlesGetter, objectEvents record.EventRecorder) reconcileloop.Reconcile[*subscriptionv1alpha1.ClusterBundle] {
	return func(ctx context.Context, syncCtx factory.SyncContext, bundle *subscriptionv1alpha1.ClusterBundle) error {
		return markInvalid(ctx, client, syncCtx.Recorder(), objectEvents, bundle, subscriptionv1alpha1.ReasonSharedResourceUnavailable, UnavailableMessage)
	}
}
