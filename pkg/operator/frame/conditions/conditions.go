// Package conditions is how every controller reports on WorkloadAccess:
// <Name>Degraded, <Name>Available and <Name>Progressing, written with
// server-side apply under the controller's own field manager, so a
// controller owns exactly its conditions and an unchanged report writes
// nothing. The status controller unions them into the ClusterOperator.
//
// A controller whose whole job is one sync per key uses library-go's
// factory.WithSyncDegradedOnError for Degraded; everything else (Available,
// Progressing, a Degraded built from many keys) goes through Apply.
package conditions

import (
	"context"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
)

// AsExpected is the reason of a condition in its normal state.
const AsExpected = "AsExpected"

// Condition is one condition a controller reports.
type Condition = *applyoperatorv1.OperatorConditionApplyConfiguration

// Apply writes controller's conditions with controller as field manager.
func Apply(ctx context.Context, client v1helpers.OperatorClient, controller string, conditions ...Condition) error {
	return client.ApplyOperatorStatus(ctx, controller, applyoperatorv1.OperatorStatus().WithConditions(conditions...))
}

// Normal is conditionType in its normal state: True for Available and
// Upgradeable, False for Degraded and Progressing.
func Normal(conditionType, message string) Condition {
	return set(conditionType, normalStatus(conditionType), AsExpected, message)
}

// Abnormal is conditionType in the state that needs attention.
func Abnormal(conditionType, reason, message string) Condition {
	status := operatorv1.ConditionTrue
	if normalStatus(conditionType) == operatorv1.ConditionTrue {
		status = operatorv1.ConditionFalse
	}
	return set(conditionType, status, reason, message)
}

// Degraded is controller+"Degraded": False when err is nil, True with
// reason and err's text otherwise. err must carry no secret contents (API
// errors name the object and the verb, never the data).
func Degraded(controller, reason string, err error) Condition {
	conditionType := controller + operatorv1.OperatorStatusTypeDegraded
	if err == nil {
		return Normal(conditionType, "")
	}
	return Abnormal(conditionType, reason, err.Error())
}

func set(conditionType string, status operatorv1.ConditionStatus, reason, message string) Condition {
	return applyoperatorv1.OperatorCondition().
		WithType(conditionType).
		WithStatus(status).
		WithReason(reason).
		WithMessage(message)
}

func normalStatus(conditionType string) operatorv1.ConditionStatus {
	if strings.HasSuffix(conditionType, operatorv1.OperatorStatusTypeAvailable) ||
		strings.HasSuffix(conditionType, operatorv1.OperatorStatusTypeUpgradeable) {
		return operatorv1.ConditionTrue
	}
	return operatorv1.ConditionFalse
}
