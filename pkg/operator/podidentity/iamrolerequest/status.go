package iamrolerequest

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

func setCondition(status *podidentityv1alpha1.IAMRoleRequestStatus, generation int64, condition metav1.Condition) {
	condition.ObservedGeneration = generation
	meta.SetStatusCondition(&status.Conditions, condition)
}

// writeStatus updates the status when it differs from what is stored;
// SetStatusCondition keeps the transition time of an unchanged condition,
// so a resync with nothing changed writes nothing.
func (c *controller) writeStatus(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest, status *podidentityv1alpha1.IAMRoleRequestStatus) error {
	if equalStatus(request.Status, *status) {
		return nil
	}
	request.Status = *status
	updated, err := c.requestClient.IAMRoleRequests().UpdateStatus(ctx, request, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("updating the status of IAMRoleRequest %s: %w", request.Name, err)
	}
	request.ResourceVersion = updated.ResourceVersion
	return nil
}

// equalStatus compares statuses as stored (conditions with their times).
func equalStatus(a, b podidentityv1alpha1.IAMRoleRequestStatus) bool {
	return equality.Semantic.DeepEqual(a, b)
}
