package staticresources

import (
	"context"
	"fmt"
	"strings"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/operatorclient"
)

// AvailabilityControllerName names the StaticResourcesAvailable condition's owner.
const AvailabilityControllerName = ControllerName + "Availability"

// NewAvailabilityController reports StaticResourcesAvailable: True when every
// operand object exists (or, under Removed, is gone as asked), False naming
// what is missing. library-go's controller only reports Degraded.
func NewAvailabilityController(operand *Operand, recorder events.Recorder) factory.Controller {
	return factory.New().
		WithInformers(append(Informers(operand.kubeInformers), operand.operatorClient.Informer())...).
		WithSync(func(ctx context.Context, _ factory.SyncContext) error {
			return operand.syncAvailability(ctx)
		}).
		ResyncEvery(5*time.Minute).
		ToController(AvailabilityControllerName, recorder.WithComponentSuffix("static-resources-availability"))
}

// Informers are the informers through which the operand objects are read.
func Informers(kubeInformers v1helpers.KubeInformersForNamespaces) []factory.Informer {
	operand := kubeInformers.InformersFor(operatorclient.OperandNamespace)
	return []factory.Informer{
		operand.Core().V1().ServiceAccounts().Informer(),
		operand.Rbac().V1().Roles().Informer(),
		operand.Rbac().V1().RoleBindings().Informer(),
		operand.Core().V1().Services().Informer(),
	}
}

func (o *Operand) syncAvailability(ctx context.Context) error {
	spec, _, _, err := o.operatorClient.GetOperatorState()
	if err != nil {
		return err
	}
	cond := applyoperatorv1.OperatorCondition().
		WithType(ControllerName + operatorv1.OperatorStatusTypeAvailable).
		WithStatus(operatorv1.ConditionTrue)
	switch spec.ManagementState {
	case operatorv1.Managed:
		missing, err := o.mismatched(true)
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			cond = cond.WithStatus(operatorv1.ConditionFalse).WithReason("Missing").
				WithMessage(fmt.Sprintf("Missing %s", strings.Join(missing, ", ")))
		} else {
			cond = cond.WithReason("AsExpected").WithMessage("")
		}
	case operatorv1.Removed:
		cond = cond.WithReason("Removed").WithMessage("The operand is removed, as managementState Removed asks")
	default:
		// Unmanaged: the last report stands; nobody acts on the operand.
		return nil
	}
	return o.operatorClient.ApplyOperatorStatus(ctx, AvailabilityControllerName, applyoperatorv1.OperatorStatus().WithConditions(cond))
}
