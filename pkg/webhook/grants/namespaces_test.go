package grants

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

// fakeNamespaces holds namespaces by name: true for one that is active,
// false for one being deleted; with all set, every name is active. It
// records the names it was asked about.
type fakeNamespaces struct {
	state map[string]bool
	all   bool
	err   error

	mu    *sync.Mutex
	asked *[]string
}

func namespacesOf(state map[string]bool) fakeNamespaces {
	return fakeNamespaces{state: state, mu: &sync.Mutex{}, asked: &[]string{}}
}

var allExist = fakeNamespaces{all: true}

func (f fakeNamespaces) Unusable(_ context.Context, names []string) (missing, terminating []string, err error) {
	if f.asked != nil {
		f.mu.Lock()
		*f.asked = append(*f.asked, names...)
		f.mu.Unlock()
	}
	if f.err != nil {
		return nil, nil, f.err
	}
	for _, name := range names {
		active, exists := f.state[name]
		switch {
		case f.all:
		case !exists:
			missing = append(missing, name)
		case !active:
			terminating = append(terminating, name)
		}
	}
	slices.Sort(missing)
	slices.Sort(terminating)
	return missing, terminating, nil
}

func (f fakeNamespaces) lookedUp() []string {
	if f.asked == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(*f.asked)
}

func updateRequest(t testing.TB, resource string, old, updated any) Request {
	r := create(t, resource, updated)
	r.Operation, r.OldObject = "UPDATE", raw(t, old)
	return r
}

// A listed namespace that does not exist, or is being deleted, would be
// bound for whoever creates it next, which the permission check could not
// judge: the object is refused, saying which namespace, why and what to do,
// as Kubernetes refuses a RoleBinding in a missing namespace. The requester
// here holds everything everywhere, as a cluster admin.
func TestListedNamespacesMustExist(t *testing.T) {
	templates := fakeTemplates{templates: map[string]*scopesv1alpha1.ScopeTemplate{"t": template("t", readSecrets)}}
	admin := newFake().hold("", readTemplate("t"), res("get", "", "secrets"), res("list", "", "secrets"), createRoleBindings, createClusterRoleBindings,
		Permission{Verb: "get", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "widgets.example.com"})
	for _, verb := range []string{"*", "create", "update", "patch", "delete", "get", "list", "watch"} {
		admin.hold("", res(verb, "example.com", "widgets"))
	}
	state := map[string]bool{"shop": true, "old": false, "older": false}
	many := []string{"shop"}
	for i := range 12 {
		many = append(many, fmt.Sprintf("gone-%02d", i))
	}
	bob := []apiaccessv1alpha1.Subject{{Kind: "User", Name: "bob"}}
	selected := &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	const why = ": a listed namespace is bound for whoever creates it, so list only namespaces that exist; "

	cases := []struct {
		name     string
		resource string
		object   any
		looked   []string
		message  string // empty: admitted
	}{{
		name:     "a missing namespace",
		resource: ScopeInstances, object: instance("i", "t", []string{"shop", "payments"}, nil),
		looked:  []string{"shop", "payments"},
		message: `ScopeInstance "i" lists namespace "payments", which does not exist` + why + `create it first (oc create namespace payments), then apply again`,
	}, {
		name:     "a namespace being deleted",
		resource: ScopeInstances, object: instance("i", "t", []string{"old", "shop"}, nil),
		looked:  []string{"old", "shop"},
		message: `ScopeInstance "i" lists namespace "old", which is being deleted` + why + `wait until it is gone, create it again (oc create namespace old), then apply again`,
	}, {
		name:     "both, and two being deleted",
		resource: ScopeInstances, object: instance("i", "t", []string{"older", "payments", "old"}, nil),
		looked: []string{"older", "payments", "old"},
		message: `ScopeInstance "i" lists namespace "payments", which does not exist, and 2 namespaces being deleted: "old", "older"` + why +
			`create the missing ones first (oc create namespace payments), wait until those being deleted are gone and create them again, then apply again`,
	}, {
		name:     "many missing: ten named, the rest counted",
		resource: ScopeInstances, object: instance("i", "t", many, nil),
		looked: many,
		message: `ScopeInstance "i" lists 12 namespaces that do not exist: "gone-00", "gone-01", "gone-02", "gone-03", "gone-04", "gone-05", "gone-06", "gone-07", "gone-08", "gone-09" and 2 more` +
			why + `create them first (oc create namespace gone-00), then apply again`,
	}, {
		name:     "listed beside a selector, still refused",
		resource: ScopeInstances, object: instance("i", "t", []string{"payments"}, selected),
		looked:  []string{"payments"},
		message: `ScopeInstance "i" lists namespace "payments", which does not exist` + why,
	}, {
		name:     "existing namespaces are admitted",
		resource: ScopeInstances, object: instance("i", "t", []string{"shop"}, nil),
		looked: []string{"shop"},
	}, {
		name:     "a selector alone lists nothing",
		resource: ScopeInstances, object: instance("i", "t", nil, selected),
	}, {
		name:     "cluster-wide lists nothing",
		resource: ScopeInstances, object: instance("i", "t", nil, nil),
	}, {
		name:     "a ScopeTemplate lists nothing",
		resource: ScopeTemplates, object: template("t", readSecrets),
	}, {
		name:     "Bind: every binding's namespaces, each once",
		resource: APIAccessPolicies,
		object: policy(apiaccessv1alpha1.ModeBind,
			apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleEdit, Subjects: bob, Namespaces: []string{"shop"}},
			apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleView, Subjects: bob, Namespaces: []string{"shop", "payments"}}),
		looked:  []string{"shop", "payments"},
		message: `APIAccessPolicy "p" lists namespace "payments", which does not exist` + why + `create it first (oc create namespace payments), then apply again`,
	}, {
		name:     "Bind without namespaces binds cluster-wide",
		resource: APIAccessPolicies,
		object:   policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleEdit, Subjects: bob}),
	}, {
		name:     "Aggregate binds nothing",
		resource: APIAccessPolicies, object: policy(apiaccessv1alpha1.ModeAggregate),
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			namespaces := namespacesOf(state)
			d := (&Checker{Instances: noInstances, Authorizer: admin, Templates: templates, Namespaces: namespaces}).Check(context.Background(), create(t, tc.resource, tc.object))
			if tc.message == "" {
				if !d.Allowed {
					t.Errorf("got %+v, want admitted", d)
				}
			} else if d.Allowed || d.Reason != NamespacesNotFound || !strings.Contains(d.Message, tc.message) {
				t.Errorf("got %+v, want refused (NamespacesNotFound) with\n%s", d, tc.message)
			}
			if got := namespaces.lookedUp(); !slices.Equal(got, tc.looked) {
				t.Errorf("looked up %v, want %v", got, tc.looked)
			}
		})
	}
}

// An update is checked only when its spec changes, and then its namespaces
// too: a label added to an instance whose namespace was deleted since is
// admitted (the controller reports the namespace); any change of spec is
// judged with the namespaces as they are now.
func TestAnUpdateChecksNamespacesOnlyWithItsSpec(t *testing.T) {
	templates := fakeTemplates{templates: map[string]*scopesv1alpha1.ScopeTemplate{"t": template("t", readSecrets), "u": template("u", readSecrets)}}
	admin := newFake().hold("", readTemplate("t"), readTemplate("u"), res("get", "", "secrets"), res("list", "", "secrets"), createRoleBindings)
	old := instance("i", "t", []string{"shop", "payments"}, nil)

	labelled := old.DeepCopy()
	labelled.Labels = map[string]string{"team": "a"}
	namespaces := namespacesOf(map[string]bool{"shop": true})
	c := &Checker{Instances: noInstances, Authorizer: admin, Templates: templates, Namespaces: namespaces}
	if d := c.Check(context.Background(), updateRequest(t, ScopeInstances, old, labelled)); !d.Allowed || d.Reviews != 0 {
		t.Errorf("a label: got %+v, want admitted unchecked", d)
	}
	if got := namespaces.lookedUp(); len(got) > 0 {
		t.Errorf("a label looked up namespaces %v", got)
	}

	retemplated := old.DeepCopy()
	retemplated.Spec.ScopeTemplateName = "u"
	d := c.Check(context.Background(), updateRequest(t, ScopeInstances, old, retemplated))
	if d.Allowed || d.Reason != NamespacesNotFound || !strings.Contains(d.Message, `ScopeInstance "i" lists namespace "payments", which does not exist`) {
		t.Errorf("another template, the same namespaces: got %+v, want refused for payments", d)
	}

	narrowed := old.DeepCopy()
	narrowed.Spec.Namespaces = []string{"shop"}
	if d := c.Check(context.Background(), updateRequest(t, ScopeInstances, old, narrowed)); !d.Allowed {
		t.Errorf("payments dropped from the list: got %+v, want admitted", d)
	}
}

// Whether a namespace exists is told only to a requester who holds what
// the object grants there, as Kubernetes answers a RoleBinding's author:
// anyone else is refused for what they lack, and nothing is looked up.
func TestNamespacesAreLookedUpOnlyForAHolder(t *testing.T) {
	templates := fakeTemplates{templates: map[string]*scopesv1alpha1.ScopeTemplate{"t": template("t", readSecrets)}}
	namespaces := namespacesOf(map[string]bool{})
	d := (&Checker{Instances: noInstances, Authorizer: newFake().hold("", readTemplate("t")), Templates: templates, Namespaces: namespaces}).
		Check(context.Background(), create(t, ScopeInstances, instance("i", "t", []string{"payments"}, nil)))
	if d.Allowed || d.Reason != Escalation || strings.Contains(d.Message, "exist") {
		t.Errorf("got %+v, want refused for the missing permissions, not the namespace", d)
	}
	if got := namespaces.lookedUp(); len(got) > 0 {
		t.Errorf("looked up %v for a requester who holds nothing there", got)
	}
}

// A lookup that fails refuses, retryably: the check never admits what it
// could not check. So does a checker built without a way to look up.
func TestNamespaceLookupFailuresRefuse(t *testing.T) {
	templates := fakeTemplates{templates: map[string]*scopesv1alpha1.ScopeTemplate{"t": template("t", readSecrets)}}
	admin := newFake().hold("", readTemplate("t"), res("get", "", "secrets"), res("list", "", "secrets"), createRoleBindings)
	req := create(t, ScopeInstances, instance("i", "t", []string{"shop"}, nil))
	for name, tc := range map[string]struct {
		namespaces Namespaces
		says       string
	}{
		"the API server fails": {fakeNamespaces{err: errors.New("etcd is down")}, "reading the listed namespaces: etcd is down"},
		"no lookup configured": {nil, "the check has no way to read namespaces"},
	} {
		t.Run(name, func(t *testing.T) {
			d := (&Checker{Instances: noInstances, Authorizer: admin, Templates: templates, Namespaces: tc.namespaces}).Check(context.Background(), req)
			if d.Allowed || d.Reason != CheckFailed || !strings.Contains(d.Message, tc.says) || !strings.HasSuffix(d.Message, "retry") {
				t.Errorf("got %+v, want a retryable refusal saying %q", d, tc.says)
			}
			if d.Reviews != 4 {
				t.Errorf("Reviews = %d, want the 4 questions asked before", d.Reviews)
			}
		})
	}
}
