// Package topology answers the one question controllers ask of the
// Infrastructure: does the control plane run a single replica?
package topology

import (
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
)

// SingleReplica reports a single-replica control plane (single-node
// OpenShift), where the webhook runs one replica and no PodDisruptionBudget.
func SingleReplica(infrastructures configv1listers.InfrastructureLister) (bool, error) {
	infra, err := infrastructures.Get("cluster")
	if err != nil {
		return false, fmt.Errorf("reading the control-plane topology: %w", err)
	}
	return infra.Status.ControlPlaneTopology == configv1.SingleReplicaTopologyMode, nil
}
