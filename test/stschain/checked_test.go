package stschain

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

// waitRoleRequestsChecked waits until the access-grants check judges
// IAMRoleRequests: until the operator has registered it with the webhook
// running, the access-grants-checked policy refuses every one, an
// admin's too.
func waitRoleRequestsChecked(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	probe := &podidentityv1alpha1.IAMRoleRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "stschain-probe"},
		Spec: podidentityv1alpha1.IAMRoleRequestSpec{
			Storage: podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: "default", Name: "stschain-probe"}},
			ProviderSpec: podidentityv1alpha1.AWSProviderSpec{StatementEntries: []podidentityv1alpha1.StatementEntry{
				{Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: "*"}}},
		},
	}
	for {
		_, err := env.operator.PodIdentityV1alpha1().IAMRoleRequests().Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("IAMRoleRequests are not admitted within %s: %v", timeout, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}
