package objectevents

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// sinkRecorder keeps what reaches the API client.
type sinkRecorder struct{ created, patched []*corev1.Event }

func (s *sinkRecorder) Create(e *corev1.Event) (*corev1.Event, error) {
	s.created = append(s.created, e)
	return e, nil
}
func (s *sinkRecorder) Update(e *corev1.Event) (*corev1.Event, error) { return e, nil }
func (s *sinkRecorder) Patch(e *corev1.Event, _ []byte) (*corev1.Event, error) {
	s.patched = append(s.patched, e)
	return e, nil
}

// An Event on a cluster-scoped object goes to kube-system, with what the
// API server asks of an Event there; one on a namespaced object stays in
// its namespace, untouched.
func TestSystemNamespaceSink(t *testing.T) {
	inner := &sinkRecorder{}
	sink := &systemNamespaceSink{EventSink: inner, controller: "c", instance: "c-pod"}
	first := metav1.Now()
	clusterScoped := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "r.1"}, Reason: "RoleCreated",
		InvolvedObject: corev1.ObjectReference{Kind: "IAMRoleRequest", Name: "r"}, FirstTimestamp: first}
	namespaced := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "b.1"}, Reason: "Valid",
		InvolvedObject: corev1.ObjectReference{Kind: "Bundle", Namespace: "apps", Name: "b"}}
	for _, e := range []*corev1.Event{clusterScoped, namespaced} {
		if _, err := sink.Create(e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sink.Patch(clusterScoped, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	moved := inner.created[0]
	if moved.Namespace != metav1.NamespaceSystem || !moved.EventTime.Time.Equal(first.Time) || moved.ReportingController != "c" ||
		moved.ReportingInstance != "c-pod" || moved.Action != "RoleCreated" || moved.InvolvedObject.Namespace != "" {
		t.Errorf("the Event on a cluster-scoped object: %+v", moved)
	}
	if clusterScoped.Namespace != "default" {
		t.Error("the recorder's own Event was changed")
	}
	if inner.created[1] != namespaced {
		t.Errorf("the Event on a namespaced object was changed: %+v", inner.created[1])
	}
	if inner.patched[0].Namespace != metav1.NamespaceSystem {
		t.Errorf("a repeat is counted in %q", inner.patched[0].Namespace)
	}
}

// countingSink tells, in order, whether each Event reaching the API client
// was written new or counted on an earlier one.
type countingSink struct{ writes chan string }

func (s countingSink) Create(e *corev1.Event) (*corev1.Event, error) {
	s.writes <- "create " + e.InvolvedObject.Name
	return e, nil
}
func (s countingSink) Update(e *corev1.Event) (*corev1.Event, error) { return e, nil }
func (s countingSink) Patch(e *corev1.Event, _ []byte) (*corev1.Event, error) {
	s.writes <- "count " + e.InvolvedObject.Name
	return e, nil
}

// The recorder's correlator remembers the last CorrelatorCacheSize distinct
// Events, not client-go's 4,096: a repeat of a recent one is counted on the
// Event already written, one from further back is written new.
func TestTheCorrelatorRemembersOnlyRecentEvents(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink := countingSink{writes: make(chan string, 2*CorrelatorCacheSize)}
	recorder := start(ctx, sink)
	bundle := func(i int) *subscriptionv1alpha1.ClusterBundle {
		name := fmt.Sprintf("bundle-%04d", i)
		return &subscriptionv1alpha1.ClusterBundle{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)}}
	}
	emit := func(i int, want string) {
		t.Helper()
		recorder.Event(bundle(i), corev1.EventTypeNormal, "BundleValid", "the bundle is valid")
		select {
		case got := <-sink.writes:
			if got != want {
				t.Fatalf("%s, want %s", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no write, want %s", want)
		}
	}
	distinct := CorrelatorCacheSize + 50
	for i := range distinct {
		emit(i, fmt.Sprintf("create bundle-%04d", i))
	}
	emit(distinct-1, fmt.Sprintf("count bundle-%04d", distinct-1))
	emit(0, "create bundle-0000")
}

// What a correlator holds after a burst of distinct Events, as after the
// first sync of thousands of ClusterBundles.
func TestTheCorrelatorHoldsLittleAfterABurst(t *testing.T) {
	held := func(size int) float64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		correlator := record.NewEventCorrelatorWithOptions(record.CorrelatorOptions{LRUCacheSize: size})
		for i := range 5000 {
			name := fmt.Sprintf("bundle-%04d", i)
			now := metav1.Now()
			if _, err := correlator.EventCorrelate(&corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{Name: name + ".1", Namespace: "default"},
				InvolvedObject: corev1.ObjectReference{Kind: "ClusterBundle", APIVersion: "subscription.openshift.io/v1alpha1", Name: name, UID: types.UID("0b6f8a2e-3c1d-4e5f-9a7b-" + fmt.Sprintf("%012d", i))},
				Reason:         "SharedSecretCreated", Message: "Created SharedSecret " + name + "-entitlement because it was missing",
				Source: corev1.EventSource{Component: "cluster-workload-access-operator"}, Type: corev1.EventTypeNormal,
				FirstTimestamp: now, LastTimestamp: now, Count: 1,
			}); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(correlator)
		return (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / (1 << 20)
	}
	ours, clientGo := held(CorrelatorCacheSize), held(0)
	t.Logf("a correlator after 5,000 distinct Events holds %.2f MiB (client-go's default size: %.2f MiB)", ours, clientGo)
	if ours*4 > clientGo {
		t.Errorf("the correlator holds %.2f MiB, client-go's default %.2f MiB", ours, clientGo)
	}
}
