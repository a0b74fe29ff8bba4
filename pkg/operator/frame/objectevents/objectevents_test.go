package objectevents

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
