// Package managementsync is the one place controllers read
// spec.managementState and decide what it means for them: Managed applies,
// Removed undoes what the controller created, Unmanaged touches nothing.
package managementsync

import (
	"context"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
)

// Get is spec.managementState from the operator client's cache.
func Get(client v1helpers.OperatorClient) (operatorv1.ManagementState, error) {
	spec, _, _, err := client.GetOperatorState()
	if err != nil {
		return "", err
	}
	return spec.ManagementState, nil
}

// Syncs are what a controller does in each management state. Unmanaged
// does nothing, by definition; so does any state the operator does not
// support (the managementstate controller reports those).
type Syncs struct {
	Managed factory.SyncFunc
	// Removed undoes what Managed created; nil when there is nothing to undo.
	Removed factory.SyncFunc
}

// Sync routes each sync to the function for the current state.
func (s Syncs) Sync(client v1helpers.OperatorClient) factory.SyncFunc {
	return func(ctx context.Context, syncCtx factory.SyncContext) error {
		state, err := Get(client)
		if err != nil {
			return err
		}
		switch {
		case state == operatorv1.Managed && s.Managed != nil:
			return s.Managed(ctx, syncCtx)
		case state == operatorv1.Removed && s.Removed != nil:
			return s.Removed(ctx, syncCtx)
		}
		return nil
	}
}
