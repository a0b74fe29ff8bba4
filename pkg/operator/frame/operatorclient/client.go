package operatorclient

import (
	"github.com/openshift/library-go/pkg/operator/genericoperatorclient"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
)

// New returns the library-go operator client for WorkloadAccess "cluster"
// and the informer factory that feeds it (start it with the others).
func New(clk clock.PassiveClock, config *rest.Config) (v1helpers.OperatorClientWithFinalizers, dynamicinformer.DynamicSharedInformerFactory, error) {
	return genericoperatorclient.NewClusterScopedOperatorClient(clk, config, GVR, GVK, ExtractSpec, ExtractStatus)
}
