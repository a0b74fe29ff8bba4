// Package issuerpublisher publishes the cluster's service account issuer for
// AWS STS: the JWKS of every key in openshift-kube-apiserver/
// bound-sa-token-signing-certs and the OIDC discovery document, as two
// anonymously readable objects in an S3 bucket, with the credentials the
// cloud credential operator writes into workload-access-issuer-s3. It reports
// PodIdentityEnabled, IssuerPublisherProgressing, IssuerPublisherDegraded and
// ServiceAccountIssuerMatches, and is the only writer of
// status.podIdentity.
//
// A resync with nothing changed writes nothing, to the API server or to S3;
// every minute it reads the bucket back and repairs what changed behind its
// back. Under Removed nothing published is deleted: the issuer must outlive
// the operator as long as tokens it signed are trusted.
package issuerpublisher

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configv1informers "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	operatorv1alpha1client "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/operator/v1alpha1"
	operatorv1alpha1informers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/operator/v1alpha1"
	operatorv1alpha1listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuer"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/tokenissuer"
)

// ControllerName owns IssuerPublisherDegraded and IssuerPublisherProgressing,
// and is the field manager of the controller's conditions.
const ControllerName = "IssuerPublisher"

// statusFieldManager applies status.podIdentity. It differs from
// ControllerName: one manager applying the conditions without
// status.podIdentity would remove it, and the other way round.
const statusFieldManager = ControllerName + "-podIdentity"

// The inputs, read through informers that watch only these objects.
const (
	// SigningCertsNamespace and SigningCertsConfigMap hold the public keys
	// kube-apiserver verifies service account tokens with, written by the
	// kube-apiserver operator.
	SigningCertsNamespace = issuer.SigningCertsNamespace
	SigningCertsConfigMap = issuer.SigningCertsConfigMap
	// CredentialsSecret, in the operator's namespace, holds the S3
	// credentials the CredentialsRequest of the same name asks for.
	CredentialsSecret = "workload-access-issuer-s3"
)

// Conditions this controller reports besides its Degraded and Progressing.
const (
	// PodIdentityEnabled says whether pod identity runs, with
	// podidentity.Read's reason.
	PodIdentityEnabled = "PodIdentityEnabled"
	// ServiceAccountIssuerMatches says whether Authentication/cluster
	// spec.serviceAccountIssuer is the published issuer: STS accepts the
	// cluster's tokens only then.
	ServiceAccountIssuerMatches = "ServiceAccountIssuerMatches"
	// IssuerBucketPolicySafe says whether the bucket policy, which the
	// publisher shares with whoever else writes it, leaves the issuer as
	// the publisher means it: no one but the credentials' account can write
	// the documents, and anyone can read them.
	IssuerBucketPolicySafe = "IssuerBucketPolicySafe"
)

// Reasons of IssuerPublisherDegraded and ServiceAccountIssuerMatches.
const (
	ReasonIssuerNotConfigured  = podidentity.ReasonIssuerNotConfigured
	ReasonMissingCredentials   = "MissingCredentials"
	ReasonSigningKeysMissing   = "SigningKeysMissing"
	ReasonInvalidSigningKeys   = "InvalidSigningKeys"
	ReasonPublishing           = "Publishing"
	ReasonNotPublished         = "IssuerNotPublished"
	ReasonIssuerDiffers        = "ServiceAccountIssuerDiffers"
	ReasonAuthenticationAbsent = "AuthenticationMissing"
	ReasonRemoved              = "Removed"
	// ReasonNotNeeded: no S3 credentials on a cluster whose tokens carry
	// another issuer (STS mode), which needs none.
	ReasonNotNeeded = "NotNeededWithoutCredentials"
	// ReasonClusterIssuerInUse: the cluster's tokens carry another issuer
	// STS can read (STS mode): not a mismatch to fix.
	ReasonClusterIssuerInUse = "ClusterIssuerInUse"
	// ReasonPolicyGrantsEveryoneMore and ReasonPolicyDeniesAnonymousRead
	// make IssuerBucketPolicySafe False; ReasonPolicyNotRead leaves it
	// Unknown.
	ReasonPolicyGrantsEveryoneMore  = "GrantsEveryoneMoreThanRead"
	ReasonPolicyDeniesAnonymousRead = "DeniesAnonymousRead"
	ReasonPolicyNotRead             = "PolicyNotRead"
	// The S3 reasons are in s3.go.
)

// ResyncInterval is how often the bucket is read back to repair drift.
const ResyncInterval = time.Minute

// recheckAfter coalesces syncs that come together (several inputs changing
// at once, a retry right after a success): within it, an unchanged
// publication is not read back. Status writes do not wake the controller
// at all (see wire). Short, so that the periodic resync, which shares the
// queue key, is rarely the one skipped, and drift is repaired within about
// ResyncInterval.
const recheckAfter = 5 * time.Second

// syncTimeout bounds one publication: a hung endpoint must not hold the
// controller's only worker.
const syncTimeout = 2 * time.Minute

// Inputs are what the publisher needs.
type Inputs struct {
	// Kube watches the two core objects the publisher reads, each by name:
	// RBAC grants list and watch on those names only, and nothing else in
	// openshift-kube-apiserver (dozens of large revisioned ConfigMaps) is
	// cached. The controller starts these informers when it runs.
	Kube             kubernetes.Interface
	Config           configv1informers.Interface
	WorkloadAccesses operatorv1alpha1informers.WorkloadAccessInformer
	// StatusClient writes status.podIdentity (issuer URL, region, key IDs).
	StatusClient   operatorv1alpha1client.WorkloadAccessesGetter
	OperatorClient v1helpers.OperatorClient
	Recorder       events.Recorder
}

type controller struct {
	operatorClient   v1helpers.OperatorClient
	workloadAccesses operatorv1alpha1listers.WorkloadAccessLister
	statusClient     operatorv1alpha1client.WorkloadAccessesGetter
	infrastructures  configv1listers.InfrastructureLister
	authentications  configv1listers.AuthenticationLister
	configMaps       corev1listers.ConfigMapLister
	secrets          corev1listers.SecretLister
	clock            clock.PassiveClock

	// newStore returns the S3 client for a connection; tests replace it.
	newStore func(connection) objectStore
	store    objectStore
	storeFor connection
	// lookupAccount names the account of a connection's credentials, the
	// expected owner of the bucket ("" for none); tests replace it.
	lookupAccount func(context.Context, connection) (string, error)
	account       string
	accountFor    *connection
	// policySafe is IssuerBucketPolicySafe as the bucket policy last read
	// says, and unsafeReported the findings last told in an Event.
	policySafe     conditions.Condition
	unsafeReported string
	// verified is the publication last read back from S3 in full: an event
	// that changes none of its inputs within recheckAfter reads nothing.
	verified   string
	verifiedAt time.Time
	// unsupported remembers the S3-compatible servers' missing calls already
	// logged, so each is logged once.
	unsupported map[string]bool
}

// New returns the controller.
func New(in Inputs) factory.Controller {
	signingCerts := informerkit.ByName(in.Kube, SigningCertsNamespace, SigningCertsConfigMap)
	credentials := informerkit.ByName(in.Kube, operatorclient.OperatorNamespace, CredentialsSecret)
	configMaps, secrets := signingCerts.Core().V1().ConfigMaps(), credentials.Core().V1().Secrets()
	c := &controller{
		operatorClient:   in.OperatorClient,
		workloadAccesses: in.WorkloadAccesses.Lister(),
		statusClient:     in.StatusClient,
		infrastructures:  in.Config.Infrastructures().Lister(),
		authentications:  in.Config.Authentications().Lister(),
		configMaps:       configMaps.Lister(),
		secrets:          secrets.Lister(),
		clock:            clock.RealClock{},
		newStore:         newS3Store,
		lookupAccount: func(ctx context.Context, conn connection) (string, error) {
			return callerAccount(ctx, conn, "")
		},
		unsupported: map[string]bool{},
	}
	sources := eventSources{
		operator:         in.OperatorClient.Informer(),
		workloadAccesses: in.WorkloadAccesses.Informer(),
		infrastructures:  in.Config.Infrastructures().Informer(),
		authentications:  in.Config.Authentications().Informer(),
		signingCerts:     configMaps.Informer(),
		credentials:      secrets.Informer(),
	}
	controller := c.wire(factory.New(), sources).ToController(ControllerName, in.Recorder.WithComponentSuffix("issuer-publisher"))
	return informerkit.StartOnRun(controller, signingCerts.Start, credentials.Start)
}

// eventSources are the informers whose events may change what is published.
type eventSources struct {
	// operator and workloadAccesses both watch WorkloadAccess "cluster": the
	// operator client's (managementState) and the typed one (spec.podIdentity).
	operator, workloadAccesses       factory.Informer
	infrastructures, authentications factory.Informer
	signingCerts, credentials        factory.Informer
}

// wire makes the controller sync on the events that can change what it
// publishes, and every ResyncInterval to repair drift. Each informer passes
// only the object the publisher reads, and WorkloadAccess updates only when
// the spec changes: every controller writes its conditions to that object,
// and waking on each of them would read S3 back for nothing.
func (c *controller) wire(f *factory.Factory, sources eventSources) *factory.Factory {
	return f.
		WithFilteredEventsInformers(named("", operatorclient.ConfigName),
			informerkit.UpdatesWhen(sources.operator, specChanged), informerkit.UpdatesWhen(sources.workloadAccesses, specChanged)).
		WithFilteredEventsInformers(named("", "cluster"), sources.infrastructures, sources.authentications).
		WithFilteredEventsInformers(named(SigningCertsNamespace, SigningCertsConfigMap), sources.signingCerts).
		WithFilteredEventsInformers(named(operatorclient.OperatorNamespace, CredentialsSecret), sources.credentials).
		WithSync(c.sync).
		ResyncEvery(ResyncInterval)
}

// named passes the events of one object (namespace "" for a cluster-scoped
// one), deletions seen only as tombstones included. The informers already
// list by name; this keeps the controller right whatever informer it gets.
func named(namespace, name string) factory.EventFilterFunc {
	return func(obj any) bool {
		if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		o, err := meta.Accessor(obj)
		return err == nil && o.GetNamespace() == namespace && o.GetName() == name
	}
}

// specChanged says whether an update changed metadata.generation, which the
// API server bumps for spec changes and never for status writes, or is a
// recreated object (a relist can fold a delete and a create into an
// update); an object without metadata counts as changed.
func specChanged(oldObj, newObj any) bool {
	o, err := meta.Accessor(oldObj)
	if err != nil {
		return true
	}
	n, err := meta.Accessor(newObj)
	if err != nil {
		return true
	}
	return o.GetGeneration() != n.GetGeneration() || o.GetUID() != n.GetUID()
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	return managementsync.Syncs{Managed: c.publish, Removed: c.removed}.Sync(c.operatorClient)(ctx, syncCtx)
}

// removed deletes nothing: a deleted issuer would make AWS refuse every
// token the cluster signed while workloads still use them. It only stops
// reporting failures.
func (c *controller) removed(ctx context.Context, _ factory.SyncContext) error {
	const message = "managementState is Removed: the bucket and the published issuer documents are left in place"
	return conditions.Apply(ctx, c.operatorClient, ControllerName,
		conditions.Normal(degradedType, message),
		condition(progressingType, operatorv1.ConditionFalse, ReasonRemoved, message),
		conditions.Normal(PodIdentityAvailable, ""))
}

func (c *controller) publish(ctx context.Context, syncCtx factory.SyncContext) error {
	wa, err := c.workloadAccesses.Get(operatorclient.ConfigName)
	if err != nil {
		return err
	}
	infra, err := c.infrastructures.Get("cluster")
	if apierrors.IsNotFound(err) {
		infra = nil
	} else if err != nil {
		return err
	}
	d := podidentity.Decide(infra, wa.Spec.PodIdentity)
	matches, err := c.issuerMatches(d)
	if err != nil {
		return err
	}
	report := []conditions.Condition{enabledCondition(d), matches}

	if !d.Publish {
		c.policySafe, c.unsafeReported = nil, ""
		report = append(report, availableCondition(matches, nil),
			condition(IssuerBucketPolicySafe, operatorv1.ConditionUnknown, ReasonNotPublished, "no issuer is published"))
		degraded, progressing := conditions.Normal(degradedType, "pod identity is disabled: nothing to publish"), conditions.Normal(progressingType, "")
		if d.Enabled {
			message := "pod identity is enabled but the issuer cannot be published: " + d.PublishMessage
			degraded = conditions.Abnormal(degradedType, d.PublishReason, message)
		}
		if err := c.writeStatus(ctx, wa, operatorv1alpha1.PodIdentityStatus{Region: d.Region}); err != nil {
			return err
		}
		return conditions.Apply(ctx, c.operatorClient, ControllerName, append(report, degraded, progressing)...)
	}

	docs, failure := c.publishDocuments(ctx, syncCtx.Recorder(), d)
	policy := c.policyCondition()
	report = append(report, policy, availableCondition(matches, policy))
	status := operatorv1alpha1.PodIdentityStatus{Region: d.Region, IssuerURL: wa.Status.PodIdentity.IssuerURL, PublishedKeyIDs: wa.Status.PodIdentity.PublishedKeyIDs}
	if failure == nil {
		status.IssuerURL, status.PublishedKeyIDs = d.IssuerURL, docs.KeyIDs
	}
	if err := c.writeStatus(ctx, wa, status); err != nil {
		return err
	}

	if failure != nil && failure.Reason == ReasonMissingCredentials {
		if other, ok := c.tokensCarryAnotherIssuer(d); ok {
			// An STS-mode cluster: its tokens carry ccoctl's issuer, which
			// roles trust, and nothing needs this one until the cluster
			// moves to it. Without S3 credentials there is nothing to do,
			// and nothing is wrong.
			message := fmt.Sprintf("the issuer %s is not published: no S3 credentials (Secret %s/%s), and none are needed while the cluster's tokens carry the issuer %s, which IAM roles trust; "+
				"publishing starts when the Secret exists", d.IssuerURL, operatorclient.OperatorNamespace, CredentialsSecret, other)
			return conditions.Apply(ctx, c.operatorClient, ControllerName, append(report,
				conditions.Normal(degradedType, ""), condition(progressingType, operatorv1.ConditionFalse, ReasonNotNeeded, message))...)
		}
	}
	if failure != nil {
		published := docs != nil && status.IssuerURL == d.IssuerURL && slices.Equal(status.PublishedKeyIDs, docs.KeyIDs)
		progressing := conditions.Normal(progressingType, "")
		if !published {
			progressing = conditions.Abnormal(progressingType, ReasonPublishing,
				fmt.Sprintf("the issuer %s is not published yet: %s", d.IssuerURL, failure.Message))
		}
		report = append(report, conditions.Abnormal(degradedType, failure.Reason, failure.Message), progressing)
		if err := conditions.Apply(ctx, c.operatorClient, ControllerName, report...); err != nil {
			return err
		}
		return failure // retried with backoff, besides the events and the resync
	}
	message := fmt.Sprintf("published %d signing key(s) at %s", len(docs.KeyIDs), d.IssuerURL)
	return conditions.Apply(ctx, c.operatorClient, ControllerName, append(report,
		conditions.Normal(degradedType, ""), conditions.Normal(progressingType, message))...)
}

// The controller's library-go conditions, unioned into the ClusterOperator.
const (
	degradedType    = ControllerName + "Degraded"
	progressingType = ControllerName + "Progressing"
)

// publishDocuments builds the documents and publishes them. docs is nil
// when the keys cannot be read.
func (c *controller) publishDocuments(ctx context.Context, recorder events.Recorder, d podidentity.Decision) (*issuer.Documents, *awscall.Failure) {
	cm, err := c.configMaps.ConfigMaps(SigningCertsNamespace).Get(SigningCertsConfigMap)
	if apierrors.IsNotFound(err) {
		return nil, &awscall.Failure{Reason: ReasonSigningKeysMissing, Message: fmt.Sprintf("ConfigMap %s/%s with the service account signing keys does not exist", SigningCertsNamespace, SigningCertsConfigMap)}
	}
	if err != nil {
		return nil, &awscall.Failure{Reason: ReasonSigningKeysMissing, Message: err.Error()}
	}
	docs, err := issuer.BuildFromConfigMap(d.IssuerURL, cm.Data)
	if err != nil {
		return nil, &awscall.Failure{Reason: ReasonInvalidSigningKeys, Message: fmt.Sprintf("ConfigMap %s/%s: %v", SigningCertsNamespace, SigningCertsConfigMap, err)}
	}
	creds, f := c.credentials()
	if f != nil {
		return docs, f
	}
	conn := connection{region: d.Region, endpoint: d.Endpoint, accessKeyID: creds.AccessKeyID, secretSum: sha256.Sum256([]byte(creds.SecretAccessKey))}
	if c.store == nil || c.storeFor != conn {
		c.store, c.storeFor = c.newStore(conn.withSecret(creds.SecretAccessKey)), conn
	}

	fingerprint := publicationFingerprint(d, conn, docs)
	now := c.clock.Now()
	if fingerprint == c.verified && now.Sub(c.verifiedAt) < recheckAfter {
		return docs, nil
	}
	ctx, cancel := context.WithTimeout(ctx, syncTimeout)
	defer cancel()
	if c.accountFor == nil || *c.accountFor != conn {
		account, err := c.lookupAccount(ctx, conn.withSecret(creds.SecretAccessKey))
		if err != nil {
			c.verified = ""
			return docs, describeCallerAccountError(err, creds)
		}
		c.account, c.accountFor = account, &conn
	}
	p := &publisher{store: c.store, bucket: d.Bucket, region: d.Region, owner: c.account, recorder: recorder, unsupported: c.noteUnsupported}
	err = p.publish(ctx, docs)
	if p.policyRead {
		c.notePolicy(recorder, d.Bucket, p.unsafe)
	}
	if err != nil {
		c.verified = ""
		return docs, describe(err, creds)
	}
	c.verified, c.verifiedAt = fingerprint, now
	return docs, nil
}

// notePolicy sets IssuerBucketPolicySafe from the unsafe statements found,
// and tells each new finding, or their end, in an Event: once, not at
// every resync.
func (c *controller) notePolicy(recorder events.Recorder, bucket string, unsafe []policyFinding) {
	if len(unsafe) == 0 {
		c.policySafe = condition(IssuerBucketPolicySafe, operatorv1.ConditionTrue, conditions.AsExpected, fmt.Sprintf(
			"the policy of S3 bucket %s lets everyone read the issuer documents and nothing more", bucket))
		if c.unsafeReported != "" {
			recorder.Eventf("IssuerBucketPolicySafe", "The policy of S3 bucket %s no longer has statements that let anyone change the issuer documents or refuse them to readers", bucket)
		}
		c.unsafeReported = ""
		return
	}
	reason := ReasonPolicyGrantsEveryoneMore
	if unsafe[0].kind == deniesAnonymousRead {
		reason = ReasonPolicyDeniesAnonymousRead
	}
	message := describeFindings(bucket, unsafe)
	c.policySafe = condition(IssuerBucketPolicySafe, operatorv1.ConditionFalse, reason, message)
	if message != c.unsafeReported {
		recorder.Warningf("IssuerBucketPolicyUnsafe", "%s", message)
	}
	c.unsafeReported = message
}

// policyCondition is IssuerBucketPolicySafe as last known: a sync that
// could not read the policy says what the last reading found.
func (c *controller) policyCondition() conditions.Condition {
	if c.policySafe == nil {
		return condition(IssuerBucketPolicySafe, operatorv1.ConditionUnknown, ReasonPolicyNotRead, "the bucket policy has not been read yet")
	}
	return c.policySafe
}

func (c *controller) credentials() (awscall.Credentials, *awscall.Failure) {
	secret, err := c.secrets.Secrets(operatorclient.OperatorNamespace).Get(CredentialsSecret)
	if apierrors.IsNotFound(err) {
		return awscall.Credentials{}, &awscall.Failure{Reason: ReasonMissingCredentials, Message: fmt.Sprintf(
			"Secret %s/%s with the S3 credentials does not exist (the CredentialsRequest %s asks the cloud credential operator for it; create it by hand in manual mode)",
			operatorclient.OperatorNamespace, CredentialsSecret, CredentialsSecret)}
	}
	if err != nil {
		return awscall.Credentials{}, &awscall.Failure{Reason: ReasonMissingCredentials, Message: err.Error()}
	}
	creds, missing := awscall.Keys(secret)
	if len(missing) > 0 {
		return awscall.Credentials{}, &awscall.Failure{Reason: ReasonMissingCredentials, Message: fmt.Sprintf("Secret %s/%s has no %s",
			operatorclient.OperatorNamespace, CredentialsSecret, strings.Join(missing, " and no "))}
	}
	return creds, nil
}

// publicationFingerprint identifies what one publication wrote: where, with
// which credentials (hashed), and the documents' bytes.
func publicationFingerprint(d podidentity.Decision, conn connection, docs *issuer.Documents) string {
	h := sha256.New()
	for _, part := range []string{d.IssuerURL, d.Bucket, d.Endpoint, d.Region, conn.accessKeyID, hex.EncodeToString(conn.secretSum[:]), string(docs.JWKS), string(docs.Discovery)} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c *controller) noteUnsupported(operation, code, where string) {
	key := operation + " " + where
	if c.unsupported[key] {
		return
	}
	c.unsupported[key] = true
	klogUnsupported(operation, code, where)
}

func enabledCondition(d podidentity.Decision) conditions.Condition {
	status := operatorv1.ConditionFalse
	if d.Enabled {
		status = operatorv1.ConditionTrue
	}
	return condition(PodIdentityEnabled, status, d.Reason, d.Message)
}

// tokensCarryAnotherIssuer returns the issuer the cluster's tokens carry
// when it is one AWS STS can read and not the one published here: the
// cluster's own, as on a cluster installed in STS mode with ccoctl.
func (c *controller) tokensCarryAnotherIssuer(d podidentity.Decision) (string, bool) {
	auth, err := c.authentications.Get("cluster")
	if err != nil {
		return "", false
	}
	other := auth.Spec.ServiceAccountIssuer
	return other, other != d.IssuerURL && tokenissuer.Public(other)
}

// issuerMatches compares Authentication/cluster spec.serviceAccountIssuer
// with the issuer this controller publishes.
func (c *controller) issuerMatches(d podidentity.Decision) (conditions.Condition, error) {
	if !d.Publish {
		message := "no issuer is published: pod identity is disabled"
		if d.Enabled {
			message = "no issuer is published: " + d.PublishMessage
		}
		return condition(ServiceAccountIssuerMatches, operatorv1.ConditionFalse, ReasonNotPublished, message), nil
	}
	auth, err := c.authentications.Get("cluster")
	if apierrors.IsNotFound(err) {
		return condition(ServiceAccountIssuerMatches, operatorv1.ConditionFalse, ReasonAuthenticationAbsent, fmt.Sprintf(
			"Authentication/cluster does not exist: its spec.serviceAccountIssuer must be %q for AWS STS to accept the cluster's tokens", d.IssuerURL)), nil
	}
	if err != nil {
		return nil, err
	}
	if auth.Spec.ServiceAccountIssuer == d.IssuerURL {
		return condition(ServiceAccountIssuerMatches, operatorv1.ConditionTrue, conditions.AsExpected, fmt.Sprintf(
			"Authentication/cluster spec.serviceAccountIssuer is the published issuer %q", d.IssuerURL)), nil
	}
	hint := renamedBucketHint(d, auth.Spec.ServiceAccountIssuer)
	if other, ok := c.tokensCarryAnotherIssuer(d); ok && hint == "" && strings.TrimSuffix(other, "/") != strings.TrimSuffix(d.IssuerURL, "/") {
		// Not a mistake to alert on: roles trust the cluster's own issuer,
		// and each request's TokensAccepted says whether STS accepts it.
		return condition(ServiceAccountIssuerMatches, operatorv1.ConditionFalse, ReasonClusterIssuerInUse, fmt.Sprintf(
			"the cluster's tokens carry its own issuer %q (as on a cluster installed in STS mode with ccoctl), not the published issuer %q: "+
				"IAM roles made from IAMRoleRequests trust the cluster's issuer, and each request's TokensAccepted condition says whether AWS STS accepts its tokens; "+
				"nothing needs the published issuer unless the cluster's issuer is moved to it", other, d.IssuerURL)), nil
	}
	return condition(ServiceAccountIssuerMatches, operatorv1.ConditionFalse, ReasonIssuerDiffers, fmt.Sprintf(
		"Authentication/cluster spec.serviceAccountIssuer is %s but the published issuer is %q: AWS STS accepts the cluster's tokens only when they are equal%s",
		describeIssuer(auth), d.IssuerURL, hint)), nil
}

// renamedBucketHint explains an issuer that names the default bucket of
// before the S3 credentials were narrowed to this operator's buckets.
func renamedBucketHint(d podidentity.Decision, configured string) string {
	if d.Endpoint != "" || !strings.HasSuffix(d.Bucket, podidentity.DefaultBucketNameSuffix) {
		return ""
	}
	legacy := strings.TrimSuffix(d.Bucket, podidentity.DefaultBucketNameSuffix) + podidentity.LegacyBucketNameSuffix
	if configured != strings.Replace(d.IssuerURL, "https://"+d.Bucket+".", "https://"+legacy+".", 1) {
		return ""
	}
	return fmt.Sprintf("; the default issuer bucket was %q, which the operator's S3 credentials no longer reach (they are limited to buckets named %q, "+
		"which no other OpenShift tooling uses): that bucket is no longer updated; move the issuer as docs/security.md says under \"The issuer bucket\"",
		legacy, podidentity.CredentialsBucketPattern)
}

func describeIssuer(auth *configv1.Authentication) string {
	if auth.Spec.ServiceAccountIssuer == "" {
		return `"" (the API server's default issuer)`
	}
	return fmt.Sprintf("%q", auth.Spec.ServiceAccountIssuer)
}

// condition builds a condition whose normal status is neither library-go's
// True for Available nor its False for Degraded.
func condition(conditionType string, status operatorv1.ConditionStatus, reason, message string) conditions.Condition {
	return applyoperatorv1.OperatorCondition().WithType(conditionType).WithStatus(status).WithReason(reason).WithMessage(message)
}

// writeStatus applies status.podIdentity when it differs from the cache.
func (c *controller) writeStatus(ctx context.Context, wa *operatorv1alpha1.WorkloadAccess, desired operatorv1alpha1.PodIdentityStatus) error {
	current := wa.Status.PodIdentity
	if current.Region == desired.Region && current.IssuerURL == desired.IssuerURL && slices.Equal(current.PublishedKeyIDs, desired.PublishedKeyIDs) {
		return nil
	}
	patch, err := json.Marshal(map[string]any{
		"apiVersion": operatorv1alpha1.SchemeGroupVersion.String(),
		"kind":       "WorkloadAccess",
		"metadata":   map[string]any{"name": wa.Name},
		"status":     map[string]any{"podIdentity": desired},
	})
	if err != nil {
		return err
	}
	_, err = c.statusClient.WorkloadAccesses().Patch(ctx, wa.Name, types.ApplyPatchType, patch,
		metav1.PatchOptions{FieldManager: statusFieldManager, Force: ptr.To(true)}, "status")
	if err != nil {
		return fmt.Errorf("applying status.podIdentity: %w", err)
	}
	return nil
}
