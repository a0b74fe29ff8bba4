package conditions

import (
	"context"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
)

// Unavailable is why an operand cannot serve; a zero Unavailable means it can.
type Unavailable struct {
	Reason  string
	Message string
}

// AvailabilityCheck says whether the operand serves under Managed. message
// describes what serves when it does.
type AvailabilityCheck func() (unavailable Unavailable, message string, err error)

// AvailabilitySync reports conditionType for the current management state:
// under Managed what check finds; under Removed True with reason Removed
// (the admin asked for it, nothing is wrong); under Unmanaged the last
// report stands, since nobody acts on the operand.
func AvailabilitySync(client v1helpers.OperatorClient, controller, conditionType, removedMessage string, check AvailabilityCheck) factory.SyncFunc {
	return managementsync.Syncs{
		Managed: func(ctx context.Context, _ factory.SyncContext) error {
			unavailable, message, err := check()
			if err != nil {
				return err
			}
			condition := Normal(conditionType, message)
			if unavailable.Reason != "" {
				condition = Abnormal(conditionType, unavailable.Reason, unavailable.Message)
			}
			return Apply(ctx, client, controller, condition)
		},
		Removed: func(ctx context.Context, _ factory.SyncContext) error {
			return Apply(ctx, client, controller, set(conditionType, operatorv1.ConditionTrue, "Removed", removedMessage))
		},
	}.Sync(client)
}
