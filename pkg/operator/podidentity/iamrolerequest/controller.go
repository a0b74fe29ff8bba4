// Package iamrolerequest makes the IAM role an IAMRoleRequest asks for (phase 2
// of AWS pod identity): a role under /workload-access/<infrastructureName>/,
// tagged with the request's UID, whose trust policy admits one
// ServiceAccount's tokens from the cluster's OIDC provider and whose inline
// policy is the request's statements; it annotates that ServiceAccount with
// the role's ARN, creating it when absent, and undoes both when the request
// is deleted. Names and documents come from podidentity/iamrole. All of it
// only for the namespace instance the request pins by UID, and the role is
// deleted when that namespace goes (namespace.go).
//
// A resync with nothing changed reads IAM (GetOpenIDConnectProvider of each
// issuer the tokens may carry, GetRole, GetRolePolicy), the ServiceAccount and
// the signing keys, and writes nothing. The role trusts the issuers the
// cluster's tokens carry, and TokensAccepted says whether AWS STS will take
// them (tokens.go). Every DriftInterval each request is
// read back, and a trust policy, inline policy, permissions boundary or tag
// of the operator's changed in IAM is restored. A role is changed or deleted only when its
// request-uid tag is the request's UID.
package iamrolerequest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sts"
	operatorv1 "github.com/openshift/api/operator/v1"
	configv1informers "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	podidentityclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/podidentity/v1alpha1"
	operatorv1alpha1informers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/operator/v1alpha1"
	podidentityinformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/podidentity/v1alpha1"
	operatorv1alpha1listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	podidentitylisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/reconcileloop"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
)

// ControllerName names the controller in logs and its operator Events.
const ControllerName = "IAMRoleRequest"

const (
	// Finalizer holds a request until its role is deleted.
	Finalizer = podidentityv1alpha1.IAMRoleFinalizer
	// CredentialsSecret, in the operator's namespace, holds the IAM
	// credentials the CredentialsRequest of the same name asks for.
	CredentialsSecret = "workload-access-iam"
)

// DriftInterval is how often every request is read back from IAM.
const DriftInterval = 5 * time.Minute

// waitingRecheck is when a request waiting on something no informer
// watches (an OIDC provider registered in IAM) or on its namespace looks
// again; a namespace's events wake it sooner.
const waitingRecheck = time.Minute

// retryInitial is the first wait after failed IAM calls; it doubles.
const retryInitial = 5 * time.Second

// syncTimeout bounds one request's IAM calls.
const syncTimeout = 2 * time.Minute

// Inputs are what the controller reads and writes.
type Inputs struct {
	Requests         podidentityinformers.IAMRoleRequestInformer
	RequestClient    podidentityclient.IAMRoleRequestsGetter
	WorkloadAccesses operatorv1alpha1informers.WorkloadAccessInformer
	Config           configv1informers.Interface
	// Kube watches the credentials Secret (by name); the
	// controller starts that informer when it runs.
	Kube kubernetes.Interface
	// NamespaceEvents is every Namespace, stripped by
	// informerkit.SlimNamespace (the starter's, shared with the
	// APIAccessPolicy controller): a namespace that comes, goes or starts
	// terminating wakes the requests that name it at once, so that a role
	// is revoked when its namespace is deleted, not at the next resync.
	// The sync itself lists the namespace live (namespace.go), never this
	// cache.
	NamespaceEvents coreinformers.NamespaceInformer
	// ServiceAccounts are read by name (GET), never cached cluster-wide.
	ServiceAccounts corev1client.ServiceAccountsGetter
	// Namespaces are listed by name at each sync: the role trusts one.
	Namespaces corev1client.NamespacesGetter
	// ConfigMaps reads the cluster's signing keys
	// (openshift-kube-apiserver/bound-sa-token-signing-certs) by name when
	// a request is judged TokensAccepted.
	ConfigMaps corev1client.ConfigMapsGetter
	// KubeAPIServer reads KubeAPIServer/cluster (KubeAPIServerReader): the
	// earlier issuers whose tokens are still accepted. Nil: none are.
	KubeAPIServer  func(context.Context) (*operatorv1.KubeAPIServer, error)
	OperatorClient v1helpers.OperatorClient
	Recorder       events.Recorder
	// ObjectEvents records Events on the IAMRoleRequests.
	ObjectEvents record.EventRecorder
}

type controller struct {
	requests         podidentitylisters.IAMRoleRequestLister
	requestClient    podidentityclient.IAMRoleRequestsGetter
	workloadAccesses operatorv1alpha1listers.WorkloadAccessLister
	infrastructures  configv1listers.InfrastructureLister
	authentications  configv1listers.AuthenticationLister
	kubeAPIServer    func(context.Context) (*operatorv1.KubeAPIServer, error)
	configMaps       corev1client.ConfigMapsGetter
	secrets          corev1listers.SecretLister
	serviceAccounts  corev1client.ServiceAccountsGetter
	namespaces       corev1client.NamespacesGetter
	operatorClient   v1helpers.OperatorClient
	events           record.EventRecorder
	// unrevokedRoles is IAMRoleRequestDegraded: requests whose role should
	// be gone from IAM (deleted request, namespace deleted or replaced) and
	// is not known to be.
	unrevokedRoles *reconcileloop.Failures

	// transport replaces the HTTP transport of the AWS clients in tests.
	transport http.RoundTripper
	// issuerTransport replaces the HTTP transport of the issuer reads in
	// tests.
	issuerTransport http.RoundTripper
	// issuers remembers what each issuer served (tokens.go).
	issuers issuerReads
	// clock is the time issuers expire by.
	clock clock.PassiveClock
	// backoff spaces the retries of each request's failed IAM calls.
	backoff *flowcontrol.Backoff
	// The clients and the account of the last connection.
	clientsFor connection
	iam        iamAPI
	sts        *sts.Client
	account    string
}

// New returns the controller.
func New(in Inputs) factory.Controller {
	// The credentials Secret by name: RBAC grants nothing else in the
	// operator's namespace to this controller.
	credentials := informerkit.ByName(in.Kube, operatorclient.OperatorNamespace, CredentialsSecret)
	secrets := credentials.Core().V1().Secrets()
	c := newController(in, secrets.Lister())
	allRequests := informerkit.EveryKey(in.Requests.Lister().List)
	controller := factory.New().
		WithInformersQueueKeysFunc(requestKey, informerkit.UpdatesWhen(in.Requests.Informer(), requestChanged)).
		WithInformersQueueKeysFunc(allRequests, informerkit.UpdatesWhen(in.WorkloadAccesses.Informer(), podIdentityChanged)).
		WithInformersQueueKeysFunc(allRequests, informerkit.UpdatesWhen(secrets.Informer(), credentialsChanged)).
		WithInformersQueueKeysFunc(allRequests, informerkit.UpdatesWhen(in.Config.Authentications().Informer(), issuerChanged)).
		WithInformersQueueKeysFunc(c.requestsIn, informerkit.UpdatesWhen(in.NamespaceEvents.Informer(), namespaceChanged)).
		WithInformersQueueKeysFunc(c.setRequests, informerkit.UpdatesWhen(in.NamespaceEvents.Informer(), namespaceUpdated)).
		WithBareInformers(in.Config.Infrastructures().Informer(), in.OperatorClient.Informer()).
		WithSync(c.sync).
		ResyncEvery(DriftInterval).
		ToController(ControllerName, in.Recorder.WithComponentSuffix("iam-role-request"))
	return informerkit.StartOnRun(controller, credentials.Start)
}

func newController(in Inputs, secrets corev1listers.SecretLister) *controller {
	return &controller{
		requests:         in.Requests.Lister(),
		requestClient:    in.RequestClient,
		workloadAccesses: in.WorkloadAccesses.Lister(),
		infrastructures:  in.Config.Infrastructures().Lister(),
		authentications:  in.Config.Authentications().Lister(),
		kubeAPIServer:    in.KubeAPIServer,
		configMaps:       in.ConfigMaps,
		clock:            clock.RealClock{},
		secrets:          secrets,
		serviceAccounts:  in.ServiceAccounts,
		namespaces:       in.Namespaces,
		operatorClient:   in.OperatorClient,
		events:           in.ObjectEvents,
		unrevokedRoles:   reconcileloop.NewFailures(ControllerName, "IAMRoleRequest", in.OperatorClient),
		backoff:          newBackoff(),
	}
}

func (c *controller) now() time.Time {
	if c.clock == nil {
		return time.Now()
	}
	return c.clock.Now()
}

func newBackoff() *flowcontrol.Backoff { return flowcontrol.NewBackOff(retryInitial, DriftInterval) }

func requestKey(obj runtime.Object) []string {
	o, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	return []string{o.GetName()}
}

// requestsIn are the requests whose ServiceAccount is in the namespace.
func (c *controller) requestsIn(obj runtime.Object) []string {
	o, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	all, err := c.requests.List(labels.Everything())
	if err != nil {
		return nil
	}
	var keys []string
	for _, r := range all {
		if r.Spec.Storage.ServiceAccount.Namespace == o.GetName() {
			keys = append(keys, r.Name)
		}
	}
	return keys
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	state, err := managementsync.Get(c.operatorClient)
	if err != nil {
		return err
	}
	if state != operatorv1.Managed {
		// Unmanaged and Removed leave roles and finalizers alone: a role
		// must outlive the operator as long as pods use it.
		return c.unrevokedRoles.Clear(ctx)
	}
	key := syncCtx.QueueKey()
	if key == factory.DefaultQueueKey {
		for _, k := range informerkit.EveryKey(c.requests.List)(nil) {
			syncCtx.Queue().Add(k)
		}
		return nil
	}
	cached, err := c.requests.Get(key)
	if apierrors.IsNotFound(err) {
		c.backoff.Reset(key)
		return c.report(ctx, key, nil)
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, syncTimeout)
	defer cancel()
	request := cached.DeepCopy()
	switch {
	case request.DeletionTimestamp != nil:
		err = c.finalize(ctx, request)
	default:
		err = c.addFinalizerAndReconcile(ctx, syncCtx, request)
	}
	if reportErr := c.report(ctx, key, err); reportErr != nil {
		klog.Errorf("IAMRoleRequest %s: updating %sDegraded: %v", key, ControllerName, reportErr)
	}
	return c.retry(syncCtx, key, err)
}

// unrevokedRole is a failure that leaves a role in IAM that should be gone:
// it still trusts the request's ServiceAccount.
type unrevokedRole struct {
	arn string
	f   *awscall.Failure
}

func (u *unrevokedRole) Error() string { return u.f.Message }
func (u *unrevokedRole) Unwrap() error { return u.f }

func unrevoked(request *podidentityv1alpha1.IAMRoleRequest, f *awscall.Failure) error {
	return &unrevokedRole{arn: request.Status.RoleARN, f: f}
}

// report keeps IAMRoleRequestDegraded: True while a request's role could
// not be deleted, and only then (the ClusterOperator says Degraded after the
// operator's inertia); other failures stay on the request. A sync that
// ends well clears it; one that fails otherwise (an API conflict) leaves
// it as it was.
func (c *controller) report(ctx context.Context, key string, err error) error {
	var u *unrevokedRole
	switch {
	case errors.As(err, &u):
		role := "its IAM role"
		if u.arn != "" {
			role = "IAM role " + u.arn
		}
		cause := fmt.Errorf("%s should be deleted and is not known to be: %s", role, u.f.Message)
		if err := c.unrevokedRoles.Record(ctx, key, cause); err != cause {
			return err // updating the condition failed
		}
		return nil
	case err == nil:
		return c.unrevokedRoles.Record(ctx, key, nil)
	}
	return nil
}

// addFinalizerAndReconcile adds the finalizer, before anything is made
// that it must undo, then reconciles a single request or a set.
func (c *controller) addFinalizerAndReconcile(ctx context.Context, syncCtx factory.SyncContext, request *podidentityv1alpha1.IAMRoleRequest) error {
	if !slices.Contains(request.Finalizers, Finalizer) {
		request.Finalizers = append(request.Finalizers, Finalizer)
		updated, err := c.requestClient.IAMRoleRequests().Update(ctx, request, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("adding finalizer %s: %w", Finalizer, err)
		}
		request = updated
	}
	if request.Spec.Storage.ServiceAccounts != nil {
		return c.reconcileSet(ctx, syncCtx, request)
	}
	return c.reconcile(ctx, syncCtx, request)
}

// retry schedules a request whose IAM calls failed (throttled, refused,
// unanswered) again after a backoff of its own, 5 s doubling to
// DriftInterval: the queue's default (5 ms doubling) would call IAM dozens
// of times in the first seconds, against an account-wide rate limit. Other
// errors (API server conflicts) go back to the queue's backoff.
func (c *controller) retry(syncCtx factory.SyncContext, key string, err error) error {
	var f *awscall.Failure
	if !errors.As(err, &f) || !f.Retry {
		if err == nil {
			c.backoff.Reset(key)
		}
		return err
	}
	c.backoff.Next(key, c.backoff.Clock.Now())
	delay := c.backoff.Get(key)
	klog.V(2).Infof("IAMRoleRequest %s: %s; again in %s", key, f.Message, delay)
	syncCtx.Queue().AddAfter(key, delay)
	return nil
}

// reconcile makes the role and the link, and reports both in the status.
func (c *controller) reconcile(ctx context.Context, syncCtx factory.SyncContext, request *podidentityv1alpha1.IAMRoleRequest) error {
	status := request.Status.DeepCopy()
	status.ObservedGeneration = request.Generation
	ref := request.Spec.Storage.ServiceAccount
	status.ServiceAccount = ref.Namespace + "/" + ref.Name

	// The namespace first: nothing is made or linked for a namespace the
	// role may not trust (namespace.go).
	ns, err := c.namespaceNamed(ctx, ref.Namespace)
	if err != nil {
		return fmt.Errorf("reading namespace %s: %w", ref.Namespace, err)
	}
	v := judge(request, ns)
	if !v.trusted() {
		return c.withhold(ctx, syncCtx, request, status, v)
	}
	if status.NamespaceUID != v.pin {
		// Stored before any role exists, so that a role is never made
		// without the pin that revokes it.
		status.NamespaceUID = v.pin
		if err := c.writeStatus(ctx, request, status); err != nil {
			return err
		}
		status = request.Status.DeepCopy()
	}

	sa, err := c.serviceAccounts.ServiceAccounts(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		sa, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("reading ServiceAccount %s: %w", status.ServiceAccount, err)
	}

	role, f := c.provision(ctx, request, singleTrustee(ref, sa))
	if role.name != "" {
		status.ProviderStatus = &podidentityv1alpha1.AWSProviderStatus{
			APIVersion: "cloudcredential.openshift.io/v1", Kind: "AWSProviderStatus", User: role.name, Policy: role.policy}
	}
	if role.arn != "" {
		status.RoleARN = role.arn
	}
	provisioned := metav1.Condition{Type: podidentityv1alpha1.ConditionProvisioned, Status: metav1.ConditionTrue,
		Reason: podidentityv1alpha1.ReasonProvisioned, Message: role.message}
	if f != nil {
		provisioned.Status, provisioned.Reason, provisioned.Message = metav1.ConditionFalse, f.Reason, f.Message
	}
	setCondition(status, request.Generation, provisioned)
	accepted := c.tokensAccepted(ctx, role)
	switch {
	case role.trustNotMoved:
		accepted = metav1.Condition{Type: podidentityv1alpha1.ConditionTokensAccepted, Status: metav1.ConditionFalse, Reason: podidentityv1alpha1.ReasonRoleNotProvisioned,
			Message: "the role's trust policy still names other issuers than the one the cluster's tokens carry, and moving it failed: see the Provisioned condition"}
	case f != nil && f.Retry:
		// A passing failure says nothing of the issuer: keep what was
		// judged before, if anything was.
		if previous := meta.FindStatusCondition(request.Status.Conditions, podidentityv1alpha1.ConditionTokensAccepted); previous != nil {
			accepted = *previous
		}
	}
	setCondition(status, request.Generation, accepted)
	var linked metav1.Condition
	var linkErr error
	if role.arn == "" && f != nil && f.Retry && request.Status.RoleARN != "" {
		// A passing failure (throttled, unanswered, refused once) says
		// nothing of a link made before: the ServiceAccount still carries
		// the role, and its condition stays as it was.
		if previous := meta.FindStatusCondition(request.Status.Conditions, podidentityv1alpha1.ConditionServiceAccountLinked); previous != nil {
			linked = *previous
		}
	} else {
		linked, linkErr = c.link(ctx, request, ref, sa, role.arn, status.NamespaceUID)
		setCondition(status, request.Generation, linked)
	}
	if err := c.writeStatus(ctx, request, status); err != nil {
		return err
	}
	if linkErr != nil {
		return linkErr
	}
	if f != nil && f.Retry {
		return f // retried with backoff (see retry)
	}
	if (f != nil && f.Reason == podidentityv1alpha1.ReasonOIDCProviderNotRegistered) || linked.Reason == podidentityv1alpha1.ReasonNamespaceMissing ||
		waitsOnIssuer(accepted) {
		syncCtx.Queue().AddAfter(request.Name, waitingRecheck)
	}
	if until := role.trust.tokens.PreviousUntil; !until.IsZero() {
		// An earlier issuer leaves the trust when its tokens stop being
		// accepted.
		syncCtx.Queue().AddAfter(request.Name, until.Sub(c.now())+time.Second)
	}
	return nil
}
