package reconcileloop

import (
	"sync"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"k8s.io/utils/clock"
)

// SweepInterval is how old the last sweep of every object must be before the
// default queue key sweeps again. The default key fires on the 10-minute
// resync but also on every change of the operator CR, whose status every
// controller writes; a sweep costs live GETs of every referenced object.
const SweepInterval = 9 * time.Minute

// Sweeps remembers the last sweep of every object. The zero value uses the
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

// Done records a sweep, or that objects were found unmanaged.
func (s *Sweeps) Done(state operatorv1.ManagementState) {
	s.lock.Lock()
	defer s.lock.Unlock()
	s.last, s.state = s.clock().Now(), state
}
