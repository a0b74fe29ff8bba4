package managementstate

import (
	"context"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
)

func TestSyncReportsUnsupportedStatesAndAlwaysUpgradeable(t *testing.T) {
	for _, tc := range []struct {
		state        operatorv1.ManagementState
		wantDegraded operatorv1.ConditionStatus
		wantReason   string
	}{
		{operatorv1.Managed, operatorv1.ConditionFalse, "AsExpected"},
		{operatorv1.Unmanaged, operatorv1.ConditionFalse, "AsExpected"},
		{operatorv1.Removed, operatorv1.ConditionFalse, "AsExpected"},
		{operatorv1.Force, operatorv1.ConditionTrue, "Unsupported"},
	} {
		t.Run(string(tc.state), func(t *testing.T) {
			client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: tc.state}, &operatorv1.OperatorStatus{}, nil)
			c := &controller{operatorClient: client}
			if err := c.sync(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			_, status, _, _ := client.GetOperatorState()
			degraded := v1helpers.FindOperatorCondition(status.Conditions, "ManagementStateDegraded")
			if degraded == nil || degraded.Status != tc.wantDegraded || degraded.Reason != tc.wantReason {
				t.Errorf("ManagementStateDegraded %+v, want %s/%s", degraded, tc.wantDegraded, tc.wantReason)
			}
			if !v1helpers.IsOperatorConditionTrue(status.Conditions, "ManagementStateUpgradeable") {
				t.Errorf("ManagementStateUpgradeable is not True: %+v", status.Conditions)
			}
		})
	}
}
