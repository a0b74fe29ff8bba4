// Package webhook is the `webhook` subcommand: the admission server the
// operator deploys into openshift-workload-access.
package webhook

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/crypto"
	"github.com/openshift/library-go/pkg/serviceability"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	versioned "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/clusterreads"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/grants"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/subscription"
)

// informerResync is the informers' safety-net relist; events keep the
// caches current.
const informerResync = 10 * time.Minute

// Options are the subcommand's flags.
type Options struct {
	Kubeconfig         string
	ListenAddress      string
	MetricsListen      string
	CertFile, KeyFile  string
	CertReloadInterval time.Duration
	ShutdownDelay      time.Duration
	ShutdownTimeout    time.Duration
	TLSMinVersion      string
	TLSCipherSuites    []string
	// ClientCAFile makes the admission paths require a client certificate
	// it signs; OpenShift's kube-apiserver presents none, so the operator
	// leaves it empty.
	ClientCAFile string
	// KubeAPIQPS and KubeAPIBurst limit the webhook's own requests to the
	// API server (SubjectAccessReviews on the admission path); client-go's
	// default of 5/s would queue pod creations behind each other under churn.
	KubeAPIQPS   float32
	KubeAPIBurst int
	MaxInFlight  int

	// PodIdentity turns on AWS IAM role injection; the operator sets it
	// when podidentity.Read (pkg/operator/podidentity) says pod identity runs.
	PodIdentity bool
	// PodIdentityConfig is what every pod gets unless WorkloadAccess
	// cluster's spec.podIdentity, its ServiceAccount or its own annotations
	// say otherwise.
	PodIdentityConfig podidentity.Config
}

// NewOptions returns the defaults the operator's Deployment relies on.
func NewOptions() *Options {
	return &Options{
		ListenAddress:      ":9443",
		CertFile:           "/var/run/secrets/serving-cert/tls.crt",
		KeyFile:            "/var/run/secrets/serving-cert/tls.key",
		CertReloadInterval: 10 * time.Second,
		ShutdownDelay:      15 * time.Second,
		ShutdownTimeout:    20 * time.Second,
		TLSMinVersion:      "VersionTLS12",
		KubeAPIQPS:         50,
		KubeAPIBurst:       100,
		MaxInFlight:        webhook.DefaultMaxInFlight,
		PodIdentityConfig:  podidentity.DefaultConfig(),
	}
}

// AddFlags binds the options to flags.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Kubeconfig file; empty uses the pod's service account.")
	fs.StringVar(&o.ListenAddress, "listen", o.ListenAddress, "host:port to serve HTTPS on (admission, /healthz, /readyz, and /metrics unless --metrics-listen is set).")
	fs.StringVar(&o.MetricsListen, "metrics-listen", o.MetricsListen, "host:port to serve /metrics on, for callers allowed to get it, instead of --listen; a port of its own lets network policy admit Prometheus to metrics alone.")
	fs.StringVar(&o.CertFile, "tls-cert-file", o.CertFile, "Serving certificate (PEM); re-read when it changes.")
	fs.StringVar(&o.KeyFile, "tls-private-key-file", o.KeyFile, "Serving key (PEM); re-read when it changes.")
	fs.DurationVar(&o.CertReloadInterval, "cert-reload-interval", o.CertReloadInterval, "How often to check the serving pair for a rotation.")
	fs.DurationVar(&o.ShutdownDelay, "shutdown-delay", o.ShutdownDelay, "How long /readyz fails, while admissions are still served, before the listener closes on SIGTERM: longer than the readiness probe takes to fail (failureThreshold × periodSeconds) plus the time endpoints take to drop the pod.")
	fs.StringVar(&o.TLSMinVersion, "tls-min-version", o.TLSMinVersion, "Minimum TLS version (VersionTLS12 or VersionTLS13); the operator sets it from the cluster's TLS security profile.")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "PEM bundle of CAs that sign the API server's client certificate for webhooks (its WebhookAdmission kubeconfig); when set, admission reviews from a client without such a certificate are refused with 401. Empty accepts reviews from any client.")
	fs.StringSliceVar(&o.TLSCipherSuites, "tls-cipher-suites", o.TLSCipherSuites, "TLS 1.2 cipher suites (IANA names); empty uses Go's defaults.")
	fs.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", o.ShutdownTimeout, "How long in-flight admissions may take to finish on SIGTERM, once the listener has closed: at least the longest timeoutSeconds of the webhook configurations.")
	fs.Float32Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS, "Requests per second to the API server (SubjectAccessReviews, informers).")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst, "Burst of requests to the API server above --kube-api-qps.")
	fs.IntVar(&o.MaxInFlight, "max-in-flight-admissions", o.MaxInFlight, "Admissions answered at once; more are refused with 429 (a pod that asked for an injection is then refused, others are admitted without automatic injections).")
	fs.BoolVar(&o.PodIdentity, "pod-identity", o.PodIdentity, "Inject AWS IAM role credentials into pods whose ServiceAccount is annotated "+podidentityv1alpha1.RoleARNAnnotation+" (watches every ServiceAccount's "+podidentityv1alpha1.AnnotationPrefix+" annotations).")
	fs.StringVar(&o.PodIdentityConfig.Region, "aws-default-region", o.PodIdentityConfig.Region, "AWS_REGION and AWS_DEFAULT_REGION given to pods with pod identity; empty gives none.")
	fs.StringVar(&o.PodIdentityConfig.DefaultAudience, "token-audience", o.PodIdentityConfig.DefaultAudience, "Audience of the injected token unless WorkloadAccess cluster spec.podIdentity.defaultAudience or the ServiceAccount's "+podidentityv1alpha1.AudienceAnnotation+" sets one.")
	fs.BoolVar(&o.PodIdentityConfig.DefaultRegionalSTS, "sts-regional-endpoint", o.PodIdentityConfig.DefaultRegionalSTS, "Set AWS_STS_REGIONAL_ENDPOINTS=regional unless WorkloadAccess cluster spec.podIdentity.defaultSTSEndpoints or the ServiceAccount's "+podidentityv1alpha1.RegionalSTSAnnotation+" says otherwise.")
	fs.Int64Var(&o.PodIdentityConfig.DefaultTokenExpiration, "token-expiration", o.PodIdentityConfig.DefaultTokenExpiration, "Lifetime in seconds of the injected token unless WorkloadAccess cluster spec.podIdentity.defaultTokenExpirationSeconds or an annotation sets one (at least 600).")
}

// NewCommand returns `webhook`.
func NewCommand(ctx context.Context) *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Serve the mutating admission webhook that injects access into pods",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			// As the operator (library-go's controllercmd): pprof on
			// 127.0.0.1 only when OPENSHIFT_PROFILE=web, which no manifest
			// sets; the benchmarks read where memory goes with it.
			serviceability.StartProfiler()
			return o.Run(ctx)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// Run serves until ctx ends and the server has drained.
func (o *Options) Run(ctx context.Context) error {
	minVersion, err := crypto.TLSVersion(o.TLSMinVersion)
	if err != nil {
		return fmt.Errorf("--tls-min-version: %w", err)
	}
	var ciphers []uint16
	for _, name := range o.TLSCipherSuites {
		cipher, err := crypto.CipherSuite(name)
		if err != nil {
			return fmt.Errorf("--tls-cipher-suites: %w", err)
		}
		ciphers = append(ciphers, cipher)
	}
	config, err := o.restConfig()
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	mutators, synced, collectors, err := o.mutators(ctx, config, kube)
	if err != nil {
		return err
	}
	accessGrants, err := accessGrantsChecker(config)
	if err != nil {
		return err
	}
	guard, err := webhook.DelegatedMetricsGuard(config)
	if err != nil {
		return err
	}
	server, err := webhook.New(webhook.Config{
		MetricsGuard:         guard,
		MinTLSVersion:        minVersion,
		CipherSuites:         ciphers,
		ClientCAFile:         o.ClientCAFile,
		ListenAddress:        o.ListenAddress,
		MetricsListenAddress: o.MetricsListen,
		CertFile:             o.CertFile,
		KeyFile:              o.KeyFile,
		CertReloadInterval:   o.CertReloadInterval,
		ShutdownDelay:        o.ShutdownDelay,
		ShutdownTimeout:      o.ShutdownTimeout,
		MaxInFlight:          o.MaxInFlight,
		Mutators:             mutators,
		AccessGrants:         accessGrants,
		Collectors:           collectors,
		CachesSynced:         synced,
	})
	if err != nil {
		return err
	}
	return server.Run(ctx)
}

// accessGrantsChecker is the attenuation check over its own client: one
// check may ask hundreds of SubjectAccessReviews, which must neither wait
// behind nor starve the pod path's rate limit.
func accessGrantsChecker(config *rest.Config) (*grants.Checker, error) {
	grantsConfig := rest.CopyConfig(config)
	grantsConfig.QPS, grantsConfig.Burst = accessGrantsQPS, accessGrantsBurst
	kube, err := kubernetes.NewForConfig(grantsConfig)
	if err != nil {
		return nil, err
	}
	client, err := versioned.NewForConfig(grantsConfig)
	if err != nil {
		return nil, err
	}
	return &grants.Checker{
		Authorizer: clusterreads.GrantsAuthorizer{Client: kube.AuthorizationV1().SubjectAccessReviews()},
		Templates:  clusterreads.LiveScopeTemplates{Client: client.ScopesV1alpha1()},
		Instances:  clusterreads.LiveScopeInstances{Client: client.ScopesV1alpha1()},
		Namespaces: clusterreads.LiveNamespaces{Client: kube.CoreV1()},
	}, nil
}

// The access grants check's client: a check is capped at
// grants.DefaultMaxReviews reviews, which at these limits take about 4 s.
const (
	accessGrantsQPS   = 200
	accessGrantsBurst = 200
)

// restConfig is the webhook's client configuration, with explicit limits.
func (o *Options) restConfig() (*rest.Config, error) {
	config, err := clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
	if err != nil {
		return nil, err
	}
	config.UserAgent = "workload-access-webhook"
	config.QPS, config.Burst = o.KubeAPIQPS, o.KubeAPIBurst
	return config, nil
}

// mutators builds every mutator over informers started on ctx, with their
// metrics. The server reports ready once their caches have synced.
func (o *Options) mutators(ctx context.Context, config *rest.Config, kube kubernetes.Interface) ([]mutation.Mutator, []cache.InformerSynced, []prometheus.Collector, error) {
	client, err := versioned.NewForConfig(config)
	if err != nil {
		return nil, nil, nil, err
	}
	informers := externalversions.NewSharedInformerFactoryWithOptions(client, informerResync,
		externalversions.WithTransform(subscription.CacheTransform))
	bundles := informers.Subscription().V1alpha1().Bundles()
	clusterBundles := informers.Subscription().V1alpha1().ClusterBundles()
	synced := []cache.InformerSynced{bundles.Informer().HasSynced, clusterBundles.Informer().HasSynced}
	// The operator's configuration: it explains why a bundle is not
	// validated, and holds pod identity's cluster-wide defaults.
	configInformers := externalversions.NewSharedInformerFactoryWithOptions(client, informerResync,
		externalversions.WithTweakListOptions(func(options *metav1.ListOptions) {
			options.FieldSelector = fields.OneTermEqualSelector("metadata.name", operatorv1alpha1.WorkloadAccessName).String()
		}))
	operatorConfig := configInformers.Operator().V1alpha1().WorkloadAccesses()
	operatorConfig.Informer() // registered before Start, or it never starts
	for _, informer := range []cache.SharedIndexInformer{bundles.Informer(), clusterBundles.Informer()} {
		if err := informer.AddIndexers(subscription.Indexers()); err != nil {
			return nil, nil, nil, err
		}
	}
	subscriptionMutator, err := subscription.New(bundles.Informer().GetIndexer(), clusterBundles.Informer().GetIndexer(),
		clusterreads.NewSubjectAccessReviewer(kube.AuthorizationV1().SubjectAccessReviews()))
	if err != nil {
		return nil, nil, nil, err
	}
	mutators := []mutation.Mutator{
		subscriptionMutator.WithOperatorState(func() (operatorv1.ManagementState, bool) {
			wa, err := operatorConfig.Lister().Get(operatorv1alpha1.WorkloadAccessName)
			if err != nil {
				return "", false
			}
			return wa.Spec.ManagementState, true
		}),
	}
	var collectors []prometheus.Collector

	if o.PodIdentity {
		// ServiceAccounts come as protobuf: the initial list of every one in
		// the cluster is the webhook's largest read.
		protoConfig := rest.CopyConfig(config)
		protoConfig.ContentType = "application/vnd.kubernetes.protobuf"
		protoKube, err := kubernetes.NewForConfig(protoConfig)
		if err != nil {
			return nil, nil, nil, err
		}
		serviceAccounts := clusterreads.NewServiceAccountAnnotations(protoKube, podidentity.CachedAnnotations)
		go serviceAccounts.Run(ctx)
		podIdentity := podidentity.New(o.PodIdentityConfig, serviceAccounts)
		// Readiness waits for the defaults, or the first pods would get the
		// flags' defaults where the WorkloadAccess sets others.
		defaultsSynced, err := followClusterDefaults(operatorConfig.Informer(), podIdentity)
		if err != nil {
			return nil, nil, nil, err
		}
		mutators = append(mutators, podIdentity)
		synced = append(synced, serviceAccounts.HasSynced, defaultsSynced)
		collectors = append(collectors, serviceAccounts.Collector())
	}
	informers.Start(ctx.Done())
	configInformers.Start(ctx.Done())
	return mutators, synced, collectors, nil
}

// followClusterDefaults hands pod identity the defaults of WorkloadAccess
// cluster's spec.podIdentity whenever it changes, so that the webhook
// follows them without a restart; without a WorkloadAccess the flags'
// defaults apply. The result reports when the handler has seen the
// informer's initial list.
func followClusterDefaults(informer cache.SharedIndexInformer, podIdentity *podidentity.Mutator) (cache.InformerSynced, error) {
	apply := func(obj any) {
		wa, ok := obj.(*operatorv1alpha1.WorkloadAccess)
		if !ok || wa.Name != operatorv1alpha1.WorkloadAccessName {
			return
		}
		defaults := clusterDefaults(wa.Spec.PodIdentity)
		for _, problem := range podIdentity.SetClusterDefaults(defaults) {
			klog.Warningf("WorkloadAccess %s spec.podIdentity: %s", wa.Name, problem)
		}
		klog.V(2).Infof("pod identity defaults from WorkloadAccess %s: audience %q, token expiration %d s, STS endpoints %q (empty: the webhook's flag)",
			wa.Name, defaults.Audience, defaults.TokenExpiration, wa.Spec.PodIdentity.DefaultSTSEndpoints)
	}
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    apply,
		UpdateFunc: func(_, obj any) { apply(obj) },
		DeleteFunc: func(any) { podIdentity.SetClusterDefaults(podidentity.ClusterDefaults{}) },
	})
	if err != nil {
		return nil, err
	}
	return registration.HasSynced, nil
}

// clusterDefaults are the pod identity defaults spec sets.
func clusterDefaults(spec operatorv1alpha1.PodIdentitySpec) podidentity.ClusterDefaults {
	out := podidentity.ClusterDefaults{Audience: spec.DefaultAudience, TokenExpiration: spec.DefaultTokenExpirationSeconds}
	switch spec.DefaultSTSEndpoints {
	case operatorv1alpha1.STSEndpointsRegional:
		out.RegionalSTS = ptr.To(true)
	case operatorv1alpha1.STSEndpointsSDKDefault:
		out.RegionalSTS = ptr.To(false)
	}
	return out
}
