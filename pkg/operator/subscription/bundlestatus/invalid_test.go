package bundlestatus

import (
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

func TestConditionsMoveTheirTransitionTimeOnlyOnChange(t *testing.T) {
	var conditions []metav1.Condition
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	bundle := &metav1.ObjectMeta{Namespace: "ns", Name: "b", Generation: 1}
	invalid := func(generation int64, reason, message string) bool {
		before := len(recorder.Events())
		bundle.Generation = generation
		MarkInvalid(recorder, "Bundle", bundle, &conditions, reason, message)
		return len(recorder.Events()) > before
	}
	if !invalid(1, subscriptionv1alpha1.ReasonMissingReference, "m") {
		t.Error("turning Invalid is news")
	}
	then := metav1.NewTime(time.Now().Add(-time.Hour))
	conditions[0].LastTransitionTime = then
	if invalid(2, subscriptionv1alpha1.ReasonMissingReference, "m") {
		t.Error("staying Invalid for the same reason is not news")
	}
	if !conditions[0].LastTransitionTime.Equal(&then) || conditions[0].ObservedGeneration != 2 {
		t.Errorf("condition %+v", conditions[0])
	}
	if !invalid(2, subscriptionv1alpha1.ReasonOverlappingKeys, "o") {
		t.Error("a new reason is news")
	}
	SetValid(&conditions, 3)
	cond := meta.FindStatusCondition(conditions, subscriptionv1alpha1.ConditionInvalid)
	if cond.Status != metav1.ConditionFalse || cond.Reason != subscriptionv1alpha1.ReasonValid || cond.LastTransitionTime.Equal(&then) {
		t.Errorf("condition %+v", cond)
	}
}

func TestMarkInvalidNamesTheBundleInItsEvent(t *testing.T) {
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	var conditions []metav1.Condition
	MarkInvalid(recorder, "ClusterBundle", &metav1.ObjectMeta{Name: "rhel"}, &conditions, subscriptionv1alpha1.ReasonConflict, "ClusterRole x exists")
	got := recorder.Events()
	if len(got) != 1 || got[0].Reason != "ClusterBundleInvalid" || got[0].Message != "ClusterBundle rhel is invalid (Conflict): ClusterRole x exists" {
		t.Errorf("events %+v", got)
	}
}
