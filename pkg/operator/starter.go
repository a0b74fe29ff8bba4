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
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	ownapiinformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/accessgrantswebhook"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhookavailability"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhookcabundle"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhookcertrotation"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhookdeployment"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/loglevel"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementstate"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/objectevents"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorversion"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/relatedobjects"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/staticresources"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamroleboundary"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamrolerequest"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuerpublisher"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/uncredentialedpods"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/apiaccess"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/crdaccess"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/olmscopes"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/scopes"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/unmanagednotice"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlemetrics"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundles"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/clusterbundles"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/consoleyamlsamples"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/referencewatch"
)

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

	// Shared informers: those more than one controller reads (a controller
	// builds its own in its New and starts them when it runs). No core
	// object is cached whole cluster-wide (the uncredentialed pods
	// controller keeps running pods and ServiceAccounts, stripped to what
	// it reads): only the operator's two namespaces and its own two
	// webhook configurations. Namespaces are
	// cached as name, UID and times (informerkit.SlimNamespace), for the
	// APIAccessPolicy and IAMRoleRequest controllers; Secrets and
	// ConfigMaps are watched cluster-wide as metadata (references), to wake
	// the bundles that reference them, and only the names and versions of
	// referenced ones are kept.
	kubeInformers := v1helpers.NewKubeInformersForNamespaces(c.kube, operatorclient.OperatorNamespace, operatorclient.OperandNamespace)
	namespaceInformers := informers.NewSharedInformerFactoryWithOptions(c.kube, informerkit.Resync, informers.WithTransform(informerkit.SlimNamespace))
	namespaces := namespaceInformers.Core().V1().Namespaces()
	// Only the operator's own MutatingWebhookConfiguration and
	// ValidatingWebhookConfiguration (one name for both): its RBAC names
	// that one object.
	webhookConfigInformers := informerkit.ByName(c.kube, "", operatorclient.WebhookName)
	webhookConfigs := webhookConfigInformers.Admissionregistration().V1().MutatingWebhookConfigurations()
	configInformers := configinformers.NewSharedInformerFactory(c.config, informerkit.Resync)
	// One factory for every API group of the generated clientset.
	ownAPIInformers := ownapiinformers.NewSharedInformerFactory(c.ownAPIs, informerkit.Resync)
	bundleInformers := ownAPIInformers.Subscription().V1alpha1()
	workloadAccesses := ownAPIInformers.Operator().V1alpha1().WorkloadAccesses()
	// The bundles, thousands in a large cluster, are cached without their
	// managedFields (the ScopeInstances and APIAccessPolicies of the same
	// factory keep theirs: specwritten reads them).
	for _, informer := range []cache.SharedIndexInformer{bundleInformers.Bundles().Informer(), bundleInformers.ClusterBundles().Informer()} {
		if err := informer.SetTransform(informerkit.WithoutManagedFields); err != nil {
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
	webhookOperand := webhookavailability.NewOperand(webhookavailability.OperandInputs{Image: o.Image, KubeInformers: kubeInformers,
		WebhookConfigs: webhookConfigs, GrantsConfigs: webhookConfigInformers.Admissionregistration().V1().ValidatingWebhookConfigurations(),
		OperatorClient: c.operator})
	webhookDeployment, err := webhookdeployment.New(webhookdeployment.Inputs{Image: o.Image, KubeClient: c.kube, KubeInformers: kubeInformers,
		Config: configInformers.Config().V1(), WorkloadAccesses: workloadAccesses, OperatorClient: c.operator, Recorder: recorder})
	if err != nil {
		return err
	}
	admission := []factory.Controller{
		webhookcertrotation.New(webhookcertrotation.Inputs{KubeClient: c.kube, KubeInformers: kubeInformers, OperatorClient: c.operator, Recorder: recorder}),
		webhookcabundle.New(webhookcabundle.Inputs{KubeClient: c.kube, KubeInformers: kubeInformers, WebhookConfigs: webhookConfigs,
			Infrastructures: configInformers.Config().V1().Infrastructures(), WorkloadAccesses: workloadAccesses,
			Bundles: bundleInformers.Bundles(), ClusterBundles: bundleInformers.ClusterBundles(), OperatorClient: c.operator, Recorder: recorder}),
		accessgrantswebhook.New(accessgrantswebhook.Inputs{KubeClient: c.kube, KubeInformers: kubeInformers,
			WebhookConfigs: webhookConfigInformers.Admissionregistration().V1().ValidatingWebhookConfigurations(), OperatorClient: c.operator, Recorder: recorder}),
		webhookDeployment,
		webhookavailability.NewController(webhookOperand, recorder),
	}

	// Subscription injection.
	consoleSamples, err := consoleyamlsamples.New(consoleyamlsamples.Inputs{Client: c.console, OperatorClient: c.operator, Recorder: recorder})
	if err != nil {
		return err
	}
	clusterBundles, err := clusterbundles.New(clusterbundles.Inputs{ClusterBundles: bundleInformers.ClusterBundles(),
		BundleClient: c.ownAPIs.SubscriptionV1alpha1(), ShareClient: c.share, KubeClient: c.kube,
		OperatorClient: c.operator, Recorder: recorder, ObjectEvents: objectEvents, Restart: restart, Driver: o.SharedResourceDriver, References: references,
		WorkloadAccesses: workloadAccesses})
	if err != nil {
		return err
	}
	bundleController, err := bundles.New(bundles.Inputs{Bundles: bundleInformers.Bundles(), BundleClient: c.ownAPIs.SubscriptionV1alpha1(), KubeClient: c.kube,
		References: references, OperatorClient: c.operator, Recorder: recorder, ObjectEvents: objectEvents})
	if err != nil {
		return err
	}
	// Invalid bundles, counted from the same caches, on the operator's /metrics.
	if err := bundlemetrics.Register(bundleInformers.Bundles().Lister(), bundleInformers.ClusterBundles().Lister()); err != nil {
		return err
	}
	// Whether STS can accept the cluster's tokens, for the info alert.
	if err := issuerpublisher.RegisterMetrics(workloadAccesses.Lister()); err != nil {
		return err
	}
	subscription := append([]factory.Controller{bundleController, consoleSamples}, clusterBundles...)

	// AWS pod identity.
	// Running pods without the credentials their ServiceAccount grants: an
	// Event on each, a count by namespace on /metrics.
	uncredentialedPods, err := uncredentialedpods.New(uncredentialedpods.Inputs{Kube: c.kube, Metadata: c.metadata,
		WorkloadAccesses: workloadAccesses, Config: configInformers.Config().V1(), Events: objectEvents, OperatorClient: c.operator, Recorder: recorder})
	if err != nil {
		return err
	}
	podIdentity := []factory.Controller{
		issuerpublisher.New(issuerpublisher.Inputs{Kube: c.kube, Config: configInformers.Config().V1(),
			WorkloadAccesses: workloadAccesses, StatusClient: c.ownAPIs.OperatorV1alpha1(),
			OperatorClient: c.operator, Recorder: recorder}),
		// Phase 2: IAM roles from IAMRoleRequests, and their ServiceAccounts.
		iamrolerequest.New(iamrolerequest.Inputs{Requests: ownAPIInformers.PodIdentity().V1alpha1().IAMRoleRequests(),
			RequestClient: c.ownAPIs.PodIdentityV1alpha1(), WorkloadAccesses: workloadAccesses,
			Config: configInformers.Config().V1(), Kube: c.kube, NamespaceEvents: namespaces, ServiceAccounts: c.kube.CoreV1(), Namespaces: c.kube.CoreV1(),
			ConfigMaps: c.kube.CoreV1(), KubeAPIServer: iamrolerequest.KubeAPIServerReader(c.kube),
			OperatorClient: c.operator, Recorder: recorder, ObjectEvents: objectevents.NewForAdmins(ctx, c.kube)}),
		// Requests waiting for a usable permissions boundary, on the ClusterOperator.
		iamroleboundary.New(iamroleboundary.Inputs{Requests: ownAPIInformers.PodIdentity().V1alpha1().IAMRoleRequests(),
			WorkloadAccesses: workloadAccesses, Config: configInformers.Config().V1(), OperatorClient: c.operator, Recorder: recorder}),
		uncredentialedPods,
	}

	// RBAC for operator APIs.
	scopeControllers, err := scopes.New(scopes.Inputs{Templates: ownAPIInformers.Scopes().V1alpha1().ScopeTemplates(),
		Instances: ownAPIInformers.Scopes().V1alpha1().ScopeInstances(), ScopeClient: c.ownAPIs.ScopesV1alpha1(),
		KubeClient: c.scopeKube, WatchClient: c.kube, OperatorClient: c.operator, Recorder: recorder})
	if err != nil {
		return err
	}
	crds := crdaccess.NewCRDInformer(c.apiExtensions, informerkit.Resync)
	rbac := append([]factory.Controller{
		apiaccess.New(apiaccess.Inputs{Policies: ownAPIInformers.APIAccess().V1alpha1().APIAccessPolicies(),
			PolicyClient: c.ownAPIs.APIAccessV1alpha1(), Kube: c.apiAccess, Metadata: c.metadata, CRDs: crds, Namespaces: namespaces,
			OperatorClient: c.operator, Recorder: recorder}),
		// Events on OLM v1 ClusterExtensions whose APIs no policy manages.
		unmanagednotice.New(unmanagednotice.Inputs{CRDs: crds, Policies: ownAPIInformers.APIAccess().V1alpha1().APIAccessPolicies(),
			Metadata: c.metadata, Kube: c.kube, Events: objectEvents, OperatorClient: c.operator, Recorder: recorder}),
		// Opt-in: a ScopeTemplate and ScopeInstance from each OLM v0 ClusterServiceVersion.
		olmscopes.New(olmscopes.Inputs{CRDs: crds, WorkloadAccesses: workloadAccesses,
			Templates: ownAPIInformers.Scopes().V1alpha1().ScopeTemplates(), Instances: ownAPIInformers.Scopes().V1alpha1().ScopeInstances(), Namespaces: namespaces,
			Dynamic: c.dynamic, Generator: c.olmScopeGenerator, Reviews: c.kube.AuthorizationV1(), Events: objectEvents,
			OperatorClient: c.operator, Recorder: recorder}),
	}, scopeControllers...)

	// The frame's status controllers, last: they report on everything above.
	versions := status.NewVersionGetter()
	frame := []factory.Controller{
		staticresources.NewController(staticresources.Inputs{KubeClient: c.kube, KubeInformers: kubeInformers,
			Infrastructures: configInformers.Config().V1().Infrastructures(), OperatorClient: c.operator, Recorder: recorder}),
		staticresources.NewAvailabilityController(staticOperand, recorder),
		managementstate.New(c.operator, recorder),
		operatorversion.New(operatorversion.Inputs{OperatorClient: c.operator, Versions: versions, DesiredVersion: o.ReleaseVersion,
			Operands:  []operatorversion.Operand{staticOperand, webhookOperand},
			Informers: append(staticresources.Informers(kubeInformers), webhookOperand.Informers()...), Recorder: recorder}),
		loglevel.New(c.operator, recorder),
		status.NewClusterOperatorStatusController(operatorclient.ClusterOperatorName, relatedobjects.List(), c.config.ConfigV1(),
			configInformers.Config().V1().ClusterOperators(), c.operator, versions, recorder, cc.Clock,
		).WithDegradedInertia(status.MustNewInertia(degradedInertia).Inertia),
	}
	controllers := slices.Concat(admission, subscription, podIdentity, rbac, frame)

	// Start informers. Each controller waits for the caches it reads before
	// its first sync. There is no global wait: the operand namespace's
	// objects are readable only once the CVO has created the namespace and
	// the operator's RoleBinding in it, and the rest must not wait for that.
	for _, shared := range []interface{ Start(<-chan struct{}) }{kubeInformers, namespaceInformers, webhookConfigInformers, configInformers, c.operatorInformers, ownAPIInformers, references} {
		shared.Start(ctx.Done())
	}
	go crds.Run(ctx.Done())
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
