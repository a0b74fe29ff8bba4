package conditions

import (
	"context"
	"errors"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
)

func TestNormalAndAbnormalFollowTheConditionType(t *testing.T) {
	for _, tc := range []struct {
		condition Condition
		want      operatorv1.ConditionStatus
		reason    string
	}{
		{Normal("XAvailable", ""), operatorv1.ConditionTrue, AsExpected},
		{Normal("XUpgradeable", ""), operatorv1.ConditionTrue, AsExpected},
		{Normal("XDegraded", ""), operatorv1.ConditionFalse, AsExpected},
		{Normal("XProgressing", ""), operatorv1.ConditionFalse, AsExpected},
		{Abnormal("XAvailable", "Missing", "m"), operatorv1.ConditionFalse, "Missing"},
		{Abnormal("XDegraded", "Broken", "m"), operatorv1.ConditionTrue, "Broken"},
		{Degraded("X", "SyncError", nil), operatorv1.ConditionFalse, AsExpected},
		{Degraded("X", "SyncError", errors.New("boom")), operatorv1.ConditionTrue, "SyncError"},
	} {
		if *tc.condition.Status != tc.want || *tc.condition.Reason != tc.reason {
			t.Errorf("%s: %s/%s, want %s/%s", *tc.condition.Type, *tc.condition.Status, *tc.condition.Reason, tc.want, tc.reason)
		}
	}
}

func TestApplyWritesOnlyTheControllersConditions(t *testing.T) {
	client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{}, &operatorv1.OperatorStatus{
		Conditions: []operatorv1.OperatorCondition{{Type: "OtherDegraded", Status: operatorv1.ConditionTrue}},
	}, nil)
	if err := Apply(context.Background(), client, "X", Degraded("X", "SyncError", errors.New("secrets \"a\" is forbidden"))); err != nil {
		t.Fatal(err)
	}
	_, status, _, _ := client.GetOperatorState()
	if c := v1helpers.FindOperatorCondition(status.Conditions, "XDegraded"); c == nil || c.Message != `secrets "a" is forbidden` {
		t.Errorf("XDegraded %+v", c)
	}
	if !v1helpers.IsOperatorConditionTrue(status.Conditions, "OtherDegraded") {
		t.Error("another controller's condition changed")
	}
}
