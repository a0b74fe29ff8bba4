package olmscopes

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The OLM v0 APIs read, as OLM serves them; read through the dynamic client
// so that the operator does not depend on operator-framework/api.
var (
	ClusterServiceVersions = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "clusterserviceversions"}
	OperatorGroups         = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1", Resource: "operatorgroups"}
)

// The CRDs whose presence says OLM v0 is installed.
const (
	ClusterServiceVersionCRD = "clusterserviceversions.operators.coreos.com"
	OperatorGroupCRD         = "operatorgroups.operators.coreos.com"
)

// copiedFromLabel marks the copies OLM makes of a CSV in each target
// namespace of its OperatorGroup: only the original is an install.
const copiedFromLabel = "olm.copiedFrom"

// csv is what the generator reads of a ClusterServiceVersion.
type csv struct {
	Name, Namespace string
	UID             types.UID
	Deleting        bool
	// Replaces is the CSV this one upgrades (spec.replaces).
	Replaces string
	// Permissions are granted in the namespaces OLM targets;
	// ClusterPermissions cluster-wide.
	Permissions, ClusterPermissions []permission
}

// permission is one entry of spec.install.spec.permissions or
// clusterPermissions: rules for one ServiceAccount of the CSV's namespace.
type permission struct {
	ServiceAccountName string              `json:"serviceAccountName"`
	Rules              []rbacv1.PolicyRule `json:"rules"`
}

// operatorGroup is what the generator reads of an OperatorGroup.
type operatorGroup struct {
	Name, Namespace string
	// Targets are spec.targetNamespaces, else status.namespaces; empty or
	// [""] is every namespace when AllNamespaces is set.
	Targets []string
	// AllNamespaces: no target list and no selector (OLM's global group).
	AllNamespaces bool
	// Pending: a selector OLM has not resolved into status.namespaces yet.
	Pending bool
}

// Limits on what one CSV may ask for, so that a hostile one costs bounded
// work and memory: a ScopeTemplate holds at most 16 roles of 64 rules.
const (
	maxPermissionEntries = 64
	maxRulesPerEntry     = 1024
	maxListItems         = 256
)

// csvShape is the part of a ClusterServiceVersion decoded: everything
// else (deployments, icons, descriptions) is never read.
type csvShape struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		Replaces string `json:"replaces"`
		Install  struct {
			Strategy string `json:"strategy"`
			Spec     struct {
				Permissions        []permission `json:"permissions"`
				ClusterPermissions []permission `json:"clusterPermissions"`
			} `json:"spec"`
		} `json:"install"`
	} `json:"spec"`
}

// parseCSV reads a ClusterServiceVersion, as the dynamic client returns
// it. Its permissions are user input: whoever may write a CSV writes them,
// so they are checked here against what a ScopeTemplate accepts, and a CSV
// that fails is reported, never generated from.
func parseCSV(obj map[string]any) (csv, error) {
	var shape csvShape
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &shape); err != nil {
		return csv{}, fmt.Errorf("reading the ClusterServiceVersion: %w", err)
	}
	c := csv{Name: shape.Metadata.Name, Namespace: shape.Metadata.Namespace, UID: shape.Metadata.UID,
		Deleting: shape.Metadata.DeletionTimestamp != nil, Replaces: shape.Spec.Replaces,
		Permissions: shape.Spec.Install.Spec.Permissions, ClusterPermissions: shape.Spec.Install.Spec.ClusterPermissions}
	if c.Name == "" || c.Namespace == "" || c.UID == "" {
		return csv{}, fmt.Errorf("the ClusterServiceVersion has no name, namespace or UID")
	}
	for field, entries := range map[string][]permission{"permissions": c.Permissions, "clusterPermissions": c.ClusterPermissions} {
		if err := checkPermissions(field, entries); err != nil {
			return csv{}, err
		}
	}
	return c, nil
}

func checkPermissions(field string, entries []permission) error {
	if len(entries) > maxPermissionEntries {
		return fmt.Errorf("spec.install.spec.%s has %d entries, more than %d", field, len(entries), maxPermissionEntries)
	}
	for i, e := range entries {
		at := fmt.Sprintf("spec.install.spec.%s[%d]", field, i)
		if msgs := validation.IsDNS1123Subdomain(e.ServiceAccountName); len(msgs) > 0 {
			return fmt.Errorf("%s.serviceAccountName %q is no ServiceAccount name: %s", at, e.ServiceAccountName, strings.Join(msgs, "; "))
		}
		if len(e.Rules) > maxRulesPerEntry {
			return fmt.Errorf("%s has %d rules, more than %d", at, len(e.Rules), maxRulesPerEntry)
		}
		for j, r := range e.Rules {
			if len(r.Verbs) == 0 {
				return fmt.Errorf("%s.rules[%d] has no verbs", at, j)
			}
			for _, list := range [][]string{r.Verbs, r.APIGroups, r.Resources, r.ResourceNames, r.NonResourceURLs} {
				if len(list) > maxListItems {
					return fmt.Errorf("%s.rules[%d] has a list of %d items, more than %d", at, j, len(list), maxListItems)
				}
			}
			if len(r.NonResourceURLs) > 0 && (len(r.Resources) > 0 || len(r.APIGroups) > 0) {
				return fmt.Errorf("%s.rules[%d] mixes nonResourceURLs with apiGroups or resources, which RBAC refuses", at, j)
			}
			if len(r.NonResourceURLs) == 0 && len(r.Resources) == 0 {
				return fmt.Errorf("%s.rules[%d] names no resources and no nonResourceURLs", at, j)
			}
			if len(r.NonResourceURLs) == 0 && len(r.APIGroups) == 0 {
				return fmt.Errorf("%s.rules[%d] names resources without apiGroups, which a ClusterRole refuses", at, j)
			}
		}
	}
	return nil
}

// copied says whether the CSV is OLM's copy of one installed elsewhere.
func copied(u *unstructured.Unstructured) bool {
	_, ok := u.GetLabels()[copiedFromLabel]
	return ok
}

// parseOperatorGroup reads an OperatorGroup, as the dynamic client returns
// it.
func parseOperatorGroup(u *unstructured.Unstructured) operatorGroup {
	g := operatorGroup{Name: u.GetName(), Namespace: u.GetNamespace()}
	targets, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "targetNamespaces")
	_, hasSelector, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "selector")
	if selector, ok, _ := unstructured.NestedMap(u.Object, "spec", "selector"); ok && len(selector) == 0 {
		hasSelector = false // {} selects nothing in OLM: treated as no selector
	}
	status, _, _ := unstructured.NestedStringSlice(u.Object, "status", "namespaces")
	switch {
	case len(targets) > 0:
		g.Targets = targets
	case hasSelector:
		g.Targets = status
		g.Pending = len(status) == 0
	default:
		g.AllNamespaces = true
	}
	if slices.Contains(g.Targets, "") || slices.Contains(g.Targets, metav1.NamespaceAll) {
		g.AllNamespaces, g.Targets = true, nil
	}
	return g
}
