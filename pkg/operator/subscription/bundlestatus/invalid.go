package bundlestatus

import (
	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// SetValid records that the bundle can be injected.
func SetValid(conditions *[]metav1.Condition, generation int64) {
	meta.SetStatusCondition(conditions, metav1.Condition{
		Type:               subscriptionv1alpha1.ConditionInvalid,
		Status:             metav1.ConditionFalse,
		Reason:             subscriptionv1alpha1.ReasonValid,
		Message:            "",
		ObservedGeneration: generation,
	})
}

// MarkInvalid records in conditions why bundle (of kind, e.g.
// "ClusterBundle") cannot be injected, and emits a <Kind>Invalid warning when
// it just turned Invalid or its reason or message changed. The caller writes
// the status; nothing else is touched.
func MarkInvalid(recorder events.Recorder, kind string, bundle metav1.Object, conditions *[]metav1.Condition, reason, message string) {
	old := meta.FindStatusCondition(*conditions, subscriptionv1alpha1.ConditionInvalid)
	news := old == nil || old.Status != metav1.ConditionTrue || old.Reason != reason || old.Message != message
	meta.SetStatusCondition(conditions, metav1.Condition{
		Type:               subscriptionv1alpha1.ConditionInvalid,
		Status:             metav1.ConditionTrue,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: bundle.GetGeneration(),
	})
	if news {
		key, _ := cache.MetaNamespaceKeyFunc(bundle)
		recorder.Warningf(kind+"Invalid", "%s %s is invalid (%s): %s", kind, key, reason, message)
	}
}
