package framework

import (
	"context"
	"path/filepath"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OpenShiftCRDs are the openshift/api CRDs the operator reads or writes,
// from the copies vendored with the module (the -Default feature set).
func OpenShiftCRDs(root string) []string {
	api := filepath.Join(root, "vendor", "github.com", "openshift", "api")
	return []string{
		filepath.Join(api, "config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusteroperators.crd.yaml"),
		filepath.Join(api, "config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_infrastructures-Default.crd.yaml"),
		filepath.Join(api, "config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_authentications-Default.crd.yaml"),
		filepath.Join(api, "config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_apiservers-Default.crd.yaml"),
		filepath.Join(api, "console/v1/zz_generated.crd-manifests/00_consoleyamlsamples.crd.yaml"),
		filepath.Join(api, "sharedresource/v1alpha1/zz_generated.crd-manifests/sharedsecrets.crd.yaml"),
		filepath.Join(api, "sharedresource/v1alpha1/zz_generated.crd-manifests/sharedconfigmaps.crd.yaml"),
	}
}

// CreateInfrastructure creates infrastructures/cluster as the installer
// would, with the given control-plane topology.
func CreateInfrastructure(ctx context.Context, client configclient.Interface, topology configv1.TopologyMode) error {
	infra, err := client.ConfigV1().Infrastructures().Create(ctx, &configv1.Infrastructure{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec:       configv1.InfrastructureSpec{PlatformSpec: configv1.PlatformSpec{Type: configv1.NonePlatformType}},
	}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	if err != nil {
		return err
	}
	infra.Status = configv1.InfrastructureStatus{
		InfrastructureName:     "workload-access-e2e",
		ControlPlaneTopology:   topology,
		InfrastructureTopology: topology,
		CPUPartitioning:        configv1.CPUPartitioningNone,
		PlatformStatus:         &configv1.PlatformStatus{Type: configv1.NonePlatformType},
	}
	_, err = client.ConfigV1().Infrastructures().UpdateStatus(ctx, infra, metav1.UpdateOptions{})
	return err
}
