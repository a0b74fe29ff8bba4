package grants

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

// fakeAuthorizer holds permissions literally, cluster-wide (namespace "")
// or per namespace; a cluster-wide one holds in every namespace, as RBAC.
// It records every question.
type fakeAuthorizer struct {
	held map[string]map[Permission]bool
	err  error
	// delay makes each answer take that long.
	delay time.Duration

	mu        sync.Mutex
	asked     []string
	inFlight  atomic.Int32
	maxFlight atomic.Int32
}

func newFake() *fakeAuthorizer { return &fakeAuthorizer{held: map[string]map[Permission]bool{}} }

func (f *fakeAuthorizer) hold(namespace string, ps ...Permission) *fakeAuthorizer {
	if f.held[namespace] == nil {
		f.held[namespace] = map[Permission]bool{}
	}
	for _, p := range ps {
		f.held[namespace][p] = true
	}
	return f
}

func (f *fakeAuthorizer) Allowed(ctx context.Context, r Requester, namespace string, p Permission) (bool, error) {
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxFlight.Load()
		if n <= m || f.maxFlight.CompareAndSwap(m, n) {
			break
		}
	}
	f.mu.Lock()
	f.asked = append(f.asked, fmt.Sprintf("%s|%s", namespace, describePermission(p)))
	f.mu.Unlock()
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	if f.err != nil {
		return false, f.err
	}
	return f.held[""][p] || (namespace != "" && f.held[namespace][p]), nil
}

func (f *fakeAuthorizer) questions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

type fakeTemplates struct {
	templates map[string]*scopesv1alpha1.ScopeTemplate
	err       error
}

func (f fakeTemplates) GetScopeTemplate(_ context.Context, name string) (*scopesv1alpha1.ScopeTemplate, error) {
	return f.templates[name], f.err
}

// fakeInstances holds ScopeInstances, and fails with err when set.
type fakeInstances struct {
	instances []scopesv1alpha1.ScopeInstance
	err       error
}

func (f fakeInstances) ScopeInstancesNaming(_ context.Context, template string) ([]scopesv1alpha1.ScopeInstance, error) {
	var naming []scopesv1alpha1.ScopeInstance
	for _, i := range f.instances {
		if i.Spec.ScopeTemplateName == template {
			naming = append(naming, i)
		}
	}
	return naming, f.err
}

// noInstances: no template is bound by any instance.
var noInstances = fakeInstances{}

var alice = Requester{Name: "alice", Groups: []string{"system:authenticated"}}

func res(verb, group, resource string) Permission {
	resource, sub, _ := strings.Cut(resource, "/")
	return Permission{Verb: verb, Group: group, Resource: resource, Subresource: sub}
}

func rule(groups, resources, verbs []string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: groups, Resources: resources, Verbs: verbs}
}

func template(name string, rules ...rbacv1.PolicyRule) *scopesv1alpha1.ScopeTemplate {
	return &scopesv1alpha1.ScopeTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{
			GenerateName: "role", Rules: rules, Subjects: []scopesv1alpha1.Subject{{Kind: "User", Name: "bob"}},
		}}},
	}
}

func instance(name, templateName string, namespaces []string, selector *metav1.LabelSelector) *scopesv1alpha1.ScopeInstance {
	return &scopesv1alpha1.ScopeInstance{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       scopesv1alpha1.ScopeInstanceSpec{ScopeTemplateName: templateName, Namespaces: namespaces, NamespaceSelector: selector},
	}
}

func raw(t testing.TB, o any) []byte {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func create(t testing.TB, resource string, o any) Request {
	group := scopesv1alpha1.GroupName
	if resource == APIAccessPolicies {
		group = apiaccessv1alpha1.GroupName
	}
	return Request{Group: group, Resource: resource, Operation: "CREATE", Object: raw(t, o), Requester: alice}
}

var readSecrets = rule([]string{""}, []string{"secrets"}, []string{"get", "list"})

var (
	createRoleBindings        = res("create", rbacv1.GroupName, "rolebindings")
	createClusterRoleBindings = res("create", rbacv1.GroupName, "clusterrolebindings")
)

func TestScopeTemplateNeedsEveryRuleClusterWide(t *testing.T) {
	tmpl := template("x", readSecrets, rule([]string{""}, []string{"secrets"}, []string{"delete"}))
	auth := newFake().hold("", res("get", "", "secrets"), res("list", "", "secrets")).hold("shop", res("delete", "", "secrets"))
	c := &Checker{Instances: noInstances, Authorizer: auth}

	d := c.Check(context.Background(), create(t, ScopeTemplates, tmpl))
	want := `ScopeTemplate "x" grants verb "delete" on "secrets" (group "") cluster-wide, which user "alice" does not hold; you can only grant what you hold`
	if d.Allowed || d.Reason != Escalation || d.Message != want {
		t.Fatalf("got %+v, want the denial %q", d, want)
	}
	if d.Reviews != 3 || len(auth.questions()) != 3 {
		t.Errorf("asked %d (%v), want 3 cluster-wide questions", d.Reviews, auth.questions())
	}

	auth.hold("", res("delete", "", "secrets"))
	if d := c.Check(context.Background(), create(t, ScopeTemplates, tmpl)); !d.Allowed {
		t.Fatalf("a holder of every rule cluster-wide is refused: %+v", d)
	}
}

func TestRulesExpandLiterally(t *testing.T) {
	tmpl := template("x",
		rbacv1.PolicyRule{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}},
		rule([]string{"*"}, []string{"*"}, []string{"*"}),
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a", "b"}, Verbs: []string{"update"}},
		rule([]string{""}, []string{"pods/log"}, []string{"get"}),
		// duplicates are asked once
		rule([]string{""}, []string{"pods/log"}, []string{"get"}),
	)
	auth := newFake()
	d := (&Checker{Instances: noInstances, Authorizer: auth, Concurrency: 1}).Check(context.Background(), create(t, ScopeTemplates, tmpl))
	if d.Allowed {
		t.Fatal("allowed with nothing held")
	}
	want := []string{
		`|verb "get" on non-resource URL "/metrics"`,
		`|verb "*" on "*" (group "*")`,
		`|verb "update" on "configmaps" named "a" (group "")`,
		`|verb "update" on "configmaps" named "b" (group "")`,
		`|verb "get" on "pods/log" (group "")`,
	}
	if got := auth.questions(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("questions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(d.Message, "grants 5 permissions user \"alice\" does not hold: ") || !strings.HasSuffix(d.Message, "; and 2 more; you can only grant what you hold") {
		t.Errorf("message does not name three and count the rest: %s", d.Message)
	}
	// A holder of the wildcard alone does not hold a rule asked for by name:
	// the authorizer decides that, the check never infers it.
}

func TestScopeInstanceAsksWhereItBinds(t *testing.T) {
	tmpl := template("t", readSecrets)
	templates := fakeTemplates{templates: map[string]*scopesv1alpha1.ScopeTemplate{"t": tmpl}}
	const readT = `|verb "get" on "scopetemplates" named "t" (group "operators.coreos.com")`
	nsHolder := func() *fakeAuthorizer {
		return newFake().hold("", readTemplate("t")).hold("a", res("get", "", "secrets"), res("list", "", "secrets"), createRoleBindings)
	}

	cases := []struct {
		name      string
		instance  *scopesv1alpha1.ScopeInstance
		allowed   bool
		questions []string
		message   string
	}{{
		name:     "one held namespace is asked directly",
		instance: instance("i", "t", []string{"a"}, nil),
		allowed:  true,
		questions: []string{readT,
			`a|verb "create" on "rolebindings" (group "rbac.authorization.k8s.io")`, `a|verb "get" on "secrets" (group "")`, `a|verb "list" on "secrets" (group "")`},
	}, {
		name:     "two namespaces: cluster-wide first, then each namespace",
		instance: instance("i", "t", []string{"a", "b"}, nil),
		questions: []string{readT,
			`|verb "create" on "rolebindings" (group "rbac.authorization.k8s.io")`, `|verb "get" on "secrets" (group "")`, `|verb "list" on "secrets" (group "")`,
			`a|verb "create" on "rolebindings" (group "rbac.authorization.k8s.io")`, `b|verb "create" on "rolebindings" (group "rbac.authorization.k8s.io")`,
			`a|verb "get" on "secrets" (group "")`, `b|verb "get" on "secrets" (group "")`,
			`a|verb "list" on "secrets" (group "")`, `b|verb "list" on "secrets" (group "")`,
		},
		message: `ScopeInstance "i" grants or needs 3 permissions user "alice" does not hold: verb "create" on "rolebindings" (group "rbac.authorization.k8s.io") in namespace "b" (to create the bindings); verb "get" on "secrets" (group "") in namespace "b"; verb "list" on "secrets" (group "") in namespace "b"; you can only grant what you hold`,
	}, {
		name:     "no namespaces binds cluster-wide",
		instance: instance("i", "t", nil, nil),
		questions: []string{readT,
			`|verb "create" on "clusterrolebindings" (group "rbac.authorization.k8s.io")`, `|verb "get" on "secrets" (group "")`, `|verb "list" on "secrets" (group "")`},
		message: `ScopeInstance "i" grants or needs 3 permissions user "alice" does not hold: verb "create" on "clusterrolebindings" (group "rbac.authorization.k8s.io") cluster-wide (to create the bindings); verb "get" on "secrets" (group "") cluster-wide; verb "list" on "secrets" (group "") cluster-wide; you can only grant what you hold`,
	}, {
		name:     "a selector can match namespaces created later: cluster-wide",
		instance: instance("i", "t", []string{"a"}, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "x"}}),
		questions: []string{readT,
			`|verb "create" on "rolebindings" (group "rbac.authorization.k8s.io")`, `|verb "get" on "secrets" (group "")`, `|verb "list" on "secrets" (group "")`},
		message: `cluster-wide`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			auth := nsHolder()
			d := (&Checker{Instances: noInstances, Authorizer: auth, Templates: templates, Namespaces: allExist, Concurrency: 1}).Check(context.Background(), create(t, ScopeInstances, tc.instance))
			if d.Allowed != tc.allowed || !strings.Contains(d.Message, tc.message) {
				t.Errorf("got %+v, want allowed=%v with message %q", d, tc.allowed, tc.message)
			}
			if got := auth.questions(); strings.Join(got, "\n") != strings.Join(tc.questions, "\n") {
				t.Errorf("questions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.questions, "\n"))
			}
			if d.Reviews != len(tc.questions) {
				t.Errorf("Reviews = %d, want %d", d.Reviews, len(tc.questions))
			}
		})
	}
}

func TestScopeInstanceHeldClusterWideAsksNoNamespace(t *testing.T) {
	templates := fakeTemplates{templates: map[string]*scopesv1alpha1.ScopeTemplate{"t": template("t", readSecrets)}}
	auth := newFake().hold("", readTemplate("t"), res("get", "", "secrets"), res("list", "", "secrets"), createRoleBindings)
	d := (&Checker{Instances: noInstances, Authorizer: auth, Templates: templates, Namespaces: allExist}).Check(context.Background(),
		create(t, ScopeInstances, instance("i", "t", []string{"a", "b", "c"}, nil)))
	if !d.Allowed || d.Reviews != 4 {
		t.Errorf("got %+v, want allowed after reading the template and 3 cluster-wide questions", d)
	}
}

// What a template not created yet will grant cannot be checked: only a
// requester who may bind any ClusterRole may name it, as Kubernetes asks of
// a RoleBinding to a missing role.
func TestScopeInstanceOfAMissingTemplateNeedsBindOnEveryClusterRole(t *testing.T) {
	req := create(t, ScopeInstances, instance("i", "later", []string{"mine"}, nil))
	holder := newFake().hold("", readTemplate("later")).hold("mine", res("get", "", "secrets"), res("list", "", "secrets"), createRoleBindings)
	d := (&Checker{Instances: noInstances, Authorizer: holder, Templates: fakeTemplates{}}).Check(context.Background(), req)
	if d.Allowed || d.Reason != Escalation || d.Reviews != 2 ||
		!strings.Contains(d.Message, `ScopeInstance "i" names ScopeTemplate "later", which does not exist (create it first)`) ||
		!strings.Contains(d.Message, `verb "bind" on "clusterroles" (group "rbac.authorization.k8s.io") cluster-wide`) {
		t.Errorf("got %+v, want refused after reading the template and one question, naming the template and bind", d)
	}
	// Binding any role settles what it grants, not where it may write.
	binder := newFake().hold("", readTemplate("later"), bindAnyClusterRole)
	d = (&Checker{Instances: noInstances, Authorizer: binder, Templates: fakeTemplates{}}).Check(context.Background(), req)
	if d.Allowed || d.Reviews != 3 || !strings.Contains(d.Message, `verb "create" on "rolebindings" (group "rbac.authorization.k8s.io") in namespace "mine" (to create the bindings)`) {
		t.Errorf("got %+v, want refused for create on rolebindings after 3 questions", d)
	}
	binder.hold("mine", createRoleBindings)
	d = (&Checker{Instances: noInstances, Authorizer: binder, Templates: fakeTemplates{}, Namespaces: allExist}).Check(context.Background(), req)
	if !d.Allowed || d.Reviews != 3 || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], `ScopeTemplate "later" does not exist`) {
		t.Errorf("got %+v, want admitted after 3 questions with a warning", d)
	}
}

func TestLookupFailuresRefuseRetryably(t *testing.T) {
	broken := errors.New("etcd is down")
	cases := map[string]struct {
		checker *Checker
		req     Request
	}{
		"template lookup": {
			checker: &Checker{Instances: noInstances, Authorizer: newFake().hold("", readTemplate("t")), Templates: fakeTemplates{err: broken}},
			req:     create(t, ScopeInstances, instance("i", "t", nil, nil)),
		},
		"bind review for a missing template": {
			checker: &Checker{Instances: noInstances, Authorizer: &fakeAuthorizer{err: broken}, Templates: fakeTemplates{}},
			req:     create(t, ScopeInstances, instance("i", "later", nil, nil)),
		},
		"access review": {
			checker: &Checker{Instances: noInstances, Authorizer: &fakeAuthorizer{err: broken}},
			req:     create(t, ScopeTemplates, template("x", readSecrets)),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := tc.checker.Check(context.Background(), tc.req)
			if d.Allowed || d.Reason != CheckFailed || !strings.Contains(d.Message, "etcd is down") || !strings.HasSuffix(d.Message, "retry") {
				t.Errorf("got %+v, want a retryable refusal naming the error", d)
			}
		})
	}
}

func TestTimeoutRefuses(t *testing.T) {
	auth := newFake()
	auth.delay = time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	d := (&Checker{Instances: noInstances, Authorizer: auth}).Check(ctx, create(t, ScopeTemplates, template("x", readSecrets)))
	if d.Allowed || d.Reason != CheckFailed || !strings.Contains(d.Message, "deadline") {
		t.Errorf("got %+v, want a refusal that says the check ran out of time", d)
	}
	if time.Since(start) > 500*time.Millisecond {
		t.Errorf("the check outlived its deadline: %v", time.Since(start))
	}
}

func policy(mode apiaccessv1alpha1.AccessMode, bindings ...apiaccessv1alpha1.AccessBinding) *apiaccessv1alpha1.APIAccessPolicy {
	return &apiaccessv1alpha1.APIAccessPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: apiaccessv1alpha1.APIAccessPolicySpec{
			CRDs: apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.example.com"}}, Mode: mode, Bindings: bindings,
		},
	}
}

func TestAPIAccessPolicy(t *testing.T) {
	crdView := Permission{Verb: "get", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "widgets.example.com"}
	cases := []struct {
		name      string
		policy    *apiaccessv1alpha1.APIAccessPolicy
		questions []string
		allowed   bool
	}{{
		name:    "Unmanaged grants nothing",
		policy:  policy(apiaccessv1alpha1.ModeUnmanaged),
		allowed: true,
	}, {
		name:   "Aggregate: the admin role's rules and crdview cluster-wide",
		policy: policy(apiaccessv1alpha1.ModeAggregate),
		questions: []string{
			`|verb "get" on "customresourcedefinitions" named "widgets.example.com" (group "apiextensions.k8s.io")`,
			`|verb "*" on "widgets" (group "example.com")`,
		},
	}, {
		name: "Bind: each binding's role where it binds, crdview cluster-wide",
		policy: policy(apiaccessv1alpha1.ModeBind,
			apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleView, Subjects: []apiaccessv1alpha1.Subject{{Kind: "User", Name: "bob"}}, Namespaces: []string{"a"}}),
		questions: []string{
			`|verb "create" on "clusterrolebindings" (group "rbac.authorization.k8s.io")`,
			`|verb "get" on "customresourcedefinitions" named "widgets.example.com" (group "apiextensions.k8s.io")`,
			`a|verb "create" on "rolebindings" (group "rbac.authorization.k8s.io")`,
			`a|verb "get" on "widgets" (group "example.com")`,
			`a|verb "list" on "widgets" (group "example.com")`,
			`a|verb "watch" on "widgets" (group "example.com")`,
		},
		allowed: true,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			auth := newFake().hold("", crdView, createClusterRoleBindings).hold("a", res("get", "example.com", "widgets"), res("list", "example.com", "widgets"), res("watch", "example.com", "widgets"), createRoleBindings)
			d := (&Checker{Instances: noInstances, Authorizer: auth, Namespaces: allExist, Concurrency: 1}).
				Check(context.Background(), create(t, APIAccessPolicies, tc.policy))
			if d.Allowed != tc.allowed {
				t.Errorf("got %+v, want allowed=%v", d, tc.allowed)
			}
			if got := auth.questions(); strings.Join(got, "\n") != strings.Join(tc.questions, "\n") {
				t.Errorf("questions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.questions, "\n"))
			}
		})
	}
}

// A selection by ClusterExtension or label grants on CRDs installed or
// labelled later: only a requester who may bind any ClusterRole may make
// it, in either mode, and one question settles it.
func TestGrowingCRDSelectionNeedsBindOnEveryClusterRole(t *testing.T) {
	byExtension := policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleAdmin, Subjects: []apiaccessv1alpha1.Subject{{Kind: "User", Name: "alice"}}})
	byExtension.Spec.CRDs = apiaccessv1alpha1.CRDSelection{ClusterExtension: "widgets-operator"}
	byLabel := policy(apiaccessv1alpha1.ModeAggregate)
	byLabel.Spec.CRDs = apiaccessv1alpha1.CRDSelection{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}}
	for name, tc := range map[string]struct {
		policy  *apiaccessv1alpha1.APIAccessPolicy
		why     string
		reviews int
	}{
		// Bind also writes a ClusterRoleBinding: create on them is asked.
		"ClusterExtension, Bind": {byExtension, `APIAccessPolicy "p" selects the CRDs of ClusterExtension "widgets-operator", including those it installs later`, 2},
		"selector, Aggregate":    {byLabel, `APIAccessPolicy "p" selects CRDs by label, including those labelled later`, 1},
	} {
		t.Run(name, func(t *testing.T) {
			// The fake holds literally: holding * on */* here stands for a
			// requester who holds much, but not bind (real RBAC's * covers it).
			admin := newFake().hold("", allResources)
			d := (&Checker{Instances: noInstances, Authorizer: admin}).Check(context.Background(), create(t, APIAccessPolicies, tc.policy))
			if d.Allowed || d.Reason != Escalation || d.Reviews != 1 || !strings.Contains(d.Message, tc.why) ||
				!strings.Contains(d.Message, "select CRDs by name") || !strings.Contains(d.Message, `verb "bind" on "clusterroles"`) {
				t.Errorf("got %+v, want refused after one question, saying why and what to do", d)
			}
			binder := newFake().hold("", bindAnyClusterRole, createClusterRoleBindings)
			if d := (&Checker{Instances: noInstances, Authorizer: binder}).Check(context.Background(), create(t, APIAccessPolicies, tc.policy)); !d.Allowed || d.Reviews != tc.reviews {
				t.Errorf("a binder of every ClusterRole: got %+v, want allowed after %d questions", d, tc.reviews)
			}
		})
	}
}

// A binding with an empty namespace list binds cluster-wide (the
// controller reads it so), so it is asked cluster-wide.
func TestEmptyNamespacesAreClusterWide(t *testing.T) {
	// As the API server sends it: a client's empty list is kept.
	req := Request{Group: apiaccessv1alpha1.GroupName, Resource: APIAccessPolicies, Operation: "CREATE", Requester: alice,
		Object: []byte(`{"metadata":{"name":"p"},"spec":{"crds":{"names":["widgets.example.com"]},"mode":"Bind",` +
			`"bindings":[{"role":"Admin","subjects":[{"kind":"User","name":"mallory"}],"namespaces":[]}]}}`)}
	crdView := Permission{Verb: "get", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "widgets.example.com"}
	d := (&Checker{Instances: noInstances, Authorizer: newFake().hold("", crdView)}).Check(context.Background(), req)
	if d.Allowed || !strings.Contains(d.Message, `verb "*" on "widgets" (group "example.com") cluster-wide`) {
		t.Errorf("got %+v, want refused for * on widgets cluster-wide", d)
	}
}

func TestAggregateDenialNamesTheWildcard(t *testing.T) {
	auth := newFake().hold("", res("get", "example.com", "widgets"))
	d := (&Checker{Instances: noInstances, Authorizer: auth}).
		Check(context.Background(), create(t, APIAccessPolicies, policy(apiaccessv1alpha1.ModeAggregate)))
	if d.Allowed || !strings.Contains(d.Message, `APIAccessPolicy "p" grants 2 permissions user "alice" does not hold: verb "get" on "customresourcedefinitions" named "widgets.example.com"`) ||
		!strings.Contains(d.Message, `verb "*" on "widgets" (group "example.com") cluster-wide`) {
		t.Errorf("got %+v", d)
	}
}

func TestUpdates(t *testing.T) {
	old := template("x", readSecrets)
	labelled := old.DeepCopy()
	labelled.Labels = map[string]string{"a": "b"}
	labelled.Finalizers = []string{"example.com/f"}
	widened := old.DeepCopy()
	widened.Spec.ClusterRoles[0].Rules = append(widened.Spec.ClusterRoles[0].Rules, rule([]string{""}, []string{"secrets"}, []string{"delete"}))
	resubjected := old.DeepCopy()
	resubjected.Spec.ClusterRoles[0].Subjects = []scopesv1alpha1.Subject{{Kind: "Group", Name: "system:authenticated"}}

	update := func(o, n any) Request {
		r := create(t, ScopeTemplates, n)
		r.Operation, r.OldObject = "UPDATE", raw(t, o)
		return r
	}
	c := &Checker{Instances: noInstances, Authorizer: newFake()}
	if d := c.Check(context.Background(), update(old, labelled)); !d.Allowed || d.Reviews != 0 {
		t.Errorf("a metadata-only update was checked: %+v", d)
	}
	if d := c.Check(context.Background(), update(old, widened)); d.Allowed || d.Reviews != 3 {
		t.Errorf("a widened template was not checked whole: %+v", d)
	}
	// New subjects get the same rules: that grants them too.
	if d := c.Check(context.Background(), update(old, resubjected)); d.Allowed || d.Reviews != 2 {
		t.Errorf("a change of subjects was not checked: %+v", d)
	}
	if d := c.Check(context.Background(), Request{Group: scopesv1alpha1.GroupName, Resource: ScopeTemplates, Operation: "DELETE"}); !d.Allowed {
		t.Errorf("a delete was refused: %+v", d)
	}
}

func TestTooManyPermissionsIsRefusedBeforeAsking(t *testing.T) {
	var verbs []string
	for i := range 50 {
		verbs = append(verbs, fmt.Sprintf("verb%d", i))
	}
	auth := newFake()
	d := (&Checker{Instances: noInstances, Authorizer: auth, MaxReviews: 40}).Check(context.Background(), create(t, ScopeTemplates, template("x", rule([]string{""}, []string{"secrets"}, verbs))))
	if d.Allowed || d.Reason != TooManyPermissions || len(auth.questions()) != 0 || !strings.Contains(d.Message, "more than 40") {
		t.Errorf("got %+v after %d questions", d, len(auth.questions()))
	}

	// In namespaces: the cluster-wide pass is asked, the namespace pass is not.
	templates := fakeTemplates{templates: map[string]*scopesv1alpha1.ScopeTemplate{"t": template("t", readSecrets)}}
	var namespaces []string
	for i := range 30 {
		namespaces = append(namespaces, fmt.Sprintf("ns%d", i))
	}
	auth = newFake().hold("", readTemplate("t"))
	d = (&Checker{Instances: noInstances, Authorizer: auth, Templates: templates, MaxReviews: 40}).Check(context.Background(), create(t, ScopeInstances, instance("i", "t", namespaces, nil)))
	if d.Allowed || d.Reason != TooManyPermissions || len(auth.questions()) != 4 {
		t.Errorf("got %+v after %d questions", d, len(auth.questions()))
	}
}

func TestConcurrencyIsBounded(t *testing.T) {
	var verbs []string
	for i := range 40 {
		verbs = append(verbs, fmt.Sprintf("verb%d", i))
	}
	auth := newFake()
	auth.delay = 2 * time.Millisecond
	d := (&Checker{Instances: noInstances, Authorizer: auth, Concurrency: 4}).Check(context.Background(), create(t, ScopeTemplates, template("x", rule([]string{""}, []string{"secrets"}, verbs))))
	if d.Reviews != 41 {
		t.Fatalf("Reviews = %d, want 41 (whether alice holds everything, then each verb)", d.Reviews)
	}
	if m := auth.maxFlight.Load(); m > 4 || m < 2 {
		t.Errorf("at most %d questions in flight, want between 2 and 4", m)
	}
}

// A request that needs many questions first asks whether the requester
// holds everything; a cluster admin's is settled by that one answer, a
// holder of less is asked about each permission as before.
func TestHoldingEverythingSettlesLargeRequests(t *testing.T) {
	var verbs []string
	for i := range 20 {
		verbs = append(verbs, fmt.Sprintf("verb%d", i))
	}
	many := template("many", rule([]string{""}, []string{"secrets"}, verbs))
	admin := newFake().hold("", allResources)
	if d := (&Checker{Instances: noInstances, Authorizer: admin}).Check(context.Background(), create(t, ScopeTemplates, many)); !d.Allowed || d.Reviews != 1 {
		t.Errorf("cluster admin: got %+v after %v, want allowed after 1 question", d, admin.questions())
	}

	// Non-resource URLs are not covered by every resource: asked apart.
	withURLs := template("urls", rule([]string{""}, []string{"secrets"}, verbs),
		rbacv1.PolicyRule{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}})
	admin = newFake().hold("", allResources)
	d := (&Checker{Instances: noInstances, Authorizer: admin}).Check(context.Background(), create(t, ScopeTemplates, withURLs))
	if d.Allowed || d.Reviews != 3 || !strings.Contains(d.Message, "/metrics") {
		t.Errorf("every resource but no URL: got %+v after %v, want refused for /metrics after 3 questions", d, admin.questions())
	}
	admin = newFake().hold("", allResources, allNonResources)
	if d := (&Checker{Instances: noInstances, Authorizer: admin}).Check(context.Background(), create(t, ScopeTemplates, withURLs)); !d.Allowed || d.Reviews != 2 {
		t.Errorf("everything: got %+v after %v, want allowed after 2 questions", d, admin.questions())
	}

	// Holding every verb on secrets is not holding everything.
	reader := newFake().hold("", res("*", "", "secrets"))
	d = (&Checker{Instances: noInstances, Authorizer: reader}).Check(context.Background(), create(t, ScopeTemplates, many))
	if d.Allowed || d.Reviews != 21 {
		t.Errorf("a holder of less: got %+v after %d questions, want refused after 21", d, len(reader.questions()))
	}

	// Small requests ask each permission only (the fake holds literally,
	// so holding everything does not answer them).
	small := newFake().hold("", allResources)
	if d := (&Checker{Instances: noInstances, Authorizer: small}).Check(context.Background(), create(t, ScopeTemplates, template("few", readSecrets))); d.Reviews != 2 || slices.Contains(small.questions(), "|"+describePermission(allResources)) {
		t.Errorf("small request: got %+v after %v", d, small.questions())
	}
}

func TestUndecodableAndUnknown(t *testing.T) {
	c := &Checker{Instances: noInstances, Authorizer: newFake()}
	for name, req := range map[string]Request{
		"not JSON":         {Group: scopesv1alpha1.GroupName, Resource: ScopeTemplates, Operation: "CREATE", Object: []byte("{")},
		"no object":        {Group: scopesv1alpha1.GroupName, Resource: ScopeTemplates, Operation: "CREATE"},
		"another resource": {Group: "", Resource: "pods", Operation: "CREATE", Object: []byte("{}")},
		"unknown mode":     {Group: apiaccessv1alpha1.GroupName, Resource: APIAccessPolicies, Operation: "CREATE", Object: []byte(`{"spec":{"mode":"All"}}`)},
		"bad selector": {Group: apiaccessv1alpha1.GroupName, Resource: APIAccessPolicies, Operation: "CREATE",
			Object: []byte(`{"spec":{"mode":"Bind","crds":{"selector":{"matchExpressions":[{"key":"a","operator":"Near"}]}}}}`)},
		"not a CRD name": {Group: apiaccessv1alpha1.GroupName, Resource: APIAccessPolicies, Operation: "CREATE",
			Object: []byte(`{"spec":{"mode":"Bind","crds":{"names":["widgets"]}}}`)},
	} {
		if d := c.Check(context.Background(), req); d.Allowed || d.Reason != Invalid || d.Message == "" {
			t.Errorf("%s: got %+v, want an Invalid refusal", name, d)
		}
	}
}

// Repeats in a rule's lists are one permission, added where it is granted
// once; a rule whose lists alone multiply past the cap is refused before
// it is expanded.
func TestHostileRulesAreBounded(t *testing.T) {
	repeated := func(s string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	var namespaces []string
	for i := range 1000 {
		namespaces = append(namespaces, fmt.Sprintf("ns%d", i))
	}
	r := rule(repeated("authorization.k8s.io", 64), repeated("selfsubjectaccessreviews", 64), repeated("create", 64))
	needs, err := expand([]grant{{rules: []rbacv1.PolicyRule{r, r, r}, namespaces: namespaces}}, 10)
	if err != nil || len(needs) != 1 || len(needs[0].in) != 1 {
		t.Fatalf("got %d needs (%v), want 1 holding the grant's namespaces once", len(needs), err)
	}
	if got, ok := needs[0].namespaces(1000); !ok || len(got) != 1000 || !needs[0].inSeveral() {
		t.Errorf("namespaces: %d, %v", len(got), ok)
	}
	if _, ok := needs[0].namespaces(999); ok {
		t.Error("1000 namespaces fit a limit of 999")
	}
	// Many grants over the same namespaces share their lists, not copies.
	many := make([]grant, 500)
	for i := range many {
		many[i] = grant{rules: []rbacv1.PolicyRule{r}, namespaces: namespaces}
	}
	if needs, err := expand(many, 10); err != nil || len(needs) != 1 || len(needs[0].in) != 500 || &needs[0].in[499][0] != &namespaces[0] {
		t.Errorf("500 grants: %d needs, %v", len(needs), err)
	}

	var verbs, resources []string
	for i := range 1 << 12 {
		verbs, resources = append(verbs, fmt.Sprintf("v%d", i)), append(resources, fmt.Sprintf("r%d", i))
	}
	wide := rule([]string{"a", "b"}, resources, verbs)
	if _, err := expand([]grant{{rules: []rbacv1.PolicyRule{wide}}}, 1000); err == nil || !strings.Contains(err.Error(), "more than 1000") {
		t.Errorf("a rule of 2×4096×4096 permissions: %v, want refused", err)
	}
	if !within(1000, 10, 10, 10) || within(1000, 10, 10, 11) || within(1<<62, 1<<40, 1<<40) || !within(5, 0, 1<<40, 1<<40) {
		t.Error("within miscounts")
	}
}

// Kubernetes asks whoever creates a RoleBinding for create on rolebindings
// there as well as for the rules: holding the rules is not enough to have
// the operator write the bindings.
func TestBindingsNeedCreateWhereTheyAreWritten(t *testing.T) {
	templates := fakeTemplates{templates: map[string]*scopesv1alpha1.ScopeTemplate{"t": template("t", readSecrets)}}
	// Alice holds the rules in a (edit, say), but may not create bindings there.
	auth := newFake().hold("", readTemplate("t")).hold("a", res("get", "", "secrets"), res("list", "", "secrets"))
	d := (&Checker{Instances: noInstances, Authorizer: auth, Templates: templates}).Check(context.Background(), create(t, ScopeInstances, instance("i", "t", []string{"a"}, nil)))
	want := `ScopeInstance "i" has bindings written: that needs verb "create" on "rolebindings" (group "rbac.authorization.k8s.io") in namespace "a" (to create the bindings), which user "alice" does not hold`
	if d.Allowed || d.Reason != Escalation || !strings.Contains(d.Message, want) {
		t.Errorf("got %+v, want refused with %q", d, want)
	}
	auth.hold("a", createRoleBindings)
	if d := (&Checker{Instances: noInstances, Authorizer: auth, Templates: templates, Namespaces: allExist}).Check(context.Background(), create(t, ScopeInstances, instance("i", "t", []string{"a"}, nil))); !d.Allowed {
		t.Errorf("with create on rolebindings in a: got %+v, want allowed", d)
	}

	// A view binding in a namespace also has the cluster-wide crdview
	// ClusterRoleBinding written.
	view := policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleView, Subjects: []apiaccessv1alpha1.Subject{{Kind: "User", Name: "bob"}}, Namespaces: []string{"a"}})
	crdView := Permission{Verb: "get", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "widgets.example.com"}
	auth = newFake().hold("", crdView).hold("a", res("get", "example.com", "widgets"), res("list", "example.com", "widgets"), res("watch", "example.com", "widgets"), createRoleBindings)
	d = (&Checker{Instances: noInstances, Authorizer: auth}).Check(context.Background(), create(t, APIAccessPolicies, view))
	if d.Allowed || !strings.Contains(d.Message, `verb "create" on "clusterrolebindings" (group "rbac.authorization.k8s.io") cluster-wide (to create the bindings)`) {
		t.Errorf("got %+v, want refused for create on clusterrolebindings", d)
	}
	// Aggregate mode writes no binding.
	auth = newFake().hold("", crdView, res("*", "example.com", "widgets"))
	if d := (&Checker{Instances: noInstances, Authorizer: auth}).Check(context.Background(), create(t, APIAccessPolicies, policy(apiaccessv1alpha1.ModeAggregate))); !d.Allowed || d.Reviews != 2 {
		t.Errorf("Aggregate: got %+v, want allowed after 2 questions", d)
	}
}

// countingTemplates counts the reads of templates.
type countingTemplates struct {
	fakeTemplates
	reads *atomic.Int32
}

func (c countingTemplates) GetScopeTemplate(ctx context.Context, name string) (*scopesv1alpha1.ScopeTemplate, error) {
	c.reads.Add(1)
	return c.fakeTemplates.GetScopeTemplate(ctx, name)
}

// A requester who may not read a template learns nothing of it: not its
// rules, not whether it exists. It is not even read.
func TestATemplateIsToldOnlyToItsReaders(t *testing.T) {
	reads := &atomic.Int32{}
	templates := countingTemplates{fakeTemplates{templates: map[string]*scopesv1alpha1.ScopeTemplate{"secret-admin": template("secret-admin", readSecrets)}}, reads}
	var messages []string
	for _, name := range []string{"secret-admin", "nothing-by-that-name"} {
		auth := newFake()
		d := (&Checker{Instances: noInstances, Authorizer: auth, Templates: templates}).Check(context.Background(), create(t, ScopeInstances, instance("i", name, []string{"a"}, nil)))
		if d.Allowed || d.Reason != Escalation || d.Reviews != 1 || len(d.Warnings) != 0 {
			t.Errorf("%s: got %+v, want refused after one question", name, d)
		}
		if strings.Contains(d.Message, "secrets") || strings.Contains(d.Message, "exist") {
			t.Errorf("%s: the refusal tells of the template: %s", name, d.Message)
		}
		messages = append(messages, strings.ReplaceAll(d.Message, name, "<name>"))
	}
	if messages[0] != messages[1] {
		t.Errorf("an existing and a missing template are refused differently:\n%s\n%s", messages[0], messages[1])
	}
	want := `ScopeInstance "i" names ScopeTemplate "<name>", which user "alice" may not read (verb "get" on "scopetemplates" named "<name>" (group "operators.coreos.com") cluster-wide)`
	if !strings.Contains(messages[0], want) {
		t.Errorf("got %s, want it to contain %s", messages[0], want)
	}
	if reads.Load() != 0 {
		t.Errorf("the template was read %d times for a requester who may not read it", reads.Load())
	}
}

// The ScopeInstances that name a template bind its subjects at once: so a
// template created, or changed to bind someone new, is judged as the
// bindings it causes, as Kubernetes judges a RoleBinding (create on the
// bindings where they are written, beside the rules). Holding the rules
// (view, say) and patch on scopetemplates is not enough to re-point a
// cluster-wide template to someone else.
func TestATemplatesSubjectsAreJudgedAsTheBindingsTheyCause(t *testing.T) {
	ctx := context.Background()
	old := template("t", readSecrets)
	resubjected := old.DeepCopy()
	resubjected.Spec.ClusterRoles[0].Subjects = []scopesv1alpha1.Subject{{Kind: "User", Name: "mallory"}}
	anotherRole := old.DeepCopy()
	anotherRole.Spec.ClusterRoles = append(anotherRole.Spec.ClusterRoles, scopesv1alpha1.ClusterRoleTemplate{
		GenerateName: "other", Rules: []rbacv1.PolicyRule{readSecrets}, Subjects: old.Spec.ClusterRoles[0].Subjects})
	widened := old.DeepCopy()
	widened.Spec.ClusterRoles[0].Rules = append(widened.Spec.ClusterRoles[0].Rules, rule([]string{""}, []string{"secrets"}, []string{"watch"}))
	update := func(o, n any) Request {
		r := create(t, ScopeTemplates, n)
		r.Operation, r.OldObject = "UPDATE", raw(t, o)
		return r
	}
	instances := fakeInstances{instances: []scopesv1alpha1.ScopeInstance{
		*instance("everywhere", "t", nil, nil),
		*instance("in-a", "t", []string{"a"}, nil),
		*instance("of-another-template", "u", nil, nil),
	}}
	rules := []Permission{res("get", "", "secrets"), res("list", "", "secrets"), res("watch", "", "secrets")}
	// Alice holds the rules everywhere, and may write templates, nothing more.
	viewer := newFake().hold("", rules...)

	for name, req := range map[string]Request{
		"new subjects":                       update(old, resubjected),
		"a new role":                         update(old, anotherRole),
		"created while an instance names it": create(t, ScopeTemplates, resubjected),
	} {
		d := (&Checker{Authorizer: viewer, Instances: instances}).Check(ctx, req)
		want := `verb "create" on "clusterrolebindings" (group "rbac.authorization.k8s.io") cluster-wide (to create the bindings)`
		if d.Allowed || d.Reason != Escalation || !strings.Contains(d.Message, want) {
			t.Errorf("%s: got %+v, want refused for %s", name, d, want)
		}
		if !slices.ContainsFunc(d.Warnings, func(w string) bool {
			return strings.Contains(w, `is bound by ScopeInstances "everywhere", "in-a"`)
		}) {
			t.Errorf("%s: warnings %q do not name the instances that bind it", name, d.Warnings)
		}
	}
	// A change of rules alone binds no one new: the rules, cluster-wide.
	if d := (&Checker{Authorizer: viewer, Instances: instances}).Check(ctx, update(old, widened)); !d.Allowed || d.Reviews != 3 {
		t.Errorf("a change of rules: got %+v, want allowed after the 3 rules", d)
	}
	// Where an instance binds in a namespace, create on rolebindings there.
	binder := newFake().hold("", append(rules, createClusterRoleBindings)...)
	d := (&Checker{Authorizer: binder, Instances: instances}).Check(ctx, update(old, resubjected))
	if want := `verb "create" on "rolebindings" (group "rbac.authorization.k8s.io") in namespace "a" (to create the bindings)`; d.Allowed || !strings.Contains(d.Message, want) {
		t.Errorf("got %+v, want refused for %s", d, want)
	}
	binder.hold("a", createRoleBindings)
	if d := (&Checker{Authorizer: binder, Instances: instances}).Check(ctx, update(old, resubjected)); !d.Allowed {
		t.Errorf("with create on both kinds of binding where they are written: got %+v, want allowed", d)
	}
	// Bound by no instance: the rules only, as creating ClusterRoles.
	if d := (&Checker{Authorizer: viewer, Instances: noInstances}).Check(ctx, update(old, resubjected)); !d.Allowed || len(d.Warnings) != 0 {
		t.Errorf("no instance names it: got %+v, want allowed without warnings", d)
	}
	// The instances cannot be read: refused, retryably.
	d = (&Checker{Authorizer: binder, Instances: fakeInstances{err: errors.New("etcd is down")}}).Check(ctx, update(old, resubjected))
	if d.Allowed || d.Reason != CheckFailed || !strings.Contains(d.Message, "etcd is down") {
		t.Errorf("instances unreadable: got %+v, want a retryable refusal", d)
	}
}

// A Bind-mode policy's subjects are bound by the policy itself: a change
// of subjects alone is judged whole, the bindings included.
func TestABindPolicysNewSubjectsNeedTheBindings(t *testing.T) {
	binding := func(subject string) apiaccessv1alpha1.AccessBinding {
		return apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{{Kind: "User", Name: subject}}, Namespaces: []string{"a"}}
	}
	old, resubjected := policy(apiaccessv1alpha1.ModeBind, binding("bob")), policy(apiaccessv1alpha1.ModeBind, binding("mallory"))
	req := create(t, APIAccessPolicies, resubjected)
	req.Operation, req.OldObject = "UPDATE", raw(t, old)
	crdView := Permission{Verb: "get", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "widgets.example.com"}
	var edit []Permission
	for _, verb := range []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"} {
		edit = append(edit, res(verb, "example.com", "widgets"))
	}
	auth := newFake().hold("", crdView).hold("a", edit...)
	d := (&Checker{Authorizer: auth, Instances: noInstances, Namespaces: allExist}).Check(context.Background(), req)
	if want := `verb "create" on "rolebindings" (group "rbac.authorization.k8s.io") in namespace "a" (to create the bindings)`; d.Allowed || !strings.Contains(d.Message, want) {
		t.Errorf("got %+v, want refused for %s", d, want)
	}
}
