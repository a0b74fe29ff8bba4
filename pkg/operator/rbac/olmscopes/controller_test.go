package olmscopes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	scopelisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/scopes/v1alpha1"
)

// newTestController is the controller over the given generated objects,
// with SubjectAccessReviews answering allowed.
func newTestController(t *testing.T, allowed bool, objects ...runtime.Object) (*controller, *fake.Clientset, *kubefake.Clientset, *record.FakeRecorder) {
	t.Helper()
	templates := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	instances := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, o := range objects {
		switch o := o.(type) {
		case *scopesv1alpha1.ScopeTemplate:
			_ = templates.Add(o)
		case *scopesv1alpha1.ScopeInstance:
			_ = instances.Add(o)
		}
	}
	scopes := fake.NewSimpleClientset(objects...)
	kube := kubefake.NewSimpleClientset()
	kube.PrependReactor("create", "subjectaccessreviews", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, &authorizationv1.SubjectAccessReview{Status: authorizationv1.SubjectAccessReviewStatus{Allowed: allowed}}, nil
	})
	events := record.NewFakeRecorder(10)
	c := &controller{templates: scopelisters.NewScopeTemplateLister(templates), instances: scopelisters.NewScopeInstanceLister(instances),
		generator: scopes.ScopesV1alpha1(), reviews: kube.AuthorizationV1(), events: events, said: map[types.UID]string{}}
	return c, scopes, kube, events
}

func writes(c *fake.Clientset) []string {
	var out []string
	for _, a := range c.Actions() {
		if a.GetVerb() != "list" && a.GetVerb() != "watch" && a.GetVerb() != "get" {
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
		}
	}
	return out
}

var opsGroups = map[string][]operatorGroup{"ops": {{Name: "g", Namespace: "ops", Targets: []string{"ops", "team-a"}}}}

// settled is what the generator writes for exampleCSV in opsGroups.
func settled(t *testing.T) []runtime.Object {
	t.Helper()
	c, scopes, _, _ := newTestController(t, true)
	if _, err := c.generate(context.Background(), plan(exampleCSV, opsGroups, config{}), map[string]bool{}); err != nil {
		t.Fatal(err)
	}
	var out []runtime.Object
	ts, _ := scopes.ScopesV1alpha1().ScopeTemplates().List(context.Background(), metav1.ListOptions{})
	is, _ := scopes.ScopesV1alpha1().ScopeInstances().List(context.Background(), metav1.ListOptions{})
	for i := range ts.Items {
		out = append(out, &ts.Items[i])
	}
	for i := range is.Items {
		out = append(out, &is.Items[i])
	}
	if len(out) != 4 {
		t.Fatalf("%d objects generated, want 4", len(out))
	}
	return out
}

func TestGenerateSettledWritesNothingAndAsksNothing(t *testing.T) {
	c, scopes, kube, _ := newTestController(t, true, settled(t)...)
	keep := map[string]bool{}
	if _, err := c.generate(context.Background(), plan(exampleCSV, opsGroups, config{}), keep); err != nil {
		t.Fatal(err)
	}
	if w := writes(scopes); len(w) > 0 {
		t.Errorf("a settled CSV wrote %v", w)
	}
	if n := len(kube.Actions()); n > 0 {
		t.Errorf("a settled CSV asked %d SubjectAccessReviews", n)
	}
	if len(keep) != 4 {
		t.Errorf("kept %v", keep)
	}
}

func TestGenerateLeavesAForeignTemplateAlone(t *testing.T) {
	foreign := &scopesv1alpha1.ScopeTemplate{ObjectMeta: metav1.ObjectMeta{Name: "olm-ops-etcdoperator"}}
	c, scopes, _, events := newTestController(t, true, foreign)
	if _, err := c.generate(context.Background(), plan(exampleCSV, opsGroups, config{}), map[string]bool{}); err != nil {
		t.Fatal(err)
	}
	if w := writes(scopes); len(w) > 0 {
		t.Errorf("wrote %v over another's ScopeTemplate", w)
	}
	if e := <-events.Events; !strings.Contains(e, ReasonConflict) {
		t.Errorf("event %q", e)
	}
}

func TestGenerateGrantsNothingTheServiceAccountLacks(t *testing.T) {
	c, scopes, _, events := newTestController(t, false)
	retry, err := c.generate(context.Background(), plan(exampleCSV, opsGroups, config{}), map[string]bool{})
	if err != nil || !retry {
		t.Fatalf("retry=%v err=%v", retry, err)
	}
	if w := writes(scopes); len(w) > 0 {
		t.Errorf("wrote %v", w)
	}
	if e := <-events.Events; !strings.Contains(e, ReasonPermissionsNotHeld) || !strings.Contains(e, "etcd-operator") {
		t.Errorf("event %q", e)
	}
	// What an earlier version was given stays while an upgrade that
	// changes a rule waits for OLM's grant. (One that changes no rule is
	// taken over at once: it grants nothing new.)
	old := settled(t)
	c, scopes, _, _ = newTestController(t, false, old...)
	upgraded := exampleCSV
	upgraded.Name, upgraded.UID, upgraded.Replaces = "etcdoperator.v0.9.5", "uid-2", "etcdoperator.v0.9.4"
	upgraded.Permissions = []permission{{ServiceAccountName: "etcd-operator", Rules: []rbacv1.PolicyRule{crdsRule}}} // a changed rule
	keep := map[string]bool{}
	if _, err := c.generate(context.Background(), plan(upgraded, opsGroups, config{}), keep); err != nil {
		t.Fatal(err)
	}
	if w := writes(scopes); len(w) > 0 || len(keep) != 4 {
		t.Errorf("wrote %v, kept %v", w, keep)
	}
}

func TestDeleteUnclaimedDeletesOnlyGeneratedObjectsByUID(t *testing.T) {
	handMade := &scopesv1alpha1.ScopeTemplate{ObjectMeta: metav1.ObjectMeta{Name: "hand-made", UID: "t-1"}}
	objects := append(settled(t), handMade)
	c, scopes, _, _ := newTestController(t, true, objects...)
	if err := c.deleteUnclaimed(context.Background(), map[string]bool{}); err != nil {
		t.Fatal(err)
	}
	var deleted []string
	for _, a := range scopes.Actions() {
		if d, ok := a.(clienttesting.DeleteAction); ok {
			deleted = append(deleted, d.GetResource().Resource+"/"+d.GetName())
			if d.GetDeleteOptions().Preconditions == nil || d.GetDeleteOptions().Preconditions.UID == nil {
				t.Errorf("deleted %s without a UID precondition", d.GetName())
			}
		}
	}
	if len(deleted) != 4 || strings.Contains(strings.Join(deleted, ","), "hand-made") {
		t.Errorf("deleted %v", deleted)
	}
	// Instances before templates: a template without instances loses its roles anyway.
	if !strings.HasPrefix(deleted[0], "scopeinstances") || !strings.HasPrefix(deleted[3], "scopetemplates") {
		t.Errorf("order %v", deleted)
	}
}

// settledWith is settled(t) with the namespaced instance changed by edit,
// as the admin's write would leave it.
func settledWith(t *testing.T, edit func(*scopesv1alpha1.ScopeInstance)) []runtime.Object {
	t.Helper()
	objects := settled(t)
	for _, o := range objects {
		if i, ok := o.(*scopesv1alpha1.ScopeInstance); ok && i.Name == "olm-ops-etcdoperator" {
			edit(i)
		}
	}
	return objects
}

// askedWhere is every SubjectAccessReview asked: its namespace ("" is
// cluster-wide), and whether it named any group.
func askedWhere(kube *kubefake.Clientset) (namespaces []string, groups bool) {
	for _, a := range kube.Actions() {
		create, ok := a.(clienttesting.CreateAction)
		if !ok {
			continue
		}
		review := create.GetObject().(*authorizationv1.SubjectAccessReview)
		groups = groups || len(review.Spec.Groups) > 0
		if review.Spec.ResourceAttributes != nil {
			namespaces = append(namespaces, review.Spec.ResourceAttributes.Namespace)
		}
	}
	return namespaces, groups
}

// Held means bound to the ServiceAccount by name: the review names its user
// and none of the groups every ServiceAccount is in.
func TestHeldAsksForTheServiceAccountAlone(t *testing.T) {
	c, _, kube, _ := newTestController(t, true)
	if _, err := c.generate(context.Background(), plan(exampleCSV, opsGroups, config{}), map[string]bool{}); err != nil {
		t.Fatal(err)
	}
	namespaces, groups := askedWhere(kube)
	if groups || len(namespaces) == 0 {
		t.Errorf("asked %d reviews, with groups: %v", len(namespaces), groups)
	}
}

// An upgrade's changed rule, on an instance the admin gave a selector, is
// asked cluster-wide: the selector binds wherever labels match, now or later.
func TestGenerateAsksClusterWideUnderASelector(t *testing.T) {
	old := settledWith(t, func(i *scopesv1alpha1.ScopeInstance) {
		i.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	})
	c, scopes, kube, events := newTestController(t, false, old...)
	upgraded := exampleCSV
	upgraded.Name, upgraded.UID, upgraded.Replaces = "etcdoperator.v0.9.5", "uid-2", "etcdoperator.v0.9.4"
	upgraded.Permissions = []permission{{ServiceAccountName: "etcd-operator", Rules: []rbacv1.PolicyRule{podsRule, crdsRule}}}
	retry, err := c.generate(context.Background(), plan(upgraded, opsGroups, config{}), map[string]bool{})
	if err != nil || !retry {
		t.Fatalf("retry=%v err=%v", retry, err)
	}
	if namespaces, _ := askedWhere(kube); len(namespaces) != 1 || namespaces[0] != "" {
		t.Errorf("asked in %q, want cluster-wide only", namespaces)
	}
	if w := writes(scopes); len(w) > 0 {
		t.Errorf("wrote %v", w)
	}
	if e := <-events.Events; !strings.Contains(e, ReasonPermissionsNotHeld) || !strings.Contains(e, "namespaceSelector") {
		t.Errorf("event %q", e)
	}
}

// An instance the admin empties binds nowhere: deleted, its template marked
// first, and not generated again.
func TestGenerateWithdrawsAnInstanceNarrowedToNothing(t *testing.T) {
	old := settledWith(t, func(i *scopesv1alpha1.ScopeInstance) { i.Spec.Namespaces = nil })
	c, scopes, _, events := newTestController(t, true, old...)
	keep := map[string]bool{}
	if _, err := c.generate(context.Background(), plan(exampleCSV, opsGroups, config{}), keep); err != nil {
		t.Fatal(err)
	}
	if w := writes(scopes); strings.Join(w, ",") != "update scopetemplates,delete scopeinstances" {
		t.Errorf("wrote %v, want the mark, then the deletion", w)
	}
	if keep["ScopeInstance/olm-ops-etcdoperator"] || !keep["ScopeTemplate/olm-ops-etcdoperator"] {
		t.Errorf("kept %v", keep)
	}
	if e := <-events.Events; !strings.Contains(e, ReasonWithdrawn) {
		t.Errorf("event %q", e)
	}
	template, err := scopes.ScopesV1alpha1().ScopeTemplates().Get(context.Background(), "olm-ops-etcdoperator", metav1.GetOptions{})
	if err != nil || template.Annotations[WithdrawnAnnotation] != "true" {
		t.Fatalf("template %v, err %v", template.Annotations, err)
	}

	// Later syncs (and the upgrade) generate no instance for it.
	var now []runtime.Object
	for _, o := range old {
		if i, ok := o.(*scopesv1alpha1.ScopeInstance); ok && i.Name == "olm-ops-etcdoperator" {
			continue
		}
		if tm, ok := o.(*scopesv1alpha1.ScopeTemplate); ok && tm.Name == "olm-ops-etcdoperator" {
			o = template
		}
		now = append(now, o)
	}
	c, scopes, _, _ = newTestController(t, true, now...)
	upgraded := exampleCSV
	upgraded.Name, upgraded.UID, upgraded.Replaces = "etcdoperator.v0.9.5", "uid-2", "etcdoperator.v0.9.4"
	keep = map[string]bool{}
	if _, err := c.generate(context.Background(), plan(upgraded, opsGroups, config{}), keep); err != nil {
		t.Fatal(err)
	}
	for _, a := range scopes.Actions() {
		if a.GetVerb() == "create" {
			t.Errorf("created %s", a.GetResource().Resource)
		}
	}
	if keep["ScopeInstance/olm-ops-etcdoperator"] || !keep["ScopeTemplate/olm-ops-etcdoperator"] {
		t.Errorf("kept %v", keep)
	}
}

// A mark that cannot be written does not keep a cluster-wide instance: it
// is deleted all the same, and the failure is an error (Degraded).
func TestGenerateWithdrawsEvenWhenTheMarkFails(t *testing.T) {
	old := settledWith(t, func(i *scopesv1alpha1.ScopeInstance) { i.Spec.Namespaces = nil })
	c, scopes, _, _ := newTestController(t, true, old...)
	scopes.PrependReactor("update", "scopetemplates", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "scopetemplates"}, "olm-ops-etcdoperator", errors.New("no"))
	})
	keep := map[string]bool{}
	if _, err := c.generate(context.Background(), plan(exampleCSV, opsGroups, config{}), keep); err == nil {
		t.Error("no error")
	}
	if w := writes(scopes); strings.Join(w, ",") != "update scopetemplates,delete scopeinstances" {
		t.Errorf("wrote %v", w)
	}
	if keep["ScopeInstance/olm-ops-etcdoperator"] {
		t.Errorf("kept %v", keep)
	}
}

// A CSV whose permissions expand past the bound on reviews is told so, with
// its own reason: not that OLM has not given its ServiceAccount something.
// Nothing is asked, nothing is written.
func TestGenerateSaysWhenACSVHasTooManyPermissionsToCheck(t *testing.T) {
	c, scopes, kube, events := newTestController(t, true)
	var resources, verbs []string
	for i := range 100 {
		resources = append(resources, fmt.Sprintf("things%d", i))
	}
	for i := range 21 {
		verbs = append(verbs, fmt.Sprintf("verb%d", i))
	}
	big := exampleCSV
	big.Permissions = []permission{{ServiceAccountName: "etcd-operator", Rules: []rbacv1.PolicyRule{{APIGroups: []string{"example.com"}, Resources: resources, Verbs: verbs}}}}
	retry, err := c.generate(context.Background(), plan(big, opsGroups, config{}), map[string]bool{})
	if err != nil || !retry {
		t.Fatalf("retry=%v err=%v", retry, err)
	}
	if w := writes(scopes); len(w) > 0 {
		t.Errorf("wrote %v", w)
	}
	if n := len(kube.Actions()); n > 0 {
		t.Errorf("asked %d SubjectAccessReviews of a CSV past the bound", n)
	}
	e := <-events.Events
	if !strings.Contains(e, ReasonTooManyPermissions) || !strings.Contains(e, "more than 2000 single permissions") || strings.Contains(e, "OLM has not") {
		t.Errorf("event %q, want %s naming the bound", e, ReasonTooManyPermissions)
	}
}

// While a CSV's OperatorGroup is not whole (none, two, a selector OLM has
// not resolved), what was generated stays as it is, as OLM leaves its RBAC:
// nothing deleted, nothing written, the Event says why and names what is
// kept, and the condition names the CSV. Once the group is whole again, the
// generator follows it.
func TestGenerateKeepsTheScopeWhileTheOperatorGroupIsNotWhole(t *testing.T) {
	for _, tc := range []struct {
		name   string
		groups map[string][]operatorGroup
		reason string
	}{
		{"no OperatorGroup", map[string][]operatorGroup{}, ReasonNoOperatorGroup},
		{"two OperatorGroups", map[string][]operatorGroup{"ops": {opsGroups["ops"][0], {Name: "second", Namespace: "ops", Targets: []string{"ops"}}}}, ReasonTooManyOperatorGroup},
		{"a selector not resolved", map[string][]operatorGroup{"ops": {{Name: "g", Namespace: "ops", Pending: true}}}, ReasonTargetsNotResolved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, scopes, kube, events := newTestController(t, true, settled(t)...)
			keep := map[string]bool{}
			if _, err := c.generate(context.Background(), plan(exampleCSV, tc.groups, config{}), keep); err != nil {
				t.Fatal(err)
			}
			if err := c.deleteUnclaimed(context.Background(), keep); err != nil {
				t.Fatal(err)
			}
			if w := writes(scopes); len(w) > 0 {
				t.Errorf("wrote %v", w)
			}
			if n := len(kube.Actions()); n > 0 {
				t.Errorf("asked %d SubjectAccessReviews", n)
			}
			if len(keep) != 4 {
				t.Errorf("kept %v, want the 4 generated objects", keep)
			}
			e := <-events.Events
			if !strings.Contains(e, tc.reason) || !strings.Contains(e, "stays as it is") || !strings.Contains(e, "ScopeInstance olm-ops-etcdoperator-cluster") {
				t.Errorf("event %q", e)
			}
			if len(c.kept) != 1 || !strings.HasPrefix(c.kept[0], "ops/etcdoperator.v0.9.4 (") {
				t.Errorf("kept CSVs %q", c.kept)
			}
			condition := keptCondition(c.kept)
			if *condition.Status != operatorv1.ConditionFalse || *condition.Reason != ReasonScopesKept || !strings.Contains(*condition.Message, "ops/etcdoperator.v0.9.4") {
				t.Errorf("condition %s %s %q", *condition.Status, *condition.Reason, *condition.Message)
			}

			// Whole again: followed, with nothing new to write for the same targets.
			c.kept = nil
			keep = map[string]bool{}
			if _, err := c.generate(context.Background(), plan(exampleCSV, opsGroups, config{}), keep); err != nil {
				t.Fatal(err)
			}
			if w := writes(scopes); len(w) > 0 || len(keep) != 4 || len(c.kept) != 0 {
				t.Errorf("wrote %v, kept %v and CSVs %q", w, keep, c.kept)
			}
			if condition := keptCondition(c.kept); *condition.Status != operatorv1.ConditionTrue {
				t.Errorf("condition %s", *condition.Status)
			}
		})
	}
}

// A CSV that never had a scope is told nothing is generated, as before,
// and is not named in the condition: nothing is kept for it.
func TestGenerateWithoutAScopeSaysNothingIsGenerated(t *testing.T) {
	c, scopes, _, events := newTestController(t, true)
	if _, err := c.generate(context.Background(), plan(exampleCSV, map[string][]operatorGroup{}, config{}), map[string]bool{}); err != nil {
		t.Fatal(err)
	}
	if w := writes(scopes); len(w) > 0 || len(c.kept) > 0 {
		t.Errorf("wrote %v, kept %q", w, c.kept)
	}
	if e := <-events.Events; !strings.Contains(e, ReasonNoOperatorGroup) || !strings.Contains(e, "no scope is generated:") {
		t.Errorf("event %q", e)
	}
}

// The condition is applied under the controller's field manager, and says
// True once nothing is kept.
func TestReportKeptAppliesTheCondition(t *testing.T) {
	client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{}, &operatorv1.OperatorStatus{}, nil)
	c := &controller{operator: client}
	if err := c.reportKept(context.Background(), []string{"ops/b (x)", "ops/a (y)"}); err != nil {
		t.Fatal(err)
	}
	_, status, _, _ := client.GetOperatorState()
	got := v1helpers.FindOperatorCondition(status.Conditions, FollowsOperatorGroups)
	if got == nil || got.Status != operatorv1.ConditionFalse || !strings.Contains(got.Message, "2 ClusterServiceVersion(s)") ||
		strings.Index(got.Message, "ops/a") > strings.Index(got.Message, "ops/b") {
		t.Fatalf("condition %+v", got)
	}
	if err := c.reportKept(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	_, status, _, _ = client.GetOperatorState()
	if !v1helpers.IsOperatorConditionTrue(status.Conditions, FollowsOperatorGroups) {
		t.Errorf("conditions %+v", status.Conditions)
	}
}

// An upgrade that arrives while the OperatorGroup is not whole keeps what
// the CSV it replaces had, unchanged: the takeover waits for the group.
func TestGenerateKeepsAnUpgradesScopeWhileTheOperatorGroupIsNotWhole(t *testing.T) {
	c, scopes, _, events := newTestController(t, true, settled(t)...)
	upgraded := exampleCSV
	upgraded.Name, upgraded.UID, upgraded.Replaces = "etcdoperator.v0.9.5", "uid-2", "etcdoperator.v0.9.4"
	upgraded.Permissions = []permission{{ServiceAccountName: "etcd-operator", Rules: []rbacv1.PolicyRule{podsRule, crdsRule}}}
	keep := map[string]bool{}
	if _, err := c.generate(context.Background(), plan(upgraded, map[string][]operatorGroup{}, config{}), keep); err != nil {
		t.Fatal(err)
	}
	if err := c.deleteUnclaimed(context.Background(), keep); err != nil {
		t.Fatal(err)
	}
	if w := writes(scopes); len(w) > 0 || len(keep) != 4 {
		t.Errorf("wrote %v, kept %v", w, keep)
	}
	if e := <-events.Events; !strings.Contains(e, ReasonNoOperatorGroup) || !strings.Contains(e, "stays as it is") {
		t.Errorf("event %q", e)
	}
}
