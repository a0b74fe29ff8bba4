package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/olmscopes"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// serveOLMv0 registers, FOR THIS TEST ONLY, stand-ins for OLM v0's
// ClusterServiceVersion (operators.coreos.com/v1alpha1) and OperatorGroup
// (operators.coreos.com/v1) APIs: same names, group, versions, kinds and
// scope, with no schema beyond what any object has. The real CRDs ship
// with OLM v0 (operator-framework/api, of which the module proxy serves
// only v0.9.1, and on which the operator takes no dependency); the
// operator reads them through the dynamic client, only fields OLM has
// always had (spec.replaces, spec.install.spec.permissions and
// clusterPermissions, spec.targetNamespaces, spec.selector,
// status.namespaces, the olm.copiedFrom label), and never writes them.
func serveOLMv0(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for _, api := range []struct {
		gvr  schema.GroupVersionResource
		kind string
	}{{olmscopes.ClusterServiceVersions, "ClusterServiceVersion"}, {olmscopes.OperatorGroups, "OperatorGroup"}} {
		crd := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: api.gvr.Resource + "." + api.gvr.Group},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: api.gvr.Group, Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: api.kind, ListKind: api.kind + "List",
					Plural: api.gvr.Resource, Singular: strings.ToLower(api.kind)},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: api.gvr.Version, Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
			},
		}
		client := crdClient(t)
		if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = client.ApiextensionsV1().CustomResourceDefinitions().Delete(context.Background(), crd.Name, metav1.DeleteOptions{})
			framework.Eventually(t, time.Minute, func(ctx context.Context) error {
				if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return fmt.Errorf("CRD %s not gone yet: %v", crd.Name, err)
				}
				return nil
			})
		})
		framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
			_, err := dynamicAs(t, "").Resource(api.gvr).List(ctx, metav1.ListOptions{})
			return err
		})
	}
}

// olmRules is a CSV's permission entry as unstructured JSON.
func olmRules(sa string, rules ...rbacv1.PolicyRule) map[string]any {
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&struct {
		ServiceAccountName string              `json:"serviceAccountName"`
		Rules              []rbacv1.PolicyRule `json:"rules"`
	}{sa, rules})
	if err != nil {
		panic(err)
	}
	return out
}

// createCSV creates a ClusterServiceVersion as OLM's InstallPlan would.
func createCSV(t *testing.T, ns, name, replaces string, labels map[string]string, permissions, clusterPermissions []rbacv1.PolicyRule) types.UID {
	t.Helper()
	spec := map[string]any{"displayName": name, "version": "0.0.1", "install": map[string]any{"strategy": "deployment", "spec": map[string]any{
		"deployments": []any{}, "permissions": []any{olmRules(olmSA, permissions...)}, "clusterPermissions": []any{olmRules(olmSA, clusterPermissions...)}}}}
	if replaces != "" {
		spec["replaces"] = replaces
	}
	csv := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
		"metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}}
	csv.SetLabels(labels)
	created, err := dynamicAs(t, "").Resource(olmscopes.ClusterServiceVersions).Namespace(ns).Create(context.Background(), csv, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteCSV(t, ns, name) })
	return created.GetUID()
}

func deleteCSV(t *testing.T, ns, name string) {
	t.Helper()
	err := dynamicAs(t, "").Resource(olmscopes.ClusterServiceVersions).Namespace(ns).Delete(context.Background(), name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
}

// touchCSV changes an annotation, which wakes the generator (a resync).
func touchCSV(t *testing.T, ns, name string) {
	t.Helper()
	if _, err := dynamicAs(t, "").Resource(olmscopes.ClusterServiceVersions).Namespace(ns).Patch(context.Background(), name, types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"e2e-touched":"`+time.Now().Format(time.RFC3339Nano)+`"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

func createOperatorGroup(t *testing.T, ns string, targets ...string) {
	t.Helper()
	spec := map[string]any{}
	if len(targets) > 0 {
		spec["targetNamespaces"] = slices.Clone(targets)
	}
	og := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
		"metadata": map[string]any{"name": "group", "namespace": ns}, "spec": spec}}
	if _, err := dynamicAs(t, "").Resource(olmscopes.OperatorGroups).Namespace(ns).Create(context.Background(), og, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// olmSA is the CSV's ServiceAccount.
const olmSA = "e2e-operator"

// grantAsOLM creates the RBAC OLM v0 creates for a CSV: a Role and
// RoleBinding in each namespace for its permissions, a ClusterRole and
// ClusterRoleBinding for its clusterPermissions, each labelled as OLM
// labels them (olm.owner is name here). It returns a function
// that deletes it (the admin's migration step).
func grantAsOLM(t *testing.T, csvNS, name string, namespaces []string, permissions, clusterPermissions []rbacv1.PolicyRule) func() {
	t.Helper()
	ctx := context.Background()
	subject := []rbacv1.Subject{{Kind: "ServiceAccount", Name: olmSA, Namespace: csvNS}}
	// OLM's labels (ownerutil.OwnerLabel), which docs/scopes.md and
	// docs/security.md select on.
	olmLabels := map[string]string{"olm.owner": name, "olm.owner.namespace": csvNS, "olm.owner.kind": "ClusterServiceVersion"}
	meta := metav1.ObjectMeta{Name: name, Labels: olmLabels}
	for _, ns := range namespaces {
		if _, err := env.kube.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: meta, Rules: permissions}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := env.kube.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: meta, Subjects: subject,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	clusterName := csvNS + "-" + name
	clusterMeta := metav1.ObjectMeta{Name: clusterName, Labels: olmLabels}
	if _, err := env.kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: clusterMeta, Rules: clusterPermissions}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: clusterMeta, Subjects: subject,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterName}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	revoke := func() {
		for _, ns := range namespaces {
			_ = env.kube.RbacV1().RoleBindings(ns).Delete(context.Background(), name, metav1.DeleteOptions{})
			_ = env.kube.RbacV1().Roles(ns).Delete(context.Background(), name, metav1.DeleteOptions{})
		}
		_ = env.kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), clusterName, metav1.DeleteOptions{})
		_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), clusterName, metav1.DeleteOptions{})
	}
	t.Cleanup(revoke)
	return revoke
}

// csvSACan asks, as the CSV's ServiceAccount would be asked by
// `kubectl auth can-i --as`, whether it may verb resource (group/resource)
// in ns ("" cluster-wide).
func csvSACan(t *testing.T, csvNS, verb, group, resource, ns string) bool {
	t.Helper()
	review, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:" + csvNS + ":" + olmSA,
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + csvNS, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Group: group, Resource: resource},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return review.Status.Allowed
}

// expectCan checks each "verb group/resource ns" against want, waiting for
// the bindings to settle.
func expectCan(t *testing.T, csvNS string, want map[string]bool) {
	t.Helper()
	framework.Eventually(t, time.Minute, func(context.Context) error {
		var wrong []string
		for q, allowed := range want {
			parts := strings.Fields(q)
			group, resource, _ := strings.Cut(parts[1], "/")
			ns := ""
			if len(parts) > 2 {
				ns = parts[2]
			}
			if got := csvSACan(t, csvNS, parts[0], group, resource, ns); got != allowed {
				wrong = append(wrong, fmt.Sprintf("%s: %v, want %v", q, got, allowed))
			}
		}
		if len(wrong) > 0 {
			return fmt.Errorf("%s", strings.Join(wrong, "; "))
		}
		return nil
	})
}

func patchOLMScopes(t *testing.T, value string) {
	t.Helper()
	if _, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Patch(context.Background(), "cluster", types.MergePatchType,
		[]byte(`{"spec":{"olmScopes":`+value+`}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// generated are the ScopeTemplates and ScopeInstances generated from
// the CSV of that UID.
func generatedFrom(ctx context.Context, uid types.UID) ([]scopesv1alpha1.ScopeTemplate, []scopesv1alpha1.ScopeInstance, error) {
	selector := metav1.ListOptions{LabelSelector: olmscopes.CSVUIDLabel + "=" + string(uid)}
	templates, err := env.operator.ScopesV1alpha1().ScopeTemplates().List(ctx, selector)
	if err != nil {
		return nil, nil, err
	}
	instances, err := env.operator.ScopesV1alpha1().ScopeInstances().List(ctx, selector)
	if err != nil {
		return nil, nil, err
	}
	return templates.Items, instances.Items, nil
}

func anyGenerated(t *testing.T) []string {
	t.Helper()
	var names []string
	list, err := env.operator.ScopesV1alpha1().ScopeTemplates().List(context.Background(), metav1.ListOptions{LabelSelector: olmscopes.CSVUIDLabel})
	if err != nil {
		t.Fatal(err)
	}
	for _, t := range list.Items {
		names = append(names, t.Name)
	}
	return names
}

func csvEvents(t *testing.T, ns string, uid types.UID) map[string]string {
	t.Helper()
	list, err := env.kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.uid", string(uid)).String()})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range list.Items {
		out[e.Reason] = e.Message
	}
	return out
}

// From OLM v0 to scopes, the whole way: opted out, nothing is generated;
// opted in, a CSV with namespaced and cluster permissions in an
// OperatorGroup with two target namespaces gets a ScopeTemplate and
// ScopeInstance for each list, whose effect, once OLM's RBAC is removed,
// is what the CSV asked for where OLM granted it and nothing more; a
// resync writes nothing; an admin's narrowing survives resyncs and the
// upgrade, which follows the changed rule; deleting the CSV removes what
// was generated; an AllNamespaces group is reported and gets nothing; OLM's
// copy of a CSV gets nothing; opting out removes what was generated.
func TestOLMScopesFromClusterServiceVersions(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check judges the generator
	serveOLMv0(t)
	ctx := context.Background()
	t.Cleanup(func() { patchOLMScopes(t, "null") })

	ops, teamA, teamB := testNamespace(t, "olm-ops-"), testNamespace(t, "olm-team-a-"), testNamespace(t, "olm-team-b-")
	global := testNamespace(t, "olm-global-")
	configMaps := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}}
	crds := rbacv1.PolicyRule{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get"}}
	createOperatorGroup(t, ops, ops, teamA)
	revokeV1 := grantAsOLM(t, ops, "e2eop-v1", []string{ops, teamA}, []rbacv1.PolicyRule{configMaps}, []rbacv1.PolicyRule{crds})
	v1 := createCSV(t, ops, "e2eop.v0.0.1", "", nil, []rbacv1.PolicyRule{configMaps}, []rbacv1.PolicyRule{crds})
	// OLM's copy in a target namespace, and a CSV of an AllNamespaces group.
	copiedUID := createCSV(t, teamA, "e2eop.v0.0.1", "", map[string]string{"olm.copiedFrom": ops}, []rbacv1.PolicyRule{configMaps}, nil)
	createOperatorGroup(t, global)
	globalUID := createCSV(t, global, "everywhere.v1.0.0", "", nil, []rbacv1.PolicyRule{configMaps}, nil)

	// Opted out (the default): nothing.
	time.Sleep(5 * time.Second)
	if names := anyGenerated(t); len(names) > 0 {
		t.Fatalf("generated while opted out: %v", names)
	}

	// The admin opts in and grants the generator (docs/scopes.md). Before
	// the grant the access-grants check refuses the generator, and the CSV
	// says so.
	patchOLMScopes(t, `{"mode":"Namespaces","namespaces":["`+ops+`","`+teamA+`","`+global+`"]}`)
	framework.Eventually(t, time.Minute, func(context.Context) error {
		if msg, ok := csvEvents(t, ops, v1)[olmscopes.ReasonRefused]; !ok || !strings.Contains(msg, "add-cluster-role-to-user") {
			return fmt.Errorf("no refusal event yet: %v", csvEvents(t, ops, v1))
		}
		return nil
	})
	grantGeneratorClusterAdmin(t)
	touchCSV(t, ops, "e2eop.v0.0.1") // a refused CSV is retried every minute; a change wakes it now

	base := "olm-" + ops + "-e2eop"
	var templates []scopesv1alpha1.ScopeTemplate
	framework.Eventually(t, 2*time.Minute, func(ctx context.Context) error {
		ts, is, err := generatedFrom(ctx, v1)
		if err != nil {
			return err
		}
		if len(ts) != 2 || len(is) != 2 {
			return fmt.Errorf("%d templates and %d instances generated", len(ts), len(is))
		}
		templates = ts
		return nil
	})
	namespaced, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, base, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := sortedCopy(ops, teamA); !slices.Equal(sortedCopy(namespaced.Spec.Namespaces...), want) || namespaced.Spec.ScopeTemplateName != base {
		t.Errorf("the namespaced instance: %+v, want namespaces %v", namespaced.Spec, want)
	}
	cluster, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, base+"-cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cluster.Spec.Namespaces) != 0 || cluster.Annotations[olmscopes.CSVNameAnnotation] != "e2eop.v0.0.1" {
		t.Errorf("the cluster instance: %+v %v", cluster.Spec, cluster.Annotations)
	}
	for _, tmpl := range templates {
		if s := tmpl.Spec.ClusterRoles[0].Subjects; len(s) != 1 || s[0].Name != olmSA || s[0].Namespace != ops {
			t.Errorf("template %s subjects %+v", tmpl.Name, s)
		}
	}
	if names := anyGenerated(t); len(names) != 2 {
		t.Errorf("generated for OLM's copy or the AllNamespaces CSV: %v", names)
	}
	if _, ok := csvEvents(t, global, globalUID)[olmscopes.ReasonAllNamespaces]; !ok {
		t.Errorf("the AllNamespaces CSV has no event saying why it has no scope: %v", csvEvents(t, global, globalUID))
	}
	if events := csvEvents(t, teamA, copiedUID); len(events) > 0 {
		t.Errorf("events on OLM's copy: %v", events)
	}

	// The migration: OLM's RBAC goes; the scope alone gives what the CSV
	// asked for, where OLM gave it, and nothing more.
	revokeV1()
	expectCan(t, ops, map[string]bool{
		"list /configmaps " + ops: true, "list /configmaps " + teamA: true, "get /configmaps " + teamA: true,
		"list /configmaps " + teamB: false, "list /configmaps": false, "delete /configmaps " + ops: false, "list /secrets " + ops: false,
		"get apiextensions.k8s.io/customresourcedefinitions": true, "list apiextensions.k8s.io/customresourcedefinitions": false,
	})

	// A resync with nothing changed writes nothing.
	since := time.Now()
	touchCSV(t, ops, "e2eop.v0.0.1")
	time.Sleep(5 * time.Second)
	expectNoScopeWrites(t, since)

	// The admin narrows the namespaced instance to teamA; resyncs keep it.
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		i, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, base, metav1.GetOptions{})
		if err != nil {
			return err
		}
		i.Spec.Namespaces = []string{teamA}
		_, err = env.operator.ScopesV1alpha1().ScopeInstances().Update(ctx, i, metav1.UpdateOptions{})
		return err
	})
	touchCSV(t, ops, "e2eop.v0.0.1")
	time.Sleep(5 * time.Second)
	expectNamespaces(t, base, teamA)
	expectCan(t, ops, map[string]bool{"list /configmaps " + ops: false, "list /configmaps " + teamA: true})

	// The upgrade: v2 replaces v1 with a changed rule (secrets instead of
	// configmaps). OLM grants v2's rules, then deletes v1.
	secrets := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}
	revokeV2 := grantAsOLM(t, ops, "e2eop-v2", []string{ops, teamA}, []rbacv1.PolicyRule{secrets}, []rbacv1.PolicyRule{crds})
	v2 := createCSV(t, ops, "e2eop.v0.0.2", "e2eop.v0.0.1", nil, []rbacv1.PolicyRule{secrets}, []rbacv1.PolicyRule{crds})
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		ts, is, err := generatedFrom(ctx, v2)
		if err != nil {
			return err
		}
		if len(ts) != 2 || len(is) != 2 {
			return fmt.Errorf("%d templates and %d instances taken over by v2", len(ts), len(is))
		}
		for _, tmpl := range ts {
			if !strings.HasPrefix(tmpl.Name, base) {
				return fmt.Errorf("the upgrade renamed %s", tmpl.Name)
			}
			if tmpl.Name == base && tmpl.Spec.ClusterRoles[0].Rules[0].Resources[0] != "secrets" {
				return fmt.Errorf("template %s still has %+v", tmpl.Name, tmpl.Spec.ClusterRoles[0].Rules)
			}
		}
		return nil
	})
	deleteCSV(t, ops, "e2eop.v0.0.1")
	revokeV2()
	time.Sleep(3 * time.Second)
	expectNamespaces(t, base, teamA) // the narrowing outlives the upgrade
	expectCan(t, ops, map[string]bool{"get /secrets " + teamA: true, "get /secrets " + ops: false, "list /configmaps " + teamA: false,
		"get apiextensions.k8s.io/customresourcedefinitions": true})

	// Deleting the CSV removes what was generated, and so its grants.
	deleteCSV(t, ops, "e2eop.v0.0.2")
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		if names := anyGenerated(t); len(names) > 0 {
			return fmt.Errorf("still generated: %v", names)
		}
		return nil
	})
	expectCan(t, ops, map[string]bool{"get /secrets " + teamA: false, "get apiextensions.k8s.io/customresourcedefinitions": false})

	// Opting out removes what was generated.
	grantAsOLM(t, ops, "e2eop-v3", []string{ops, teamA}, []rbacv1.PolicyRule{secrets}, []rbacv1.PolicyRule{crds})
	createCSV(t, ops, "e2eop.v0.0.3", "", nil, []rbacv1.PolicyRule{secrets}, []rbacv1.PolicyRule{crds})
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		if names := anyGenerated(t); len(names) != 2 {
			return fmt.Errorf("generated: %v", names)
		}
		return nil
	})
	patchOLMScopes(t, `{"mode":"Disabled"}`)
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		if names := anyGenerated(t); len(names) > 0 {
			return fmt.Errorf("still generated after opting out: %v", names)
		}
		return nil
	})
}

// A CSV whose ServiceAccount OLM gave nothing (one written by hand by
// whoever may write CSVs in an opted-in namespace) gets no scope, even
// though the generator could grant it.
func TestOLMScopesGrantOnlyWhatOLMGranted(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	serveOLMv0(t)
	t.Cleanup(func() { patchOLMScopes(t, "null") })
	grantGeneratorClusterAdmin(t)
	ns := testNamespace(t, "olm-forged-")
	createOperatorGroup(t, ns, ns)
	everything := rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}
	uid := createCSV(t, ns, "forged.v1.0.0", "", nil, []rbacv1.PolicyRule{everything}, []rbacv1.PolicyRule{everything})
	patchOLMScopes(t, `{"mode":"Cluster"}`)
	framework.Eventually(t, time.Minute, func(context.Context) error {
		if msg, ok := csvEvents(t, ns, uid)[olmscopes.ReasonPermissionsNotHeld]; !ok || !strings.Contains(msg, olmSA) {
			return fmt.Errorf("no PermissionsNotHeld event: %v", csvEvents(t, ns, uid))
		}
		return nil
	})
	if names := anyGenerated(t); len(names) > 0 {
		t.Errorf("generated from a CSV OLM granted nothing: %v", names)
	}
}

// grantGeneratorClusterAdmin is the admin's opt-in grant of docs/scopes.md.
func grantGeneratorClusterAdmin(t *testing.T) {
	t.Helper()
	name := "e2e-olm-scope-generator"
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: olmscopes.GeneratorServiceAccount, Namespace: olmscopes.GeneratorServiceAccountNamespace}}}
	if _, err := env.kube.RbacV1().ClusterRoleBindings().Create(context.Background(), binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}

func expectNamespaces(t *testing.T, instance string, want ...string) {
	t.Helper()
	i, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(context.Background(), instance, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sortedCopy(i.Spec.Namespaces...), sortedCopy(want...)) {
		t.Errorf("ScopeInstance %s binds in %v, want %v (the admin's narrowing)", instance, i.Spec.Namespaces, want)
	}
}

func expectNoScopeWrites(t *testing.T, since time.Time) {
	t.Helper()
	writes, err := framework.Writes(env.cp.AuditLogPath, framework.OperatorUser, since)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		if w.ObjectRef != nil && (w.ObjectRef.Resource == "scopetemplates" || w.ObjectRef.Resource == "scopeinstances" ||
			w.ObjectRef.Resource == "rolebindings" || w.ObjectRef.Resource == "clusterrolebindings" || w.ObjectRef.Resource == "clusterroles") {
			t.Errorf("a resync with nothing changed wrote: %s", w)
		}
	}
}

func sortedCopy(xs ...string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// updateInstance changes a ScopeInstance as an admin would (kubectl edit).
func updateInstance(t *testing.T, name string, edit func(*scopesv1alpha1.ScopeInstance)) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		i, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		edit(i)
		_, err = env.operator.ScopesV1alpha1().ScopeInstances().Update(ctx, i, metav1.UpdateOptions{})
		return err
	})
}

// waitForInstance waits for the generated ScopeInstance to bind in want.
func waitForInstance(t *testing.T, name string, want ...string) {
	t.Helper()
	framework.Eventually(t, 2*time.Minute, func(ctx context.Context) error {
		i, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !slices.Equal(sortedCopy(i.Spec.Namespaces...), sortedCopy(want...)) {
			return fmt.Errorf("ScopeInstance %s binds in %v, want %v", name, i.Spec.Namespaces, want)
		}
		return nil
	})
}

// An upgrade's new rule, on an instance the admin gave a namespaceSelector,
// is carried only if the CSV's ServiceAccount holds it cluster-wide: the
// selector binds wherever labels match, now or later, while OLM granted it
// only in the OperatorGroup's namespaces. Without the selector, the upgrade
// goes ahead, bound where OLM granted it.
func TestOLMScopesUpgradeUnderASelectorAsksClusterWide(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	serveOLMv0(t)
	t.Cleanup(func() { patchOLMScopes(t, "null") })
	grantGeneratorClusterAdmin(t)
	ops, teamA, teamB := testNamespace(t, "olm-sel-ops-"), testNamespace(t, "olm-sel-a-"), testNamespace(t, "olm-sel-b-")
	configMaps := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}
	secrets := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}
	createOperatorGroup(t, ops, ops, teamA)
	grantAsOLM(t, ops, "selop-v1", []string{ops, teamA}, []rbacv1.PolicyRule{configMaps}, nil)
	createCSV(t, ops, "selop.v0.0.1", "", nil, []rbacv1.PolicyRule{configMaps}, nil)
	patchOLMScopes(t, `{"mode":"Namespaces","namespaces":["`+ops+`"]}`)
	base := "olm-" + ops + "-selop"
	waitForInstance(t, base, ops, teamA)

	// The admin adds a selector, which matches teamB: the admin's grant.
	labelNamespace(t, teamB, map[string]string{"e2e-olm-selector": teamB})
	updateInstance(t, base, func(i *scopesv1alpha1.ScopeInstance) {
		i.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"e2e-olm-selector": teamB}}
	})
	expectCan(t, ops, map[string]bool{"list /configmaps " + teamB: true})

	// The upgrade adds get secrets; OLM grants it where the group targets.
	grantAsOLM(t, ops, "selop-v2", []string{ops, teamA}, []rbacv1.PolicyRule{configMaps, secrets}, nil)
	v2 := createCSV(t, ops, "selop.v0.0.2", "selop.v0.0.1", nil, []rbacv1.PolicyRule{configMaps, secrets}, nil)
	framework.Eventually(t, time.Minute, func(context.Context) error {
		if csvSACan(t, ops, "get", "", "secrets", teamB) {
			t.Fatalf("the upgrade's get secrets is bound in %s, where only the admin's selector binds and OLM never granted it", teamB)
		}
		if msg, ok := csvEvents(t, ops, v2)[olmscopes.ReasonPermissionsNotHeld]; !ok || !strings.Contains(msg, "cluster-wide") || !strings.Contains(msg, "namespaceSelector") {
			return fmt.Errorf("no PermissionsNotHeld event naming the selector: %v", csvEvents(t, ops, v2))
		}
		return nil
	})
	template, err := env.operator.ScopesV1alpha1().ScopeTemplates().Get(context.Background(), base, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rules := template.Spec.ClusterRoles[0].Rules; len(rules) != 1 {
		t.Errorf("the template carries the upgrade's rules under a selector: %+v", rules)
	}
	expectCan(t, ops, map[string]bool{"get /secrets " + teamB: false})

	// Without the selector, the upgrade is carried, where OLM granted it.
	updateInstance(t, base, func(i *scopesv1alpha1.ScopeInstance) { i.Spec.NamespaceSelector = nil })
	touchCSV(t, ops, "selop.v0.0.2")
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		template, err := env.operator.ScopesV1alpha1().ScopeTemplates().Get(ctx, base, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if rules := template.Spec.ClusterRoles[0].Rules; len(rules) != 2 {
			return fmt.Errorf("the template has %+v", rules)
		}
		return nil
	})
	expectNamespaces(t, base, ops, teamA)
	expectCan(t, ops, map[string]bool{"get /secrets " + teamB: false, "list /configmaps " + teamB: false})
}

// "Holds it" means bound to the CSV's ServiceAccount by name, as OLM binds
// it: a rule it has only through a group every ServiceAccount (or every
// user) is in is not re-expressed as a binding of its own. The API server
// answers a review naming the user and no groups from bindings to that
// user alone.
func TestOLMScopesGroupGrantsAreNotHeld(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	serveOLMv0(t)
	t.Cleanup(func() { patchOLMScopes(t, "null") })
	grantGeneratorClusterAdmin(t)
	ctx := context.Background()
	type hand struct {
		ns, resource string
		uid          types.UID
	}
	var csvs []hand
	var optIn []string
	for i, group := range []string{"system:serviceaccounts", "system:serviceaccounts:", "system:authenticated"} {
		ns := testNamespace(t, fmt.Sprintf("olm-group-%d-", i))
		if strings.HasSuffix(group, ":") {
			group += ns
		}
		resource := fmt.Sprintf("widgets%d", i)
		rule := rbacv1.PolicyRule{APIGroups: []string{"e2e-broad.example.com"}, Resources: []string{resource}, Verbs: []string{"get"}}
		name := "e2e-olm-group-" + ns
		if _, err := env.kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{rule}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), name, metav1.DeleteOptions{})
		})
		subjects := []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: group}}
		roleRef := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}
		if group == "system:serviceaccounts:"+ns {
			// The namespace's group, in the namespace.
			if _, err := env.kube.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: subjects, RoleRef: roleRef}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		} else {
			if _, err := env.kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: subjects, RoleRef: roleRef}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = env.kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
			})
		}
		// The ServiceAccount has it, as its token's groups give it.
		expectCan(t, ns, map[string]bool{"get e2e-broad.example.com/" + resource + " " + ns: true})
		createOperatorGroup(t, ns, ns)
		uid := createCSV(t, ns, "handwritten.v1.0.0", "", nil, []rbacv1.PolicyRule{rule}, nil)
		csvs = append(csvs, hand{ns: ns, resource: resource, uid: uid})
		optIn = append(optIn, `"`+ns+`"`)
	}
	patchOLMScopes(t, `{"mode":"Namespaces","namespaces":[`+strings.Join(optIn, ",")+`]}`)
	for i, c := range csvs {
		framework.Eventually(t, time.Minute, func(context.Context) error {
			if names := anyGenerated(t); len(names) > 0 {
				t.Fatalf("generated from grants to groups everyone is in (case %d and on): %v", i, names)
			}
			if msg, ok := csvEvents(t, c.ns, c.uid)[olmscopes.ReasonPermissionsNotHeld]; !ok || !strings.Contains(msg, olmSA) || !strings.Contains(msg, c.resource) {
				return fmt.Errorf("no PermissionsNotHeld event in %s: %v", c.ns, csvEvents(t, c.ns, c.uid))
			}
			return nil
		})
	}
	if names := anyGenerated(t); len(names) > 0 {
		t.Errorf("generated from grants to groups everyone is in: %v", names)
	}

	// OLM's grant, a binding to the ServiceAccount by name, counts.
	c := csvs[0]
	rule := rbacv1.PolicyRule{APIGroups: []string{"e2e-broad.example.com"}, Resources: []string{c.resource}, Verbs: []string{"get"}}
	grantAsOLM(t, c.ns, "handwritten", []string{c.ns}, []rbacv1.PolicyRule{rule}, nil)
	touchCSV(t, c.ns, "handwritten.v1.0.0")
	waitForInstance(t, "olm-"+c.ns+"-handwritten", c.ns)
	if names := anyGenerated(t); len(names) != 1 {
		t.Errorf("generated %v, want only the one OLM granted by name", names)
	}
}

// An admin who empties a generated instance's spec.namespaces means
// nowhere, not the cluster-wide binding a ScopeInstance without namespaces
// or selector is: the generator deletes the instance, marks its template
// withdrawn, and generates none again; deleting the template starts over.
func TestOLMScopesEmptiedInstanceBindsNowhere(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	serveOLMv0(t)
	t.Cleanup(func() { patchOLMScopes(t, "null") })
	grantGeneratorClusterAdmin(t)
	ctx := context.Background()
	ops, teamA, teamB := testNamespace(t, "olm-empty-ops-"), testNamespace(t, "olm-empty-a-"), testNamespace(t, "olm-empty-b-")
	configMaps := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}
	createOperatorGroup(t, ops, ops, teamA)
	revoke := grantAsOLM(t, ops, "emptyop-v1", []string{ops, teamA}, []rbacv1.PolicyRule{configMaps}, nil)
	uid := createCSV(t, ops, "emptyop.v0.0.1", "", nil, []rbacv1.PolicyRule{configMaps}, nil)
	patchOLMScopes(t, `{"mode":"Namespaces","namespaces":["`+ops+`"]}`)
	base := "olm-" + ops + "-emptyop"
	waitForInstance(t, base, ops, teamA)
	revoke() // the migration: the scope alone gives it
	expectCan(t, ops, map[string]bool{"list /configmaps " + teamA: true, "list /configmaps " + teamB: false})

	updateInstance(t, base, func(i *scopesv1alpha1.ScopeInstance) { i.Spec.Namespaces = nil })
	expectCan(t, ops, map[string]bool{"list /configmaps " + ops: false, "list /configmaps " + teamA: false,
		"list /configmaps " + teamB: false, "list /configmaps": false})
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		if _, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, base, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the emptied ScopeInstance is still there: %v", err)
		}
		return nil
	})
	template, err := env.operator.ScopesV1alpha1().ScopeTemplates().Get(ctx, base, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if template.Annotations[olmscopes.WithdrawnAnnotation] != "true" {
		t.Errorf("the template is not marked withdrawn: %v", template.Annotations)
	}
	if _, ok := csvEvents(t, ops, uid)[olmscopes.ReasonWithdrawn]; !ok {
		t.Errorf("no Withdrawn event: %v", csvEvents(t, ops, uid))
	}
	touchCSV(t, ops, "emptyop.v0.0.1")
	time.Sleep(5 * time.Second)
	if _, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, base, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the withdrawn ScopeInstance was generated again: %v", err)
	}

	// Deleting the template starts over, from the OperatorGroup, for what
	// OLM grants.
	grantAsOLM(t, ops, "emptyop-v1-again", []string{ops, teamA}, []rbacv1.PolicyRule{configMaps}, nil)
	if err := env.operator.ScopesV1alpha1().ScopeTemplates().Delete(ctx, base, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForInstance(t, base, ops, teamA)

	// The admin's mark on the template takes the instance away too.
	if _, err := env.operator.ScopesV1alpha1().ScopeTemplates().Patch(ctx, base, types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"`+olmscopes.WithdrawnAnnotation+`":"true"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		if _, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, base, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the ScopeInstance of a template marked withdrawn is still there: %v", err)
		}
		return nil
	})
}

// After step 3 of the move (OLM's RBAC removed, the scope all the operator
// has), an OperatorGroup that is not whole for a while (a second one in the
// namespace) takes nothing away: OLM leaves its RBAC in place then, and the
// generator its scope. The CSV's Event and WorkloadAccess say why; once the
// group is whole again, the generator follows it.
func TestOLMScopesKeptWhileTheOperatorGroupIsNotWhole(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	serveOLMv0(t)
	t.Cleanup(func() { patchOLMScopes(t, "null") })
	grantGeneratorClusterAdmin(t)
	ops, teamA, teamB := testNamespace(t, "olm-keep-ops-"), testNamespace(t, "olm-keep-a-"), testNamespace(t, "olm-keep-b-")
	configMaps := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}
	crds := rbacv1.PolicyRule{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get"}}
	createOperatorGroup(t, ops, ops, teamA)
	revoke := grantAsOLM(t, ops, "keepop-v1", []string{ops, teamA}, []rbacv1.PolicyRule{configMaps}, []rbacv1.PolicyRule{crds})
	uid := createCSV(t, ops, "keepop.v0.0.1", "", nil, []rbacv1.PolicyRule{configMaps}, []rbacv1.PolicyRule{crds})
	patchOLMScopes(t, `{"mode":"Namespaces","namespaces":["`+ops+`"]}`)
	base := "olm-" + ops + "-keepop"
	waitForInstance(t, base, ops, teamA)
	waitForInstance(t, base+"-cluster")
	revoke() // step 3: the scope alone gives it
	can := map[string]bool{
		"list /configmaps " + ops: true, "list /configmaps " + teamA: true, "list /configmaps " + teamB: false,
		"get apiextensions.k8s.io/customresourcedefinitions": true,
	}
	expectCan(t, ops, can)
	generated := func(ctx context.Context) (string, error) {
		ts, is, err := generatedFrom(ctx, uid)
		if err != nil {
			return "", err
		}
		var out []string
		for _, tmpl := range ts {
			out = append(out, fmt.Sprintf("ScopeTemplate %s %s %d roles", tmpl.Name, tmpl.UID, len(tmpl.Spec.ClusterRoles)))
		}
		for _, i := range is {
			out = append(out, fmt.Sprintf("ScopeInstance %s %s %v", i.Name, i.UID, sortedCopy(i.Spec.Namespaces...)))
		}
		return strings.Join(sortedCopy(out...), "; "), nil
	}
	before, err := generated(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	// A second OperatorGroup: OLM installs nothing until one is left.
	second := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
		"metadata": map[string]any{"name": "second", "namespace": ops}, "spec": map[string]any{"targetNamespaces": []any{ops}}}}
	groups := dynamicAs(t, "").Resource(olmscopes.OperatorGroups).Namespace(ops)
	if _, err := groups.Create(context.Background(), second, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Once the generator has seen it, for a minute, checked every second,
	// the scope and what it gives stay; the CSV is touched every 5 s, so
	// that the generator syncs it again and again while the group is not
	// whole (no timer of its own would within the minute).
	framework.Eventually(t, time.Minute, func(context.Context) error {
		if _, ok := csvEvents(t, ops, uid)[olmscopes.ReasonTooManyOperatorGroup]; !ok {
			return fmt.Errorf("the generator has not seen the second OperatorGroup yet: %v", csvEvents(t, ops, uid))
		}
		return nil
	})
	for i := range 60 {
		if i%5 == 0 {
			touchCSV(t, ops, "keepop.v0.0.1")
		}
		now, err := generated(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if now != before {
			t.Fatalf("with two OperatorGroups the generated objects changed:\nbefore %s\nnow    %s", before, now)
		}
		for q, allowed := range can {
			parts := strings.Fields(q)
			group, resource, _ := strings.Cut(parts[1], "/")
			ns := ""
			if len(parts) > 2 {
				ns = parts[2]
			}
			if got := csvSACan(t, ops, parts[0], group, resource, ns); got != allowed {
				t.Fatalf("with two OperatorGroups, %s: %v, want %v", q, got, allowed)
			}
		}
		time.Sleep(time.Second)
	}

	// The CSV and WorkloadAccess say why.
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		if msg, ok := csvEvents(t, ops, uid)[olmscopes.ReasonTooManyOperatorGroup]; !ok || !strings.Contains(msg, "stays as it is") {
			return fmt.Errorf("no Event saying the scope is kept: %v", csvEvents(t, ops, uid))
		}
		c, err := operatorCondition(ctx, olmscopes.FollowsOperatorGroups)
		if err != nil {
			return err
		}
		if c.Status != operatorv1.ConditionFalse || c.Reason != olmscopes.ReasonScopesKept || !strings.Contains(c.Message, ops+"/keepop.v0.0.1") {
			return fmt.Errorf("%s is %s %s %q", olmscopes.FollowsOperatorGroups, c.Status, c.Reason, c.Message)
		}
		return nil
	})

	// Whole again: the generator follows the group, here narrowed to ops.
	if err := groups.Delete(context.Background(), "second", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := groups.Patch(context.Background(), "group", types.MergePatchType, []byte(`{"spec":{"targetNamespaces":["`+ops+`"]}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForInstance(t, base, ops)
	expectCan(t, ops, map[string]bool{"list /configmaps " + ops: true, "list /configmaps " + teamA: false,
		"get apiextensions.k8s.io/customresourcedefinitions": true})
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		c, err := operatorCondition(ctx, olmscopes.FollowsOperatorGroups)
		if err != nil {
			return err
		}
		if c.Status != operatorv1.ConditionTrue {
			return fmt.Errorf("%s is %s %s %q", olmscopes.FollowsOperatorGroups, c.Status, c.Reason, c.Message)
		}
		return nil
	})
}
