package reconcileloop

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// One bundle failing and another syncing must not flap the condition. (An
// unchanged condition is not written again: the operator client's apply
// skips it, which the e2e idle-resync test proves on a real API server.)
func TestFailuresKeepDegradedWhileAnyBundleFails(t *testing.T) {
	ctx := context.Background()
	client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{}, &operatorv1.OperatorStatus{}, nil)
	f := NewFailures("ClusterBundle", "ClusterBundle", client)
	degraded := func() *operatorv1.OperatorCondition {
		t.Helper()
		_, status, _, _ := client.GetOperatorState()
		c := v1helpers.FindOperatorCondition(status.Conditions, "ClusterBundleDegraded")
		if c == nil {
			t.Fatalf("no ClusterBundleDegraded in %+v", status.Conditions)
		}
		return c
	}
	boom := errors.New("secrets \"x\" is forbidden")

	if err := f.Record(ctx, "a", boom); !errors.Is(err, boom) {
		t.Fatalf("Record returned %v, want the sync error", err)
	}
	want := `1 ClusterBundle fails to sync: ClusterBundle a: secrets "x" is forbidden`
	if c := degraded(); c.Status != operatorv1.ConditionTrue || c.Reason != "SyncError" || c.Message != want {
		t.Fatalf("after a fails: %+v", c)
	}
	if err := f.Record(ctx, "b", nil); err != nil {
		t.Fatal(err)
	}
	if c := degraded(); c.Status != operatorv1.ConditionTrue || c.Message != want {
		t.Fatalf("b syncing cleared a's failure: %+v", c)
	}
	if err := f.Record(ctx, "a", nil); err != nil {
		t.Fatal(err)
	}
	if c := degraded(); c.Status != operatorv1.ConditionFalse || c.Message != "" {
		t.Fatalf("after a succeeds: %+v", c)
	}
	if err := f.Record(ctx, "a", nil); err != nil {
		t.Error(err)
	}
}

// A conflict writing an object's status is retried, not reported: seen
// Degraded by an e2e run when a ScopeTemplate changed while it synced.
func TestAConflictIsNeitherFailureNorSuccess(t *testing.T) {
	ctx := context.Background()
	client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{}, &operatorv1.OperatorStatus{}, nil)
	f := NewFailures("ScopeTemplate", "ScopeTemplate", client)
	degraded := func() operatorv1.ConditionStatus {
		_, status, _, _ := client.GetOperatorState()
		if c := v1helpers.FindOperatorCondition(status.Conditions, "ScopeTemplateDegraded"); c != nil {
			return c.Status
		}
		return ""
	}
	conflict := apierrors.NewConflict(subscriptionv1alpha1.Resource("scopetemplates"), "a", errors.New("the object has been modified"))
	if err := f.Record(ctx, "a", fmt.Errorf("updating status: %w", conflict)); !apierrors.IsConflict(err) {
		t.Fatalf("Record returned %v, want the conflict, to be retried", err)
	}
	if got := degraded(); got == operatorv1.ConditionTrue {
		t.Fatal("a conflict made the controller Degraded")
	}
	boom := errors.New("forbidden")
	_ = f.Record(ctx, "a", boom)
	_ = f.Record(ctx, "a", conflict)
	if got := degraded(); got != operatorv1.ConditionTrue {
		t.Fatalf("a conflict ended an earlier failure: Degraded %q", got)
	}
}

func TestFailuresNameAtMostThreeBundles(t *testing.T) {
	ctx := context.Background()
	client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{}, &operatorv1.OperatorStatus{}, nil)
	f := NewFailures("Bundle", "Bundle", client)
	for _, key := range []string{"ns/e", "ns/d", "ns/c", "ns/b", "ns/a"} {
		_ = f.Record(ctx, key, fmt.Errorf("failed %s", key))
	}
	_, status, _, _ := client.GetOperatorState()
	c := v1helpers.FindOperatorCondition(status.Conditions, "BundleDegraded")
	want := "5 Bundles fail to sync: Bundle ns/a: failed ns/a; Bundle ns/b: failed ns/b; Bundle ns/c: failed ns/c; and 2 more"
	if c == nil || c.Status != operatorv1.ConditionTrue || c.Message != want {
		t.Errorf("condition %+v, want message %q", c, want)
	}
	if err := f.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	_, status, _, _ = client.GetOperatorState()
	if c := v1helpers.FindOperatorCondition(status.Conditions, "BundleDegraded"); c.Status != operatorv1.ConditionFalse {
		t.Errorf("after Clear: %+v", c)
	}
}

type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time                  { return c.now }
func (c *fakeClock) Since(t time.Time) time.Duration { return c.now.Sub(t) }
func (c *fakeClock) SetTime(t time.Time)             { c.now = t }

func TestSweepsOnlyOnStateChangeOrWhenStale(t *testing.T) {
	clock := &fakeClock{now: time.Now()}
	s := &Sweeps{Clock: clock}
	if !s.Due(operatorv1.Managed) {
		t.Fatal("the first sweep is not due")
	}
	s.Done(operatorv1.Managed)
	clock.SetTime(clock.Now().Add(time.Minute))
	if s.Due(operatorv1.Managed) {
		t.Error("a sweep a minute after the last one, same state, is due")
	}
	if !s.Due(operatorv1.Unmanaged) {
		t.Error("a change of management state does not sweep")
	}
	s.Done(operatorv1.Unmanaged)
	if !s.Due(operatorv1.Managed) {
		t.Error("back to Managed does not sweep")
	}
	s.Done(operatorv1.Managed)
	clock.SetTime(clock.Now().Add(SweepInterval))
	if !s.Due(operatorv1.Managed) {
		t.Error("a sweep after SweepInterval is not due")
	}
}

func TestPluralSaysTheKindAsTheCountDoes(t *testing.T) {
	for _, c := range []struct {
		kind string
		n    int
		want string
	}{{"APIAccessPolicy", 2, "APIAccessPolicies"}, {"APIAccessPolicy", 1, "APIAccessPolicy"}, {"ScopeInstance", 3, "ScopeInstances"}} {
		if got := plural(c.kind, c.n); got != c.want {
			t.Errorf("plural(%q, %d) = %q, want %q", c.kind, c.n, got, c.want)
		}
	}
}

// A bundle deleted while it synced fails with NotFound (its status update
// finds nothing): that is no failure once the cache shows it gone; while
// the cache still holds it, it is one, and the retry settles it.
func TestABundleDeletedWhileItSyncsIsNoFailure(t *testing.T) {
	ctx := context.Background()
	client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil)
	cached := map[string]*subscriptionv1alpha1.ClusterBundle{"a": {ObjectMeta: metav1.ObjectMeta{Name: "a"}}}
	gone := apierrors.NewNotFound(subscriptionv1alpha1.Resource("clusterbundles"), "a")
	loop := NewLoop("ClusterBundle", Source[*subscriptionv1alpha1.ClusterBundle]{
		Kind: "ClusterBundle",
		Get: func(key string) (*subscriptionv1alpha1.ClusterBundle, error) {
			if b, ok := cached[key]; ok {
				return b, nil
			}
			return nil, gone
		},
	}, func(context.Context, factory.SyncContext, *subscriptionv1alpha1.ClusterBundle) error {
		delete(cached, "a") // the informer delivers the delete meanwhile
		return gone
	}, client)
	if err := loop.Sync(ctx, keyed{factory.NewSyncContext("test", events.NewInMemoryRecorder("test", clock.RealClock{})), "a"}); err != nil {
		t.Errorf("a bundle deleted mid-sync: %v", err)
	}
	_, status, _, _ := client.GetOperatorState()
	if c := v1helpers.FindOperatorCondition(status.Conditions, "ClusterBundleDegraded"); c != nil && c.Status != operatorv1.ConditionFalse {
		t.Errorf("Degraded by a deleted bundle: %+v", c)
	}

	cached["a"] = &subscriptionv1alpha1.ClusterBundle{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	loop.reconcile = func(context.Context, factory.SyncContext, *subscriptionv1alpha1.ClusterBundle) error { return gone }
	if err := loop.Sync(ctx, keyed{factory.NewSyncContext("test", events.NewInMemoryRecorder("test", clock.RealClock{})), "a"}); !apierrors.IsNotFound(err) {
		t.Errorf("a NotFound while the bundle is still cached: got %v, want it returned", err)
	}
}

// keyed is a sync context for one queue key.
type keyed struct {
	factory.SyncContext
	key string
}

func (k keyed) QueueKey() string { return k.key }
