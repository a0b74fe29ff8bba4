package bundlestatus

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// ReasonBecameValid is the reason of the Event a bundle gets when it can be
// injected again (or for the first time).
const ReasonBecameValid = "Valid"

// RecordTransition records on the bundle, after its status was written, a
// change of the Invalid condition its owner should see: an Event with the
// condition's reason and message when it turns Invalid or its reason or
// message changes, and one when it turns valid. A status write that left the
// condition as it was records nothing, so resyncs stay silent. Messages
// carry names, never Secret contents.
func RecordTransition(recorder record.EventRecorder, kind string, bundle runtime.Object, before, after []metav1.Condition) {
	was := meta.FindStatusCondition(before, subscriptionv1alpha1.ConditionInvalid)
	now := meta.FindStatusCondition(after, subscriptionv1alpha1.ConditionInvalid)
	switch {
	case now == nil:
	case now.Status == metav1.ConditionTrue:
		if was == nil || was.Status != metav1.ConditionTrue || was.Reason != now.Reason || was.Message != now.Message {
			recorder.Eventf(bundle, corev1.EventTypeWarning, now.Reason, "%s cannot be injected: %s", kind, now.Message)
		}
	case was == nil || was.Status != metav1.ConditionFalse:
		recorder.Eventf(bundle, corev1.EventTypeNormal, ReasonBecameValid, "%s can be injected into pods that ask for it", kind)
	}
}
