package olmscopes

import (
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

var (
	podsRule   = rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}
	crdsRule   = rbacv1.PolicyRule{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get"}}
	exampleCSV = csv{Name: "etcdoperator.v0.9.4", Namespace: "ops", UID: "uid-1", Replaces: "etcdoperator.v0.9.2",
		Permissions:        []permission{{ServiceAccountName: "etcd-operator", Rules: []rbacv1.PolicyRule{podsRule}}},
		ClusterPermissions: []permission{{ServiceAccountName: "etcd-operator", Rules: []rbacv1.PolicyRule{crdsRule}}}}
)

func TestPlan(t *testing.T) {
	targeted := map[string][]operatorGroup{"ops": {{Name: "g", Namespace: "ops", Targets: []string{"team-b", "team-a"}}}}
	global := map[string][]operatorGroup{"ops": {{Name: "g", Namespace: "ops", AllNamespaces: true}}}
	for _, tc := range []struct {
		name       string
		groups     map[string][]operatorGroup
		cfg        config
		reason     string
		namespaces [][]string // of each pair
	}{
		{name: "targeted: the targets and the install namespace, then cluster-wide", groups: targeted,
			namespaces: [][]string{{"ops", "team-a", "team-b"}, nil}},
		{name: "AllNamespaces is reported and generates nothing by default", groups: global, reason: ReasonAllNamespaces},
		{name: "AllNamespaces bound cluster-wide when the admin says so", groups: global, cfg: config{bindAll: true},
			namespaces: [][]string{nil, nil}},
		{name: "no OperatorGroup", groups: map[string][]operatorGroup{}, reason: ReasonNoOperatorGroup},
		{name: "two OperatorGroups", groups: map[string][]operatorGroup{"ops": {{Name: "a", Namespace: "ops"}, {Name: "b", Namespace: "ops"}}}, reason: ReasonTooManyOperatorGroup},
		{name: "selector not resolved yet", groups: map[string][]operatorGroup{"ops": {{Name: "g", Namespace: "ops", Pending: true}}}, reason: ReasonTargetsNotResolved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := plan(exampleCSV, tc.groups, tc.cfg)
			if d.reason != tc.reason {
				t.Fatalf("reason %q (%s), want %q", d.reason, d.message, tc.reason)
			}
			if len(d.pairs) != len(tc.namespaces) {
				t.Fatalf("%d pairs, want %d", len(d.pairs), len(tc.namespaces))
			}
			for i, p := range d.pairs {
				if !reflect.DeepEqual(p.namespaces, tc.namespaces[i]) {
					t.Errorf("pair %s binds in %v, want %v", p.name, p.namespaces, tc.namespaces[i])
				}
			}
		})
	}
}

func TestPlanMapsPermissionsToTemplates(t *testing.T) {
	d := plan(exampleCSV, map[string][]operatorGroup{"ops": {{Namespace: "ops", Targets: []string{"ops"}}}}, config{})
	if len(d.pairs) != 2 || d.pairs[0].name != "olm-ops-etcdoperator" || d.pairs[1].name != "olm-ops-etcdoperator-cluster" {
		t.Fatalf("pairs: %+v", d.pairs)
	}
	want := scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{GenerateName: "olm-ops-etcdoperator-0-",
		Rules: []rbacv1.PolicyRule{podsRule}, Subjects: []scopesv1alpha1.Subject{{Kind: "ServiceAccount", Name: "etcd-operator", Namespace: "ops"}}}}}
	if !reflect.DeepEqual(d.pairs[0].template, want) {
		t.Errorf("template %+v, want %+v", d.pairs[0].template, want)
	}
	// An upgrade keeps the names: the version is not part of them.
	upgraded := exampleCSV
	upgraded.Name = "etcdoperator.v0.9.5-rc.1"
	if n := plan(upgraded, map[string][]operatorGroup{"ops": {{Namespace: "ops", Targets: []string{"ops"}}}}, config{}).pairs[0].name; n != "olm-ops-etcdoperator" {
		t.Errorf("upgraded name %q", n)
	}
	// More rules than a role holds: several roles, same subject.
	many := exampleCSV
	many.ClusterPermissions = nil
	many.Permissions = []permission{{ServiceAccountName: "a", Rules: make([]rbacv1.PolicyRule, 130)}}
	for i := range many.Permissions[0].Rules {
		many.Permissions[0].Rules[i] = podsRule
	}
	if roles := plan(many, map[string][]operatorGroup{"ops": {{Namespace: "ops", Targets: []string{"ops"}}}}, config{}).pairs[0].template.ClusterRoles; len(roles) != 3 {
		t.Errorf("%d roles for 130 rules, want 3", len(roles))
	}
}

func TestNamesFitAndStayApart(t *testing.T) {
	long := csv{Name: "a-very-long-operator-name-that-goes-on-and-on.v1.2.3", Namespace: "a-namespace-with-a-long-name-as-well-0123456789"}
	other := long
	other.Namespace += "x"
	a, b := nameWithSuffix(baseName(long), "-cluster"), nameWithSuffix(baseName(other), "-cluster")
	if len(a) > maxNameLength || len(b) > maxNameLength || a == b {
		t.Errorf("names %q and %q", a, b)
	}
}

func TestClaims(t *testing.T) {
	own := map[string]string{CSVUIDLabel: "uid-1"}
	predecessor := map[string]string{CSVNamespaceAnnotation: "ops", CSVNameAnnotation: "etcdoperator.v0.9.2"}
	if !claims(exampleCSV, own, nil) {
		t.Error("its own UID is not claimed")
	}
	if !claims(exampleCSV, map[string]string{CSVUIDLabel: "uid-0"}, predecessor) {
		t.Error("the CSV it replaces is not taken over")
	}
	elsewhere := map[string]string{CSVNamespaceAnnotation: "other", CSVNameAnnotation: "etcdoperator.v0.9.2"}
	if claims(exampleCSV, map[string]string{CSVUIDLabel: "uid-0"}, elsewhere) {
		t.Error("a CSV of that name in another namespace is taken over")
	}
	if claims(exampleCSV, map[string]string{CSVUIDLabel: "uid-9"}, map[string]string{CSVNamespaceAnnotation: "ops", CSVNameAnnotation: "etcdoperator.v0.9.4"}) {
		t.Error("a CSV of the same name and another UID (deleted and re-created) is claimed")
	}
}

func TestInstanceNamespacesKeepsTheAdminsNarrowing(t *testing.T) {
	instance := func(namespaces []string, recorded string, narrowed bool) *scopesv1alpha1.ScopeInstance {
		i := &scopesv1alpha1.ScopeInstance{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{GeneratedNamespacesAnnotation: recorded}},
			Spec: scopesv1alpha1.ScopeInstanceSpec{Namespaces: namespaces}}
		if narrowed {
			i.Annotations[NarrowedAnnotation] = "true"
		}
		return i
	}
	withSelector := func(i *scopesv1alpha1.ScopeInstance) *scopesv1alpha1.ScopeInstance {
		i.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
		return i
	}
	for _, tc := range []struct {
		name         string
		existing     *scopesv1alpha1.ScopeInstance
		want         []string
		got          []string
		wantNarrowed bool
		wantNowhere  bool
	}{
		{"new", nil, []string{"a", "b"}, []string{"a", "b"}, false, false},
		{"as generated: follows the group", instance([]string{"a", "b"}, "a,b", false), []string{"a", "b", "c"}, []string{"a", "b", "c"}, false, false},
		{"cluster-wide as generated: stays", instance(nil, "*", false), nil, nil, false, false},
		{"narrowed by the admin: kept", instance([]string{"a"}, "a,b", false), []string{"a", "b"}, []string{"a"}, true, false},
		{"narrowed: a new target is not added", instance([]string{"a"}, "a,b", true), []string{"a", "b", "c"}, []string{"a"}, true, false},
		{"narrowed, and the group drops one it kept", instance([]string{"a", "b"}, "a,b,c", true), []string{"b", "c"}, []string{"b"}, true, false},
		{"narrowed to where the group no longer targets: nowhere", instance([]string{"a"}, "a,b", true), []string{"c"}, nil, true, true},
		{"cluster-wide narrowed to namespaces: kept", instance([]string{"x"}, "*", false), nil, []string{"x"}, true, false},
		{"emptied by the admin: nowhere, never cluster-wide", instance(nil, "a,b", false), []string{"a", "b"}, nil, true, true},
		{"emptied after narrowing: nowhere", instance(nil, "a,b", true), []string{"a", "b"}, nil, true, true},
		{"cluster-wide narrowed, then emptied: nowhere", instance(nil, "*", true), nil, nil, true, true},
		{"emptied, its record gone: nowhere", instance(nil, "", false), []string{"a"}, nil, true, true},
		{"a selector alone: the admin's", withSelector(instance(nil, "a,b", false)), []string{"a", "b"}, nil, true, false},
		{"a selector, none of the list left: the selector's", withSelector(instance([]string{"a"}, "a,b", true)), []string{"c"}, nil, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, narrowed, nowhere := instanceNamespaces(tc.existing, tc.want)
			if !reflect.DeepEqual(got, tc.got) || narrowed != tc.wantNarrowed || nowhere != tc.wantNowhere {
				t.Errorf("got %v narrowed=%v nowhere=%v, want %v narrowed=%v nowhere=%v", got, narrowed, nowhere, tc.got, tc.wantNarrowed, tc.wantNowhere)
			}
		})
	}
}

func TestNewlyBound(t *testing.T) {
	spec := func(selector bool, namespaces ...string) scopesv1alpha1.ScopeInstanceSpec {
		s := scopesv1alpha1.ScopeInstanceSpec{ScopeTemplateName: "t", Namespaces: namespaces}
		if selector {
			s.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
		}
		return s
	}
	instance := func(s scopesv1alpha1.ScopeInstanceSpec) *scopesv1alpha1.ScopeInstance {
		return &scopesv1alpha1.ScopeInstance{Spec: s}
	}
	for _, tc := range []struct {
		name        string
		old         *scopesv1alpha1.ScopeInstance
		want        scopesv1alpha1.ScopeInstanceSpec
		rulesChange bool
		where       []string
		none        bool
	}{
		{"new: where it binds", nil, spec(false, "b", "a"), true, []string{"a", "b"}, false},
		{"new, cluster-wide", nil, spec(false), true, nil, false},
		{"rules change: everywhere, before and after", instance(spec(false, "a", "b")), spec(false, "b", "c"), true, []string{"a", "b", "c"}, false},
		{"rules change under a selector: cluster-wide", instance(spec(true, "a")), spec(true, "a"), true, nil, false},
		{"rules change, a selector before: cluster-wide", instance(spec(true, "a")), spec(false, "a"), true, nil, false},
		{"a namespace added: it alone", instance(spec(false, "a")), spec(false, "a", "b"), false, []string{"b"}, false},
		{"a namespace removed: nothing new", instance(spec(false, "a", "b")), spec(false, "a"), false, nil, true},
		{"narrowed from cluster-wide: nothing new", instance(spec(false)), spec(false, "a"), false, nil, true},
		{"removed under a selector: nothing new", instance(spec(true, "a", "b")), spec(true, "a"), false, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			where, none := newlyBound(tc.old, tc.want, tc.rulesChange)
			if !reflect.DeepEqual(where, tc.where) || none != tc.none {
				t.Errorf("got %v none=%v, want %v none=%v", where, none, tc.where, tc.none)
			}
		})
	}
}

func TestParseCSVRefusesWhatAScopeTemplateCannotHold(t *testing.T) {
	base := func(rule map[string]any, sa string) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": "x", "namespace": "n", "uid": "u"},
			"spec": map[string]any{"install": map[string]any{"spec": map[string]any{"permissions": []any{
				map[string]any{"serviceAccountName": sa, "rules": []any{rule}}}}}}}
	}
	good := map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}}
	if _, err := parseCSV(base(good, "sa")); err != nil {
		t.Fatal(err)
	}
	for name, obj := range map[string]map[string]any{
		"bad ServiceAccount name": base(good, "Not_A_Name"),
		"no verbs":                base(map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}}, "sa"),
		"no apiGroups":            base(map[string]any{"resources": []any{"pods"}, "verbs": []any{"get"}}, "sa"),
		"mixed":                   base(map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}, "nonResourceURLs": []any{"/x"}, "verbs": []any{"get"}}, "sa"),
		"wrong type":              base(map[string]any{"verbs": "get"}, "sa"),
	} {
		if _, err := parseCSV(obj); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		spec    operatorv1alpha1.OLMScopesSpec
		enabled bool
		in      map[string]bool
	}{
		{operatorv1alpha1.OLMScopesSpec{}, false, map[string]bool{"a": false}},
		{operatorv1alpha1.OLMScopesSpec{Mode: operatorv1alpha1.OLMScopesNamespaces, Namespaces: []string{"a"}}, true, map[string]bool{"a": true, "b": false}},
		{operatorv1alpha1.OLMScopesSpec{Mode: operatorv1alpha1.OLMScopesNamespaces}, false, map[string]bool{"a": false}},
		{operatorv1alpha1.OLMScopesSpec{Mode: operatorv1alpha1.OLMScopesCluster}, true, map[string]bool{"a": true, "b": true}},
	} {
		cfg := readConfig(tc.spec)
		if cfg.enabled() != tc.enabled {
			t.Errorf("%+v enabled=%v", tc.spec, cfg.enabled())
		}
		for ns, want := range tc.in {
			if cfg.optedIn(ns) != want {
				t.Errorf("%+v: %s opted in %v", tc.spec, ns, !want)
			}
		}
	}
}
