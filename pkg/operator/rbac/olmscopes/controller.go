package olmscopes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	coreinformers "k8s.io/client-go/informers/core/v1"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	scopesclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/scopes/v1alpha1"
	operatorinformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/operator/v1alpha1"
	scopeinformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/scopes/v1alpha1"
	operatorlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	scopelisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
)

// ControllerName names the controller in logs, events and its
// OLMScopeGeneratorDegraded condition.
const ControllerName = "OLMScopeGenerator"

// GeneratorServiceAccount is the identity the generator writes as: the
// operator impersonates it (manifests/), and an admin who opts in grants it
// what the operators brought over need (docs/scopes.md).
const (
	GeneratorServiceAccount          = "olm-scope-generator"
	GeneratorServiceAccountNamespace = "openshift-workload-access-operator"
)

// GeneratorUser is GeneratorServiceAccount's user name.
var GeneratorUser = "system:serviceaccount:" + GeneratorServiceAccountNamespace + ":" + GeneratorServiceAccount

const (
	syncWait = time.Second
	// retryRefused is when a CSV whose scope was refused (the generator
	// lacks a grant, the CSV's ServiceAccount lacks one) is tried again:
	// RBAC changes wake nothing here.
	retryRefused = time.Minute
)

// Inputs are what the controller needs.
type Inputs struct {
	// CRDs is crdaccess.NewCRDInformer's informer (shared, run by the
	// starter): whether OLM v0's APIs are served.
	CRDs             cache.SharedIndexInformer
	WorkloadAccesses operatorinformers.WorkloadAccessInformer
	Templates        scopeinformers.ScopeTemplateInformer
	Instances        scopeinformers.ScopeInstanceInformer
	// Namespaces (name and UID suffice) tell a listed namespace re-created
	// since a generated instance's spec was written.
	Namespaces coreinformers.NamespaceInformer
	// Dynamic reads CSVs and OperatorGroups as the operator.
	Dynamic dynamic.Interface
	// Generator writes ScopeTemplates and ScopeInstances as
	// GeneratorServiceAccount.
	Generator scopesclient.ScopesV1alpha1Interface
	// Reviews asks whether a CSV's ServiceAccount holds a permission.
	Reviews authorizationclient.SubjectAccessReviewsGetter
	// Events records on ClusterServiceVersions (frame/objectevents).
	Events         record.EventRecorder
	OperatorClient v1helpers.OperatorClient
	Recorder       events.Recorder
}

// New returns the controller: one key for the cluster.
func New(in Inputs) factory.Controller {
	c := &controller{crds: in.CRDs.GetIndexer(), config: in.WorkloadAccesses.Lister(),
		templates: in.Templates.Lister(), instances: in.Instances.Lister(), namespaces: in.Namespaces.Lister(), generator: in.Generator,
		reviews: in.Reviews, events: in.Events, said: map[types.UID]string{}, operator: in.OperatorClient,
		start: func(ctx context.Context) watches { return startWatches(ctx, in.Dynamic) }}
	return factory.New().
		WithInformers(in.CRDs, in.WorkloadAccesses.Informer(), in.Templates.Informer(), in.Instances.Informer()).
		// A re-created namespace wakes nothing here: the instance's status
		// saying NamespacesReplaced does.
		WithBareInformers(in.Namespaces.Informer()).
		WithSync(managementsync.Syncs{Managed: c.sync}.Sync(in.OperatorClient)).
		WithSyncDegradedOnError(in.OperatorClient).
		ResyncEvery(informerkit.Resync).
		ToController(ControllerName, in.Recorder)
}

// watches are the informers on OLM's APIs, run while the APIs are served
// and the opt-in is on: with it off, no CSV is cached.
type watches struct {
	csvs, groups cache.SharedIndexInformer
	stop         context.CancelFunc
}

func startWatches(ctx context.Context, client dynamic.Interface) watches {
	ctx, stop := context.WithCancel(ctx)
	csvs := dynamicinformer.NewFilteredDynamicInformer(client, ClusterServiceVersions, "", informerkit.Resync, cache.Indexers{}, nil).Informer()
	_ = csvs.SetTransform(stripCSV)
	groups := dynamicinformer.NewFilteredDynamicInformer(client, OperatorGroups, "", informerkit.Resync, cache.Indexers{}, nil).Informer()
	go csvs.RunWithContext(ctx)
	go groups.RunWithContext(ctx)
	return watches{csvs: csvs, groups: groups, stop: stop}
}

// stripCSV keeps of a CSV what the generator reads: a CSV carries its
// operator's deployments, icons and examples, often hundreds of KiB.
func stripCSV(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	out := &unstructured.Unstructured{Object: map[string]any{}}
	out.SetAPIVersion(u.GetAPIVersion())
	out.SetKind(u.GetKind())
	out.SetName(u.GetName())
	out.SetNamespace(u.GetNamespace())
	out.SetUID(u.GetUID())
	out.SetResourceVersion(u.GetResourceVersion())
	out.SetDeletionTimestamp(u.GetDeletionTimestamp())
	if from, ok := u.GetLabels()[copiedFromLabel]; ok {
		out.SetLabels(map[string]string{copiedFromLabel: from})
	}
	if replaces, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "replaces"); ok {
		_ = unstructured.SetNestedField(out.Object, replaces, "spec", "replaces")
	}
	for _, field := range []string{"permissions", "clusterPermissions"} {
		if v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "install", "spec", field); ok {
			_ = unstructured.SetNestedField(out.Object, v, "spec", "install", "spec", field)
		}
	}
	return out, nil
}

type controller struct {
	crds      cache.Indexer
	config    operatorlisters.WorkloadAccessLister
	templates scopelisters.ScopeTemplateLister
	instances scopelisters.ScopeInstanceLister
	// namespaces is nil in unit tests that need none.
	namespaces corelisters.NamespaceLister
	generator  scopesclient.ScopesV1alpha1Interface
	reviews    authorizationclient.SubjectAccessReviewsGetter
	events     record.EventRecorder
	start      func(context.Context) watches

	watching *watches
	// again asks for a sync soon: a write met a newer object than cached.
	again bool
	// said is the last Event recorded on each CSV ("reason: message"), so a
	// resync repeats nothing.
	said map[types.UID]string
	// kept are the CSVs whose scope this sync kept while their
	// OperatorGroup is not whole ("namespace/name (why)"), for
	// OLMScopesFollowOperatorGroups.
	kept     []string
	operator v1helpers.OperatorClient
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	wa, err := c.config.Get(operatorv1alpha1.WorkloadAccessName)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	var cfg config
	if wa != nil {
		cfg = readConfig(wa.Spec.OLMScopes)
	}
	if !cfg.enabled() || !c.served() {
		if c.watching != nil {
			c.watching.stop()
			c.watching, c.said = nil, map[types.UID]string{}
		}
		// Opted out, or OLM gone with its CSVs: nothing generated stays.
		return errors.Join(c.deleteUnclaimed(ctx, map[string]bool{}), c.reportKept(ctx, nil))
	}
	if c.watching == nil {
		w := c.start(ctx)
		wake := func(any) { syncCtx.Queue().Add(syncCtx.QueueKey()) }
		for _, informer := range []cache.SharedIndexInformer{w.csvs, w.groups} {
			if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: wake,
				UpdateFunc: func(_, obj any) { wake(obj) }, DeleteFunc: wake}); err != nil {
				w.stop()
				return err
			}
		}
		c.watching = &w
	}
	if !c.watching.csvs.HasSynced() || !c.watching.groups.HasSynced() {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), syncWait)
		return nil
	}
	groups := map[string][]operatorGroup{}
	for _, obj := range c.watching.groups.GetStore().List() {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			g := parseOperatorGroup(u)
			groups[g.Namespace] = append(groups[g.Namespace], g)
		}
	}
	var csvs []csv
	replaced := map[string]bool{} // namespace/name of CSVs a live CSV replaces
	seen := map[types.UID]bool{}
	for _, obj := range c.watching.csvs.GetStore().List() {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok || copied(u) || !cfg.optedIn(u.GetNamespace()) {
			continue
		}
		seen[u.GetUID()] = true
		parsed, err := parseCSV(u.Object)
		if err != nil {
			c.say(u.GetNamespace(), u.GetName(), u.GetUID(), corev1.EventTypeWarning, ReasonInvalid, "no scope is generated: "+err.Error())
			continue
		}
		if parsed.Deleting {
			continue
		}
		csvs = append(csvs, parsed)
		if parsed.Replaces != "" {
			replaced[parsed.Namespace+"/"+parsed.Replaces] = true
		}
	}
	for uid := range c.said {
		if !seen[uid] {
			delete(c.said, uid)
		}
	}
	keep := map[string]bool{}
	var errs []error
	retry := false
	c.kept = nil
	for _, one := range csvs {
		if replaced[one.Namespace+"/"+one.Name] {
			continue // its successor takes its scope over
		}
		again, err := c.generate(ctx, plan(one, groups, cfg), keep)
		retry = retry || again
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := c.deleteUnclaimed(ctx, keep); err != nil {
		errs = append(errs, err)
	}
	if err := c.reportKept(ctx, c.kept); err != nil {
		errs = append(errs, err)
	}
	switch {
	case c.again:
		c.again = false
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), syncWait)
	case retry:
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), retryRefused)
	}
	return errors.Join(errs...)
}

// served says whether the API server serves CSVs and OperatorGroups.
func (c *controller) served() bool {
	for name, kind := range map[string]string{ClusterServiceVersionCRD: "ClusterServiceVersion", OperatorGroupCRD: "OperatorGroup"} {
		obj, exists, err := c.crds.GetByKey(name)
		if err != nil || !exists {
			return false
		}
		crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
		if !ok || crd.DeletionTimestamp != nil || crd.Status.AcceptedNames.Kind != kind {
			return false
		}
	}
	return true
}

// generated are the objects of every CSV, by the label holding its UID.
func generatedSelector() labels.Selector {
	req, _ := labels.NewRequirement(CSVUIDLabel, selection.Exists, nil)
	return labels.NewSelector().Add(*req)
}

// generate writes what d says for one CSV, and adds to keep the names
// (kind/name) of the generated objects that stay. retry says the CSV was
// refused and should be tried again later.
func (c *controller) generate(ctx context.Context, d desired, keep map[string]bool) (retry bool, err error) {
	templates, err := c.templates.List(generatedSelector())
	if err != nil {
		return false, err
	}
	instances, err := c.instances.List(generatedSelector())
	if err != nil {
		return false, err
	}
	claimedTemplates := map[string]*scopesv1alpha1.ScopeTemplate{}
	claimedInstances := map[string]*scopesv1alpha1.ScopeInstance{}
	for _, t := range templates {
		if claims(d.csv, t.Labels, t.Annotations) {
			claimedTemplates[t.Annotations[PermissionsAnnotation]] = t
		}
	}
	for _, i := range instances {
		if claims(d.csv, i.Labels, i.Annotations) {
			claimedInstances[i.Annotations[PermissionsAnnotation]] = i
		}
	}
	keepClaimed := func() {
		for _, t := range claimedTemplates {
			keep["ScopeTemplate/"+t.Name] = true
		}
		for _, i := range claimedInstances {
			keep["ScopeInstance/"+i.Name] = true
		}
	}
	if d.reason != "" && d.groupProblem != "" && len(claimedTemplates)+len(claimedInstances) > 0 {
		// OLM leaves its RBAC in place while the OperatorGroup is not
		// whole; so does the generator: after step 3 of the move the scope
		// is all the operator has.
		keepClaimed()
		names := keptNames(claimedTemplates, claimedInstances)
		c.kept = append(c.kept, fmt.Sprintf("%s/%s (%s)", d.csv.Namespace, d.csv.Name, d.groupProblem))
		c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, corev1.EventTypeWarning, d.reason, fmt.Sprintf(
			"no scope is generated or changed: %s. What was generated from this ClusterServiceVersion stays as it is (%s), as OLM leaves its RBAC; "+
				"it follows the OperatorGroup again once namespace %s has exactly one, its targets resolved",
			d.groupProblem, names, d.csv.Namespace))
		return false, nil
	}
	if d.reason != "" {
		c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, corev1.EventTypeWarning, d.reason, d.message)
		return false, nil // what it claimed goes
	}

	// First what the admin narrowed to nothing: such an instance binds
	// cluster-wide until it is gone.
	withdrawn := map[string]bool{}
	soon := false
	for _, p := range d.pairs {
		how, err := c.withdraw(ctx, d, p, claimedTemplates[p.permissions], claimedInstances[p.permissions])
		if how == withdrawnNow || how == withdrawnStartOver {
			delete(claimedInstances, p.permissions)
		}
		if err != nil {
			keepClaimed()
			return false, err
		}
		switch how {
		case withdrawnRetry:
			soon = true
		case withdrawnNow, withdrawnStartOver:
			// Its bindings go with it (the garbage collector); its template
			// changes no rule before the next sync, and one that is gone
			// is generated afresh then.
			soon = true
		case withdrawnKept:
			withdrawn[p.permissions] = true
		}
	}
	if soon {
		keepClaimed()
		c.again = true
		return false, nil
	}

	type write struct {
		template       *scopesv1alpha1.ScopeTemplate
		oldTemplate    *scopesv1alpha1.ScopeTemplate
		instance       *scopesv1alpha1.ScopeInstance
		oldInstance    *scopesv1alpha1.ScopeInstance
		entries        []permission
		grantsChange   bool
		rulesChange    bool
		namespacesDesc string
		// replaced are listed namespaces re-created since the instance's
		// spec was written, which a write of the spec binds again.
		replaced []string
		// rebind says the spec is written only to bind replaced again.
		rebind bool
	}
	var writes []write
	for _, p := range d.pairs {
		labelSet, annotations := generatedMeta(d.csv, p.permissions)
		name := p.name
		if old, ok := claimedTemplates[p.permissions]; ok {
			name = old.Name // an upgrade keeps the names it took over
		}
		oldTemplate := claimedTemplates[p.permissions]
		if oldTemplate == nil || oldTemplate.Name != name {
			if other, err := c.templates.Get(name); err == nil {
				keepClaimed()
				c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, corev1.EventTypeWarning, ReasonConflict, fmt.Sprintf(
					"no scope is generated: ScopeTemplate %s exists and was not generated from this ClusterServiceVersion (its %s label is %q); it is left alone: delete it, or leave this operator on OLM's RBAC",
					other.Name, CSVUIDLabel, other.Labels[CSVUIDLabel]))
				return false, nil
			}
		}
		template := &scopesv1alpha1.ScopeTemplate{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labelSet, Annotations: merged(annotations, nil)},
			Spec: *p.template.DeepCopy()}
		for k := range template.Spec.ClusterRoles {
			// Role prefixes follow the template's name, not the one derived
			// for a CSV that took it over.
			template.Spec.ClusterRoles[k].GenerateName = fmt.Sprintf("%s-%d-", name, k)
		}
		if withdrawn[p.permissions] {
			// The template alone binds nothing; it keeps the mark.
			template.Annotations[WithdrawnAnnotation] = "true"
			writes = append(writes, write{template: template, oldTemplate: oldTemplate})
			continue
		}
		oldInstance := claimedInstances[p.permissions]
		if oldInstance == nil {
			if other, err := c.instances.Get(name); err == nil {
				keepClaimed()
				c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, corev1.EventTypeWarning, ReasonConflict, fmt.Sprintf(
					"no scope is generated: ScopeInstance %s exists and was not generated from this ClusterServiceVersion; it is left alone: delete it, or leave this operator on OLM's RBAC",
					other.Name))
				return false, nil
			}
		}
		namespaces, narrowed, _ := instanceNamespaces(oldInstance, p.namespaces)
		instance := &scopesv1alpha1.ScopeInstance{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labelSet, Annotations: map[string]string{}},
			Spec: scopesv1alpha1.ScopeInstanceSpec{ScopeTemplateName: name, Namespaces: namespaces}}
		for k, v := range annotations {
			instance.Annotations[k] = v
		}
		instance.Annotations[GeneratedNamespacesAnnotation] = joinNamespaces(p.namespaces)
		if narrowed {
			instance.Annotations[NarrowedAnnotation] = "true"
		}
		w := write{template: template, oldTemplate: oldTemplate, instance: instance, oldInstance: oldInstance, entries: p.entries}
		if oldInstance != nil {
			instance.Name = oldInstance.Name
			instance.Spec.NamespaceSelector = oldInstance.Spec.NamespaceSelector // the admin's, kept
			if equalNamespaces(oldInstance.Spec.Namespaces, instance.Spec.Namespaces) {
				// The same set in the order written: another order is
				// another generation (below).
				instance.Spec.Namespaces = slices.Clone(oldInstance.Spec.Namespaces)
			}
		}
		w.rulesChange = oldTemplate == nil || !equalTemplateSpec(oldTemplate, template)
		w.grantsChange = w.rulesChange || oldInstance == nil ||
			!equalNamespaces(oldInstance.Spec.Namespaces, instance.Spec.Namespaces) || oldInstance.Spec.ScopeTemplateName != instance.Spec.ScopeTemplateName
		replaced := replacedNamespaces(c.namespaces, oldInstance, instance.Spec.Namespaces)
		w.replaced = namesOf(replaced)
		if len(replaced) > 0 && !specChanges(oldInstance, instance.Spec) {
			// Only a new generation of the spec binds a re-created
			// namespace: the same namespaces in another order, and the
			// record, so that the write's time is the spec's.
			again := rotated(instance.Spec.Namespaces)
			switch {
			case again == nil:
				c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, corev1.EventTypeWarning, ReasonNamespaceReplaced, fmt.Sprintf(
					"ScopeInstance %s is not bound in %s, deleted and re-created since its spec was written, and lists no other namespace, so the generator cannot write "+
						"the spec again without changing what it says. Delete the ScopeInstance: it is generated again from the OperatorGroup (with its targets, not your narrowing), "+
						"bound where the ClusterServiceVersion's ServiceAccount holds what it carries",
					instance.Name, quoteNamespaces(w.replaced)))
				w.replaced = nil
			case oldInstance.Annotations[ReboundAnnotation] == reboundRecord(replaced):
				c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, corev1.EventTypeWarning, ReasonNamespaceReplaced, fmt.Sprintf(
					"ScopeInstance %s was written again to bind it in %s, re-created, and the scopes controller still does not bind it there: its Bound condition says why",
					instance.Name, quoteNamespaces(w.replaced)))
				w.replaced = nil
			default:
				instance.Spec.Namespaces, w.rebind, w.grantsChange = again, true, true
				instance.Annotations[ReboundAnnotation] = reboundRecord(replaced)
			}
		}
		w.namespacesDesc = describeWhere(instance.Spec)
		if w.rebind {
			w.namespacesDesc += fmt.Sprintf("; bound again in %s, re-created since, where its ServiceAccount holds what it carries", quoteNamespaces(w.replaced))
		}
		writes = append(writes, w)
	}

	// Before granting anything new: the CSV's ServiceAccounts must already
	// hold it, bound to them by name, wherever it would newly be bound, as
	// OLM's RBAC gives it them.
	for _, w := range writes {
		if w.instance == nil {
			continue
		}
		where, none := newlyBound(w.oldInstance, w.instance.Spec, w.rulesChange)
		if !none {
			missing, retry, err := c.holds(ctx, d, w.entries, where)
			if err != nil || retry {
				keepClaimed()
				return retry, err
			}
			if missing != "" {
				if w.instance.Spec.NamespaceSelector != nil {
					missing += fmt.Sprintf(" (ScopeInstance %s binds through its namespaceSelector, in every namespace whose labels match, now or later, so what it carries must be held cluster-wide; "+
						"remove the selector to have it checked in spec.namespaces only)", w.instance.Name)
				}
				keepClaimed()
				c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, corev1.EventTypeWarning, ReasonPermissionsNotHeld, fmt.Sprintf(
					"no scope is generated or changed: %s, so OLM has not (or not yet) given it what this ClusterServiceVersion asks for; a scope grants only what OLM already granted. Retried every minute",
					missing))
				return true, nil
			}
		}
		if len(w.replaced) == 0 || !specChanges(w.oldInstance, w.instance.Spec) || (!none && where == nil) {
			continue // nothing re-created is pinned anew, or it was asked cluster-wide above
		}
		// A new generation of the spec pins every listed namespace as it is
		// now: a re-created one is bound only where OLM granted the
		// ServiceAccount its rules again, never for its name alone.
		again := w.replaced
		if bindsIn(w.instance.Spec) == nil {
			again = nil // beside a selector: cluster-wide, as above
		}
		missing, retry, err := c.holds(ctx, d, w.entries, again)
		if err != nil || retry {
			keepClaimed()
			return retry, err
		}
		if missing != "" {
			keepClaimed()
			c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, corev1.EventTypeWarning, ReasonNamespaceReplaced, replacedWaiting(w.instance.Name, w.replaced, missing))
			return true, nil
		}
	}

	var wrote []string
	for _, w := range writes {
		keep["ScopeTemplate/"+w.template.Name] = true
		if err := c.writeTemplate(ctx, w.oldTemplate, w.template); err != nil {
			keepClaimed()
			return c.refused(d, "ScopeTemplate", w.template.Name, err)
		}
		if w.instance == nil {
			continue // withdrawn
		}
		keep["ScopeInstance/"+w.instance.Name] = true
		if err := c.writeInstance(ctx, w.oldInstance, w.instance); err != nil {
			keepClaimed()
			return c.refused(d, "ScopeInstance", w.instance.Name, err)
		}
		if w.oldTemplate == nil || w.oldInstance == nil || w.grantsChange || !sameTemplate(w.oldTemplate, w.template) {
			wrote = append(wrote, fmt.Sprintf("ScopeTemplate and ScopeInstance %s (%s)", w.template.Name, w.namespacesDesc))
		}
	}
	keepClaimed()
	if len(wrote) > 0 {
		c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, corev1.EventTypeNormal, ReasonGenerated, "generated from this ClusterServiceVersion: "+strings.Join(wrote, "; ")+
			"; OLM's own RBAC for it is untouched (docs/scopes.md says how to move the operator over)")
	}
	return false, nil
}

// holds is held for one CSV: what its ServiceAccounts lack of entries in
// namespaces (none: cluster-wide). retry says it was too much to ask, and
// the CSV was told.
func (c *controller) holds(ctx context.Context, d desired, entries []permission, namespaces []string) (missing string, retry bool, err error) {
	missing, err = c.held(ctx, d.csv.Namespace, entries, namespaces)
	var tooMany *tooManyQuestions
	if errors.As(err, &tooMany) {
		c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, corev1.EventTypeWarning, ReasonTooManyPermissions, fmt.Sprintf(
			"no scope is generated or changed: %v, and the generator asks at most %d in one check (a fixed bound, docs/scopes.md); "+
				"what it had stays. Target fewer namespaces with the OperatorGroup, or leave this operator on OLM's RBAC. Retried every minute",
			tooMany, maxQuestions))
		return "", true, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("checking what ClusterServiceVersion %s/%s's ServiceAccounts hold: %w", d.csv.Namespace, d.csv.Name, err)
	}
	return missing, false, nil
}

// withdrawal is what withdraw did with a pair.
type withdrawal int

const (
	// withdrawnNot: the pair is generated as usual.
	withdrawnNot withdrawal = iota
	// withdrawnKept: its template is marked and it has no instance.
	withdrawnKept
	// withdrawnNow: its instance was deleted now, its template marked.
	withdrawnNow
	// withdrawnStartOver: its instance was deleted now, and its template
	// is gone or could not be marked: the pair is generated afresh.
	withdrawnStartOver
	// withdrawnRetry: the mark met a newer template; tried again soon.
	withdrawnRetry
)

// withdraw takes away a pair's instance when the admin narrowed it to no
// namespace (instanceNamespaces' nowhere: without namespaces or selector
// it binds cluster-wide) or marked its template WithdrawnAnnotation. The
// mark is written first: once the instance is gone, it alone says that
// none is to be generated again.
func (c *controller) withdraw(ctx context.Context, d desired, p pair, template *scopesv1alpha1.ScopeTemplate, instance *scopesv1alpha1.ScopeInstance) (withdrawal, error) {
	marked := template != nil && template.Annotations[WithdrawnAnnotation] == "true"
	_, _, nowhere := instanceNamespaces(instance, p.namespaces)
	switch {
	case !marked && !nowhere:
		return withdrawnNot, nil
	case instance == nil:
		return withdrawnKept, nil
	}
	var markErr error
	if template != nil && !marked {
		updated := template.DeepCopy()
		updated.Annotations = merged(updated.Annotations, map[string]string{WithdrawnAnnotation: "true"})
		_, markErr = c.generator.ScopeTemplates().Update(ctx, updated, metav1.UpdateOptions{})
		if apierrors.IsConflict(markErr) {
			return withdrawnRetry, nil
		}
	}
	uid := instance.UID
	if err := c.generator.ScopeInstances().Delete(ctx, instance.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil && !apierrors.IsNotFound(err) {
		return withdrawnNot, errors.Join(markErr, fmt.Errorf("deleting ScopeInstance %s, narrowed to no namespace: %w", instance.Name, err))
	}
	why := fmt.Sprintf("ScopeTemplate %s is marked %s=true", instance.Spec.ScopeTemplateName, WithdrawnAnnotation)
	eventType := corev1.EventTypeNormal
	if nowhere {
		why = "it was narrowed to no namespace (spec.namespaces emptied, or none of its namespaces still targeted by the OperatorGroup) and has no namespaceSelector, " +
			"which a ScopeInstance reads as cluster-wide"
		eventType = corev1.EventTypeWarning
	}
	switch {
	case template == nil:
		c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, eventType, ReasonWithdrawn, fmt.Sprintf(
			"ScopeInstance %s is deleted: %s. Its ScopeTemplate is gone too, which starts over: both are generated again from the OperatorGroup", instance.Name, why))
		return withdrawnStartOver, nil
	case markErr != nil:
		c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, eventType, ReasonWithdrawn, fmt.Sprintf(
			"ScopeInstance %s is deleted: %s. Marking ScopeTemplate %s %s=true failed (%v), so it is generated again from the OperatorGroup", instance.Name, why, template.Name, WithdrawnAnnotation, markErr))
		return withdrawnStartOver, fmt.Errorf("marking ScopeTemplate %s withdrawn: %w", template.Name, markErr)
	}
	c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, eventType, ReasonWithdrawn, fmt.Sprintf(
		"ScopeInstance %s is deleted, and none is generated again: %s. ScopeTemplate %s keeps %s=true and binds nowhere; to start over, delete it: both are then generated again from the OperatorGroup",
		instance.Name, why, template.Name, WithdrawnAnnotation))
	return withdrawnNow, nil
}

// refused reports a write the API server refused: the access-grants check
// (the generator lacks what it would grant) or validation. Not Degraded:
// it is the admin's to grant, and is retried every minute.
func (c *controller) refused(d desired, kind, name string, err error) (bool, error) {
	if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		// The scopes controllers wrote its status, or the cache trails our
		// own write: the next sync reads it again.
		c.again = true
		return false, nil
	}
	if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
		c.say(d.csv.Namespace, d.csv.Name, d.csv.UID, corev1.EventTypeWarning, ReasonRefused, fmt.Sprintf(
			"writing %s %s as %s was refused: %v. The generator grants only what it holds: an admin who opts in grants it (docs/scopes.md), e.g. oc adm policy add-cluster-role-to-user cluster-admin -z %s -n %s",
			kind, name, GeneratorUser, err, GeneratorServiceAccount, GeneratorServiceAccountNamespace))
		return true, nil
	}
	return false, fmt.Errorf("writing %s %s for ClusterServiceVersion %s/%s: %w", kind, name, d.csv.Namespace, d.csv.Name, err)
}

func (c *controller) writeTemplate(ctx context.Context, old, want *scopesv1alpha1.ScopeTemplate) error {
	if old == nil {
		_, err := c.generator.ScopeTemplates().Create(ctx, want, metav1.CreateOptions{})
		return err
	}
	if sameTemplate(old, want) {
		return nil
	}
	updated := old.DeepCopy()
	updated.Spec = want.Spec
	updated.Labels, updated.Annotations = merged(updated.Labels, want.Labels), merged(updated.Annotations, want.Annotations)
	_, err := c.generator.ScopeTemplates().Update(ctx, updated, metav1.UpdateOptions{})
	return err
}

func (c *controller) writeInstance(ctx context.Context, old, want *scopesv1alpha1.ScopeInstance) error {
	if old == nil {
		_, err := c.generator.ScopeInstances().Create(ctx, want, metav1.CreateOptions{})
		return err
	}
	if !specChanges(old, want.Spec) &&
		subset(want.Labels, old.Labels) && subset(want.Annotations, old.Annotations) {
		return nil
	}
	updated := old.DeepCopy()
	updated.Spec.ScopeTemplateName, updated.Spec.Namespaces = want.Spec.ScopeTemplateName, want.Spec.Namespaces
	updated.Labels, updated.Annotations = merged(updated.Labels, want.Labels), merged(updated.Annotations, want.Annotations)
	_, err := c.generator.ScopeInstances().Update(ctx, updated, metav1.UpdateOptions{})
	return err
}

// deleteUnclaimed deletes every generated object not in keep, instances
// first, each only if it still has the UID it was listed with.
func (c *controller) deleteUnclaimed(ctx context.Context, keep map[string]bool) error {
	instances, err := c.instances.List(generatedSelector())
	if err != nil {
		return err
	}
	var errs []error
	for _, i := range instances {
		if keep["ScopeInstance/"+i.Name] || i.DeletionTimestamp != nil {
			continue
		}
		uid := i.UID
		if err := c.generator.ScopeInstances().Delete(ctx, i.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting generated ScopeInstance %s: %w", i.Name, err))
		}
	}
	templates, err := c.templates.List(generatedSelector())
	if err != nil {
		return err
	}
	for _, t := range templates {
		if keep["ScopeTemplate/"+t.Name] || t.DeletionTimestamp != nil {
			continue
		}
		uid := t.UID
		if err := c.generator.ScopeTemplates().Delete(ctx, t.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting generated ScopeTemplate %s: %w", t.Name, err))
		}
	}
	return errors.Join(errs...)
}

// say records an Event on the CSV unless it is what was last said.
func (c *controller) say(namespace, name string, uid types.UID, eventType, reason, message string) {
	if c.said[uid] == reason+": "+message {
		return
	}
	c.said[uid] = reason + ": " + message
	c.events.Event(&corev1.ObjectReference{APIVersion: ClusterServiceVersions.GroupVersion().String(), Kind: "ClusterServiceVersion",
		Namespace: namespace, Name: name, UID: uid}, eventType, reason, message)
}

func merged(have, want map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range have {
		out[k] = v
	}
	for k, v := range want {
		out[k] = v
	}
	return out
}

func equalTemplateSpec(a, b *scopesv1alpha1.ScopeTemplate) bool {
	return sameTemplate(a, &scopesv1alpha1.ScopeTemplate{Spec: b.Spec})
}

// specChanges says whether writing want over old makes a new generation
// of the instance's spec (the generator keeps the admin's selector): the
// API server compares lists in order.
func specChanges(old *scopesv1alpha1.ScopeInstance, want scopesv1alpha1.ScopeInstanceSpec) bool {
	return old == nil || !slices.Equal(old.Spec.Namespaces, want.Namespaces) || old.Spec.ScopeTemplateName != want.ScopeTemplateName
}

func equalNamespaces(a, b []string) bool {
	return joinNamespaces(sortedUnique(append([]string(nil), a...))) == joinNamespaces(sortedUnique(append([]string(nil), b...)))
}

func describeWhere(spec scopesv1alpha1.ScopeInstanceSpec) string {
	switch {
	case spec.NamespaceSelector != nil && len(spec.Namespaces) > 0:
		return "in namespaces " + strings.Join(spec.Namespaces, ", ") + " and those its namespaceSelector matches"
	case spec.NamespaceSelector != nil:
		return "in the namespaces its namespaceSelector matches"
	case len(spec.Namespaces) == 0:
		return "cluster-wide"
	}
	return "in namespaces " + strings.Join(spec.Namespaces, ", ")
}
