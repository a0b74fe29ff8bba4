package olmscopes

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

// Labels and annotations on what the generator writes. The label holds the
// UID of the CSV it was generated from: that, never a name, is what makes
// an object the CSV's.
const (
	// CSVUIDLabel is the UID of the ClusterServiceVersion the object was
	// generated from.
	CSVUIDLabel = "olmscopes.workload-access.openshift.io/csv-uid"
	// CSVNamespaceAnnotation and CSVNameAnnotation name that CSV, for
	// people and for its upgrade (a new CSV names the one it replaces).
	CSVNamespaceAnnotation = "olmscopes.workload-access.openshift.io/csv-namespace"
	CSVNameAnnotation      = "olmscopes.workload-access.openshift.io/csv-name"
	// PermissionsAnnotation says which of the CSV's lists the object holds:
	// Namespaced (spec.install.spec.permissions) or Cluster
	// (clusterPermissions).
	PermissionsAnnotation = "olmscopes.workload-access.openshift.io/permissions"
	// GeneratedNamespacesAnnotation (ScopeInstance) is the namespaces the
	// generator last derived from the OperatorGroup, comma-separated, or
	// "*" for cluster-wide: spec.namespaces different from it is the
	// admin's narrowing.
	GeneratedNamespacesAnnotation = "olmscopes.workload-access.openshift.io/generated-namespaces"
	// NarrowedAnnotation (ScopeInstance), "true" once the admin narrowed
	// its namespaces: from then on the generator only ever removes
	// namespaces, never adds one.
	NarrowedAnnotation = "olmscopes.workload-access.openshift.io/narrowed"
	// WithdrawnAnnotation (ScopeTemplate), "true" once its instance was
	// narrowed to no namespace: the generator deleted the instance and
	// generates none for the template again. An admin may set it to take
	// the instance away; deleting the template starts over.
	WithdrawnAnnotation = "olmscopes.workload-access.openshift.io/withdrawn"

	permissionsNamespaced = "Namespaced"
	permissionsCluster    = "Cluster"
	clusterWide           = "*"
)

// Limits of the ScopeTemplate API (pkg/apis/scopes/v1alpha1).
const (
	maxRolesPerTemplate = 16
	maxRulesPerRole     = 64
	maxNameLength       = 63
)

// Reasons of the Events on a ClusterServiceVersion.
const (
	ReasonGenerated            = "ScopeGenerated"
	ReasonAllNamespaces        = "ScopeNotGeneratedAllNamespaces"
	ReasonNoOperatorGroup      = "ScopeNotGeneratedNoOperatorGroup"
	ReasonInvalid              = "ScopeNotGeneratedInvalid"
	ReasonConflict             = "ScopeNotGeneratedConflict"
	ReasonPermissionsNotHeld   = "ScopeNotGeneratedPermissionsNotHeld"
	ReasonTooManyPermissions   = "ScopeNotGeneratedTooManyPermissions"
	ReasonRefused              = "ScopeNotGeneratedRefused"
	ReasonTargetsNotResolved   = "ScopeNotGeneratedTargetsPending"
	ReasonTooManyOperatorGroup = "ScopeNotGeneratedTooManyOperatorGroups"
	ReasonWithdrawn            = "ScopeInstanceWithdrawn"
)

// config is the WorkloadAccess opt-in, read.
type config struct {
	mode       operatorv1alpha1.OLMScopesMode
	namespaces map[string]bool
	bindAll    bool
}

func readConfig(spec operatorv1alpha1.OLMScopesSpec) config {
	c := config{mode: spec.Mode, namespaces: map[string]bool{},
		bindAll: spec.AllNamespacesOperatorGroups == operatorv1alpha1.OLMAllNamespacesBindClusterWide}
	for _, ns := range spec.Namespaces {
		c.namespaces[ns] = true
	}
	return c
}

func (c config) enabled() bool {
	return c.mode == operatorv1alpha1.OLMScopesCluster || (c.mode == operatorv1alpha1.OLMScopesNamespaces && len(c.namespaces) > 0)
}

func (c config) optedIn(namespace string) bool {
	return c.mode == operatorv1alpha1.OLMScopesCluster || (c.mode == operatorv1alpha1.OLMScopesNamespaces && c.namespaces[namespace])
}

// pair is one generated ScopeTemplate and the ScopeInstance that binds it.
type pair struct {
	// permissions is permissionsNamespaced or permissionsCluster.
	permissions string
	name        string
	template    scopesv1alpha1.ScopeTemplateSpec
	// namespaces the instance binds in, sorted; nil is cluster-wide.
	namespaces []string
	// rules are the CSV's entries the pair carries, for the check that its
	// ServiceAccounts already hold them.
	entries []permission
}

// desired is what one CSV should have generated, or why it has nothing.
type desired struct {
	csv   csv
	pairs []pair
	// reason and message, when nothing can be generated for the CSV.
	reason, message string
	// groupProblem, when its OperatorGroup is not whole (none, several, a
	// selector not resolved): what was generated stays as it is, as OLM
	// leaves its RBAC in place, and the message says why.
	groupProblem string
}

// plan decides, for each CSV, what it should have. groups are the
// OperatorGroups by namespace.
func plan(c csv, groups map[string][]operatorGroup, cfg config) desired {
	d := desired{csv: c}
	og := groups[c.Namespace]
	switch {
	case len(og) == 0:
		d.reason, d.groupProblem = ReasonNoOperatorGroup, fmt.Sprintf(
			"namespace %s has no OperatorGroup, so OLM does not install this operator and the namespaces it targets are unknown", c.Namespace)
		d.message = "no scope is generated: " + d.groupProblem
		return d
	case len(og) > 1:
		d.reason, d.groupProblem = ReasonTooManyOperatorGroup, fmt.Sprintf(
			"namespace %s has %d OperatorGroups, and OLM installs nothing until it has one", c.Namespace, len(og))
		d.message = "no scope is generated: " + d.groupProblem
		return d
	}
	g := og[0]
	var namespaces []string
	switch {
	case g.Pending:
		d.reason, d.groupProblem = ReasonTargetsNotResolved, fmt.Sprintf(
			"OperatorGroup %s/%s selects its namespaces by label and OLM has not listed them in its status.namespaces", g.Namespace, g.Name)
		d.message = "no scope is generated yet: " + d.groupProblem
		return d
	case g.AllNamespaces && !cfg.bindAll:
		d.reason, d.message = ReasonAllNamespaces, fmt.Sprintf(
			"no scope is generated: OperatorGroup %s/%s targets all namespaces, which would bind this operator's namespaced permissions cluster-wide; "+
				"to generate it anyway, set it explicitly: oc patch workloadaccess cluster --type=merge -p '{\"spec\":{\"olmScopes\":{\"allNamespacesOperatorGroups\":\"BindClusterWide\"}}}'",
			g.Namespace, g.Name)
		return d
	case g.AllNamespaces:
		namespaces = nil
	default:
		// OLM grants the permissions in the install namespace as well (the
		// InstallPlan's Roles there), and copies them into each target.
		namespaces = sortedUnique(append(slices.Clone(g.Targets), c.Namespace))
	}
	base := baseName(c)
	for _, p := range []struct {
		kind       string
		entries    []permission
		namespaces []string
		suffix     string
	}{{permissionsNamespaced, c.Permissions, namespaces, ""}, {permissionsCluster, c.ClusterPermissions, nil, "-cluster"}} {
		spec, err := templateSpec(nameWithSuffix(base, p.suffix), c.Namespace, p.entries)
		if err != nil {
			d.reason, d.message = ReasonInvalid, "no scope is generated: "+err.Error()
			d.pairs = nil
			return d
		}
		if spec == nil {
			continue
		}
		d.pairs = append(d.pairs, pair{permissions: p.kind, name: nameWithSuffix(base, p.suffix), template: *spec,
			namespaces: p.namespaces, entries: p.entries})
	}
	return d
}

// templateSpec is the ScopeTemplate of one of the CSV's permission lists:
// a ClusterRole per entry (more when an entry has more rules than a role
// holds), each for the entry's ServiceAccount in the CSV's namespace. nil
// when the list grants nothing.
func templateSpec(name, namespace string, entries []permission) (*scopesv1alpha1.ScopeTemplateSpec, error) {
	var roles []scopesv1alpha1.ClusterRoleTemplate
	for _, e := range entries {
		for chunk := range slices.Chunk(e.Rules, maxRulesPerRole) {
			roles = append(roles, scopesv1alpha1.ClusterRoleTemplate{
				GenerateName: fmt.Sprintf("%s-%d-", name, len(roles)),
				Rules:        slices.Clone(chunk),
				Subjects:     []scopesv1alpha1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: e.ServiceAccountName, Namespace: namespace}},
			})
		}
	}
	if len(roles) == 0 {
		return nil, nil
	}
	if len(roles) > maxRolesPerTemplate {
		return nil, fmt.Errorf("its permissions need %d ClusterRoles of at most %d rules, more than the %d a ScopeTemplate holds", len(roles), maxRulesPerRole, maxRolesPerTemplate)
	}
	return &scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: roles}, nil
}

// versionSuffix is how OLM's CSV names usually end: <package>.v<semver>.
var versionSuffix = regexp.MustCompile(`\.v?[0-9]+(\.[0-9]+)*([-+][0-9A-Za-z.-]*)?$`)

// baseName is the stable part of the generated names: olm-<namespace>-<the
// CSV's name without its version>, so an upgrade keeps them.
func baseName(c csv) string {
	name := versionSuffix.ReplaceAllString(c.Name, "")
	if name == "" {
		name = c.Name
	}
	return sanitize("olm-" + c.Namespace + "-" + name)
}

var notNameChars = regexp.MustCompile(`[^a-z0-9.-]+`)

func sanitize(s string) string {
	return strings.Trim(notNameChars.ReplaceAllString(strings.ToLower(s), "-"), "-.")
}

// nameWithSuffix is base+suffix, cut to the 63 characters a ScopeTemplate
// or ScopeInstance name may have, with 10 hex digits of the full name's
// SHA-256 keeping cut names apart.
func nameWithSuffix(base, suffix string) string {
	name := base + suffix
	if len(name) <= maxNameLength {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	hash := hex.EncodeToString(sum[:])[:10]
	keep := maxNameLength - len(suffix) - len(hash) - 1
	return strings.TrimRight(base[:keep], "-.") + "-" + hash + suffix
}

func sortedUnique(xs []string) []string {
	sort.Strings(xs)
	return slices.Compact(xs)
}

// generatedMeta are the labels and annotations of a pair's objects.
func generatedMeta(c csv, permissions string) (map[string]string, map[string]string) {
	return map[string]string{CSVUIDLabel: string(c.UID)},
		map[string]string{CSVNamespaceAnnotation: c.Namespace, CSVNameAnnotation: c.Name, PermissionsAnnotation: permissions}
}

// claims says whether the generated object (its labels and annotations)
// belongs to c: generated from c (its UID), or from the CSV c replaces in
// c's namespace (the upgrade takes it over).
func claims(c csv, labels, annotations map[string]string) bool {
	if types.UID(labels[CSVUIDLabel]) == c.UID {
		return true
	}
	return c.Replaces != "" && annotations[CSVNamespaceAnnotation] == c.Namespace && annotations[CSVNameAnnotation] == c.Replaces
}

// joinNamespaces is the annotation form of an instance's namespaces.
func joinNamespaces(namespaces []string) string {
	if len(namespaces) == 0 {
		return clusterWide
	}
	return strings.Join(namespaces, ",")
}

// instanceNamespaces decides the namespaces of a generated instance: what
// the OperatorGroup gives, unless the admin narrowed the instance, in which
// case what the admin kept that the group still gives. narrowed says
// whether the instance is, or now becomes, narrowed. nowhere says it is
// narrowed to no namespace (its list emptied, or none of it left) and has
// no selector: it must bind nowhere, and a ScopeInstance without
// namespaces or selector would bind cluster-wide.
func instanceNamespaces(existing *scopesv1alpha1.ScopeInstance, want []string) (namespaces []string, narrowed, nowhere bool) {
	if existing == nil {
		return want, false, false
	}
	current := existing.Spec.Namespaces
	selector := existing.Spec.NamespaceSelector != nil
	recorded := existing.Annotations[GeneratedNamespacesAnnotation]
	narrowed = existing.Annotations[NarrowedAnnotation] == "true" ||
		(recorded != "" && joinNamespaces(sortedUnique(slices.Clone(current))) != recorded) ||
		(recorded == "" && len(current) == 0 && want != nil) || selector
	if !narrowed {
		return want, false, false
	}
	if want != nil {
		var kept []string
		for _, ns := range current {
			if slices.Contains(want, ns) {
				kept = append(kept, ns)
			}
		}
		current = kept
	}
	if len(current) == 0 && !selector {
		return nil, true, true
	}
	if len(current) == 0 {
		return nil, true, false // the admin's selector alone
	}
	return sortedUnique(slices.Clone(current)), true, false
}

// bindsIn is where an instance's spec binds, as held asks it: its
// namespaces, or nil for cluster-wide. A namespaceSelector binds in every
// namespace whose labels match, now or later, which only a cluster-wide
// grant covers.
func bindsIn(spec scopesv1alpha1.ScopeInstanceSpec) []string {
	if spec.NamespaceSelector != nil || len(spec.Namespaces) == 0 {
		return nil
	}
	return sortedUnique(slices.Clone(spec.Namespaces))
}

// newlyBound is where an instance binds something it did not before: all
// of where it binds when its template's rules change (old too, since the
// template is written first), else the namespaces it adds. nil is
// cluster-wide; none says nothing new is bound.
func newlyBound(old *scopesv1alpha1.ScopeInstance, want scopesv1alpha1.ScopeInstanceSpec, rulesChange bool) (namespaces []string, none bool) {
	now := bindsIn(want)
	if old == nil {
		return now, false
	}
	before := bindsIn(old.Spec)
	if rulesChange || old.Spec.ScopeTemplateName != want.ScopeTemplateName {
		if now == nil || before == nil {
			return nil, false
		}
		return sortedUnique(append(slices.Clone(now), before...)), false
	}
	if before == nil {
		return nil, true // cluster-wide already: nothing new
	}
	if now == nil {
		return nil, false
	}
	var added []string
	for _, ns := range now {
		if !slices.Contains(before, ns) {
			added = append(added, ns)
		}
	}
	return added, len(added) == 0
}

// sameTemplate says whether the existing template already is what the
// pair says, labels and annotations included.
func sameTemplate(existing *scopesv1alpha1.ScopeTemplate, want *scopesv1alpha1.ScopeTemplate) bool {
	return equality.Semantic.DeepEqual(existing.Spec, want.Spec) && subset(want.Labels, existing.Labels) && subset(want.Annotations, existing.Annotations)
}

func subset(want, have map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}
