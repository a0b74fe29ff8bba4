package loglevel

import (
	"context"
	"slices"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/utils/clock"
)

// No level reaches client-go's body logging (8), TraceAll included.
func TestOfNeverReachesClientGosBodyLogging(t *testing.T) {
	for level, want := range map[operatorv1.LogLevel]int{
		"": 2, operatorv1.Normal: 2, operatorv1.Debug: 4, operatorv1.Trace: 6, operatorv1.TraceAll: 7, "Loud": 2,
	} {
		if got := Of(level); got != want {
			t.Errorf("Of(%q) = %d, want %d", level, got, want)
		}
	}
}

// The controller sets the verbosity when the level changes, and a resync
// with nothing changed sets and records nothing.
func TestSyncSetsTheVerbosityOnlyWhenTheLevelChanges(t *testing.T) {
	spec := &operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}
	client := v1helpers.NewFakeOperatorClient(spec, &operatorv1.OperatorStatus{}, nil)
	var set []int
	c := &controller{operatorClient: client, set: func(v int) error { set = append(set, v); return nil }}
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	sync := func(level operatorv1.LogLevel) {
		t.Helper()
		spec.OperatorLogLevel = level // the fake client hands out this spec
		if err := c.sync(context.Background(), factory.NewSyncContext("test", recorder)); err != nil {
			t.Fatal(err)
		}
	}
	for _, level := range []operatorv1.LogLevel{"", operatorv1.Normal, operatorv1.TraceAll, operatorv1.TraceAll, "Loud", "Loud", operatorv1.Debug} {
		sync(level)
	}
	if want := []int{2, 7, 2, 4}; !slices.Equal(set, want) {
		t.Errorf("verbosities set %v, want %v", set, want)
	}
	var changes, invalid int
	for _, e := range recorder.Events() {
		switch e.Reason {
		case "OperatorLogLevelChange":
			changes++
		case "OperatorLogLevelInvalid":
			invalid++
		}
	}
	if changes != 4 || invalid != 1 {
		t.Errorf("%d change and %d invalid events, want 4 and 1: %v", changes, invalid, recorder.Events())
	}
}
