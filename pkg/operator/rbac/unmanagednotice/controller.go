// Package unmanagednotice tells each OLM v1 ClusterExtension, with an Event,
// when access to the APIs of its CRDs is managed by no APIAccessPolicy: the
// default ("Unmanaged"), where only cluster admins can use them. The notice
// stays while it is true: an expired Event (1 h upstream, 3 h on OpenShift)
// is recorded again as soon as it is gone. It writes
// nothing to the ClusterExtension itself: its status is OLM's, and its
// conditions leave no room for another writer. It reads only what every
// version of the API guarantees, the object's metadata; without the API
// (OLM v1 not installed) it does nothing.
package unmanagednotice

import (
	"context"
	"strings"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	apiaccessinformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/apiaccess/v1alpha1"
	apiaccesslisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/apiaccess/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// ControllerName names the controller in logs and the operator's events.
const ControllerName = "APIAccessUnmanagedNotice"

// ClusterExtensionCRD is OLM v1's ClusterExtension API: watched only while
// the API server serves it.
const ClusterExtensionCRD = "clusterextensions.olm.operatorframework.io"

// ClusterExtensions is the resource read, as metadata only.
var ClusterExtensions = schema.GroupVersionResource{Group: "olm.operatorframework.io", Version: "v1", Resource: "clusterextensions"}

const (
	clusterExtensionKind = "ClusterExtension"
	// eventNamespace is where Events on a cluster-scoped object land, and
	// where `oc describe clusterextension` finds them.
	eventNamespace = metav1.NamespaceDefault
	// syncWait is when a sync looks again for informers still syncing.
	syncWait = time.Second
	// recordedLately is how long after recording a notice its absence from
	// the Event cache means the cache has yet to see it, not that it expired.
	recordedLately = 10 * time.Second
)

// Inputs are what the controller needs.
type Inputs struct {
	// CRDs is crdaccess.NewCRDInformer's informer, shared with the
	// APIAccessPolicy controller (the starter runs it).
	CRDs     cache.SharedIndexInformer
	Policies apiaccessinformers.APIAccessPolicyInformer
	Metadata metadata.Interface
	// Kube reads back the Events this controller recorded, so that a
	// restarted operator does not repeat them.
	Kube kubernetes.Interface
	// Events records on the ClusterExtension (pkg/operator/frame/objectevents).
	Events         record.EventRecorder
	OperatorClient v1helpers.OperatorClient
	Recorder       events.Recorder
}

// New returns the controller: one key for the whole cluster, woken by CRDs,
// policies and ClusterExtensions.
func New(in Inputs) factory.Controller {
	c := &controller{crds: in.CRDs.GetIndexer(), policies: in.Policies.Lister(), events: in.Events,
		start: func(ctx context.Context) watches { return startWatches(ctx, in.Metadata, in.Kube) },
		said:  map[types.UID]string{}, recordedAt: map[types.UID]time.Time{}, now: time.Now}
	return factory.New().
		WithInformers(in.CRDs, in.Policies.Informer()).
		WithSync(managementsync.Syncs{Managed: c.sync}.Sync(in.OperatorClient)).
		ToController(ControllerName, in.Recorder)
}

// watches are the informers started once the ClusterExtension API is served.
type watches struct {
	extensions cache.SharedIndexInformer
	// recorded are the Events this operator recorded on ClusterExtensions.
	recorded cache.SharedIndexInformer
	stop     context.CancelFunc
}

func startWatches(ctx context.Context, client metadata.Interface, kube kubernetes.Interface) watches {
	ctx, stop := context.WithCancel(ctx)
	extensions := metadatainformer.NewFilteredMetadataInformer(client, ClusterExtensions, "", informerkit.Resync, cache.Indexers{}, nil).Informer()
	ours := fields.AndSelectors(fields.OneTermEqualSelector("involvedObject.kind", clusterExtensionKind),
		fields.OneTermEqualSelector("source", operatorclient.OperatorName)).String()
	eventInformers := informers.NewSharedInformerFactoryWithOptions(kube, informerkit.Resync, informers.WithNamespace(eventNamespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = ours }))
	recorded := eventInformers.Core().V1().Events().Informer()
	go extensions.RunWithContext(ctx)
	eventInformers.Start(ctx.Done())
	return watches{extensions: extensions, recorded: recorded, stop: stop}
}

type controller struct {
	crds     cache.Indexer
	policies apiaccesslisters.APIAccessPolicyLister
	events   record.EventRecorder
	start    func(context.Context) watches

	watching *watches
	// said is the last notice recorded on each ClusterExtension ("reason:
	// message"), read back from the recorded Events after a restart.
	said map[types.UID]string
	// recordedAt is when this process last recorded each one's notice.
	recordedAt map[types.UID]time.Time
	now        func() time.Time
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	if !c.served() {
		// OLM v1 is not installed, or was removed: nothing to tell.
		if c.watching != nil {
			c.watching.stop()
			c.watching, c.said = nil, map[types.UID]string{}
		}
		return nil
	}
	if c.watching == nil {
		w := c.start(ctx)
		wake := func(any) { syncCtx.Queue().Add(syncCtx.QueueKey()) }
		if _, err := w.extensions.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: wake,
			UpdateFunc: func(_, obj any) { wake(obj) }, DeleteFunc: wake}); err != nil {
			w.stop()
			return err
		}
		// An Event of ours gone (its TTL ran out): say it again if still true.
		if _, err := w.recorded.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: wake}); err != nil {
			w.stop()
			return err
		}
		c.watching = &w
	}
	if !c.watching.extensions.HasSynced() || !c.watching.recorded.HasSynced() {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), syncWait)
		return nil
	}
	var extensions []metav1.Object
	for _, obj := range c.watching.extensions.GetStore().List() {
		if o, ok := obj.(metav1.Object); ok {
			extensions = append(extensions, o)
		}
	}
	var recorded []*corev1.Event
	for _, obj := range c.watching.recorded.GetStore().List() {
		if e, ok := obj.(*corev1.Event); ok {
			recorded = append(recorded, e)
		}
	}
	again, err := c.noticeAll(extensions, recorded)
	if again > 0 {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), again)
	}
	return err
}

// served says whether the API server serves ClusterExtensions.
func (c *controller) served() bool {
	obj, exists, err := c.crds.GetByKey(ClusterExtensionCRD)
	if err != nil || !exists {
		return false
	}
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	return ok && crd.DeletionTimestamp == nil && crd.Status.AcceptedNames.Kind == clusterExtensionKind
}

// noticeAll records on each ClusterExtension what changed since the last
// notice (in memory, or among the Events recorded before a restart): a
// resync with nothing changed records nothing. ReasonManaged follows a
// ReasonUnmanaged only: an extension whose CRDs were always managed has
// the policy's status to say so. An Unmanaged notice whose Event is gone
// from the cluster (expired, or never written) is recorded again. It
// returns when to look again for an Unmanaged notice recorded too lately
// to tell whether its Event is there, or 0.
func (c *controller) noticeAll(extensions []metav1.Object, recorded []*corev1.Event) (time.Duration, error) {
	policies, err := c.policies.List(labels.Everything())
	if err != nil {
		return 0, err
	}
	live := lastSaid(recorded)
	seen := map[types.UID]bool{}
	var again time.Duration
	for _, ext := range extensions {
		uid := ext.GetUID()
		seen[uid] = true
		if ext.GetDeletionTimestamp() != nil {
			continue
		}
		crds, err := c.crdsOf(ext.GetName())
		if err != nil {
			return 0, err
		}
		reason, message := Notice(crds, policies)
		said, known := c.said[uid]
		if !known {
			said = live[uid]
		}
		notice := reason + ": " + message
		expired := false
		if reason == ReasonUnmanaged && notice == said && live[uid] != notice {
			if wait := recordedLately - c.now().Sub(c.recordedAt[uid]); wait > 0 {
				again = max(again, wait) // the cache may not have seen it yet
			} else {
				expired = true
			}
		}
		if reason == "" || (notice == said && !expired) || (reason == ReasonManaged && !strings.HasPrefix(said, ReasonUnmanaged+":")) {
			if said != "" {
				c.said[uid] = said
			}
			continue
		}
		c.events.Event(reference(ext), corev1.EventTypeNormal, reason, message)
		c.said[uid], c.recordedAt[uid] = notice, c.now()
		if reason == ReasonUnmanaged {
			// The recorder writes in the background and drops what it
			// cannot write: look once more when its Event must be cached.
			again = max(again, recordedLately)
		}
	}
	for uid := range c.said {
		if !seen[uid] {
			delete(c.said, uid)
			delete(c.recordedAt, uid)
		}
	}
	return again, nil
}

// crdsOf are the CRDs OLM v1 installed for the ClusterExtension, by the
// owner labels it sets on them; CRDs being deleted are left out.
func (c *controller) crdsOf(extension string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	selector := labels.SelectorFromSet(labels.Set{apiaccessv1alpha1.OLMOwnerKindLabel: apiaccessv1alpha1.OLMOwnerKindClusterExtension,
		apiaccessv1alpha1.OLMOwnerNameLabel: extension})
	var out []*apiextensionsv1.CustomResourceDefinition
	err := cache.ListAll(c.crds, selector, func(obj any) {
		if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok && crd.DeletionTimestamp == nil {
			out = append(out, crd)
		}
	})
	return out, err
}

// lastSaid is the latest notice of ours on each ClusterExtension, by UID.
func lastSaid(recorded []*corev1.Event) map[types.UID]string {
	out := map[types.UID]string{}
	latest := map[types.UID]time.Time{}
	for _, e := range recorded {
		if e.Reason != ReasonUnmanaged && e.Reason != ReasonManaged {
			continue
		}
		at := e.LastTimestamp.Time
		if e.EventTime.After(at) {
			at = e.EventTime.Time
		}
		if at.IsZero() {
			at = e.CreationTimestamp.Time
		}
		uid := e.InvolvedObject.UID
		if t, ok := latest[uid]; ok && !at.After(t) {
			continue
		}
		latest[uid] = at
		out[uid] = e.Reason + ": " + e.Message
	}
	return out
}

// reference names the ClusterExtension in the Event, by UID: a
// ClusterExtension deleted and re-created is another.
func reference(ext metav1.Object) *corev1.ObjectReference {
	return &corev1.ObjectReference{APIVersion: ClusterExtensions.GroupVersion().String(), Kind: clusterExtensionKind,
		Name: ext.GetName(), UID: ext.GetUID()}
}
