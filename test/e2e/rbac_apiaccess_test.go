package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// testCRD creates a namespaced CRD <plural>.<group> of kind Kind, labelled
// as installed by ClusterExtension extension (none when empty), waits until
// it is served, and deletes it after t.
func testCRD(t *testing.T, group, kind, extension string) (*apiextensionsv1.CustomResourceDefinition, schema.GroupVersionResource) {
	t.Helper()
	ctx := context.Background()
	plural := strings.ToLower(kind) + "s"
	labels := map[string]string{}
	if extension != "" {
		labels[apiaccessv1alpha1.OLMOwnerKindLabel] = apiaccessv1alpha1.OLMOwnerKindClusterExtension
		labels[apiaccessv1alpha1.OLMOwnerNameLabel] = extension
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group, Labels: labels},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, Plural: plural, ListKind: kind + "List", Singular: strings.ToLower(kind)},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
	client := crdClient(t)
	created, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.ApiextensionsV1().CustomResourceDefinitions().Delete(context.Background(), crd.Name, metav1.DeleteOptions{})
	})
	gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: plural}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := dynamicAs(t, "").Resource(gvr).Namespace("default").List(ctx, metav1.ListOptions{})
		return err
	})
	return created, gvr
}

func crdClient(t *testing.T) apiextensionsclient.Interface {
	t.Helper()
	client, err := apiextensionsclient.NewForConfig(env.cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// dynamicAs is a dynamic client acting as user (the admin when empty).
func dynamicAs(t *testing.T, user string) dynamic.Interface {
	t.Helper()
	config := rest.CopyConfig(env.cp.Config)
	if user != "" {
		config.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
	}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func createPolicy(t *testing.T, name string, spec apiaccessv1alpha1.APIAccessPolicySpec) *apiaccessv1alpha1.APIAccessPolicy {
	t.Helper()
	client := env.operator.APIAccessV1alpha1().APIAccessPolicies()
	p, err := client.Create(context.Background(), &apiaccessv1alpha1.APIAccessPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return p
}

func updatePolicySpec(t *testing.T, name string, change func(*apiaccessv1alpha1.APIAccessPolicySpec)) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		p, err := env.operator.APIAccessV1alpha1().APIAccessPolicies().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(&p.Spec)
		_, err = env.operator.APIAccessV1alpha1().APIAccessPolicies().Update(ctx, p, metav1.UpdateOptions{})
		return err
	})
}

// waitPolicy waits until the operator has observed the policy's latest
// generation and check accepts its status.
func waitPolicy(t *testing.T, name string, check func(*apiaccessv1alpha1.APIAccessPolicy) error) *apiaccessv1alpha1.APIAccessPolicy {
	t.Helper()
	var out *apiaccessv1alpha1.APIAccessPolicy
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		p, err := env.operator.APIAccessV1alpha1().APIAccessPolicies().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.Status.ObservedGeneration != p.Generation {
			return fmt.Errorf("generation %d not observed yet (%d)", p.Generation, p.Status.ObservedGeneration)
		}
		out = p
		return check(p)
	})
	return out
}

func conditionIs(p *apiaccessv1alpha1.APIAccessPolicy, conditionType string, status metav1.ConditionStatus, reason string) error {
	c := meta.FindStatusCondition(p.Status.Conditions, conditionType)
	if c == nil || c.Status != status || (reason != "" && c.Reason != reason) {
		return fmt.Errorf("%s is %+v, want %s %s", conditionType, c, status, reason)
	}
	return nil
}

// generated lists the names of the roles and bindings labelled for policy.
func generated(ctx context.Context, policy string) ([]string, error) {
	selector := metav1.ListOptions{LabelSelector: apiaccessv1alpha1.PolicyLabel + "=" + policy}
	var out []string
	roles, err := env.kube.RbacV1().ClusterRoles().List(ctx, selector)
	if err != nil {
		return nil, err
	}
	for _, r := range roles.Items {
		out = append(out, "ClusterRole "+r.Name)
	}
	crbs, err := env.kube.RbacV1().ClusterRoleBindings().List(ctx, selector)
	if err != nil {
		return nil, err
	}
	for _, b := range crbs.Items {
		out = append(out, "ClusterRoleBinding "+b.Name)
	}
	rbs, err := env.kube.RbacV1().RoleBindings("").List(ctx, selector)
	if err != nil {
		return nil, err
	}
	for _, b := range rbs.Items {
		out = append(out, "RoleBinding "+b.Namespace+"/"+b.Name)
	}
	slices.Sort(out)
	return out, nil
}

func expectNothingGenerated(t *testing.T, policy string) {
	t.Helper()
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		left, err := generated(ctx, policy)
		if err != nil {
			return err
		}
		if len(left) > 0 {
			return fmt.Errorf("still there: %v", left)
		}
		return nil
	})
}

// access is one question: may user do verb on the CRD's resource in ns?
type access struct {
	user, verb, ns string
	want           bool
}

// expectAccess asks the authorizer (SubjectAccessReview) each question
// until every answer is as wanted: aggregation takes a moment.
func expectAccess(t *testing.T, gvr schema.GroupVersionResource, cases []access) {
	t.Helper()
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		var wrong []string
		for _, c := range cases {
			review, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
				Spec: authorizationv1.SubjectAccessReviewSpec{User: c.user, Groups: []string{"system:authenticated"},
					ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: c.ns, Verb: c.verb, Group: gvr.Group, Resource: gvr.Resource}},
			}, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			if review.Status.Allowed != c.want {
				wrong = append(wrong, fmt.Sprintf("%s %s in %q: %v", c.user, c.verb, c.ns, review.Status.Allowed))
			}
		}
		if len(wrong) > 0 {
			return fmt.Errorf("wrong answers: %v", wrong)
		}
		return nil
	})
}

func object(kind, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("") // set by caller
	u.SetKind(kind)
	u.SetName(name)
	return u
}

// tryAs makes a real request as user and says whether it was allowed.
func tryAs(t *testing.T, user, verb, ns string, gvr schema.GroupVersionResource, kind, name string) bool {
	t.Helper()
	ctx := context.Background()
	client := dynamicAs(t, user).Resource(gvr).Namespace(ns)
	var err error
	switch verb {
	case "create":
		o := object(kind, name)
		o.SetAPIVersion(gvr.Group + "/" + gvr.Version)
		_, err = client.Create(ctx, o, metav1.CreateOptions{})
	case "get":
		_, err = client.Get(ctx, name, metav1.GetOptions{})
	case "list":
		_, err = client.List(ctx, metav1.ListOptions{})
	case "update":
		var o *unstructured.Unstructured
		if o, err = dynamicAs(t, "").Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{}); err == nil {
			o.SetLabels(map[string]string{"touched-by": "e2e"})
			_, err = client.Update(ctx, o, metav1.UpdateOptions{})
		}
	case "delete":
		err = client.Delete(ctx, name, metav1.DeleteOptions{})
	}
	if err != nil && !apierrors.IsForbidden(err) {
		t.Fatalf("%s %s %s/%s as %s: %v", verb, gvr.Resource, ns, name, user, err)
	}
	return err == nil
}

func bindBuiltin(t *testing.T, ns, role, user string) {
	t.Helper()
	if _, err := env.kube.RbacV1().RoleBindings(ns).Create(context.Background(), &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-" + role},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// user is a User subject as people write it, without apiGroup: the API
// server stores it with rbac.authorization.k8s.io, and a controller that
// compared them as written would rewrite its bindings on every sync.
func user(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: "User", Name: name}
}

// Aggregate mode, with the real kube-controller-manager aggregating: users
// bound to the built-in admin, edit and view in one namespace can do on the
// CRD's resources exactly what the role promises there, and nothing in
// another namespace. Then Bind, then Unmanaged, then the policy's deletion:
// each leaves nothing of the previous behind.
func TestAPIAccessAggregateBindUnmanaged(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	ctx := context.Background()
	crd, gvr := testCRD(t, "modes.e2e.example.com", "Widget", "e2e-widgets")
	ns, other := testNamespace(t, "apiaccess-"), testNamespace(t, "apiaccess-other-")
	const admin, editor, viewer, nobody = "e2e-aa-admin", "e2e-aa-editor", "e2e-aa-viewer", "e2e-aa-nobody"
	bindBuiltin(t, ns, "admin", admin)
	bindBuiltin(t, ns, "edit", editor)
	bindBuiltin(t, ns, "view", viewer)
	if _, err := dynamicAs(t, "").Resource(gvr).Namespace(ns).Create(ctx, func() *unstructured.Unstructured {
		o := object("Widget", "seed")
		o.SetAPIVersion(gvr.Group + "/v1")
		return o
	}(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	const name = "e2e-modes"
	createPolicy(t, name, apiaccessv1alpha1.APIAccessPolicySpec{Mode: apiaccessv1alpha1.ModeAggregate,
		CRDs: apiaccessv1alpha1.CRDSelection{ClusterExtension: "e2e-widgets"}})
	p := waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		if p.Status.CRDCount != 1 || len(p.Status.ManagedObjects) != 4 {
			return fmt.Errorf("status %+v", p.Status)
		}
		return conditionIs(p, apiaccessv1alpha1.ConditionRBACManaged, metav1.ConditionTrue, "")
	})
	t.Logf("managed: %v", p.Status.ManagedObjects)
	var cases []access
	for _, c := range []struct {
		user  string
		verbs map[string]bool
	}{
		{admin, map[string]bool{"get": true, "list": true, "watch": true, "create": true, "update": true, "patch": true, "delete": true, "deletecollection": true}},
		{editor, map[string]bool{"get": true, "list": true, "watch": true, "create": true, "update": true, "patch": true, "delete": true, "deletecollection": true}},
		{viewer, map[string]bool{"get": true, "list": true, "watch": true}},
		{nobody, map[string]bool{}},
	} {
		for _, verb := range []string{"get", "list", "watch", "create", "update", "patch", "delete"} {
			cases = append(cases, access{c.user, verb, ns, c.verbs[verb]}, access{c.user, verb, other, false})
		}
	}
	expectAccess(t, gvr, cases)
	// Real requests as those users.
	if !tryAs(t, viewer, "list", ns, gvr, "Widget", "") || !tryAs(t, viewer, "get", ns, gvr, "Widget", "seed") {
		t.Error("the viewer cannot read widgets in its namespace")
	}
	if tryAs(t, viewer, "create", ns, gvr, "Widget", "by-viewer") || tryAs(t, viewer, "list", other, gvr, "Widget", "") {
		t.Error("the viewer may write, or read another namespace")
	}
	if !tryAs(t, editor, "create", ns, gvr, "Widget", "by-editor") || !tryAs(t, editor, "update", ns, gvr, "Widget", "by-editor") ||
		!tryAs(t, editor, "get", ns, gvr, "Widget", "by-editor") || !tryAs(t, editor, "delete", ns, gvr, "Widget", "by-editor") {
		t.Error("the editor cannot create, update, read and delete widgets in its namespace")
	}
	if tryAs(t, editor, "create", other, gvr, "Widget", "by-editor") {
		t.Error("the editor may create widgets in another namespace")
	}
	if !tryAs(t, admin, "delete", ns, gvr, "Widget", "seed") || tryAs(t, admin, "list", other, gvr, "Widget", "") {
		t.Error("the admin cannot delete in its namespace, or may read another")
	}
	// View holders may read the CRD itself (crdview, aggregated into view).
	review, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: viewer, ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: crd.Name}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a namespace viewer may get the CRD: %v (crdview is cluster-scoped: a RoleBinding to view does not grant it)", review.Status.Allowed)

	// Bind: the aggregation labels go, and with them the access through
	// the built-in roles; the listed subjects get theirs.
	const bindEditor, bindViewer = "e2e-bind-editor", "e2e-bind-viewer"
	updatePolicySpec(t, name, func(s *apiaccessv1alpha1.APIAccessPolicySpec) {
		s.Mode = apiaccessv1alpha1.ModeBind
		s.Bindings = []apiaccessv1alpha1.AccessBinding{
			{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(user(bindEditor))}, Namespaces: []string{ns}},
			{Role: apiaccessv1alpha1.RoleView, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(user(bindViewer))}},
		}
	})
	waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		if len(p.Status.ManagedObjects) != 7 { // 4 roles, 1 RoleBinding, view + crdview ClusterRoleBindings
			return fmt.Errorf("managed %v", p.Status.ManagedObjects)
		}
		return nil
	})
	roles, err := env.kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: apiaccessv1alpha1.PolicyLabel + "=" + name})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range roles.Items {
		for l := range r.Labels {
			if strings.HasPrefix(l, "rbac.authorization.k8s.io/aggregate-to-") {
				t.Errorf("Bind mode: %s keeps %s", r.Name, l)
			}
		}
	}
	expectAccess(t, gvr, []access{
		{viewer, "list", ns, false}, {editor, "create", ns, false}, {admin, "delete", ns, false},
		{bindEditor, "create", ns, true}, {bindEditor, "update", ns, true}, {bindEditor, "get", ns, true}, {bindEditor, "list", ns, true},
		{bindEditor, "create", other, false}, {bindEditor, "get", other, false},
		{bindViewer, "list", ns, true}, {bindViewer, "list", other, true}, {bindViewer, "create", ns, false},
	})
	if !tryAs(t, bindEditor, "create", ns, gvr, "Widget", "bound") || !tryAs(t, bindEditor, "get", ns, gvr, "Widget", "bound") ||
		tryAs(t, bindEditor, "create", other, gvr, "Widget", "bound") {
		t.Error("the bound editor: want create and read in its namespace only")
	}
	if !tryAs(t, bindViewer, "list", other, gvr, "Widget", "") || tryAs(t, bindViewer, "delete", ns, gvr, "Widget", "bound") {
		t.Error("the bound viewer: want read everywhere and no write")
	}
	if _, err := crdClientAs(t, bindViewer).ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the bound viewer cannot read the CRD (crdview): %v", err)
	}

	// Unmanaged: nothing generated, and the policy says so.
	updatePolicySpec(t, name, func(s *apiaccessv1alpha1.APIAccessPolicySpec) {
		s.Mode, s.Bindings = apiaccessv1alpha1.ModeUnmanaged, nil
	})
	expectNothingGenerated(t, name)
	waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		if err := conditionIs(p, apiaccessv1alpha1.ConditionRBACManaged, metav1.ConditionFalse, apiaccessv1alpha1.ReasonUnmanaged); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(p.Status.Conditions, apiaccessv1alpha1.ConditionRBACManaged); !strings.Contains(c.Message, crd.Name) {
			return fmt.Errorf("the Unmanaged message does not name %s: %s", crd.Name, c.Message)
		}
		if len(p.Status.ManagedObjects) != 0 {
			return fmt.Errorf("managed %v", p.Status.ManagedObjects)
		}
		return nil
	})
	expectAccess(t, gvr, []access{{bindEditor, "create", ns, false}, {bindViewer, "list", other, false}})

	// Back to Aggregate, then the policy goes: the garbage collector
	// removes what it owned.
	updatePolicySpec(t, name, func(s *apiaccessv1alpha1.APIAccessPolicySpec) { s.Mode = apiaccessv1alpha1.ModeAggregate })
	waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		if len(p.Status.ManagedObjects) != 4 {
			return fmt.Errorf("managed %v", p.Status.ManagedObjects)
		}
		return nil
	})
	if err := env.operator.APIAccessV1alpha1().APIAccessPolicies().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectNothingGenerated(t, name)
	expectAccess(t, gvr, []access{{viewer, "list", ns, false}})
}

func crdClientAs(t *testing.T, user string) apiextensionsclient.Interface {
	t.Helper()
	config := rest.CopyConfig(env.cp.Config)
	config.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
	client, err := apiextensionsclient.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// A foreign <kind>.<group>-admin is reported and left as it is; a role the
// CRD's bundle provides (same ClusterExtension) is bound, not duplicated; a
// CRD's deletion takes its roles; and a resync with nothing changed writes
// nothing.
func TestAPIAccessConflictsBundleRolesAndCRDDeletion(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	ctx := context.Background()
	gizmos, _ := testCRD(t, "conflicts.e2e.example.com", "Gizmo", "e2e-gizmos")
	_, gadgetsGVR := testCRD(t, "conflicts.e2e.example.com", "Gadget", "e2e-gizmos")
	foreign := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "Gizmo.conflicts.e2e.example.com-admin"},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}}
	bundleRole := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "Gadget.conflicts.e2e.example.com-edit", Labels: map[string]string{
		apiaccessv1alpha1.OLMOwnerKindLabel: apiaccessv1alpha1.OLMOwnerKindClusterExtension, apiaccessv1alpha1.OLMOwnerNameLabel: "e2e-gizmos"}},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get", "list", "create"}, APIGroups: []string{gadgetsGVR.Group}, Resources: []string{gadgetsGVR.Resource}}}}
	for _, r := range []*rbacv1.ClusterRole{foreign, bundleRole} {
		if _, err := env.kube.RbacV1().ClusterRoles().Create(ctx, r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), r.Name, metav1.DeleteOptions{})
		})
	}
	ns := testNamespace(t, "apiaccess-conflict-")
	const editor = "e2e-conflict-editor"
	const name = "e2e-conflicts"
	createPolicy(t, name, apiaccessv1alpha1.APIAccessPolicySpec{Mode: apiaccessv1alpha1.ModeBind,
		CRDs: apiaccessv1alpha1.CRDSelection{ClusterExtension: "e2e-gizmos"},
		Bindings: []apiaccessv1alpha1.AccessBinding{
			{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(user(editor))}, Namespaces: []string{ns}},
			{Role: apiaccessv1alpha1.RoleAdmin, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(user(editor))}, Namespaces: []string{ns}},
		}})
	p := waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		if err := conditionIs(p, apiaccessv1alpha1.ConditionConflict, metav1.ConditionTrue, apiaccessv1alpha1.ReasonNotOurs); err != nil {
			return err
		}
		// 6 roles (8 less the foreign and the bundle's), RoleBindings to
		// both edit roles and to Gadget's admin role.
		if len(p.Status.ManagedObjects) != 9 {
			return fmt.Errorf("managed %v", p.Status.ManagedObjects)
		}
		return nil
	})
	if c := meta.FindStatusCondition(p.Status.Conditions, apiaccessv1alpha1.ConditionConflict); !strings.Contains(c.Message, foreign.Name) {
		t.Errorf("the Conflict message does not name %s: %s", foreign.Name, c.Message)
	}
	for _, m := range p.Status.ManagedObjects {
		if m.Name == foreign.Name || m.Name == bundleRole.Name {
			t.Errorf("%s is listed as managed", m.Name)
		}
	}
	got, err := env.kube.RbacV1().ClusterRoles().Get(ctx, foreign.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Labels) != 0 || len(got.OwnerReferences) != 0 || got.Rules[0].Resources[0] != "configmaps" {
		t.Errorf("the foreign role was changed: %+v", got)
	}
	if _, err := env.kube.RbacV1().RoleBindings(ns).Get(ctx, BindingNameFor(name, 1, foreign.Name), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the foreign role is bound: %v", err)
	}
	rb, err := env.kube.RbacV1().RoleBindings(ns).Get(ctx, BindingNameFor(name, 0, bundleRole.Name), metav1.GetOptions{})
	if err != nil || rb.RoleRef.Name != bundleRole.Name {
		t.Errorf("the bundle's role is not bound: %+v %v", rb, err)
	}
	expectAccess(t, gadgetsGVR, []access{{editor, "create", ns, true}})
	// The operator's Events are sent in the background: wait for it.
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		list, err := env.kube.CoreV1().Events("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Reason == "APIAccessPolicyConflict" && strings.Contains(e.Message, name) {
				return nil
			}
		}
		return fmt.Errorf("no APIAccessPolicyConflict event")
	})

	// A resync with nothing changed writes nothing: touching a selected
	// CRD wakes the policy, whose sync reads the foreign role (it is not
	// in the operator's label-filtered cache), and writes nothing.
	time.Sleep(3 * time.Second)
	since := time.Now()
	touch := func() {
		framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
			c, err := crdClient(t).ApiextensionsV1().CustomResourceDefinitions().Get(ctx, gizmos.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			c.Annotations = map[string]string{"e2e-touched": time.Now().String()}
			_, err = crdClient(t).ApiextensionsV1().CustomResourceDefinitions().Update(ctx, c, metav1.UpdateOptions{})
			return err
		})
	}
	touch()
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		requests, err := framework.Requests(env.cp.AuditLogPath, framework.OperatorUser, since)
		if err != nil {
			return err
		}
		for _, r := range requests {
			if r.Verb == "get" && r.ObjectRef != nil && r.ObjectRef.Name == foreign.Name {
				return nil
			}
		}
		return fmt.Errorf("the operator has not resynced the policy yet")
	})
	time.Sleep(2 * time.Second)
	writes, err := operatorWrites(since)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		if w.ObjectRef != nil && slices.Contains([]string{"clusterroles", "clusterrolebindings", "rolebindings", "apiaccesspolicies"}, w.ObjectRef.Resource) {
			t.Errorf("a resync with nothing changed wrote: %s", w)
		}
	}

	// The bundle's role widened past what the generated edit role would
	// grant is no longer bound (the admission check asked the policy's
	// author for the generated rules only); narrowed again, it is.
	setBundleRules := func(rules []rbacv1.PolicyRule) {
		t.Helper()
		framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
			r, err := env.kube.RbacV1().ClusterRoles().Get(ctx, bundleRole.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			r.Rules = rules
			_, err = env.kube.RbacV1().ClusterRoles().Update(ctx, r, metav1.UpdateOptions{})
			return err
		})
	}
	bundleBinding := BindingNameFor(name, 0, bundleRole.Name)
	setBundleRules(append(slices.Clone(bundleRole.Rules), rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}}))
	waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		c := meta.FindStatusCondition(p.Status.Conditions, apiaccessv1alpha1.ConditionConflict)
		if c == nil || !strings.Contains(c.Message, bundleRole.Name+" (the bundle's, granting more than the generated role would)") {
			return fmt.Errorf("Conflict %+v", c)
		}
		if _, err := env.kube.RbacV1().RoleBindings(ns).Get(context.Background(), bundleBinding, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the widened bundle role is still bound: %v", err)
		}
		return nil
	})
	setBundleRules(bundleRole.Rules)
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := env.kube.RbacV1().RoleBindings(ns).Get(ctx, bundleBinding, metav1.GetOptions{})
		return err
	})

	// The Gizmo CRD goes: its roles and bindings go with it.
	if err := crdClient(t).ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, gizmos.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		left, err := generated(ctx, name)
		if err != nil {
			return err
		}
		for _, o := range left {
			if strings.Contains(o, "Gizmo.") {
				return fmt.Errorf("still there: %v", left)
			}
		}
		return nil
	})
	waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		if p.Status.CRDCount != 1 {
			return fmt.Errorf("crdCount %d", p.Status.CRDCount)
		}
		return conditionIs(p, apiaccessv1alpha1.ConditionConflict, metav1.ConditionFalse, "")
	})
	// The foreign role is still someone else's.
	if _, err := env.kube.RbacV1().ClusterRoles().Get(ctx, foreign.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the foreign role: %v", err)
	}
}

// BindingNameFor mirrors the operator's binding names (crdaccess.BindingName)
// for names short enough not to be hashed.
func BindingNameFor(policy string, index int, role string) string {
	return fmt.Sprintf("%s-%d-%s", policy, index, role)
}

// The operator's escalate and bind on ClusterRoles and its binding writes
// are narrowed by the workload-access-operator-writes admission policy to
// the generated shapes: anything wider is refused, even labelled and owned
// as the operator-writes policy requires.
func TestAPIAccessOperatorIsRefusedWiderRoles(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	ctx := context.Background()
	const name = "e2e-writes"
	p := createPolicy(t, name, apiaccessv1alpha1.APIAccessPolicySpec{Mode: apiaccessv1alpha1.ModeUnmanaged,
		CRDs: apiaccessv1alpha1.CRDSelection{Names: []string{"nothing.example.com"}}})
	meta := func(roleName string, labels map[string]string) metav1.ObjectMeta {
		l := map[string]string{apiaccessv1alpha1.PolicyLabel: name}
		for k, v := range labels {
			l[k] = v
		}
		return metav1.ObjectMeta{Name: roleName, Labels: l, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: apiaccessv1alpha1.SchemeGroupVersion.String(), Kind: "APIAccessPolicy", Name: name, UID: p.UID, Controller: ptr.To(true)}}}
	}
	rule := func(group, resource string, verbs ...string) []rbacv1.PolicyRule {
		return []rbacv1.PolicyRule{{APIGroups: []string{group}, Resources: []string{resource}, Verbs: verbs}}
	}
	operator := asServiceAccount(t, operatorNS, framework.OperatorName)
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	roleCases := []struct {
		what string
		role *rbacv1.ClusterRole
		ok   bool
	}{
		{"a generated admin role", &rbacv1.ClusterRole{ObjectMeta: meta("Thing.shapes.example.com-admin", map[string]string{apiaccessv1alpha1.AggregateToAdminLabel: "true"}),
			Rules: rule("shapes.example.com", "things", "*")}, true},
		{"a generated crdview role", &rbacv1.ClusterRole{ObjectMeta: meta("Thing.shapes.example.com-view-crdview", nil),
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, ResourceNames: []string{"things.shapes.example.com"}, Verbs: []string{"get"}}}}, true},
		{"every resource of the group", &rbacv1.ClusterRole{ObjectMeta: meta("Thing.shapes.example.com-admin", nil), Rules: rule("shapes.example.com", "*", "*")}, false},
		{"a core resource", &rbacv1.ClusterRole{ObjectMeta: meta("Secret.x.y-admin", nil), Rules: rule("", "secrets", "*")}, false},
		{"RBAC itself", &rbacv1.ClusterRole{ObjectMeta: meta("ClusterRoleBinding.rbac.authorization.k8s.io-admin", nil), Rules: rule("rbac.authorization.k8s.io", "clusterrolebindings", "*")}, false},
		{"verbs of no generated role", &rbacv1.ClusterRole{ObjectMeta: meta("Thing.shapes.example.com-view", nil), Rules: rule("shapes.example.com", "things", "get", "list", "watch", "delete")}, false},
		{"a name that does not match the verbs", &rbacv1.ClusterRole{ObjectMeta: meta("Thing.shapes.example.com-view", nil), Rules: rule("shapes.example.com", "things", "*")}, false},
		{"two rules", &rbacv1.ClusterRole{ObjectMeta: meta("Thing.shapes.example.com-view", nil), Rules: append(rule("shapes.example.com", "things", "get", "list", "watch"), rule("shapes.example.com", "others", "get", "list", "watch")...)}, false},
		{"an aggregation rule", &rbacv1.ClusterRole{ObjectMeta: meta("Thing.shapes.example.com-view", nil), Rules: rule("shapes.example.com", "things", "get", "list", "watch"),
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"x": "y"}}}}}, false},
		{"another aggregation label", &rbacv1.ClusterRole{ObjectMeta: meta("Thing.shapes.example.com-view", map[string]string{"rbac.authorization.k8s.io/aggregate-to-cluster-reader": "true"}),
			Rules: rule("shapes.example.com", "things", "get", "list", "watch")}, false},
		{"a view role aggregated into admin", &rbacv1.ClusterRole{ObjectMeta: meta("Thing.shapes.example.com-view", map[string]string{apiaccessv1alpha1.AggregateToAdminLabel: "true"}),
			Rules: rule("shapes.example.com", "things", "get", "list", "watch")}, false},
		{"crdview on every CRD", &rbacv1.ClusterRole{ObjectMeta: meta("Thing.shapes.example.com-view-crdview", nil),
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get"}}}}, false},
	}
	for _, c := range roleCases {
		_, err := operator.RbacV1().ClusterRoles().Create(ctx, c.role, dryRun)
		if c.ok && err != nil {
			t.Errorf("%s: want admitted, got %v", c.what, err)
		}
		if !c.ok && (err == nil || !strings.Contains(err.Error(), "workload-access-operator-writes")) {
			t.Errorf("%s: want refused by workload-access-operator-writes, got %v", c.what, err)
		}
	}
	for _, c := range []struct {
		role string
		ok   bool
	}{{"Thing.shapes.example.com-edit", true}, {"cluster-admin", false}, {"admin", false}, {"system:aggregate-to-admin", false}} {
		_, err := operator.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: meta("e2e-writes-"+strings.ReplaceAll(c.role, ":", "-"), nil),
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: c.role}, Subjects: []rbacv1.Subject{user("e2e-someone")}}, dryRun)
		if c.ok && err != nil {
			t.Errorf("binding %s: want admitted, got %v", c.role, err)
		}
		if !c.ok && (err == nil || !strings.Contains(err.Error(), "workload-access-operator-writes")) {
			t.Errorf("binding %s: want refused by workload-access-operator-writes, got %v", c.role, err)
		}
	}
}

// The policy label proves nothing. A user who may create ClusterRoles
// squats <Kind>.<group>-admin with a narrow rule and the policy's label
// (and could bind it): the operator must neither widen nor bind it, and
// says so. A binding someone labels for the policy is not deleted. The
// operator-writes policy refuses the operator's own identity the adoption
// and the deletion, and refuses anyone else a forged controller reference.
func TestAPIAccessSquattedNamesAndLabelledBindingsAreNotAdopted(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	ctx := context.Background()
	crd, gvr := testCRD(t, "squat.e2e.example.com", "Widget", "")
	ns := testNamespace(t, "apiaccess-squat-")
	const name = "e2e-squat"
	const holder = "e2e-squat-admin"
	narrow := []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{gvr.Group}, Resources: []string{gvr.Resource}}}
	squatted := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "Widget." + crd.Spec.Group + "-admin",
		Labels: map[string]string{apiaccessv1alpha1.PolicyLabel: name}}, Rules: narrow}
	planted := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "e2e-team-binding", Namespace: ns,
		Labels: map[string]string{apiaccessv1alpha1.PolicyLabel: name}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "e2e-team"}}}
	if _, err := env.kube.RbacV1().ClusterRoles().Create(ctx, squatted, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), squatted.Name, metav1.DeleteOptions{})
	})
	// The squatter binds their narrow role: what it grants would grow with it.
	squatterBinding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "e2e-squatter", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: squatted.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "e2e-squatter"}}}
	for _, b := range []*rbacv1.RoleBinding{planted, squatterBinding} {
		if _, err := env.kube.RbacV1().RoleBindings(ns).Create(ctx, b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	p := createPolicy(t, name, apiaccessv1alpha1.APIAccessPolicySpec{Mode: apiaccessv1alpha1.ModeBind,
		CRDs:     apiaccessv1alpha1.CRDSelection{Names: []string{crd.Name}},
		Bindings: []apiaccessv1alpha1.AccessBinding{{Role: apiaccessv1alpha1.RoleAdmin, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(user(holder))}, Namespaces: []string{ns}}}})
	waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		c := meta.FindStatusCondition(p.Status.Conditions, apiaccessv1alpha1.ConditionConflict)
		if c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, squatted.Name+" (labelled for this policy but not created by it)") {
			return fmt.Errorf("Conflict %+v", c)
		}
		// The three other roles are generated; the squatted one is not bound.
		if len(p.Status.ManagedObjects) != 3 {
			return fmt.Errorf("managed %v", p.Status.ManagedObjects)
		}
		return nil
	})
	got, err := env.kube.RbacV1().ClusterRoles().Get(ctx, squatted.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.OwnerReferences) != 0 || len(got.Rules) != 1 || !slices.Equal(got.Rules[0].Verbs, []string{"get"}) {
		t.Errorf("the squatted role was taken over: %+v", got)
	}
	if _, err := env.kube.RbacV1().RoleBindings(ns).Get(ctx, BindingNameFor(name, 0, squatted.Name), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the squatted role is bound: %v", err)
	}
	if _, err := env.kube.RbacV1().RoleBindings(ns).Get(ctx, planted.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the labelled binding the policy did not create: %v", err)
	}
	expectAccess(t, gvr, []access{{"e2e-squatter", "delete", ns, false}, {holder, "create", ns, false}})

	// The operator's own identity may not adopt or delete them either.
	operator := asServiceAccount(t, operatorNS, framework.OperatorName)
	owned := metav1.OwnerReference{APIVersion: apiaccessv1alpha1.SchemeGroupVersion.String(), Kind: "APIAccessPolicy", Name: name, UID: p.UID, Controller: ptr.To(true)}
	adopted := got.DeepCopy()
	adopted.OwnerReferences = []metav1.OwnerReference{owned}
	adopted.Rules = []rbacv1.PolicyRule{{Verbs: []string{"*"}, APIGroups: []string{gvr.Group}, Resources: []string{gvr.Resource}}}
	_, err = operator.RbacV1().ClusterRoles().Update(ctx, adopted, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	if err == nil || !strings.Contains(err.Error(), "it never adopts one") {
		t.Errorf("the operator adopting a role it did not create: want refused, got %v", err)
	}
	err = operator.RbacV1().RoleBindings(ns).Delete(ctx, planted.Name, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
	if err == nil || !strings.Contains(err.Error(), "deletes only ClusterRoles and bindings controlled by") {
		t.Errorf("the operator deleting a labelled binding it does not control: want refused, got %v", err)
	}
	// Nor may anyone else forge the controller reference the operator trusts.
	forged := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "Widget." + crd.Spec.Group + "-edit",
		Labels: map[string]string{apiaccessv1alpha1.PolicyLabel: name}, OwnerReferences: []metav1.OwnerReference{owned}}, Rules: narrow}
	_, err = env.kube.RbacV1().ClusterRoles().Create(ctx, forged, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err == nil || !strings.Contains(err.Error(), "no one else may set or add such a controller reference") {
		t.Errorf("a cluster admin creating a role controlled by the policy: want refused, got %v", err)
	}
	planted, err = env.kube.RbacV1().RoleBindings(ns).Get(ctx, planted.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	planted.OwnerReferences = []metav1.OwnerReference{owned}
	_, err = env.kube.RbacV1().RoleBindings(ns).Update(ctx, planted, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	if err == nil || !strings.Contains(err.Error(), "no one else may set or add such a controller reference") {
		t.Errorf("a cluster admin adding the policy's controller reference to a binding: want refused, got %v", err)
	}
	// The squatter's role gone, the policy generates and binds its own.
	if err := env.kube.RbacV1().ClusterRoles().Delete(ctx, squatted.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		return conditionIs(p, apiaccessv1alpha1.ConditionConflict, metav1.ConditionFalse, "")
	})
	expectAccess(t, gvr, []access{{holder, "create", ns, true}})
}

// An upgrade that brings the bundle's own role after the policy generated
// one of that name (the reverse order of TestAPIAccessConflictsBundleRolesAndCRDDeletion):
// OLM v1 adopts no object it did not create, so the generated role must go
// first, and the bundle's takes its name, as OLM retrying the upgrade would
// create it. The policy hands the name over while it runs: the same
// RoleBinding now grants the bundle's role, which is neither edited nor
// deleted, and the generated role is not re-created.
func TestAPIAccessAnUpgradeThatBringsTheBundlesRole(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	ctx := context.Background()
	const extension = "e2e-upgrade"
	_, gvr := testCRD(t, "upgrade.e2e.example.com", "Doohickey", extension)
	ns := testNamespace(t, "apiaccess-upgrade-")
	const editor = "e2e-upgrade-editor"
	const name = "e2e-upgrade"
	createPolicy(t, name, apiaccessv1alpha1.APIAccessPolicySpec{Mode: apiaccessv1alpha1.ModeBind,
		CRDs:     apiaccessv1alpha1.CRDSelection{ClusterExtension: extension},
		Bindings: []apiaccessv1alpha1.AccessBinding{{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(user(editor))}, Namespaces: []string{ns}}}})
	roleName := "Doohickey." + gvr.Group + "-edit"
	waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		return conditionIs(p, apiaccessv1alpha1.ConditionRBACManaged, metav1.ConditionTrue, "")
	})
	binding, err := env.kube.RbacV1().RoleBindings(ns).Get(ctx, BindingNameFor(name, 0, roleName), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expectAccess(t, gvr, []access{{editor, "delete", ns, true}})

	// The upgrade: the admin deletes the generated role to make room, and
	// OLM's retry brings the bundle's (create and read only) on its own
	// backoff, here 30 s later. Meanwhile the policy leaves the name alone.
	generated, err := env.kube.RbacV1().ClusterRoles().Get(ctx, roleName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.kube.RbacV1().ClusterRoles().Delete(ctx, roleName, metav1.DeleteOptions{
		Preconditions: metav1.NewUIDPreconditions(string(generated.UID))}); err != nil {
		t.Fatal(err)
	}
	deleted := time.Now()
	waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		if len(p.Status.AwaitingBundleRoles) != 1 || p.Status.AwaitingBundleRoles[0].Name != roleName {
			return fmt.Errorf("awaitingBundleRoles %+v", p.Status.AwaitingBundleRoles)
		}
		return nil
	})
	for time.Since(deleted) < 30*time.Second {
		if got, err := env.kube.RbacV1().ClusterRoles().Get(ctx, roleName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("%s was created again %s after its deletion, before the bundle's role could come: %+v %v",
				roleName, time.Since(deleted).Round(time.Millisecond), got, err)
		}
		time.Sleep(time.Second)
	}
	bundleRole := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: roleName, Labels: map[string]string{
		apiaccessv1alpha1.OLMOwnerKindLabel: apiaccessv1alpha1.OLMOwnerKindClusterExtension, apiaccessv1alpha1.OLMOwnerNameLabel: extension}},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get", "list", "create"}, APIGroups: []string{gvr.Group}, Resources: []string{gvr.Resource}}}}
	created, err := env.kube.RbacV1().ClusterRoles().Create(ctx, bundleRole, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("the bundle's role, 30 s after the deletion: %v", err)
	}
	bundleUID := created.UID
	t.Cleanup(func() {
		_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), roleName, metav1.DeleteOptions{})
	})

	waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		c := meta.FindStatusCondition(p.Status.Conditions, apiaccessv1alpha1.ConditionRBACManaged)
		if c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "roles the bundles provide are used: "+roleName) {
			return fmt.Errorf("RBACManaged %+v", c)
		}
		for _, m := range p.Status.ManagedObjects {
			if m.Kind == "ClusterRole" && m.Name == roleName {
				return fmt.Errorf("the bundle's role is listed as managed")
			}
		}
		return nil
	})
	// The bundle's rules now decide: create yes, delete no.
	expectAccess(t, gvr, []access{{editor, "create", ns, true}, {editor, "delete", ns, false}})
	time.Sleep(3 * time.Second)
	got, err := env.kube.RbacV1().ClusterRoles().Get(ctx, roleName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.UID != bundleUID || got.Labels[apiaccessv1alpha1.PolicyLabel] != "" || len(got.OwnerReferences) != 0 || len(got.Rules) != 1 {
		t.Errorf("the bundle's role was replaced or edited: %+v", got)
	}
	after, err := env.kube.RbacV1().RoleBindings(ns).Get(ctx, binding.Name, metav1.GetOptions{})
	if err != nil || after.UID != binding.UID || after.RoleRef.Name != roleName {
		t.Errorf("the binding should be the same, naming the bundle's role: %+v %v", after, err)
	}
}
