package bundlestatus

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// Bounds of MissingRetry.
const (
	MinMissingRetry = 15 * time.Second
	MaxMissingRetry = 5 * time.Minute
)

// MissingRetry is when to look again at a bundle whose references are
// missing, should the watch event of their creation be missed. A bundle
// just found incomplete is looked at again in 15 seconds; one that has been
// Invalid for longer, after as long as it has been, up to 5 minutes, so
// bundles that stay broken cost few reads.
func MissingRetry(conditions []metav1.Condition, now time.Time) time.Duration {
	return InvalidRetry(conditions, subscriptionv1alpha1.ReasonMissingReference, now)
}

// InvalidRetry is MissingRetry for any reason that nothing watched would
// clear, such as RBAC the controller does not watch: 15 seconds after the
// bundle turned Invalid for reason, then as long as it has been, up to 5
// minutes.
func InvalidRetry(conditions []metav1.Condition, reason string, now time.Time) time.Duration {
	var invalidFor time.Duration
	if c := meta.FindStatusCondition(conditions, subscriptionv1alpha1.ConditionInvalid); c != nil &&
		c.Status == metav1.ConditionTrue && c.Reason == reason {
		invalidFor = now.Sub(c.LastTransitionTime.Time)
	}
	return min(max(invalidFor, MinMissingRetry), MaxMissingRetry)
}
