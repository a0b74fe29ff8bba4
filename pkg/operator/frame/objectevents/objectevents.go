// Package objectevents records Events on the objects they are about — a
// Bundle, a ClusterBundle, an IAMRoleRequest — so `oc describe` shows them
// beside the condition. library-go's recorder writes the operator's own
// events about its Deployment; these are for the people who own the objects.
package objectevents

import (
	"context"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	"github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/scheme"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// New starts a recorder writing Events through kube until ctx ends. Events
// on a namespaced object land in its namespace; on a cluster-scoped one, in
// "default", where `oc describe` looks. The recorder's correlator folds
// repeats into one Event with a count, and throttles a hot object.
func New(ctx context.Context, kube kubernetes.Interface) record.EventRecorder {
	return start(ctx, &typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
}

// NewForAdmins is New for cluster-scoped objects whose Events only cluster
// admins should read (an IAMRoleRequest's name its role's ARN and its
// ServiceAccount): they land in kube-system instead of "default", where a
// project user may have been let list Events. The API server accepts an
// Event about a cluster-scoped object only in "default", or in kube-system
// when it has an eventTime (the operator's own namespace is refused), and
// `oc describe` searches every namespace for it, so it still shows them to
// whoever may list Events there.
func NewForAdmins(ctx context.Context, kube kubernetes.Interface) record.EventRecorder {
	return start(ctx, &systemNamespaceSink{
		EventSink:  &typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")},
		controller: operatorclient.OperatorName,
		instance:   reportingInstance(),
	})
}

// CorrelatorCacheSize bounds each of an event correlator's three caches (the
// aggregator's, the spam filter's and the one that finds a repeat to count
// on the Event already written): client-go's default of 4,096 keeps about
// 2 KB for each of the last 4,096 distinct Events, 10 MB after a thousand
// ClusterBundles' first sync, long after anything could repeat them. A
// repeat that matters comes soon, from one object or one message, and stays
// in a smaller cache; one that was evicted is written as a new Event rather
// than counted on the old one.
const CorrelatorCacheSize = 256

func start(ctx context.Context, sink record.EventSink) record.EventRecorder {
	broadcaster := record.NewBroadcaster(record.WithContext(ctx), record.WithCorrelatorOptions(record.CorrelatorOptions{LRUCacheSize: CorrelatorCacheSize}))
	broadcaster.StartRecordingToSink(sink)
	go func() {
		<-ctx.Done()
		broadcaster.Shutdown()
	}()
	// The generated scheme knows our kinds, so the recorder can name them
	// in involvedObject.
	return broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: operatorclient.OperatorName})
}

// systemNamespaceSink moves Events on cluster-scoped objects to kube-system,
// with what the API server requires of an Event there: an eventTime, and
// the reporting controller, instance and action that come with it.
type systemNamespaceSink struct {
	record.EventSink
	controller, instance string
}

func (s *systemNamespaceSink) Create(event *corev1.Event) (*corev1.Event, error) {
	return s.EventSink.Create(s.moved(event))
}

func (s *systemNamespaceSink) Update(event *corev1.Event) (*corev1.Event, error) {
	return s.EventSink.Update(s.moved(event))
}

// Patch counts a repeat on the Event Create wrote, in kube-system too.
func (s *systemNamespaceSink) Patch(event *corev1.Event, data []byte) (*corev1.Event, error) {
	return s.EventSink.Patch(s.moved(event), data)
}

func (s *systemNamespaceSink) moved(event *corev1.Event) *corev1.Event {
	if event.InvolvedObject.Namespace != "" {
		return event
	}
	moved := event.DeepCopy()
	moved.Namespace = metav1.NamespaceSystem
	if moved.EventTime.IsZero() {
		moved.EventTime = metav1.NewMicroTime(event.FirstTimestamp.Time)
	}
	moved.ReportingController = s.controller
	moved.ReportingInstance = s.instance
	if moved.Action == "" {
		moved.Action = event.Reason
	}
	return moved
}

// reportingInstance is the operator's pod (its hostname), as the events
// API's own recorder names it; at most the API server's 128 characters.
func reportingInstance() string {
	instance := operatorclient.OperatorName
	if host, err := os.Hostname(); err == nil && host != "" {
		instance += "-" + host
	}
	if len(instance) > 128 {
		instance = instance[:128]
	}
	return instance
}
