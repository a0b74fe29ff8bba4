package managementsync

import (
	"context"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
)

func TestSyncsRouteByState(t *testing.T) {
	for state, want := range map[operatorv1.ManagementState]string{
		operatorv1.Managed:   "managed",
		operatorv1.Removed:   "removed",
		operatorv1.Unmanaged: "",
		operatorv1.Force:     "",
		"":                   "",
	} {
		var ran string
		syncs := Syncs{
			Managed: func(context.Context, factory.SyncContext) error { ran = "managed"; return nil },
			Removed: func(context.Context, factory.SyncContext) error { ran = "removed"; return nil },
		}
		client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: state}, &operatorv1.OperatorStatus{}, nil)
		if err := syncs.Sync(client)(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		if ran != want {
			t.Errorf("%q ran %q, want %q", state, ran, want)
		}
	}
	// No Removed: nothing to undo, nothing runs.
	client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Removed}, &operatorv1.OperatorStatus{}, nil)
	if err := (Syncs{}).Sync(client)(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}
