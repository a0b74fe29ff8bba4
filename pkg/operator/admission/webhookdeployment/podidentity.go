package webhookdeployment

import (
	"fmt"

	operatorv1 "github.com/openshift/api/operator/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/operator/deploymentcontroller"
	appsv1 "k8s.io/api/apps/v1"

	operatorv1alpha1listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity"
)

// PodIdentityHook gives the webhook container the flags pod identity asks
// for (podidentity.Decision.WebhookArgs).
func PodIdentityHook(infrastructures configv1listers.InfrastructureLister, workloadAccesses operatorv1alpha1listers.WorkloadAccessLister) deploymentcontroller.DeploymentHookFunc {
	return func(_ *operatorv1.OperatorSpec, deployment *appsv1.Deployment) error {
		decision, err := podidentity.Read(infrastructures, workloadAccesses)
		if err != nil {
			return err
		}
		args := decision.WebhookArgs()
		if len(args) == 0 {
			return nil
		}
		for i := range deployment.Spec.Template.Spec.Containers {
			if c := &deployment.Spec.Template.Spec.Containers[i]; c.Name == containerName {
				c.Args = append(c.Args, args...)
				return nil
			}
		}
		return fmt.Errorf("the webhook Deployment has no container %q", containerName)
	}
}
