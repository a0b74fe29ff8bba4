// Package managementstate validates spec.managementState. The CRD
// schema (shared with every OpenShift operator) also admits "Force", which
// this operator does not implement: saying so beats silently ignoring it.
package managementstate

import (
	"context"
	"fmt"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
)

// ControllerName prefixes ManagementStateDegraded and ManagementStateUpgradeable.
const ControllerName = "ManagementState"

type controller struct {
	operatorClient v1helpers.OperatorClient
}

// New returns the controller.
func New(operatorClient v1helpers.OperatorClient, recorder events.Recorder) factory.Controller {
	c := &controller{operatorClient: operatorClient}
	return factory.New().
		WithInformers(operatorClient.Informer()).
		WithSync(c.sync).
		ToController(ControllerName, recorder.WithComponentSuffix("management-state"))
}

func (c *controller) sync(ctx context.Context, _ factory.SyncContext) error {
	state, err := managementsync.Get(c.operatorClient)
	if err != nil {
		return err
	}
	return conditions.Apply(ctx, c.operatorClient, ControllerName, Conditions(state)...)
}

// Conditions are what a management state means for the ClusterOperator.
// Upgrades are safe in every supported state: the new operator picks up
// where the old one left, whatever the state.
func Conditions(state operatorv1.ManagementState) []conditions.Condition {
	degraded := conditions.Normal(ControllerName+operatorv1.OperatorStatusTypeDegraded, "")
	switch state {
	case operatorv1.Managed, operatorv1.Unmanaged, operatorv1.Removed:
	default:
		degraded = conditions.Abnormal(ControllerName+operatorv1.OperatorStatusTypeDegraded, "Unsupported",
			fmt.Sprintf("managementState %q is not supported: use Managed, Unmanaged or Removed", state))
	}
	return []conditions.Condition{degraded, conditions.Normal(ControllerName+operatorv1.OperatorStatusTypeUpgradeable, "")}
}
