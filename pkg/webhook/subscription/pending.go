package subscription

import (
	"fmt"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OperatorState reports the operator's management state, and false while it
// is not known (no WorkloadAccess, or its cache not read yet). The webhook
// uses it only to explain a bundle it cannot inject yet.
type OperatorState func() (operatorv1.ManagementState, bool)

// WithOperatorState makes refusals of bundles the operator has not validated
// say whether the operator is managing bundles at all.
func (m *Mutator) WithOperatorState(state OperatorState) *Mutator {
	m.operatorState = state
	return m
}

// slowValidation is how long after a bundle changed a missing validation
// stops looking like the operator being busy and starts looking like the
// operator being down: it validates a bundle within seconds.
const slowValidation = 30 * time.Second

// notValidated explains a bundle whose status does not describe its spec.
// The previous status is never used instead: it describes a spec the bundle's
// owner has since changed, possibly to take a Secret away.
func (m *Mutator) notValidated(bundle metav1.Object, observed int64) string {
	state := fmt.Sprintf("generation %d, status describes %d", bundle.GetGeneration(), observed)
	if s, known := m.operatorState(); known && s != operatorv1.Managed {
		return fmt.Sprintf("has not been validated by the operator since it changed (%s), and the operator validates no bundles while "+
			"workloadaccess/cluster spec.managementState is %s: ask a cluster admin to set it to Managed", state, s)
	}
	changed := specChanged(bundle)
	if changed.IsZero() { // never from the API server, which sets creationTimestamp
		return fmt.Sprintf("has not been validated by the operator yet (%s); retry in a few seconds", state)
	}
	since := m.now().Sub(changed).Truncate(time.Second)
	if since < slowValidation {
		return fmt.Sprintf("has not been validated by the operator yet (changed %s ago; %s); retry in a few seconds", since, state)
	}
	return fmt.Sprintf("has not been validated by the operator since it changed %s ago (%s): the operator may be down or failing; "+
		"check `oc get clusteroperator workload-access` and the operator's logs, then retry", since, state)
}

// specChanged is when the bundle was last written other than through its
// status: the newest managed-fields time of the main resource, or its
// creation.
func specChanged(bundle metav1.Object) time.Time {
	changed := bundle.GetCreationTimestamp().Time
	for _, f := range bundle.GetManagedFields() {
		if f.Subresource == "" && f.Time != nil && f.Time.After(changed) {
			changed = f.Time.Time
		}
	}
	return changed
}

func unknownOperatorState() (operatorv1.ManagementState, bool) { return "", false }
