package operator

import (
	"fmt"
	"net"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	consoleclient "github.com/openshift/client-go/console/clientset/versioned/typed/console/v1"
	sharedresourceclient "github.com/openshift/client-go/sharedresource/clientset/versioned"
	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	ownapiclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	scopesclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/olmscopes"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/clusterbundles"
)

// clientQPS and clientBurst replace client-go's 5/10 requests per second,
// which made 1,000 new ClusterBundles (about 9 requests each) take half an
// hour; the kube-controller-manager's own defaults are 20/30.
const clientQPS, clientBurst = 50, 100

func (o Options) validate() error {
	if o.ReleaseVersion == "" {
		return fmt.Errorf("the release version is unknown: set RELEASE_VERSION")
	}
	if o.SharedResourceDriver != (clusterbundles.DriverServiceAccount{}) {
		return o.SharedResourceDriver.Validate()
	}
	return nil
}

// clients are every API client the controllers use. Protobuf for core
// types; JSON for CRDs.
type clients struct {
	kube              kubernetes.Interface
	scopeKube         kubernetes.Interface
	metadata          metadata.Interface
	config            configclient.Interface
	operator          v1helpers.OperatorClientWithFinalizers
	operatorInformers dynamicinformer.DynamicSharedInformerFactory
	// ownAPIs serves every API group of the generated clientset:
	// subscription, operator, podidentity, scopes and apiaccess.
	ownAPIs ownapiclient.Interface
	share   sharedresourceclient.Interface
	console consoleclient.ConsoleV1Interface
	// apiAccess writes the roles and bindings of APIAccessPolicies.
	apiAccess     kubernetes.Interface
	apiExtensions apiextensionsclient.Interface
	dynamic       dynamic.Interface
	// olmScopeGenerator writes generated ScopeTemplates and ScopeInstances
	// as the generator's own ServiceAccount (impersonated), so the
	// access-grants check judges what that identity holds.
	olmScopeGenerator scopesclient.ScopesV1alpha1Interface
}

func newClients(cc *controllercmd.ControllerContext) (*clients, error) {
	kubeConfig, protoKubeConfig := withRate(cc.KubeConfig), withRate(cc.ProtoKubeConfig)
	c := &clients{}
	var err error
	if c.kube, err = kubernetes.NewForConfig(protoKubeConfig); err != nil {
		return nil, err
	}
	// The ScopeTemplate and ScopeInstance controllers' own client, without
	// a client-side rate limit: one ScopeInstance over 5,000 namespaces
	// needs 5,000 RoleBindings per role. The instance controller's one
	// worker keeps at most 64 writes in flight (scopes.defaultWorkers), the
	// template controller's one at a time, and the API server's Priority
	// and Fairness, not the client, sets the pace. A limiter, even one
	// never reached, cost every request a pass through it and a latency
	// metric of its own (docs/performance.md).
	scopeConfig := unthrottled(cc.ProtoKubeConfig)
	// A connection of its own (a dialer of its own keeps client-go from
	// sharing the cached transport): the API server writes one HTTP/2
	// connection's frames one at a time, so 64 creates in flight on the
	// connection the informers watch over held up their events, and it
	// closed the slow watches, dozens of times over one ScopeInstance of
	// 5,000 namespaces (docs/performance.md).
	scopeConfig.Dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	if c.scopeKube, err = kubernetes.NewForConfig(scopeConfig); err != nil {
		return nil, err
	}
	// Protobuf as well: metadata.NewForConfig asks for it whatever the config says.
	if c.metadata, err = metadata.NewForConfig(kubeConfig); err != nil {
		return nil, err
	}
	if c.config, err = configclient.NewForConfig(kubeConfig); err != nil {
		return nil, err
	}
	if c.operator, c.operatorInformers, err = operatorclient.New(cc.Clock, kubeConfig); err != nil {
		return nil, err
	}
	if c.ownAPIs, err = ownapiclient.NewForConfig(kubeConfig); err != nil {
		return nil, err
	}
	if c.share, err = sharedresourceclient.NewForConfig(kubeConfig); err != nil {
		return nil, err
	}
	if c.console, err = consoleclient.NewForConfig(kubeConfig); err != nil {
		return nil, err
	}
	if c.apiAccess, err = kubernetes.NewForConfig(unthrottled(cc.ProtoKubeConfig)); err != nil {
		return nil, err
	}
	if c.apiExtensions, err = apiextensionsclient.NewForConfig(kubeConfig); err != nil {
		return nil, err
	}
	if c.dynamic, err = dynamic.NewForConfig(kubeConfig); err != nil {
		return nil, err
	}
	generatorConfig := rest.CopyConfig(kubeConfig)
	generatorConfig.Impersonate = rest.ImpersonationConfig{UserName: olmscopes.GeneratorUser}
	if c.olmScopeGenerator, err = scopesclient.NewForConfig(generatorConfig); err != nil {
		return nil, err
	}
	return c, nil
}

func withRate(config *rest.Config) *rest.Config {
	out := rest.CopyConfig(config)
	out.QPS, out.Burst = clientQPS, clientBurst
	return out
}

// unthrottled has no client-side rate limit: its callers bound their
// requests in flight instead (the APIAccessPolicy controller
// apiaccess.Parallel, so a policy over 300 CRDs converges in seconds; the
// ScopeInstance controller scopes.defaultWorkers); the API server's
// priority and fairness still limits the operator's flow.
func unthrottled(config *rest.Config) *rest.Config {
	out := rest.CopyConfig(config)
	out.QPS, out.Burst = -1, 0
	return out
}
