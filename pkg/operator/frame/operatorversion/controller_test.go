package operatorversion

import (
	"context"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/status"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/utils/clock"
)

type fakeOperand struct {
	atLevel bool
	message string
}

func (f fakeOperand) AtLevel(*operatorv1.OperatorSpec) (bool, string, error) {
	return f.atLevel, f.message, nil
}

func TestVersionIsReportedOnlyAtLevel(t *testing.T) {
	for _, tc := range []struct {
		name            string
		state           operatorv1.ManagementState
		operands        []Operand
		wantVersion     string
		wantProgressing operatorv1.ConditionStatus
	}{
		{"all operands at level", operatorv1.Managed, []Operand{fakeOperand{atLevel: true}}, "4.99.0", operatorv1.ConditionFalse},
		{"one operand behind", operatorv1.Managed, []Operand{fakeOperand{atLevel: true}, fakeOperand{message: "waiting for x"}}, "", operatorv1.ConditionTrue},
		{"unmanaged never claims a version", operatorv1.Unmanaged, []Operand{fakeOperand{atLevel: true}}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: tc.state}, &operatorv1.OperatorStatus{}, nil)
			versions := status.NewVersionGetter()
			c := &controller{operatorClient: client, versions: versions, desired: "4.99.0", operands: tc.operands}
			recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
			if err := c.sync(context.Background(), factory.NewSyncContext("test", recorder)); err != nil {
				t.Fatal(err)
			}
			if got := versions.GetVersions()[OperatorVersionName]; got != tc.wantVersion {
				t.Errorf("reported version %q, want %q", got, tc.wantVersion)
			}
			_, st, _, _ := client.GetOperatorState()
			cond := v1helpers.FindOperatorCondition(st.Conditions, ConditionType)
			switch {
			case tc.wantProgressing == "" && cond != nil:
				t.Errorf("unexpected condition %v", cond)
			case tc.wantProgressing != "" && (cond == nil || cond.Status != tc.wantProgressing):
				t.Errorf("condition %v, want status %s", cond, tc.wantProgressing)
			}
		})
	}
}
