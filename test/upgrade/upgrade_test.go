package upgrade

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

const (
	objectsNamespace = "upgrade-objects"
	// afterUpgradeAnnotation holds, on each stored custom resource, the
	// merge patch applied once the new release runs.
	afterUpgradeAnnotation = "test.upgrade.workload-access.openshift.io/after-upgrade"
)

// The previous release's operator, manifests and objects of every kind,
// then this tree's manifests applied in the CVO's order (file order, CRDs
// included), the operator replaced, and the webhook Deployment rolled by
// kube-controller-manager as the operator wrote it (maxSurge 0), its pods
// run by the stand-in kubelet (pods_test.go), under pod load; then back
// again.
//
// Goals each way: no pod refused and none created without its injection,
// of at least minRequestedPerRoll requested pods across each roll; every
// stored object still readable with its spec intact (a CRD change that
// prunes or renames a stored field fails here) and reconciled by the new
// operator after a change; what the CRDs change between the releases
// behaving for the stored objects (crdchanges_test.go); the ClusterOperator
// Progressing while rolling, its operator version the new one only after
// the webhook Deployment rolled out (by etcd revision; the rollout waits on
// the real replicas' readiness), and never Degraded.
//
// The downgrade is possible while this tree's CRDs store only versions the
// previous release serves (today both serve v1alpha1 alone); the test
// says so and stops when that no longer holds. The IAMRoleRequest goes
// before the downgrade: with no IAM reachable here it waits for a
// permissions boundary, which turns the ClusterOperator Degraded after its
// 2 minutes of inertia, as it should on a cluster.
func TestUpgradeAndDowngrade(t *testing.T) {
	dumpOnFailure(t)
	ensureRelease(t, env.previous)
	objects := createStoredObjects(t, func(kind string) bool { return kind != "IAMRoleRequest" })
	setLogLevel(t, "Debug")
	expectLog(t, "Debug", `to "Debug" (klog verbosity`)
	_, load := startLoadBursts(t, "upgrade-load-", upgradeLoadInterval, upgradeLoadBurst)
	expectSettled(t, env.previous)
	// Last, so that it waits for a boundary less than the 2 minutes
	// after which that makes the ClusterOperator Degraded.
	objects = append(objects, createStoredObjects(t, func(kind string) bool { return kind == "IAMRoleRequest" })...)
	checkCRDsAtPrevious(t, objects, "before the upgrade")

	rollRelease(t, load, env.previous, env.current)
	expectLog(t, "stored log level", `set to "Debug"`)
	checkStoredObjects(t, objects, true)
	checkCRDsAtCurrent(t, objects)
	objects = deleteRoleRequests(objects)

	checkDowngradePossible(t)
	rollRelease(t, load, env.current, env.previous)
	checkStoredObjects(t, objects, false)
	checkCRDsAtPrevious(t, objects, "after the downgrade")
	setLogLevel(t, "Normal")
	expectLog(t, "Normal", `changed from "Debug" to "Normal"`)

	load.Stop()
	figures := load.Figures()
	t.Logf("pods over the whole scenario: %s", figures)
	for _, r := range figures.Refused {
		t.Errorf("refused: %s", r)
	}
	for _, r := range figures.Wrong {
		t.Errorf("created without its injection: %s", r)
	}
}

const (
	// upgradeLoadInterval and upgradeLoadBurst are 3 pods created at once
	// every 120 ms, 25 a second, the three kinds in turn: two of each three
	// ask for an injection, about 17 a second across rolls of 20 s and more.
	upgradeLoadInterval = 120 * time.Millisecond
	upgradeLoadBurst    = 3
	// minRequestedPerRoll is how many requested pods each roll must see
	// created, from the manifests applied to the last old replica exited:
	// "none refused" of fewer says little.
	minRequestedPerRoll = 300
)

// rollRelease moves the cluster from one release to the other as the CVO
// and the Deployments would, and checks what the ClusterOperator said.
func rollRelease(t *testing.T, load *framework.PodLoad, from, to *release) {
	t.Helper()
	ctx := context.Background()
	before := load.Figures()
	watch := watchClusterOperator()
	rollout := watchRollout(to.image)
	defer rollout.stop()
	start := time.Now()
	at := func(when time.Time) string {
		if when.IsZero() {
			return "never"
		}
		return "+" + when.Sub(start).Round(time.Millisecond).String()
	}

	if err := to.payload.Upgrade(ctx, env.cp.Config); err != nil {
		t.Fatal(err)
	}
	env.cp.Payload = to.payload
	applied := time.Now()
	replaceOperator(t, to, "operator-"+to.version)
	leading := time.Now()
	waitDeploymentAt(t, to)
	drainCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err := env.webhooks.waitDrained(drainCtx)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	env.at = to
	drained := time.Now()
	expectSettled(t, to)
	settled := time.Now()
	degraded, progressing, versions := watch.stop()

	after := load.Figures()
	rolledAt, rolledRevision := rollout.rolledOutAt()
	reported := versionSince(versions, to.version, start)
	started, terminated := env.webhooks.since(start)
	t.Logf("%s -> %s: manifests applied at %s, new operator leading at %s, webhook Deployment rolled out at %s, version %s reported at %s, old replicas drained at %s, settled at %s",
		from.name, to.name, at(applied), at(leading), at(rolledAt), to.version, at(reported.At), at(drained), at(settled))
	for _, p := range started {
		t.Logf("  pod %s (%s) started at %s, Ready at %s", p.name, p.image, at(p.started), at(p.ready))
	}
	for _, p := range terminated {
		t.Logf("  pod %s (%s) SIGTERM at %s, exited at %s", p.name, p.image, at(p.sigterm), at(p.exited))
	}
	roll := loadBetween(after, start, drained)
	t.Logf("  pods meanwhile: %d created, %d refused; across the roll (to the last old replica's exit): %s; versions seen: %v; Progressing=True %d times: %v",
		after.TotalCreated()-before.TotalCreated(), len(after.Refused)-len(before.Refused), roll, versions, len(progressing), first(progressing, 3))
	var readyAfter, drainedAfter []string
	for _, p := range started {
		readyAfter = append(readyAfter, p.ready.Sub(p.started).Round(100*time.Millisecond).String())
	}
	for _, p := range terminated {
		drainedAfter = append(drainedAfter, p.exited.Sub(p.sigterm).Round(100*time.Millisecond).String())
	}
	t.Logf("FIGURE %s -> %s: webhook rolled out %s after the manifests (new pods Ready %s after they started, old ones exited %s after SIGTERM), version reported %s after the rollout, old replicas drained at %s; %d requested pods (%d bundle, %d role) across the roll, %d refused, %d without their injection",
		from.name, to.name, rolledAt.Sub(applied).Round(time.Millisecond), strings.Join(readyAfter, ", "), strings.Join(drainedAfter, ", "),
		reported.At.Sub(rolledAt).Round(time.Millisecond), at(drained),
		roll.requested(), roll.created["bundle"], roll.created["role"], len(roll.refusals), len(roll.wrongs))

	for _, d := range degraded {
		t.Errorf("the ClusterOperator went Degraded: %s", d)
	}
	if len(progressing) == 0 {
		t.Errorf("the ClusterOperator never said Progressing while %s rolled out", to.name)
	}
	switch {
	case reported.At.IsZero():
		t.Errorf("version %s was never reported", to.version)
	case rolledRevision == 0:
		t.Errorf("the webhook Deployment was never seen rolled out to %s", to.image)
	case reported.Revision <= rolledRevision:
		t.Errorf("version %s was reported (revision %d, at %s) before the webhook Deployment rolled out (revision %d, at %s)",
			to.version, reported.Revision, at(reported.At), rolledRevision, at(rolledAt))
	}
	for _, v := range versions {
		if v.At.After(start) && v.What != to.version && v.What != from.version {
			t.Errorf("the ClusterOperator reported version %q while rolling from %s to %s", v.What, from.version, to.version)
		}
	}
	// The rollout must have waited on the real replicas: a pod Ready before
	// its process answered would let it end early, and the version check
	// above would check nothing.
	for _, p := range started {
		if p.image == to.image && (p.ready.IsZero() || p.ready.After(rolledAt)) {
			t.Errorf("the webhook Deployment rolled out at %s, before its pod %s was Ready by its probe (%s): its pods' readiness is not the replicas'",
				at(rolledAt), p.name, at(p.ready))
		}
	}
	if len(terminated) == 0 {
		t.Errorf("no webhook pod of %s was terminated while rolling to %s", from.name, to.name)
	}
	if len(roll.refusals) > 0 || len(roll.wrongs) > 0 {
		t.Errorf("across the roll %d pods were refused and %d created without their injection (each is listed at the end), the first: %v %v",
			len(roll.refusals), len(roll.wrongs), first(roll.refusals, 3), first(roll.wrongs, 3))
	}
	if n := roll.requested(); n < minRequestedPerRoll {
		t.Errorf("only %d requested pods were created across the roll (%s): want at least %d", n, drained.Sub(start).Round(time.Millisecond), minRequestedPerRoll)
	}
	if errs := env.webhooks.errors(); len(errs) > 0 {
		t.Errorf("running the webhook pods: %v", errs)
	}
}

// loadWindow is what the pod load saw between two times.
type loadWindow struct {
	created          map[string]int
	refusals, wrongs []framework.PodRefusal
}

func (w loadWindow) requested() int { return w.created["bundle"] + w.created["role"] }

func (w loadWindow) String() string {
	return fmt.Sprintf("created plain %d, bundle %d, role %d; %d refused, %d without their injection",
		w.created["plain"], w.created["bundle"], w.created["role"], len(w.refusals), len(w.wrongs))
}

// loadBetween counts the pods of f sent in [from, to].
func loadBetween(f framework.PodLoadFigures, from, to time.Time) loadWindow {
	in := func(at time.Time) bool { return !at.Before(from) && !at.After(to) }
	w := loadWindow{created: map[string]int{}}
	for kind, times := range f.CreatedAt {
		for _, at := range times {
			if in(at) {
				w.created[kind]++
			}
		}
	}
	for _, r := range f.Refused {
		if in(r.At) {
			w.refusals = append(w.refusals, r)
		}
	}
	for _, r := range f.Wrong {
		if in(r.At) {
			w.wrongs = append(w.wrongs, r)
		}
	}
	return w
}

func first[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// expectSettled waits until the ClusterOperator reports r's version,
// Available and not Progressing.
func expectSettled(t *testing.T, r *release) {
	t.Helper()
	framework.Eventually(t, 3*time.Minute, func(ctx context.Context) error {
		co, err := env.config.ConfigV1().ClusterOperators().Get(ctx, framework.ClusterOperatorName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		version := ""
		for _, v := range co.Status.Versions {
			if v.Name == "operator" {
				version = v.Version
			}
		}
		if version != r.version {
			return fmt.Errorf("the ClusterOperator reports version %q, want %q", version, r.version)
		}
		want := map[configv1.ClusterStatusConditionType]configv1.ConditionStatus{
			configv1.OperatorAvailable:   configv1.ConditionTrue,
			configv1.OperatorProgressing: configv1.ConditionFalse,
			configv1.OperatorDegraded:    configv1.ConditionFalse,
			configv1.OperatorUpgradeable: configv1.ConditionTrue,
		}
		for _, c := range co.Status.Conditions {
			if status, ok := want[c.Type]; ok && c.Status != status {
				return fmt.Errorf("%s is %s (%s: %s)", c.Type, c.Status, c.Reason, c.Message)
			}
			delete(want, c.Type)
		}
		if len(want) > 0 {
			return fmt.Errorf("the ClusterOperator lacks %v", want)
		}
		return nil
	})
}

// storedObject is one fixture as the previous release stored it.
type storedObject struct {
	resource schema.GroupVersionResource
	object   *unstructured.Unstructured
	// spec is as the API server returned it at creation (defaults set).
	spec any
}

func (o storedObject) String() string {
	return fmt.Sprintf("%s %s", o.object.GetKind(), o.object.GetName())
}

func (o storedObject) client() interface {
	Get(context.Context, string, metav1.GetOptions, ...string) (*unstructured.Unstructured, error)
	Patch(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (*unstructured.Unstructured, error)
	Delete(context.Context, string, metav1.DeleteOptions, ...string) error
} {
	return env.dynamic.Resource(o.resource).Namespace(o.object.GetNamespace())
}

// createStoredObjects creates the objects of testdata/previous-objects.yaml
// of the kinds wanted (the namespace with the first call) and waits until
// the running operator has reconciled each custom resource.
func createStoredObjects(t *testing.T, wanted func(kind string) bool) []storedObject {
	t.Helper()
	ctx := context.Background()
	_, err := env.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: objectsNamespace}}, metav1.CreateOptions{})
	switch {
	case err == nil:
		t.Cleanup(func() {
			_ = env.kube.CoreV1().Namespaces().Delete(context.Background(), objectsNamespace, metav1.DeleteOptions{})
		})
		grantDriverRead(t, objectsNamespace)
	case !apierrors.IsAlreadyExists(err):
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/previous-objects.yaml")
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(env.cp.Config)))
	var objects []storedObject
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatal(err)
		}
		if !wanted(obj.GetKind()) {
			continue
		}
		gvk := obj.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("the previous release serves no %s: %v", gvk, err)
		}
		o := storedObject{resource: mapping.Resource, object: obj}
		created, err := env.dynamic.Resource(o.resource).Namespace(obj.GetNamespace()).Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating %s at the previous release: %v", o, err)
		}
		o.object, o.spec = created, created.Object["spec"]
		if kind := created.GetKind(); kind == "IAMRoleRequest" {
			t.Cleanup(func() { removeRoleRequest(o) })
		} else if created.GetNamespace() == "" {
			t.Cleanup(func() { _ = o.client().Delete(context.Background(), created.GetName(), metav1.DeleteOptions{}) })
		}
		objects = append(objects, o)
	}
	for _, o := range objects {
		expectReconciled(t, o)
	}
	return objects
}

// expectReconciled waits until the operator has written o's status for its
// current generation.
func expectReconciled(t *testing.T, o storedObject) {
	t.Helper()
	if o.object.GetAnnotations()[afterUpgradeAnnotation] == "" {
		return
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		got, err := o.client().Get(ctx, o.object.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		observed, _, _ := unstructured.NestedInt64(got.Object, "status", "observedGeneration")
		if observed != got.GetGeneration() {
			return fmt.Errorf("%s: status.observedGeneration %d, generation %d", o, observed, got.GetGeneration())
		}
		return nil
	})
}

// checkStoredObjects reads every stored object back: still there, its spec
// as stored. Then each custom resource is changed (its after-upgrade patch
// when upgraded, its spec as stored when back) and must be reconciled.
func checkStoredObjects(t *testing.T, objects []storedObject, upgraded bool) {
	t.Helper()
	ctx := context.Background()
	for _, o := range objects {
		got, err := o.client().Get(ctx, o.object.GetName(), metav1.GetOptions{})
		if err != nil {
			t.Errorf("%s is no longer readable: %v", o, err)
			continue
		}
		want := o.spec
		if !upgraded {
			// Back at the previous release after the upgrade's change.
			want = withPatch(t, o)
		}
		if !reflect.DeepEqual(got.Object["spec"], want) {
			gotJSON, _ := json.Marshal(got.Object["spec"])
			wantJSON, _ := json.Marshal(want)
			t.Errorf("%s's spec changed:\n got %s\nwant %s", o, gotJSON, wantJSON)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	for _, o := range objects {
		patch := o.object.GetAnnotations()[afterUpgradeAnnotation]
		if patch == "" {
			continue
		}
		patchType := types.MergePatchType
		if !upgraded {
			spec, _ := json.Marshal(o.spec)
			patch, patchType = fmt.Sprintf(`[{"op":"replace","path":"/spec","value":%s}]`, spec), types.JSONPatchType
		}
		if _, err := o.client().Patch(ctx, o.object.GetName(), patchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatalf("changing %s: %v", o, err)
		}
	}
	for _, o := range objects {
		expectReconciled(t, o)
	}
}

// withPatch is o's stored spec with its after-upgrade patch applied, as the
// API server returned it.
func withPatch(t *testing.T, o storedObject) any {
	t.Helper()
	patch := o.object.GetAnnotations()[afterUpgradeAnnotation]
	if patch == "" {
		return o.spec
	}
	got, err := o.client().Patch(context.Background(), o.object.GetName(), types.MergePatchType, []byte(patch),
		metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatalf("%s: %v", o, err)
	}
	return got.Object["spec"]
}

// deleteRoleRequests deletes the IAMRoleRequests and returns the others.
func deleteRoleRequests(objects []storedObject) []storedObject {
	var kept []storedObject
	for _, o := range objects {
		if o.object.GetKind() == "IAMRoleRequest" {
			removeRoleRequest(o)
			continue
		}
		kept = append(kept, o)
	}
	return kept
}

// removeRoleRequest deletes the request without the finalizer, which would
// wait for an IAM this cluster cannot reach.
func removeRoleRequest(o storedObject) {
	ctx := context.Background()
	_, _ = o.client().Patch(ctx, o.object.GetName(), types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	_ = o.client().Delete(ctx, o.object.GetName(), metav1.DeleteOptions{})
}

// checkDowngradePossible stops the test, saying why, when a CRD stores a
// version the previous release does not serve: its API server could not
// read those objects back.
func checkDowngradePossible(t *testing.T) {
	t.Helper()
	client := apiextensionsclient.NewForConfigOrDie(env.cp.Config)
	for _, obj := range env.previous.payload.Objects {
		if obj.GetKind() != "CustomResourceDefinition" {
			continue
		}
		crd, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), obj.GetName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		versions, _, _ := unstructured.NestedSlice(obj.Object, "spec", "versions")
		var served []string
		for _, v := range versions {
			if m, ok := v.(map[string]any); ok && m["served"] == true {
				served = append(served, fmt.Sprint(m["name"]))
			}
		}
		for _, stored := range crd.Status.StoredVersions {
			if !slices.Contains(served, stored) {
				t.Fatalf("no downgrade to %s: CRD %s has objects stored as %s, which that release does not serve (it serves %v); "+
					"move previousRelease forward or migrate the storage first", env.previous.name, crd.Name, stored, served)
			}
		}
	}
}

func setLogLevel(t *testing.T, level string) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"operatorLogLevel":%q}}`, level)
	if _, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Patch(context.Background(), "cluster", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// expectLog waits until the running operator's log has text: the
// WorkloadAccess setting reached it.
func expectLog(t *testing.T, what, text string) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		for _, p := range env.operators {
			if p.LogContains(text) {
				return nil
			}
		}
		return fmt.Errorf("the operator did not apply the %s (no %q in its log)", what, text)
	})
}
