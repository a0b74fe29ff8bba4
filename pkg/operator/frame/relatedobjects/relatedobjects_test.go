package relatedobjects

import (
	"os"
	"reflect"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	"sigs.k8s.io/yaml"
)

// The CVO publishes the manifest's copy before the operator runs; the
// operator must then publish the same list.
func TestListMatchesTheClusterOperatorManifest(t *testing.T) {
	data, err := os.ReadFile("../../../../manifests/0000_50_workload-access_06_clusteroperator.yaml")
	if err != nil {
		t.Fatal(err)
	}
	co := &configv1.ClusterOperator{}
	if err := yaml.UnmarshalStrict(data, co); err != nil {
		t.Fatal(err)
	}
	if got, want := co.Status.RelatedObjects, List(); !reflect.DeepEqual(got, want) {
		t.Errorf("manifest relatedObjects\n%v\nList()\n%v", got, want)
	}
}
