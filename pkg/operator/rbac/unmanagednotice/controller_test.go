package unmanagednotice

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	apiaccesslisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/apiaccess/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/crdaccess"
)

// crd is a CRD named <plural>.<group>, of kind <plural>, installed by extension.
func crd(name, extension string) *apiextensionsv1.CustomResourceDefinition {
	plural, group, _ := strings.Cut(name, ".")
	return &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		apiaccessv1alpha1.OLMOwnerKindLabel: apiaccessv1alpha1.OLMOwnerKindClusterExtension, apiaccessv1alpha1.OLMOwnerNameLabel: extension}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: group, Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: plural, Plural: plural}}}
}

// policy is a policy that generated the roles of every CRD its selection
// names in the table's CRDs (see generating); without them it generated
// nothing, as one whose roles are all Conflicts.
func policy(name string, mode apiaccessv1alpha1.AccessMode, crds apiaccessv1alpha1.CRDSelection, generated ...*apiextensionsv1.CustomResourceDefinition) *apiaccessv1alpha1.APIAccessPolicy {
	p := &apiaccessv1alpha1.APIAccessPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: apiaccessv1alpha1.APIAccessPolicySpec{Mode: mode, CRDs: crds}}
	for _, c := range generated {
		for _, r := range crdaccess.API(c).Roles() {
			p.Status.ManagedObjects = append(p.Status.ManagedObjects, apiaccessv1alpha1.ManagedObject{Kind: "ClusterRole", Name: r.Name})
		}
	}
	return p
}

func extension(name, uid string) metav1.Object {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(uid)}}
}

func TestNotice(t *testing.T) {
	widgets, gadgets := crd("widgets.example.com", "ext"), crd("gadgets.example.com", "ext")
	byExtension := apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"}
	bindingOnly := policy("b", apiaccessv1alpha1.ModeBind, byExtension)
	bindingOnly.Spec.Bindings = []apiaccessv1alpha1.AccessBinding{{Role: apiaccessv1alpha1.RoleEdit}}
	bindingOnly.Status.ManagedObjects = []apiaccessv1alpha1.ManagedObject{
		{Kind: "RoleBinding", Namespace: "team", Name: crdaccess.BindingName("b", 0, crdaccess.API(widgets).Roles()[1].Name)}}
	for _, tc := range []struct {
		name     string
		crds     []*apiextensionsv1.CustomResourceDefinition
		policies []*apiaccessv1alpha1.APIAccessPolicy
		reason   string
		names    []string // in the message
	}{
		{name: "no CRDs, nothing to say"},
		{name: "no policy: the default is Unmanaged", crds: []*apiextensionsv1.CustomResourceDefinition{widgets, gadgets},
			reason: ReasonUnmanaged, names: []string{"2 of its 2 CRDs", "gadgets.example.com, widgets.example.com"}},
		{name: "an Unmanaged policy manages nothing", crds: []*apiextensionsv1.CustomResourceDefinition{widgets},
			policies: []*apiaccessv1alpha1.APIAccessPolicy{policy("u", apiaccessv1alpha1.ModeUnmanaged, byExtension)},
			reason:   ReasonUnmanaged, names: []string{"widgets.example.com"}},
		{name: "an invalid selector manages nothing", crds: []*apiextensionsv1.CustomResourceDefinition{widgets},
			policies: []*apiaccessv1alpha1.APIAccessPolicy{policy("bad", apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.CRDSelection{
				Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}})},
			reason: ReasonUnmanaged},
		{name: "by name, one of two", crds: []*apiextensionsv1.CustomResourceDefinition{widgets, gadgets},
			policies: []*apiaccessv1alpha1.APIAccessPolicy{policy("w", apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.example.com"}}, widgets)},
			reason:   ReasonUnmanaged, names: []string{"1 of its 2 CRDs", "generates roles for gadgets.example.com;"}},
		{name: "by ClusterExtension", crds: []*apiextensionsv1.CustomResourceDefinition{widgets, gadgets},
			policies: []*apiaccessv1alpha1.APIAccessPolicy{policy("p", apiaccessv1alpha1.ModeAggregate, byExtension, widgets, gadgets)},
			reason:   ReasonManaged, names: []string{"its 2 CRDs", "APIAccessPolicy p"}},
		{name: "a policy whose roles are all Conflicts manages nothing", crds: []*apiextensionsv1.CustomResourceDefinition{widgets, gadgets},
			policies: []*apiaccessv1alpha1.APIAccessPolicy{policy("c", apiaccessv1alpha1.ModeBind, byExtension, gadgets)},
			reason:   ReasonUnmanaged, names: []string{"1 of its 2 CRDs", "generates roles for widgets.example.com;"}},
		{name: "bindings to the bundle's roles manage", crds: []*apiextensionsv1.CustomResourceDefinition{widgets},
			policies: []*apiaccessv1alpha1.APIAccessPolicy{bindingOnly},
			reason:   ReasonManaged, names: []string{"APIAccessPolicy b"}},
		{name: "by selector and name together", crds: []*apiextensionsv1.CustomResourceDefinition{widgets, gadgets},
			policies: []*apiaccessv1alpha1.APIAccessPolicy{
				policy("s", apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{apiaccessv1alpha1.OLMOwnerNameLabel: "ext"}}}, widgets, gadgets),
				policy("n", apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.CRDSelection{Names: []string{"gadgets.example.com"}}, gadgets)},
			reason: ReasonManaged, names: []string{"APIAccessPolicy n, s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reason, message := Notice(tc.crds, tc.policies)
			if reason != tc.reason {
				t.Errorf("reason %q, want %q (%s)", reason, tc.reason, message)
			}
			for _, n := range tc.names {
				if !strings.Contains(message, n) {
					t.Errorf("message %q does not say %q", message, n)
				}
			}
		})
	}
}

// fixture is the controller over in-memory caches, with a fake recorder.
type fixture struct {
	c        *controller
	crds     cache.Indexer
	policies cache.Indexer
	recorder *record.FakeRecorder
}

func newFixture(crds ...*apiextensionsv1.CustomResourceDefinition) *fixture {
	f := &fixture{crds: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		policies: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}), recorder: record.NewFakeRecorder(100)}
	for _, c := range crds {
		_ = f.crds.Add(c)
	}
	f.c = &controller{crds: f.crds, policies: apiaccesslisters.NewAPIAccessPolicyLister(f.policies), events: f.recorder, said: map[types.UID]string{},
		recordedAt: map[types.UID]time.Time{}, now: time.Now}
	return f
}

// notice runs one pass and returns the Events it recorded and when it
// asks to look again (0 for never).
func (f *fixture) notice(t *testing.T, extensions []metav1.Object, recorded ...*corev1.Event) ([]string, time.Duration) {
	t.Helper()
	again, err := f.c.noticeAll(extensions, recorded)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		select {
		case e := <-f.recorder.Events:
			out = append(out, e)
		default:
			return out, again
		}
	}
}

func TestAnEventOnceForEachChangeAndNoneOnAResync(t *testing.T) {
	f := newFixture(crd("widgets.example.com", "ext"), crd("things.example.com", "other"))
	exts := []metav1.Object{extension("ext", "uid-ext"), extension("empty", "uid-empty")}

	got, _ := f.notice(t, exts)
	if len(got) != 1 || !strings.HasPrefix(got[0], "Normal "+ReasonUnmanaged+" ") || !strings.Contains(got[0], "widgets.example.com") {
		t.Fatalf("first pass: %v", got)
	}
	if got, _ := f.notice(t, exts); len(got) != 0 {
		t.Errorf("a resync repeated: %v", got)
	}

	// A policy takes the CRD on: one Managed event, then quiet.
	_ = f.policies.Add(policy("p", apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"}, crd("widgets.example.com", "ext")))
	if got, _ := f.notice(t, exts); len(got) != 1 || !strings.Contains(got[0], ReasonManaged) {
		t.Errorf("managed: %v", got)
	}
	if got, _ := f.notice(t, exts); len(got) != 0 {
		t.Errorf("a resync repeated: %v", got)
	}
	// Another policy joining is no change of state worth an Event.
	_ = f.policies.Add(policy("q", apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"}, crd("widgets.example.com", "ext")))
	if got, _ := f.notice(t, exts); len(got) != 0 {
		t.Errorf("a second manager: %v", got)
	}

	// The policies go Unmanaged: said again.
	_ = f.policies.Update(policy("p", apiaccessv1alpha1.ModeUnmanaged, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"}))
	_ = f.policies.Delete(policy("q", "", apiaccessv1alpha1.CRDSelection{}))
	if got, _ := f.notice(t, exts); len(got) != 1 || !strings.Contains(got[0], ReasonUnmanaged) {
		t.Errorf("unmanaged again: %v", got)
	}
	// A new CRD of the extension changes what is said.
	_ = f.crds.Add(crd("gadgets.example.com", "ext"))
	if got, _ := f.notice(t, exts); len(got) != 1 || !strings.Contains(got[0], "gadgets.example.com, widgets.example.com") {
		t.Errorf("a new CRD: %v", got)
	}
}

func TestAnExtensionAlwaysManagedGetsNoEvent(t *testing.T) {
	f := newFixture(crd("widgets.example.com", "ext"))
	_ = f.policies.Add(policy("p", apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"}, crd("widgets.example.com", "ext")))
	if got, _ := f.notice(t, []metav1.Object{extension("ext", "uid-ext")}); len(got) != 0 {
		t.Errorf("%v", got)
	}
}

// A restarted operator reads what it said from the Events it recorded: the
// latest of them, by UID (a ClusterExtension re-created under the same name
// is told again).
func TestARestartRepeatsNothingAlreadyRecorded(t *testing.T) {
	f := newFixture(crd("widgets.example.com", "ext"))
	exts := []metav1.Object{extension("ext", "uid-ext")}
	first, _ := f.notice(t, exts)
	if len(first) != 1 {
		t.Fatalf("%v", first)
	}
	_, message := Notice([]*apiextensionsv1.CustomResourceDefinition{crd("widgets.example.com", "ext")}, nil)
	event := func(uid, reason, message string, at time.Time) *corev1.Event {
		return &corev1.Event{InvolvedObject: corev1.ObjectReference{UID: types.UID(uid)}, Reason: reason, Message: message,
			LastTimestamp: metav1.NewTime(at)}
	}
	now := time.Now()
	recorded := []*corev1.Event{
		event("uid-ext", ReasonManaged, "older", now.Add(-time.Hour)),
		event("uid-ext", ReasonUnmanaged, message, now),
	}

	restarted := newFixture(crd("widgets.example.com", "ext"))
	if got, _ := restarted.notice(t, exts, recorded...); len(got) != 0 {
		t.Errorf("the restarted operator repeated: %v", got)
	}
	again := newFixture(crd("widgets.example.com", "ext"))
	if got, _ := again.notice(t, []metav1.Object{extension("ext", "uid-new")}, recorded...); len(got) != 1 {
		t.Errorf("a re-created ClusterExtension: %v", got)
	}
}

// Without the ClusterExtension API nothing is watched and nothing fails;
// once it is served, the ClusterExtensions are watched and told.
func TestWithoutTheClusterExtensionAPINothingHappens(t *testing.T) {
	f := newFixture(crd("widgets.example.com", "ext"))
	scheme := metadatafake.NewTestScheme()
	metav1.AddMetaToScheme(scheme)
	ext := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: ClusterExtensions.GroupVersion().String(), Kind: "ClusterExtension"},
		ObjectMeta: metav1.ObjectMeta{Name: "ext", UID: "uid-ext"}}
	client := metadatafake.NewSimpleMetadataClient(scheme, ext)
	kube := kubefake.NewClientset()
	starts := 0
	f.c.start = func(ctx context.Context) watches { starts++; return startWatches(ctx, client, kube) }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	syncCtx := factory.NewSyncContext("test", events.NewInMemoryRecorder("test", clock.RealClock{}))

	for range 3 {
		if err := f.c.sync(ctx, syncCtx); err != nil {
			t.Fatal(err)
		}
	}
	if starts != 0 || len(f.recorder.Events) != 0 {
		t.Fatalf("without the API: %d starts, %d events", starts, len(f.recorder.Events))
	}

	_ = f.crds.Add(&apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: ClusterExtensionCRD},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{AcceptedNames: apiextensionsv1.CustomResourceDefinitionNames{Kind: "ClusterExtension"}}})
	deadline := time.Now().Add(10 * time.Second)
	for len(f.recorder.Events) == 0 && time.Now().Before(deadline) {
		if err := f.c.sync(ctx, syncCtx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if starts != 1 {
		t.Errorf("watches started %d times", starts)
	}
	if e := <-f.recorder.Events; !strings.Contains(e, ReasonUnmanaged) {
		t.Errorf("event %q", e)
	}

	// The API goes away: the watches stop, and nothing fails.
	_ = f.crds.Delete(&apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: ClusterExtensionCRD}})
	if err := f.c.sync(ctx, syncCtx); err != nil || f.c.watching != nil {
		t.Errorf("after the API went: %v, watching %v", err, f.c.watching)
	}
}

// Events expire (1 h upstream, 3 h on OpenShift); the notice must not. An
// Unmanaged notice whose Event is gone is recorded again, once; one just
// recorded and not yet in the cache is not taken for expired.
func TestAnExpiredUnmanagedNoticeIsRecordedAgain(t *testing.T) {
	f := newFixture(crd("widgets.example.com", "ext"))
	now := time.Now()
	f.c.now = func() time.Time { return now }
	exts := []metav1.Object{extension("ext", "uid-ext")}
	first, _ := f.notice(t, exts)
	if len(first) != 1 {
		t.Fatalf("%v", first)
	}
	reason, message := Notice([]*apiextensionsv1.CustomResourceDefinition{crd("widgets.example.com", "ext")}, nil)
	live := &corev1.Event{InvolvedObject: corev1.ObjectReference{UID: "uid-ext"}, Reason: reason, Message: message, LastTimestamp: metav1.NewTime(now)}

	now = now.Add(time.Second)
	if got, again := f.notice(t, exts); len(got) != 0 || again <= 0 {
		t.Errorf("a second later, the Event not yet cached: recorded %v, looks again in %s", got, again)
	}
	now = now.Add(time.Hour)
	if got, again := f.notice(t, exts, live); len(got) != 0 || again != 0 {
		t.Errorf("with its Event there: recorded %v, looks again in %s", got, again)
	}
	// The Event expired.
	if got, _ := f.notice(t, exts); len(got) != 1 || !strings.Contains(got[0], ReasonUnmanaged) {
		t.Errorf("after the Event expired: %v, want the notice again", got)
	}
	if got, _ := f.notice(t, exts); len(got) != 0 {
		t.Errorf("recorded again before the cache could see it: %v", got)
	}
}

// The recorder writes Events in the background and drops one it cannot
// write (after its retries, or when its queue is full): a recorded
// Unmanaged notice is looked at again once its Event must be cached, and
// recorded again if it is not there. Nothing else would look before the
// ClusterExtensions' relist, 10 minutes later.
func TestAnUnmanagedNoticeNeverWrittenIsRecordedAgain(t *testing.T) {
	f := newFixture(crd("widgets.example.com", "ext"))
	now := time.Now()
	f.c.now = func() time.Time { return now }
	exts := []metav1.Object{extension("ext", "uid-ext")}
	got, again := f.notice(t, exts)
	if len(got) != 1 || again < recordedLately {
		t.Fatalf("recorded %v, looks again in %s; want one notice and a look again in %s", got, again, recordedLately)
	}
	now = now.Add(again)
	if got, _ := f.notice(t, exts); len(got) != 1 || !strings.Contains(got[0], ReasonUnmanaged) {
		t.Errorf("its Event never written: recorded %v, want the notice again", got)
	}
}
