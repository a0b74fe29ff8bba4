package staticresources

import (
	"fmt"
	"strings"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// AvailabilityControllerName names the StaticResourcesAvailable condition's owner.
const AvailabilityControllerName = ControllerName + "Availability"

// NewAvailabilityController reports StaticResourcesAvailable: True when every
// operand object exists (or, under Removed, is gone as asked), False naming
// what is missing. library-go's controller only reports Degraded.
func NewAvailabilityController(operand *Operand, recorder events.Recorder) factory.Controller {
	return factory.New().
		WithInformers(append(Informers(operand.kubeInformers), operand.operatorClient.Informer())...).
		WithSync(operand.syncAvailability()).
		ResyncEvery(5*time.Minute).
		ToController(AvailabilityControllerName, recorder.WithComponentSuffix("static-resources-availability"))
}

// Informers are the informers through which the operand objects are read.
func Informers(kubeInformers v1helpers.KubeInformersForNamespaces) []factory.Informer {
	operand := kubeInformers.InformersFor(operatorclient.OperandNamespace)
	return []factory.Informer{
		operand.Core().V1().ServiceAccounts().Informer(),
		operand.Core().V1().Services().Informer(),
		operand.Networking().V1().NetworkPolicies().Informer(),
	}
}

func (o *Operand) syncAvailability() factory.SyncFunc {
	return conditions.AvailabilitySync(o.operatorClient, AvailabilityControllerName, ControllerName+operatorv1.OperatorStatusTypeAvailable,
		"The operand is removed, as managementState Removed asks", o.missing)
}

func (o *Operand) missing() (conditions.Unavailable, string, error) {
	missing, err := o.mismatched(true)
	if err != nil || len(missing) == 0 {
		return conditions.Unavailable{}, "", err
	}
	return conditions.Unavailable{Reason: "Missing", Message: fmt.Sprintf("Missing %s", strings.Join(missing, ", "))}, "", nil
}
