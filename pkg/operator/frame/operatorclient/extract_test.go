package operatorclient

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// Two controllers applied one condition each: each must get back only its own,
// or library-go's "unchanged, skip the write" check never matches.
const twoManagers = `
apiVersion: operator.openshift.io/v1alpha1
kind: WorkloadAccess
metadata:
  name: cluster
  managedFields:
  - manager: A
    operation: Apply
    apiVersion: operator.openshift.io/v1alpha1
    subresource: status
    fieldsType: FieldsV1
    fieldsV1: {"f:status":{"f:conditions":{"k:{\"type\":\"ADegraded\"}":{".":{},"f:status":{},"f:type":{}}}}}
  - manager: B
    operation: Apply
    apiVersion: operator.openshift.io/v1alpha1
    subresource: status
    fieldsType: FieldsV1
    fieldsV1: {"f:status":{"f:conditions":{"k:{\"type\":\"BAvailable\"}":{".":{},"f:status":{},"f:type":{}}}}}
spec:
  managementState: Managed
status:
  conditions:
  - type: ADegraded
    status: "False"
  - type: BAvailable
    status: "True"
`

func TestExtractStatusReturnsOnlyTheManagersConditions(t *testing.T) {
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(twoManagers), &obj.Object); err != nil {
		t.Fatal(err)
	}
	for manager, want := range map[string]string{"A": "ADegraded", "B": "BAvailable"} {
		status, err := ExtractStatus(obj, manager)
		if err != nil {
			t.Fatal(err)
		}
		if status == nil || len(status.Conditions) != 1 || ptr.Deref(status.Conditions[0].Type, "") != want {
			t.Errorf("manager %s extracted %+v, want only %s", manager, status, want)
		}
	}
	status, err := ExtractStatus(obj, "nobody")
	if err != nil {
		t.Fatal(err)
	}
	if status != nil && len(status.Conditions) != 0 {
		t.Errorf("unknown manager extracted %+v", status)
	}
}
