package webhookdeployment

import (
	"fmt"

	operatorv1 "github.com/openshift/api/operator/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/operator/deploymentcontroller"
	appsv1 "k8s.io/api/apps/v1"

	operatorv1alpha1listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentityconfig"
)

// PodIdentityHook turns the pod identity injection on in the webhook, with
// the region pods get, when podidentityconfig says it runs. Off, the
// webhook watches no ServiceAccounts at all.
func PodIdentityHook(infrastructures configv1listers.InfrastructureLister, workloadAccesses operatorv1alpha1listers.WorkloadAccessLister) deploymentcontroller.DeploymentHookFunc {
	return func(_ *operatorv1.OperatorSpec, deployment *appsv1.Deployment) error {
		decision, err := podidentityconfig.Read(infrastructures, workloadAccesses)
		if err != nil || !decision.Enabled {
			return err
		}
		for i := range deployment.Spec.Template.Spec.Containers {
			c := &deployment.Spec.Template.Spec.Containers[i]
			if c.Name != containerName {
				continue
			}
			c.Args = append(c.Args, "--pod-identity")
			if decision.Region != "" {
				c.Args = append(c.Args, "--aws-default-region="+decision.Region)
			}
			return nil
		}
		return fmt.Errorf("the webhook Deployment has no container %q", containerName)
	}
}
