// Package operator wires the operator: clients, then shared informers, then
// one controller per job, then start. Read RunOperator top to bottom to learn
// what the operator does.
package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/status"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	subscriptioninformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/accessgrantswebhook"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhookavailability"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhookcerts"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhookconfiguration"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhookdeployment"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementstatecheck"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/objectevents"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/relatedobjects"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/staticresources"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/verbosity"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/versioncontroller"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuerpublisher"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/rolerequest"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/apiaccess"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/apiaccess/unmanagednotice"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/olmscopes"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/scopes"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlemetrics"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundles"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/clusterbundles"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/consolesamples"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/referencewatch"
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
	// Image is the operator's own image; the webhook runs from it too.
	Image string
	// SharedResourceDriver is the Shared Resource CSI driver's service
	// account, whose read access to ClusterBundle sources is checked.
	SharedResourceDriver clusterbundles.DriverServiceAccount
}

// RunOperator builds and starts every controller, then blocks until ctx ends
// or a controller asks for a restart.
func (o Options) RunOperator(parent context.Context, cc *controllercmd.ControllerContext) error {
	if err := o.validate(); err != nil {
		return err
	}
	ctx, restart := context.WithCancelCause(parent)
	defer restart(nil)
	c, err := newClients(cc)
	if err != nil {
		return err
	}

	// Shared informers. No core object is cached cluster-wide: only the
	// operator's two namespaces, its own two webhook configurations, and by
	// name the issuer publisher's signing keys and S3 credentials and the IAM
	// role requests' IAM credentials. Secrets
	// and ConfigMaps are watched cluster-wide as metadata (references), to
	// wake the bundles that reference them; only the names and versions of
	// referenced ones are kept.
	kubeInformers := v1helpers.NewKubeInformersForNamespaces(c.kube, operatorclient.OperatorNamespace, operatorclient.OperandNamespace)
	issuerInputs := issuerpublisher.NewInformers(c.kube, informerResync)
	roleRequestInputs := rolerequest.NewInformers(c.kube, informerResync)
	webhookConfigInformers := ownWebhookConfiguration(c.kube)
	webhookConfigs := webhookConfigInformers.Admissionregistration().V1().MutatingWebhookConfigurations()
	configInformers := configinformers.NewSharedInformerFactory(c.config, informerResync)
	subscriptionInformers := subscriptioninformers.NewSharedInformerFactory(c.subscription, informerResync)
	bundleInformers := subscriptionInformers.Subscription().V1alpha1()
	// The bundles, thousands in a large cluster, are cached without their
	// managedFields (the ScopeInstances and APIAccessPolicies of the same
	// factory keep theirs: specwritten reads them).
	for _, informer := range []cache.SharedIndexInformer{bundleInformers.Bundles().Informer(), bundleInformers.ClusterBundles().Informer()} {
		if err := informer.SetTransform(clusterbundles.WithoutManagedFields); err != nil {
			return err
		}
	}
	references := referencewatch.New(c.metadata)
	recorder := cc.EventRecorder
	objectEvents := objectevents.New(ctx, c.kube)

	// Controllers, one job each, by capability (the folders of pkg/operator).
	// The frame: the operand's fixed objects, the operator's own status.
	staticOperand := staticresources.NewOperand(kubeInformers, c.operator)

	// Admission: the webhook every capability's mutator or check runs in.
	webhookOperand := webhookavailability.NewOperand(o.Image, kubeInformers, webhookConfigs,
		webhookConfigInformers.Admissionregistration().V1().ValidatingWebhookConfigurations(), c.operator)
	webhookDeployment, err := webhookdeployment.New(o.Image, c.kube, kubeInformers, configInformers.Config().V1(),
		subscriptionInformers.Operator().V1alpha1().WorkloadAccesses(), c.operator, recorder)
	if err != nil {
		return err
	}
	admission := []factory.Controller{
		webhookcerts.New(c.kube, kubeInformers, c.operator, recorder),
		webhookconfiguration.New(c.kube, kubeInformers, webhookConfigs, configInformers.Config().V1().Infrastructures(),
			subscriptionInformers.Operator().V1alpha1().WorkloadAccesses(), bundleInformers.Bundles(), bundleInformers.ClusterBundles(), c.operator, recorder),
		accessgrantswebhook.New(c.kube, kubeInformers, webhookConfigInformers.Admissionregistration().V1().ValidatingWebhookConfigurations(), c.operator, recorder),
		webhookDeployment,
		webhookavailability.NewController(webhookOperand, recorder),
	}

	// Subscription injection.
	consoleSamples, err := consolesamples.New(c.console, c.operator, recorder)
	if err != nil {
		return err
	}
	clusterBundles, err := clusterbundles.New(clusterbundles.Inputs{ClusterBundles: bundleInformers.ClusterBundles(),
		BundleClient: c.subscription.SubscriptionV1alpha1(), ShareClient: c.share, KubeClient: c.kube,
		OperatorClient: c.operator, Recorder: recorder, ObjectEvents: objectEvents, Restart: restart, Driver: o.SharedResourceDriver, References: references,
		WorkloadAccesses: subscriptionInformers.Operator().V1alpha1().WorkloadAccesses()})
	if err != nil {
		return err
	}
	bundleController, err := bundles.New(bundleInformers.Bundles(), c.subscription.SubscriptionV1alpha1(), c.kube, references, c.operator, recorder, objectEvents)
	if err != nil {
		return err
	}
	// Invalid bundles, counted from the same caches, on the operator's /metrics.
	if err := bundlemetrics.Register(bundleInformers.Bundles().Lister(), bundleInformers.ClusterBundles().Lister()); err != nil {
		return err
	}
	// Whether STS can accept the cluster's tokens, for the info alert.
	if err := issuerpublisher.RegisterMetrics(subscriptionInformers.Operator().V1alpha1().WorkloadAccesses().Lister()); err != nil {
		return err
	}
	subscription := append([]factory.Controller{bundleController, consoleSamples}, clusterBundles...)

	// AWS pod identity.
	podIdentity := []factory.Controller{
		issuerpublisher.New(issuerInputs, configInformers.Config().V1(), subscriptionInformers.Operator().V1alpha1().WorkloadAccesses(),
			c.subscription.OperatorV1alpha1(), c.operator, recorder),
		// Phase 2: IAM roles from IAMRoleRequests, and their ServiceAccounts.
		rolerequest.New(rolerequest.Inputs{Requests: subscriptionInformers.PodIdentity().V1alpha1().IAMRoleRequests(),
			RequestClient: c.subscription.PodIdentityV1alpha1(), WorkloadAccesses: subscriptionInformers.Operator().V1alpha1().WorkloadAccesses(),
			Config: configInformers.Config().V1(), Own: roleRequestInputs, ServiceAccounts: c.kube.CoreV1(), Namespaces: c.kube.CoreV1(),
			OperatorClient: c.operator, Recorder: recorder, ObjectEvents: objectevents.NewForAdmins(ctx, c.kube)}),
		// Requests waiting for a usable permissions boundary, on the ClusterOperator.
		rolerequest.NewBoundaryStatus(subscriptionInformers.PodIdentity().V1alpha1().IAMRoleRequests(),
			subscriptionInformers.Operator().V1alpha1().WorkloadAccesses(), configInformers.Config().V1(), c.operator, recorder),
	}

	// RBAC for operator APIs.
	scopeControllers, err := scopes.New(scopes.Inputs{Templates: subscriptionInformers.Scopes().V1alpha1().ScopeTemplates(),
		Instances: subscriptionInformers.Scopes().V1alpha1().ScopeInstances(), ScopeClient: c.subscription.ScopesV1alpha1(),
		KubeClient: c.scopeKube, OperatorClient: c.operator, Recorder: recorder})
	if err != nil {
		return err
	}
	crds := apiaccess.NewCRDInformer(c.apiExtensions)
	rbac := append([]factory.Controller{
		apiaccess.New(apiaccess.Inputs{Policies: subscriptionInformers.APIAccess().V1alpha1().APIAccessPolicies(),
			PolicyClient: c.subscription.APIAccessV1alpha1(), Kube: c.apiAccess, Metadata: c.metadata, CRDs: crds,
			OperatorClient: c.operator, Recorder: recorder}),
		// Events on OLM v1 ClusterExtensions whose APIs no policy manages.
		unmanagednotice.New(unmanagednotice.Inputs{CRDs: crds, Policies: subscriptionInformers.APIAccess().V1alpha1().APIAccessPolicies(),
			Metadata: c.metadata, Kube: c.kube, Events: objectEvents, OperatorClient: c.operator, Recorder: recorder}),
		// Opt-in: a ScopeTemplate and ScopeInstance from each OLM v0 ClusterServiceVersion.
		olmscopes.New(olmscopes.Inputs{CRDs: crds, WorkloadAccesses: subscriptionInformers.Operator().V1alpha1().WorkloadAccesses(),
			Templates: subscriptionInformers.Scopes().V1alpha1().ScopeTemplates(), Instances: subscriptionInformers.Scopes().V1alpha1().ScopeInstances(),
			Dynamic: c.dynamic, Generator: c.olmScopeGenerator, Reviews: c.kube.AuthorizationV1(), Events: objectEvents,
			OperatorClient: c.operator, Recorder: recorder}),
	}, scopeControllers...)

	// The frame's status controllers, last: they report on everything above.
	versions := status.NewVersionGetter()
	frame := []factory.Controller{
		staticresources.NewController(c.kube, kubeInformers, configInformers.Config().V1().Infrastructures(), c.operator, recorder),
		staticresources.NewAvailabilityController(staticOperand, recorder),
		managementstatecheck.New(c.operator, recorder),
		versioncontroller.New(c.operator, versions, o.ReleaseVersion, []versioncontroller.Operand{staticOperand, webhookOperand},
			append(staticresources.Informers(kubeInformers), webhookOperand.Informers()...), recorder),
		verbosity.New(c.operator, recorder),
		status.NewClusterOperatorStatusController(operatorclient.ClusterOperatorName, relatedobjects.List(), c.config.ConfigV1(),
			configInformers.Config().V1().ClusterOperators(), c.operator, versions, recorder, cc.Clock,
		).WithDegradedInertia(status.MustNewInertia(degradedInertia).Inertia),
	}
	controllers := slices.Concat(admission, subscription, podIdentity, rbac, frame)

	// Start informers. Each controller waits for the caches it reads before
	// its first sync. There is no global wait: the operand namespace's
	// objects are readable only once the CVO has created the namespace and
	// the operator's RoleBinding in it, and the rest must not wait for that.
	for _, informers := range []interface{ Start(<-chan struct{}) }{kubeInformers, webhookConfigInformers, issuerInputs, roleRequestInputs, configInformers, c.operatorInformers, subscriptionInformers, references} {
		informers.Start(ctx.Done())
	}
	if !cache.WaitForCacheSync(ctx.Done(), c.operator.Informer().HasSynced, configInformers.Config().V1().ClusterOperators().Informer().HasSynced) {
		return fmt.Errorf("informer caches did not sync: %w", ctx.Err())
	}
	for _, controller := range controllers {
		go controller.Run(ctx, 1)
	}
	klog.Infof("%s %s running", operatorclient.OperatorName, o.ReleaseVersion)
	<-ctx.Done()
	if cause := context.Cause(ctx); parent.Err() == nil && !errors.Is(cause, context.Canceled) {
		return cause // a controller asked for a restart; the Deployment starts a new process
	}
	return nil
}
