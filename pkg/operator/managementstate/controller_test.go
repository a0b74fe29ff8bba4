package managementstate

import (
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"k8s.io/utils/ptr"
)

func TestConditions(t *testing.T) {
	for state, wantDegraded := range map[operatorv1.ManagementState]operatorv1.ConditionStatus{
		operatorv1.Managed:   operatorv1.ConditionFalse,
		operatorv1.Unmanaged: operatorv1.ConditionFalse,
		operatorv1.Removed:   operatorv1.ConditionFalse,
		operatorv1.Force:     operatorv1.ConditionTrue,
	} {
		conds := Conditions(state)
		if got := ptr.Deref(conds[0].Status, ""); got != wantDegraded {
			t.Errorf("%s: ManagementStateDegraded=%s, want %s", state, got, wantDegraded)
		}
		if got := ptr.Deref(conds[1].Status, ""); got != operatorv1.ConditionTrue {
			t.Errorf("%s: ManagementStateUpgradeable=%s", state, got)
		}
	}
}
