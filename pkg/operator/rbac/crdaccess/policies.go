package crdaccess

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
)

// maxNameLength is the longest object name the controller generates.
const maxNameLength = 253

// Selector is the label selector of a policy's CRD selection, or nil when
// it selects by name. An error says why the selector cannot be used.
func Selector(selection apiaccessv1alpha1.CRDSelection) (labels.Selector, error) {
	switch {
	case selection.ClusterExtension != "":
		return labels.SelectorFromSet(labels.Set{
			apiaccessv1alpha1.OLMOwnerKindLabel: apiaccessv1alpha1.OLMOwnerKindClusterExtension,
			apiaccessv1alpha1.OLMOwnerNameLabel: selection.ClusterExtension,
		}), nil
	case selection.Selector != nil:
		if len(selection.Selector.MatchLabels) == 0 && len(selection.Selector.MatchExpressions) == 0 {
			return nil, errEmptySelector
		}
		return metav1.LabelSelectorAsSelector(selection.Selector)
	}
	return nil, nil
}

// errEmptySelector is an empty CRD selector, which the CRD refuses since
// issue 33 but a policy written before may hold: it would select every
// CRD, and is what a plain label map becomes when a client that only warns
// on unknown fields drops its keys.
var errEmptySelector = errors.New("it is empty ({}), which would select every CRD in the cluster: a plain map such as {team: a} " +
	"becomes that when a client drops its unknown keys; write it as matchLabels: {team: a} or matchExpressions, or select CRDs by names or clusterExtension")

// API is what the generated roles need of a CRD.
func API(crd *apiextensionsv1.CustomResourceDefinition) apiaccessv1alpha1.CRDAPI {
	return apiaccessv1alpha1.CRDAPI{Name: crd.Name, Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind, Plural: crd.Spec.Names.Plural}
}

// BindingName names the binding of spec.bindings[index] to role: unique per
// policy, entry and role, and short enough to be a name.
func BindingName(policy string, index int, role string) string {
	name := policy + "-" + strconv.Itoa(index) + "-" + role
	if len(name) <= maxNameLength {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return name[:maxNameLength-17] + "-" + hex.EncodeToString(sum[:8])
}
