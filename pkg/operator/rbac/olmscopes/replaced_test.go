package olmscopes

import (
	"context"
	"slices"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

// recreated is settled(t) with its namespaced instance bound (status
// checked at its generation) in ops and team-a as they were, and team-a
// since deleted and re-created: another UID in the namespace cache.
func recreated(t *testing.T, checkedGeneration int64) ([]runtime.Object, corelisters.NamespaceLister) {
	t.Helper()
	objects := settled(t)
	for _, o := range objects {
		if i, ok := o.(*scopesv1alpha1.ScopeInstance); ok && i.Name == "olm-ops-etcdoperator" {
			i.Generation = 1
			i.Status.Checked = &scopesv1alpha1.CheckedScope{Generation: checkedGeneration,
				Namespaces: []scopesv1alpha1.NamespaceUID{{Name: "ops", UID: "ops-uid"}, {Name: "team-a", UID: "team-a-first"}}}
		}
	}
	namespaces := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for name, uid := range map[string]types.UID{"ops": "ops-uid", "team-a": "team-a-again"} {
		_ = namespaces.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid}})
	}
	return objects, corelisters.NewNamespaceLister(namespaces)
}

func reviewedNamespaces(actions []clienttesting.Action) []string {
	var out []string
	for _, a := range actions {
		if create, ok := a.(clienttesting.CreateAction); ok {
			if r, ok := create.GetObject().(*authorizationv1.SubjectAccessReview); ok && r.Spec.ResourceAttributes != nil {
				out = append(out, r.Spec.ResourceAttributes.Namespace)
			}
		}
	}
	return sortedUnique(out)
}

// A target namespace deleted and re-created is not bound by the scopes
// controller until the spec is written again; the generator writes it
// again once the CSV's ServiceAccount holds its rules there (OLM copied
// its Roles in), asked there alone, and until then says what it waits for.
func TestGenerateBindsARecreatedNamespaceOnceOLMGrantedThere(t *testing.T) {
	objects, namespaces := recreated(t, 1)
	c, scopes, kube, events := newTestController(t, false, objects...)
	c.namespaces = namespaces
	retry, err := c.generate(context.Background(), plan(exampleCSV, opsGroups, config{}), map[string]bool{})
	if err != nil || !retry {
		t.Fatalf("retry=%v err=%v", retry, err)
	}
	if w := writes(scopes); len(w) > 0 {
		t.Errorf("wrote %v before the ServiceAccount holds its rules in the re-created namespace", w)
	}
	if got := reviewedNamespaces(kube.Actions()); !slices.Equal(got, []string{"team-a"}) {
		t.Errorf("asked in %v, want team-a alone", got)
	}
	if e := <-events.Events; !strings.Contains(e, ReasonNamespaceReplaced) || !strings.Contains(e, "namespace team-a") || !strings.Contains(e, "OperatorGroup controller copies") {
		t.Errorf("event %q", e)
	}

	// OLM granted it there again: the same namespaces, another order, so a
	// new generation that the scopes controller pins anew.
	objects, namespaces = recreated(t, 1)
	c, scopes, kube, events = newTestController(t, true, objects...)
	c.namespaces = namespaces
	if retry, err := c.generate(context.Background(), plan(exampleCSV, opsGroups, config{}), map[string]bool{}); err != nil || retry {
		t.Fatalf("retry=%v err=%v", retry, err)
	}
	if w := writes(scopes); !slices.Equal(w, []string{"update scopeinstances"}) {
		t.Errorf("wrote %v, want the namespaced instance updated", w)
	}
	i, err := scopes.ScopesV1alpha1().ScopeInstances().Get(context.Background(), "olm-ops-etcdoperator", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(i.Spec.Namespaces, []string{"team-a", "ops"}) {
		t.Errorf("namespaces %v, want ops and team-a in another order", i.Spec.Namespaces)
	}
	if got := i.Annotations[ReboundAnnotation]; got != "team-a=team-a-again" {
		// A reordered set changes no field, so without it the API server
		// would keep the managed-fields time the scopes controller reads
		// as when the spec was written.
		t.Errorf("%s is %q, want the namespace and its UID", ReboundAnnotation, got)
	}
	if got := reviewedNamespaces(kube.Actions()); !slices.Equal(got, []string{"team-a"}) {
		t.Errorf("asked in %v, want team-a alone", got)
	}
	if e := <-events.Events; !strings.Contains(e, ReasonGenerated) || !strings.Contains(e, "bound again in namespace team-a") {
		t.Errorf("event %q", e)
	}

	// Written again for that namespace already, and still not bound: not
	// again (no loop of generations), and the CSV says so.
	objects, namespaces = recreated(t, 1)
	for _, o := range objects {
		if i, ok := o.(*scopesv1alpha1.ScopeInstance); ok && i.Name == "olm-ops-etcdoperator" {
			i.Annotations[ReboundAnnotation] = "team-a=team-a-again"
		}
	}
	c, scopes, _, events = newTestController(t, true, objects...)
	c.namespaces = namespaces
	if _, err := c.generate(context.Background(), plan(exampleCSV, opsGroups, config{}), map[string]bool{}); err != nil {
		t.Fatal(err)
	}
	if w := writes(scopes); len(w) > 0 {
		t.Errorf("wrote %v again for a namespace already written for", w)
	}
	if e := <-events.Events; !strings.Contains(e, ReasonNamespaceReplaced) || !strings.Contains(e, "still does not bind") {
		t.Errorf("event %q", e)
	}

	// Until the scopes controller has judged the current generation, its
	// pins say nothing: no write, no review.
	objects, namespaces = recreated(t, 0)
	c, scopes, kube, _ = newTestController(t, true, objects...)
	c.namespaces = namespaces
	if _, err := c.generate(context.Background(), plan(exampleCSV, opsGroups, config{}), map[string]bool{}); err != nil {
		t.Fatal(err)
	}
	if w := writes(scopes); len(w) > 0 || len(kube.Actions()) > 0 {
		t.Errorf("wrote %v and asked %d reviews for a generation not judged yet", w, len(kube.Actions()))
	}
}

// A write that adds a namespace pins the re-created one too: it is asked
// there as well, and nothing is written until it is held.
func TestGenerateAsksInARecreatedNamespaceWhenTheGroupGrows(t *testing.T) {
	objects, namespaces := recreated(t, 1)
	c, scopes, kube, events := newTestController(t, true, objects...)
	c.namespaces = namespaces
	kube.PrependReactor("create", "subjectaccessreviews", func(a clienttesting.Action) (bool, runtime.Object, error) {
		r := a.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		allowed := r.Spec.ResourceAttributes == nil || r.Spec.ResourceAttributes.Namespace != "team-a"
		return true, &authorizationv1.SubjectAccessReview{Status: authorizationv1.SubjectAccessReviewStatus{Allowed: allowed}}, nil
	})
	grown := map[string][]operatorGroup{"ops": {{Name: "g", Namespace: "ops", Targets: []string{"ops", "team-a", "team-b"}}}}
	retry, err := c.generate(context.Background(), plan(exampleCSV, grown, config{}), map[string]bool{})
	if err != nil || !retry {
		t.Fatalf("retry=%v err=%v", retry, err)
	}
	if w := writes(scopes); len(w) > 0 {
		t.Errorf("wrote %v, which would bind the re-created team-a its ServiceAccount does not hold there", w)
	}
	if got := reviewedNamespaces(kube.Actions()); !slices.Equal(got, []string{"team-a", "team-b"}) {
		t.Errorf("asked in %v, want team-b (added) and team-a (re-created)", got)
	}
	if e := <-events.Events; !strings.Contains(e, ReasonNamespaceReplaced) || !strings.Contains(e, "team-a") {
		t.Errorf("event %q", e)
	}
}
