package operatorclient

import (
	"fmt"
	"sync"

	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// schemaYAML describes WorkloadAccess to structured-merge-diff precisely
// enough to extract what one field manager owns. Conditions and generations
// are maps keyed like the CRD declares them; everything else is deduced.
// Without this, lists are atomic and each controller would "own" every
// condition, so library-go's skip-if-unchanged check would never match and
// every resync would write the status again.
const schemaYAML = `types:
- name: workloadaccess
  map:
    fields:
    - name: apiVersion
      type: {scalar: string}
    - name: kind
      type: {scalar: string}
    - name: metadata
      type: {namedType: __untyped_deduced_}
    - name: spec
      type: {namedType: __untyped_deduced_}
    - name: status
      type: {namedType: status}
- name: status
  map:
    fields:
    - name: conditions
      type:
        list:
          elementType: {namedType: __untyped_deduced_}
          elementRelationship: associative
          keys: [type]
    - name: generations
      type:
        list:
          elementType: {namedType: __untyped_deduced_}
          elementRelationship: associative
          keys: [group, resource, namespace, name]
    elementType: {namedType: __untyped_deduced_}
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType: {namedType: __untyped_atomic_}
    elementRelationship: atomic
  map:
    elementType: {namedType: __untyped_atomic_}
    elementRelationship: atomic
- name: __untyped_deduced_
  scalar: untyped
  list:
    elementType: {namedType: __untyped_atomic_}
    elementRelationship: atomic
  map:
    elementType: {namedType: __untyped_deduced_}
    elementRelationship: separable
`

var workloadAccessType = sync.OnceValue(func() typed.ParseableType {
	parser, err := typed.NewParser(typed.YAMLObject(schemaYAML))
	if err != nil {
		panic(fmt.Sprintf("invalid WorkloadAccess schema: %v", err))
	}
	return parser.Type("workloadaccess")
})

type extracted struct {
	Spec   *applyoperatorv1.OperatorSpecApplyConfiguration   `json:"spec,omitempty"`
	Status *applyoperatorv1.OperatorStatusApplyConfiguration `json:"status,omitempty"`
}

// ExtractSpec returns the part of spec that fieldManager applied.
func ExtractSpec(obj *unstructured.Unstructured, fieldManager string) (*applyoperatorv1.OperatorSpecApplyConfiguration, error) {
	var out extracted
	if err := managedfields.ExtractInto(obj, workloadAccessType(), fieldManager, &out, ""); err != nil {
		return nil, fmt.Errorf("extracting spec of %s for %q: %w", obj.GetName(), fieldManager, err)
	}
	return out.Spec, nil
}

// ExtractStatus returns the part of status that fieldManager applied.
func ExtractStatus(obj *unstructured.Unstructured, fieldManager string) (*applyoperatorv1.OperatorStatusApplyConfiguration, error) {
	var out extracted
	if err := managedfields.ExtractInto(obj, workloadAccessType(), fieldManager, &out, "status"); err != nil {
		return nil, fmt.Errorf("extracting status of %s for %q: %w", obj.GetName(), fieldManager, err)
	}
	return out.Status, nil
}
