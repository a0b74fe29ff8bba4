package upgrade

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// What the CRDs of previousRelease and this tree differ in (git diff
// previousRelease -- 'manifests/*crd.yaml'), and what each difference must
// leave working for the objects the previous release stored, both ways:
//   - IAMRoleRequest: a TokensAccepted printer column, reading the condition
//     of that name that this tree's operator writes. The previous release's
//     API server shows no such column; this tree's shows it for the request
//     stored at the previous release, filled in once the new operator has
//     judged it; back at the previous release it is gone.
//   - APIAccessPolicy: Bind subjects checked as a binding's are, a name at
//     most 512 characters. A policy stored at the previous release with a
//     longer one (RBAC takes any length) stays readable, reconciled and
//     changeable in its other fields (the API server ratchets a validation
//     whose value did not change; checkStoredObjects applies its
//     after-upgrade patch), while the same subject written anew is refused,
//     and accepted again after the downgrade.

// longSubjectPolicy is the fixture whose subject this tree's CRD refuses.
const longSubjectPolicy = "upgrade-long-subject"

// checkCRDsAtPrevious checks what the previous release's CRDs say, before
// the upgrade and after the downgrade.
func checkCRDsAtPrevious(t *testing.T, objects []storedObject, when string) {
	t.Helper()
	ctx := context.Background()
	columns := roleRequestColumns(t, ctx)
	if columns.has(podidentityv1alpha1.ConditionTokensAccepted) {
		t.Errorf("%s, the IAMRoleRequest CRD already has a %s column (%v): previousRelease has the CRD change this test checks; "+
			"check what the next release changes instead", when, podidentityv1alpha1.ConditionTokensAccepted, columns.names)
	}
	if _, err := createLongSubjectPolicy(t, ctx, objects); err != nil {
		t.Errorf("%s, a subject name of more than 512 characters was refused, which the previous release accepts: %v", when, err)
	}
	t.Logf("%s: IAMRoleRequest columns %v; a new APIAccessPolicy subject of %d characters accepted", when, columns.names,
		len(longSubjectName(t, storedByName(t, objects, longSubjectPolicy))))
}

// checkCRDsAtCurrent checks this tree's CRDs against the objects stored at
// the previous release.
func checkCRDsAtCurrent(t *testing.T, objects []storedObject) {
	t.Helper()
	ctx := context.Background()
	var seen string
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		columns := roleRequestColumns(t, ctx)
		seen = fmt.Sprint(columns.names)
		if !columns.has(podidentityv1alpha1.ConditionTokensAccepted) {
			return fmt.Errorf("the IAMRoleRequest CRD has no %s column: %v", podidentityv1alpha1.ConditionTokensAccepted, columns.names)
		}
		for _, o := range objects {
			if o.object.GetKind() != "IAMRoleRequest" {
				continue
			}
			got, err := o.client().Get(ctx, o.object.GetName(), metav1.GetOptions{})
			if err != nil {
				return err
			}
			status, err := conditionStatus(got, podidentityv1alpha1.ConditionTokensAccepted)
			if err != nil {
				return err
			}
			cell, ok := columns.cell(o.object.GetName(), podidentityv1alpha1.ConditionTokensAccepted)
			if status == "" || cell != status {
				return fmt.Errorf("%s: the %s column shows %q (row found: %v), its condition is %q", o, podidentityv1alpha1.ConditionTokensAccepted, cell, ok, status)
			}
			seen += fmt.Sprintf(", %s %s", o, status)
		}
		return nil
	})

	_, err := createLongSubjectPolicy(t, ctx, objects)
	if err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "512") {
		t.Errorf("a new subject name of more than 512 characters: want it refused as longer than 512, got %v", err)
	}
	t.Logf("at this tree: IAMRoleRequest columns %s; a new APIAccessPolicy subject of more than 512 characters refused: %.300v", seen, err)
	// Ratcheting keeps only what did not change: the stored subject, changed,
	// is checked like a new one.
	policy := storedByName(t, objects, longSubjectPolicy)
	subjects := fmt.Sprintf(`{"spec":{"bindings":[{"role":"View","subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":%q}]}]}}`,
		longSubjectName(t, policy)+"-changed")
	_, err = policy.client().Patch(ctx, longSubjectPolicy, types.MergePatchType, []byte(subjects), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
	if err == nil || !apierrors.IsInvalid(err) {
		t.Errorf("changing %s's long subject name to another: want it refused as longer than 512, got %v", policy, err)
	}
}

// createLongSubjectPolicy creates, as a dry run, a new policy with the
// stored one's spec.
func createLongSubjectPolicy(t *testing.T, ctx context.Context, objects []storedObject) (*unstructured.Unstructured, error) {
	t.Helper()
	stored := storedByName(t, objects, longSubjectPolicy)
	probe := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": stored.object.GetAPIVersion(),
		"kind":       stored.object.GetKind(),
		"metadata":   map[string]any{"name": longSubjectPolicy + "-anew"},
		"spec":       runtime.DeepCopyJSONValue(stored.spec),
	}}
	return env.dynamic.Resource(stored.resource).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
}

func storedByName(t *testing.T, objects []storedObject, name string) storedObject {
	t.Helper()
	for _, o := range objects {
		if o.object.GetName() == name {
			return o
		}
	}
	t.Fatalf("no stored object %s in testdata/previous-objects.yaml", name)
	return storedObject{}
}

// longSubjectName is the name of the policy's one subject, checked to be
// longer than this tree's CRD allows.
func longSubjectName(t *testing.T, o storedObject) string {
	t.Helper()
	bindings, _, _ := unstructured.NestedSlice(o.object.Object, "spec", "bindings")
	if len(bindings) == 1 {
		subjects, _, _ := unstructured.NestedSlice(bindings[0].(map[string]any), "subjects")
		if len(subjects) == 1 {
			if name, _ := subjects[0].(map[string]any)["name"].(string); len(name) > 512 {
				return name
			}
		}
	}
	t.Fatalf("%s should have one binding with one subject whose name is longer than 512 characters: %v", o, bindings)
	return ""
}

// conditionStatus is the status of obj's condition of type kind, "" if
// it has none.
func conditionStatus(obj *unstructured.Unstructured, kind string) (string, error) {
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	data, err := json.Marshal(raw)
	if err != nil {
		return "", err
	}
	var conditions []metav1.Condition
	if err := json.Unmarshal(data, &conditions); err != nil {
		return "", err
	}
	if c := meta.FindStatusCondition(conditions, kind); c != nil {
		return string(c.Status), nil
	}
	return "", nil
}

// tableColumns is a server-side table, as `oc get` prints it.
type tableColumns struct {
	names []string
	// rows maps an object's name to its cells.
	rows map[string][]any
}

func (c tableColumns) has(name string) bool {
	for _, n := range c.names {
		if n == name {
			return true
		}
	}
	return false
}

func (c tableColumns) cell(row, column string) (string, bool) {
	cells, ok := c.rows[row]
	for i, n := range c.names {
		if ok && n == column && i < len(cells) {
			return fmt.Sprint(cells[i]), true
		}
	}
	return "", false
}

// roleRequestColumns asks the API server for the IAMRoleRequests as the
// table `oc get iamrolerequests` prints, its columns from the CRD's
// additionalPrinterColumns.
func roleRequestColumns(t *testing.T, ctx context.Context) tableColumns {
	t.Helper()
	raw, err := env.kube.Discovery().RESTClient().Get().
		AbsPath("/apis", podidentityv1alpha1.SchemeGroupVersion.Group, podidentityv1alpha1.SchemeGroupVersion.Version, "iamrolerequests").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").
		DoRaw(ctx)
	if err != nil {
		t.Fatalf("listing IAMRoleRequests as a table: %v", err)
	}
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatalf("reading the IAMRoleRequests table: %v", err)
	}
	columns := tableColumns{rows: map[string][]any{}}
	for _, c := range table.ColumnDefinitions {
		columns.names = append(columns.names, c.Name)
	}
	for _, row := range table.Rows {
		var object metav1.PartialObjectMetadata
		if err := json.Unmarshal(row.Object.Raw, &object); err != nil {
			t.Fatalf("reading a row of the IAMRoleRequests table: %v", err)
		}
		columns.rows[object.Name] = row.Cells
	}
	return columns
}
