package grants

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

// Resources the check serves, as the admission request names them.
const (
	ScopeTemplates    = "scopetemplates"
	ScopeInstances    = "scopeinstances"
	APIAccessPolicies = "apiaccesspolicies"
)

// object is one of the three kinds, decoded: what it grants is computed
// from it on demand, since a ScopeInstance or APIAccessPolicy grants what
// the cluster holds now (its template, the CRDs it selects).
type object interface {
	kind() string
	meta() *metav1.ObjectMeta
	spec() any
	// grants is what the object results in; old is the object it replaces
	// (nil on CREATE), for what a change causes beyond the object itself.
	grants(ctx context.Context, c *Checker, old object) (gs []grant, warnings []string, err error)
}

// decode reads an object of the given resource from its JSON.
func decode(group, resource string, raw []byte) (object, error) {
	var o object
	switch {
	case group == scopesv1alpha1.GroupName && resource == ScopeTemplates:
		o = &scopeTemplate{}
	case group == scopesv1alpha1.GroupName && resource == ScopeInstances:
		o = &scopeInstance{}
	case group == apiaccessv1alpha1.GroupName && resource == APIAccessPolicies:
		o = &apiAccessPolicy{}
	default:
		return nil, fmt.Errorf("this check does not serve %s in group %q", resource, group)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("the request carries no %s", resource)
	}
	if err := json.Unmarshal(raw, o); err != nil {
		return nil, fmt.Errorf("decoding the %s: %w", resource, err)
	}
	return o, nil
}

// sameSpec says whether an update leaves what the object asks for as it
// was: metadata (finalizers, labels) and status changes grant nothing new.
func sameSpec(old, updated object) bool {
	return equality.Semantic.DeepEqual(old.spec(), updated.spec())
}

func displayName(m *metav1.ObjectMeta) string {
	if m.Name == "" && m.GenerateName != "" {
		return m.GenerateName + "<generated>"
	}
	return m.Name
}

type scopeTemplate scopesv1alpha1.ScopeTemplate

func (o *scopeTemplate) kind() string             { return "ScopeTemplate" }
func (o *scopeTemplate) meta() *metav1.ObjectMeta { return &o.ObjectMeta }
func (o *scopeTemplate) spec() any                { return o.Spec }

// A ScopeTemplate's roles are ClusterRoles any ScopeInstance may bind
// cluster-wide: creating one is creating those ClusterRoles. Its subjects
// are bound by the ScopeInstances that name it, at once: so a template
// created, or changed to bind someone else (new subjects, a new role), is
// judged as the bindings it causes there, as Kubernetes judges a
// RoleBinding: the rules (asked cluster-wide, which covers every place)
// and create on the bindings where each instance writes them. A change of
// rules alone binds no one new.
func (o *scopeTemplate) grants(ctx context.Context, c *Checker, old object) ([]grant, []string, error) {
	var gs []grant
	for _, role := range o.Spec.ClusterRoles {
		gs = append(gs, clusterWide(role.Rules))
	}
	if previous, ok := old.(*scopeTemplate); ok && !bindsAnew(previous, o) {
		return gs, nil, nil
	}
	if c.Instances == nil {
		return nil, nil, fmt.Errorf("the check has no way to read ScopeInstances")
	}
	instances, err := c.Instances.ScopeInstancesNaming(ctx, o.Name)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the ScopeInstances that name ScopeTemplate %q: %w", o.Name, err)
	}
	if len(instances) == 0 {
		return gs, nil, nil
	}
	names := make([]string, 0, len(instances))
	for i := range instances {
		gs = append(gs, (*scopeInstance)(&instances[i]).bindingWrites()...)
		names = append(names, instances[i].Name)
	}
	return gs, []string{fmt.Sprintf("ScopeTemplate %q is bound by %s: its subjects are bound where they bind, "+
		"so the requester must be able to create those bindings", o.Name, instancesNamed(names))}, nil
}

// bindsAnew says whether updated binds anyone old did not: a role that is
// new (by generateName), or one whose subjects changed.
func bindsAnew(old, updated *scopeTemplate) bool {
	subjects := make(map[string][]scopesv1alpha1.Subject, len(old.Spec.ClusterRoles))
	for _, role := range old.Spec.ClusterRoles {
		subjects[role.GenerateName] = role.Subjects
	}
	for _, role := range updated.Spec.ClusterRoles {
		before, ok := subjects[role.GenerateName]
		if !ok || !equality.Semantic.DeepEqual(before, role.Subjects) {
			return true
		}
	}
	return false
}

// instancesNamed names up to maxNamespacesNamed instances and counts the rest.
func instancesNamed(names []string) string {
	slices.Sort(names)
	if len(names) == 1 {
		return "ScopeInstance " + quotedNames(names)
	}
	return "ScopeInstances " + quotedNames(names)
}

type scopeInstance scopesv1alpha1.ScopeInstance

func (o *scopeInstance) kind() string             { return "ScopeInstance" }
func (o *scopeInstance) meta() *metav1.ObjectMeta { return &o.ObjectMeta }
func (o *scopeInstance) spec() any                { return o.Spec }

// A ScopeInstance binds its template's roles in its namespaces, or
// cluster-wide: with no namespaces and no selector, or with a selector,
// which can match namespaces created later by anyone allowed to. A template
// that does not exist yet grants what its future author writes, which
// cannot be checked now (as Kubernetes refuses a RoleBinding to a missing
// role unless its author may bind any role).
func (o *scopeInstance) grants(ctx context.Context, c *Checker, _ object) ([]grant, []string, error) {
	name := o.Spec.ScopeTemplateName
	if name == "" {
		return nil, nil, nil
	}
	template, err := c.Templates.GetScopeTemplate(ctx, name)
	if err != nil {
		return nil, nil, fmt.Errorf("reading ScopeTemplate %q: %w", name, err)
	}
	if template == nil {
		return append(o.bindingWrites(), grant{unknowable: fmt.Sprintf("names ScopeTemplate %q, which does not exist (create it first)", name)}),
			[]string{fmt.Sprintf("ScopeTemplate %q does not exist: nothing is bound until it does", name)}, nil
	}
	var namespaces []string
	if o.Spec.NamespaceSelector == nil && len(o.Spec.Namespaces) > 0 {
		namespaces = o.Spec.Namespaces
	}
	gs := o.bindingWrites()
	for _, role := range template.Spec.ClusterRoles {
		gs = append(gs, grant{rules: role.Rules, namespaces: namespaces})
	}
	return gs, nil, nil
}

// bindingWrites is what writing the instance's bindings needs: a
// ClusterRoleBinding per role when it binds cluster-wide, RoleBindings in
// its listed namespaces, or in any namespace with a selector.
func (o *scopeInstance) bindingWrites() []grant {
	switch {
	case o.Spec.NamespaceSelector != nil:
		return []grant{bindingsIn(nil)}
	case len(o.Spec.Namespaces) > 0:
		return []grant{bindingsIn(o.Spec.Namespaces)}
	}
	return []grant{clusterBindings()}
}

type apiAccessPolicy apiaccessv1alpha1.APIAccessPolicy

func (o *apiAccessPolicy) kind() string             { return "APIAccessPolicy" }
func (o *apiAccessPolicy) meta() *metav1.ObjectMeta { return &o.ObjectMeta }
func (o *apiAccessPolicy) spec() any                { return o.Spec }

// An APIAccessPolicy grants, for every CRD it selects: in Aggregate mode
// the generated roles to every holder of admin, edit or view anywhere (so
// the admin role's rules cluster-wide, which cover edit's and view's), in
// Bind mode each binding's role where the binding says; and get on the CRD
// itself cluster-wide in both. CRDs selected by name are known whether or
// not they exist yet (a CRD's name is <plural>.<group>, all the rules
// need). A selection by ClusterExtension or label also grants on CRDs
// installed or labelled later, which cannot be checked now.
func (o *apiAccessPolicy) grants(_ context.Context, _ *Checker, _ object) ([]grant, []string, error) {
	switch o.Spec.Mode {
	case apiaccessv1alpha1.ModeUnmanaged:
		return nil, nil, nil
	case apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.ModeBind:
	default:
		return nil, nil, refusal{fmt.Sprintf("mode %q is not Aggregate, Bind or Unmanaged", o.Spec.Mode)}
	}
	selection := o.Spec.CRDs
	writes := o.bindingWrites()
	switch {
	case selection.ClusterExtension != "":
		return append(writes, grant{unknowable: fmt.Sprintf("selects the CRDs of ClusterExtension %q, including those it installs later (select CRDs by name to have them checked now)",
			selection.ClusterExtension)}), nil, nil
	case selection.Selector != nil:
		if _, err := metav1.LabelSelectorAsSelector(selection.Selector); err != nil {
			return nil, nil, refusal{fmt.Sprintf("spec.crds.selector does not parse: %v", err)}
		}
		return append(writes, grant{unknowable: "selects CRDs by label, including those labelled later (select CRDs by name to have them checked now)"}), nil, nil
	}
	if len(selection.Names) == 0 {
		writes = nil // no CRD, no binding
	}
	gs := writes
	for _, name := range selection.Names {
		plural, group, ok := strings.Cut(name, ".")
		if !ok || plural == "" || group == "" {
			return nil, nil, refusal{fmt.Sprintf("spec.crds.names: %q is not a CRD name (<plural>.<group>)", name)}
		}
		crd := apiaccessv1alpha1.CRDAPI{Name: name, Group: group, Plural: plural}
		roles := crd.Roles()
		crdView := roles[len(roles)-1].Rules
		gs = append(gs, clusterWide(crdView))
		if o.Spec.Mode == apiaccessv1alpha1.ModeAggregate {
			gs = append(gs, clusterWide(crd.RoleFor(apiaccessv1alpha1.RoleAdmin).Rules))
			continue
		}
		for _, binding := range o.Spec.Bindings {
			// Without namespaces, an empty list included, the controller
			// binds cluster-wide, and expand asks cluster-wide.
			gs = append(gs, grant{rules: crd.RoleFor(binding.Role).Rules, namespaces: binding.Namespaces})
		}
	}
	return gs, nil, nil
}

// bindingWrites is what writing a Bind-mode policy's bindings needs, per
// binding: RoleBindings in its namespaces, or a ClusterRoleBinding without;
// a view binding also gets the cluster-wide crdview ClusterRoleBinding.
// Aggregate mode writes no binding: aggregation does the granting.
func (o *apiAccessPolicy) bindingWrites() []grant {
	if o.Spec.Mode != apiaccessv1alpha1.ModeBind {
		return nil
	}
	var gs []grant
	cluster := false
	for _, b := range o.Spec.Bindings {
		if len(b.Namespaces) > 0 {
			gs = append(gs, bindingsIn(b.Namespaces))
		}
		cluster = cluster || len(b.Namespaces) == 0 || b.Role == apiaccessv1alpha1.RoleView
	}
	if cluster {
		gs = append(gs, clusterBindings())
	}
	return gs
}

// refusal is a decision that needs no permission check: the object cannot
// be admitted as it is.
type refusal struct{ message string }

func (r refusal) Error() string { return r.message }
