package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// Property: whatever a user who may only make, delete and label
// namespaces (and ServiceAccounts in them) does, in whatever order with an
// admin's ScopeInstances and a template editor's attempts, a RoleBinding
// of an instance exists only in a namespace whose UID the admin's judged
// spec named (it existed, listed, when the admin wrote the spec), or that
// carried the labels of the instance's selector while the instance had it
// (a selector trusts whoever may label namespaces: docs/scopes.md); and no
// binding names a subject the admin did not write. Checked after every
// step, and once more after the operator has settled at each sequence's
// end, when every judged namespace that is still the same one must be
// bound (so the check is not vacuous). The seeds are fixed so a failure
// reproduces: E2E_TRUST_SEEDS=1,2,3 runs others.
func TestTrustFollowsOnlyWhatAnAdminJudged(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	seeds := []uint64{46, 4601, 4602}
	if s := os.Getenv("E2E_TRUST_SEEDS"); s != "" {
		seeds = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				t.Fatalf("E2E_TRUST_SEEDS: %v", err)
			}
			seeds = append(seeds, n)
		}
	}
	squatter, editor := "e2e-prop-squatter", "e2e-prop-editor"
	grantClusterRole(t, squatter, "e2e-prop-namespace-maker",
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"create", "delete", "get", "patch"}},
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"serviceaccounts"}, Verbs: []string{"create"}})
	bindClusterRole(t, editor, "view", metav1.ObjectMeta{GenerateName: "e2e-prop-view-"})
	grantClusterRole(t, editor, "e2e-prop-template-patcher",
		rbacv1.PolicyRule{APIGroups: []string{scopesv1alpha1.GroupName}, Resources: []string{"scopetemplates"}, Verbs: []string{"get", "patch"}})

	const stepsPerSequence = 16
	total := stats{}
	start := time.Now()
	for _, seed := range seeds {
		s := newTrustSequence(t, seed, kubeImpersonating(t, squatter), asUser(t, editor))
		for range stepsPerSequence {
			s.step()
			time.Sleep(300 * time.Millisecond) // let the operator act on it
			s.check(false)
		}
		s.settle()
		total.add(s.stats)
	}
	t.Logf("FIGURE trust property: %d sequences, %d steps, %d admitted spec writes, %d refusals, %d bindings seen in judged namespaces, %d checks, in %s",
		len(seeds), len(seeds)*stepsPerSequence, total.specWrites, total.refusals, total.boundSeen, total.checks, time.Since(start).Round(time.Second))
	if total.boundSeen == 0 || total.specWrites == 0 {
		t.Errorf("the sequences bound nothing: the property was never put to the test")
	}
}

type stats struct{ specWrites, refusals, boundSeen, checks int }

func (s *stats) add(o stats) {
	s.specWrites, s.refusals, s.boundSeen, s.checks = s.specWrites+o.specWrites, s.refusals+o.refusals, s.boundSeen+o.boundSeen, s.checks+o.checks
}

// trustSequence is one random sequence and what the test knows of it.
type trustSequence struct {
	t        *testing.T
	rng      *rand.Rand
	seed     uint64
	squatter kubernetes.Interface
	editor   operatorclientset.Interface
	template string
	// namespaces is the pool of names the sequence plays with.
	namespaces []string
	label      map[string]string
	// judged are, per instance, the namespace UIDs its admin-written specs
	// ever listed when written (a binding of an earlier spec may linger a
	// moment); latest are those of the last spec; selects says whether it
	// has a selector now.
	judged, latest map[string]sets.Set[types.UID]
	selects        map[string]bool
	// labelled are the namespace UIDs that ever carried the selector's labels.
	labelled sets.Set[types.UID]
	log      []string
	stats
}

const trustSubject = "deployer"

func newTrustSequence(t *testing.T, seed uint64, squatter kubernetes.Interface, editor operatorclientset.Interface) *trustSequence {
	t.Helper()
	id := "e2e-prop-" + strconv.FormatUint(seed, 36)
	s := &trustSequence{t: t, rng: rand.New(rand.NewPCG(seed, 46)), seed: seed, squatter: squatter, editor: editor, template: id,
		label: map[string]string{"e2e-prop-team": id}, judged: map[string]sets.Set[types.UID]{}, latest: map[string]sets.Set[types.UID]{}, selects: map[string]bool{}, labelled: sets.New[types.UID]()}
	for i := range 3 {
		s.namespaces = append(s.namespaces, fmt.Sprintf("%s-ns%d", id, i))
	}
	ctx := context.Background()
	if _, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, &scopesv1alpha1.ScopeTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: s.template},
		Spec: scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{
			GenerateName: "configmap-lister-",
			Rules:        []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}},
			Subjects:     []scopesv1alpha1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: trustSubject}},
		}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		for _, name := range []string{"listed", "selected", "both"} {
			_ = env.operator.ScopesV1alpha1().ScopeInstances().Delete(ctx, s.instance(name), metav1.DeleteOptions{})
		}
		_ = env.operator.ScopesV1alpha1().ScopeTemplates().Delete(ctx, s.template, metav1.DeleteOptions{})
		for _, ns := range s.namespaces {
			_ = env.kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
		}
	})
	return s
}

func (s *trustSequence) instance(kind string) string { return s.template + "-" + kind }

func (s *trustSequence) note(format string, args ...any) {
	s.log = append(s.log, fmt.Sprintf(format, args...))
}

// step makes one random move: the squatter's, the admin's or the editor's.
func (s *trustSequence) step() {
	ns := s.namespaces[s.rng.IntN(len(s.namespaces))]
	switch r := s.rng.IntN(100); {
	case r < 22:
		s.squatterCreates(ns, s.rng.IntN(2) == 0)
	case r < 40:
		s.squatterDeletes(ns)
	case r < 52:
		s.squatterRelabels(ns)
	case r < 85:
		s.adminWrites([]string{"listed", "selected", "both"}[s.rng.IntN(3)])
	case r < 92:
		s.adminDeletes([]string{"listed", "selected", "both"}[s.rng.IntN(3)])
	default:
		s.editorResubjects()
	}
}

// live is the namespace of that name, nil when absent.
func live(ctx context.Context, name string) *corev1.Namespace {
	ns, err := env.kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return ns
}

func (s *trustSequence) squatterCreates(name string, labelled bool) {
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if labelled {
		ns.Labels = s.label
	}
	created, err := s.squatter.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if err != nil {
		s.note("squatter creates %s: %v", name, short(err))
		return
	}
	if labelled {
		s.labelled.Insert(created.UID)
	}
	_, err = s.squatter.CoreV1().ServiceAccounts(name).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: trustSubject}}, metav1.CreateOptions{})
	s.note("squatter creates %s (uid %s, labelled %v) and its %s: %v", name, created.UID, labelled, trustSubject, err)
}

func (s *trustSequence) squatterDeletes(name string) {
	err := s.squatter.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	s.note("squatter deletes %s: %v", name, short(err))
}

func (s *trustSequence) squatterRelabels(name string) {
	ctx := context.Background()
	ns := live(ctx, name)
	if ns == nil || ns.DeletionTimestamp != nil {
		return
	}
	value := "null"
	if ns.Labels["e2e-prop-team"] == "" {
		value = strconv.Quote(s.label["e2e-prop-team"])
	}
	patch := fmt.Sprintf(`{"metadata":{"labels":{"e2e-prop-team":%s}}}`, value)
	got, err := s.squatter.CoreV1().Namespaces().Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err == nil && got.Labels["e2e-prop-team"] != "" {
		s.labelled.Insert(got.UID)
	}
	s.note("squatter sets %s's label to %s: %v", name, value, short(err))
}

// adminWrites creates or rewrites an instance of the kind, listing the
// namespaces that exist now (some of them), with or without the selector.
func (s *trustSequence) adminWrites(kind string) {
	ctx := context.Background()
	var listed []string
	uids := sets.New[types.UID]()
	if kind != "selected" {
		for _, name := range s.namespaces {
			if ns := live(ctx, name); ns != nil && ns.DeletionTimestamp == nil && s.rng.IntN(3) > 0 {
				listed = append(listed, name)
				uids.Insert(ns.UID)
			}
		}
		if len(listed) == 0 {
			return // nothing to list: this kind would bind cluster-wide
		}
	}
	spec := scopesv1alpha1.ScopeInstanceSpec{ScopeTemplateName: s.template, Namespaces: listed}
	if kind != "listed" {
		spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: s.label}
	}
	instances := env.operator.ScopesV1alpha1().ScopeInstances()
	name := s.instance(kind)
	current, err := instances.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = instances.Create(ctx, &scopesv1alpha1.ScopeInstance{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}, metav1.CreateOptions{})
	case err == nil:
		current.Spec = spec
		_, err = instances.Update(ctx, current, metav1.UpdateOptions{})
	}
	s.note("admin writes %s listing %v (uids %v): %v", name, listed, sets.List(uids), short(err))
	if err != nil {
		// Refused (a listed namespace went meanwhile) or conflicted: what
		// the instance had stays judged.
		s.refusals++
		return
	}
	s.specWrites++
	if s.judged[name] == nil {
		s.judged[name] = sets.New[types.UID]()
	}
	s.judged[name].Insert(uids.UnsortedList()...)
	s.latest[name], s.selects[name] = uids, spec.NamespaceSelector != nil
}

func (s *trustSequence) adminDeletes(kind string) {
	name := s.instance(kind)
	err := env.operator.ScopesV1alpha1().ScopeInstances().Delete(context.Background(), name, metav1.DeleteOptions{})
	s.note("admin deletes %s: %v", name, short(err))
	if err == nil {
		// Its bindings go with it (garbage collected), judged as they were
		// until then; a new instance of the name judges anew.
		delete(s.latest, name)
	}
}

// editorResubjects has the template editor (view, patch on templates)
// point the template at a ServiceAccount of another name: once an instance
// names the template, that binds, and must be refused.
func (s *trustSequence) editorResubjects() {
	ctx := context.Background()
	naming := 0
	for _, kind := range []string{"listed", "selected", "both"} {
		if _, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, s.instance(kind), metav1.GetOptions{}); err == nil {
			naming++
		}
	}
	if naming == 0 {
		return
	}
	patch := `[{"op":"replace","path":"/spec/clusterRoles/0/subjects","value":[{"kind":"ServiceAccount","name":"mallory"}]}]`
	_, err := s.editor.ScopesV1alpha1().ScopeTemplates().Patch(ctx, s.template, types.JSONPatchType, []byte(patch), metav1.PatchOptions{})
	s.note("editor re-points the template to mallory: %v", short(err))
	if err == nil {
		s.fail("the template editor, who may create no binding, re-pointed a template %d instances bind", naming)
		return
	}
	s.refusals++
}

// check looks at every RoleBinding of the sequence's instances; settled
// also wants every judged namespace that is still the same one bound.
func (s *trustSequence) check(settled bool) {
	ctx := context.Background()
	s.checks++
	for _, kind := range []string{"listed", "selected", "both"} {
		name := s.instance(kind)
		list, err := env.kube.RbacV1().RoleBindings("").List(ctx, metav1.ListOptions{LabelSelector: scopesv1alpha1.ScopeInstanceLabel + "=" + name})
		if err != nil {
			s.t.Fatal(err)
		}
		bound := sets.New[string]()
		for _, rb := range list.Items {
			ns := live(ctx, rb.Namespace)
			if ns == nil || ns.DeletionTimestamp != nil {
				continue // going with its namespace
			}
			bound.Insert(rb.Namespace)
			if slices.ContainsFunc(rb.Subjects, func(sub rbacv1.Subject) bool { return sub.Name == "mallory" }) {
				s.fail("RoleBinding %s/%s names mallory, whom no admin wrote", rb.Namespace, rb.Name)
			}
			judged := s.judged[name].Has(ns.UID)
			selected := s.selects[name] && s.labelled.Has(ns.UID)
			if !judged && !selected {
				s.fail("instance %s is bound in namespace %s (uid %s), which its admin never judged and its selector never matched", name, ns.Name, ns.UID)
			}
			if judged {
				s.boundSeen++
			}
		}
		if !settled {
			continue
		}
		for uid := range s.latest[name] {
			for _, n := range s.namespaces {
				if ns := live(ctx, n); ns != nil && ns.UID == uid && ns.DeletionTimestamp == nil && !bound.Has(n) {
					s.fail("instance %s is not bound in namespace %s (uid %s), which its admin listed", name, n, uid)
				}
			}
		}
	}
}

// settle waits for the operator to catch up with the last step, then
// checks once more, wanting the judged namespaces bound.
func (s *trustSequence) settle() {
	framework.Eventually(s.t, 30*time.Second, func(ctx context.Context) error {
		for _, kind := range []string{"listed", "selected", "both"} {
			got, err := env.operator.ScopesV1alpha1().ScopeInstances().Get(ctx, s.instance(kind), metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			if got.Status.ObservedGeneration != got.Generation {
				return fmt.Errorf("%s not synced yet", got.Name)
			}
		}
		return nil
	})
	time.Sleep(2 * time.Second)
	s.check(true)
}

func (s *trustSequence) fail(format string, args ...any) {
	s.t.Helper()
	s.t.Errorf("seed %d: "+format+"\nsteps so far:\n  %s", append(append([]any{s.seed}, args...), strings.Join(s.log, "\n  "))...)
}

func short(err error) string {
	if err == nil {
		return "ok"
	}
	if msg := err.Error(); len(msg) > 160 {
		return msg[:160] + "…"
	}
	return err.Error()
}
