package bundlereconcile

import (
	"sync"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// SweepInterval is how old the last sweep of every bundle must be before the
// default queue key sweeps again. The default key fires on the 10-minute
// resync but also on every change of the operator CR, whose status every
// controller writes; a sweep costs live GETs of every referenced object.
const SweepInterval = 9 * time.Minute

// Sweeps remembers the last sweep of every bundle. The zero value uses the
// real clock.
type Sweeps struct {
	Clock clock.PassiveClock

	lock  sync.Mutex
	last  time.Time
	state operatorv1.ManagementState
}

// Due says whether the default key should sweep: the management state
// changed since the last sweep, or that sweep is older than SweepInterval.
func (s *Sweeps) Due(state operatorv1.ManagementState) bool {
	s.lock.Lock()
	defer s.lock.Unlock()
	return s.last.IsZero() || state != s.state || s.clock().Since(s.last) >= SweepInterval
}

func (s *Sweeps) clock() clock.PassiveClock {
	if s.Clock == nil {
		return clock.RealClock{}
	}
	return s.Clock
}

// Done records a sweep, or that bundles were found unmanaged.
func (s *Sweeps) Done(state operatorv1.ManagementState) {
	s.lock.Lock()
	defer s.lock.Unlock()
	s.last, s.state = s.clock().Now(), state
}

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
