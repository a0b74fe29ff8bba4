package upgrade

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// The leader-election timings framework.StartOperator gives the operator.
const (
	leaseDuration = 10 * time.Second
	retryPeriod   = 1 * time.Second
	// retryJitter is client-go's: each try comes 1 to 2.2 retry periods
	// after the last.
	retryJitter = 1.2
)

// takeoverBound is the longest a standby may take to lead once the leader
// died: the dead leader's last renewal was seen by the standby at most one
// jittered retry period after it was made, the standby takes the lease
// once a lease duration has passed since it saw that, and tries at most
// one jittered retry period later.
var takeoverBound = leaseDuration + 2*time.Duration(float64(retryPeriod)*(1+retryJitter))

// noLeaderElection runs this scenario with leader election off in both
// processes, to see the checks fail: two processes write at once.
var noLeaderElection = os.Getenv("LEADER_LOST_WITHOUT_LEADER_ELECTION") != ""

// Two operator processes with leader election, as the Deployment runs them
// with two replicas; the leader gets SIGKILL (no chance to release the
// lease) while pods keep being created and Bundles keep arriving. The
// standby leads within the lease's bounds, one process writes at a time,
// no write is refused for a conflict, the ClusterOperator never goes
// Degraded, every Bundle created meanwhile is reconciled, and no pod is
// refused (the webhook does not depend on the operator).
func TestOperatorLeaderLost(t *testing.T) {
	dumpOnFailure(t)
	ensureRelease(t, env.current)
	ctx := context.Background()
	ns, load := startLoad(t, "leader-lost-")

	stopOperators(false)
	startedA := time.Now()
	a, err := startOperator(ctx, env.current, "operator-leader-a", noLeaderElection)
	if err != nil {
		t.Fatal(err)
	}
	env.operators = []*framework.Process{a}
	if !noLeaderElection {
		waitLeader(t, a)
	}
	b, err := startOperator(ctx, env.current, "operator-leader-b", noLeaderElection)
	if err != nil {
		t.Fatal(err)
	}
	env.operators = append(env.operators, b)
	if !noLeaderElection {
		framework.Eventually(t, 30*time.Second, func(context.Context) error {
			if !b.LogContains("Attempting to acquire leader lease") {
				return fmt.Errorf("%s has not tried for the lease yet", b.Name)
			}
			return nil
		})
	}
	holderA := leaseHolder(t)

	watch := watchClusterOperator()
	since := time.Now()
	churn := startBundleChurn(ns, 500*time.Millisecond)
	time.Sleep(3 * time.Second)

	lastRenew := leaseRenewTime(t)
	killed := time.Now()
	a.Kill()
	env.operators = []*framework.Process{b}

	var takeover time.Duration
	if !noLeaderElection {
		var acquired time.Time
		framework.Eventually(t, 2*takeoverBound, func(ctx context.Context) error {
			lease, err := env.kube.CoordinationV1().Leases(framework.OperatorNamespace).Get(ctx, leaseName, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == holderA {
				return fmt.Errorf("the lease is still %s's", holderA)
			}
			acquired = lease.Spec.AcquireTime.Time
			return nil
		})
		takeover = acquired.Sub(killed)
		t.Logf("takeover: %s after SIGKILL (bound %s: lease %s + 2 retry periods of %s with jitter %.1f); the lease was last renewed %s before the kill",
			takeover.Round(time.Millisecond), takeoverBound, leaseDuration, retryPeriod, retryJitter, killed.Sub(lastRenew).Round(time.Millisecond))
		if takeover > takeoverBound {
			t.Errorf("the standby led %s after the leader died, past the bound of %s", takeover.Round(time.Millisecond), takeoverBound)
		}
		// MicroTime keeps microseconds; the lease is not taken early.
		if early := lastRenew.Add(leaseDuration).Sub(acquired); early > 10*time.Millisecond {
			t.Errorf("the standby took the lease %s before it expired", early)
		}
	}
	// The new leader's first pass, then a little more load.
	time.Sleep(10 * time.Second)
	created := churn.stop()
	load.Stop()
	handoverEnd := time.Now()

	// Every Bundle created meanwhile is reconciled by the survivor.
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		for _, name := range created {
			bundle, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if bundle.Status.ObservedGeneration != bundle.Generation {
				return fmt.Errorf("bundle %s is not reconciled (observed generation %d of %d)", name, bundle.Status.ObservedGeneration, bundle.Generation)
			}
		}
		return nil
	})
	degraded, _, _ := watch.stop()

	events, err := framework.Requests(env.cp.AuditLogPath, framework.OperatorUser, since)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{credentials[a]: a.Name, credentials[b]: b.Name}
	writers := writersOf(events, names)
	// client-go's informers start with a streaming list (a watch that
	// sends the initial objects) where the server allows it.
	watches, err := framework.WatchesStarted(env.cp.AuditLogPath, framework.OperatorUser, since)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range watches {
		if w := writers[names[e.CredentialID()]]; w != nil {
			w.watches++
		}
	}
	listed, err := listingsOf(startedA, since, names)
	if err != nil {
		t.Fatal(err)
	}
	figures := load.Figures()
	t.Logf("pods: %s", figures)
	maxWait := maxStatusWait(events, ns, created)
	t.Logf("operator writes from %s to %s (kill at +%s), Bundles created: %d, max Bundle wait for its status: %s",
		since.Format("15:04:05.000"), handoverEnd.Format("15:04:05.000"), killed.Sub(since).Round(time.Millisecond),
		len(created), maxWait.Round(time.Millisecond))
	for _, w := range writers {
		t.Logf("  %s: %d writes (%s to %s), %d WATCHes, %d refused with 409 Conflict: %v", w.name, w.writes,
			w.first.Format("15:04:05.000"), w.last.Format("15:04:05.000"), w.watches, w.conflicts, w.byResource)
	}

	// One writer at a time: the dead leader's last write came before the
	// survivor's first.
	if wa, wb := writers[a.Name], writers[b.Name]; wa != nil && wb != nil && !wa.last.Before(wb.first) {
		t.Errorf("two writers at once: %s wrote until %s, %s from %s", a.Name, wa.last.Format("15:04:05.000"), b.Name, wb.first.Format("15:04:05.000"))
	}
	for _, w := range writers {
		if w.conflicts > 0 {
			t.Errorf("%s had %d writes refused for a conflict (another writer changed the object first): %v", w.name, w.conflicts, w.conflictExamples)
		}
	}
	if writers[b.Name] == nil {
		t.Errorf("%s wrote nothing after the takeover: the survivor did not work", b.Name)
	}
	for _, d := range degraded {
		t.Errorf("the ClusterOperator went Degraded: %s", d)
	}
	if refused := figures.Refused; len(refused) > 0 {
		t.Errorf("%d pods refused while the operator's leader was lost, first: %v", len(refused), refused[0])
	}
	if len(figures.Wrong) > 0 {
		t.Errorf("%d requested pods created without their injection, first: %v", len(figures.Wrong), figures.Wrong[0])
	}
	// The survivor's informers start once it leads and list once each,
	// by streaming, as the first leader's did at its start: no LIST (a
	// LIST is the fallback when the server refuses a streaming list), and
	// no informer listing more often than the first leader's did.
	t.Logf("listing calls (LISTs from 3 s before the kill, streaming lists since %s started): %s", a.Name, listed)
	if n := listed.lists[a.Name] + listed.lists[b.Name]; n > 0 {
		t.Errorf("%d LISTs by the operators (%s), want 0: every informer lists by streaming, and a LIST is the fallback for a refused stream", n, listed.listExamples)
	}
	survivor, first := listed.streams[b.Name], listed.streams[a.Name]
	for key, n := range survivor {
		if n > first[key] {
			t.Errorf("%s listed %s %d times, the first leader %d times at its start: an informer relisted (or one the first leader did not have started)", b.Name, key, n, first[key])
		}
	}
	if !noLeaderElection && len(survivor) == 0 && listed.lists[b.Name] == 0 {
		t.Errorf("%s listed nothing: its informers never started", b.Name)
	}
	t.Logf("FIGURE leader lost: standby led %s after SIGKILL (bound %s); writes %s %d, %s %d, the survivor's first %s after the dead leader's last; %d refused with 409 Conflict; "+
		"%d LISTs, survivor's streaming lists %d (first leader's at its start %d); longest Bundle wait for its status %s of %d created; "+
		"pods %d created, %d refused, %d without injection; ClusterOperator Degraded %d times",
		takeover.Round(time.Millisecond), takeoverBound, a.Name, writesOf(writers[a.Name]), b.Name, writesOf(writers[b.Name]),
		handoverGap(writers[a.Name], writers[b.Name]).Round(time.Millisecond), conflictsOf(writers),
		listed.lists[a.Name]+listed.lists[b.Name], sum(survivor), sum(first), maxWait.Round(time.Millisecond), len(created),
		figures.TotalCreated(), len(figures.Refused), len(figures.Wrong), len(degraded))
}

// listings are the operators' listing calls, from the audit log: LISTs by
// process from 3 s before the kill, and streaming lists (watches that send
// the initial objects) by process and by what they list, since the first
// process started. (Each process LISTs its own pods once as it starts,
// library-go's lookup of the pod its Events name, before either window
// of the handover.)
type listings struct {
	lists        map[string]int
	listExamples []string
	streams      map[string]map[string]int
}

func listingsOf(started, since time.Time, names map[string]string) (listings, error) {
	out := listings{lists: map[string]int{}, streams: map[string]map[string]int{}}
	events, err := framework.Listings(env.cp.AuditLogPath, framework.OperatorUser, started)
	if err != nil {
		return out, err
	}
	for _, e := range events {
		name, ok := names[e.CredentialID()]
		if !ok {
			continue
		}
		if e.Verb == "list" {
			if !e.Received.Before(since) {
				out.lists[name]++
				if len(out.listExamples) < 5 {
					out.listExamples = append(out.listExamples, e.String())
				}
			}
			continue
		}
		if out.streams[name] == nil {
			out.streams[name] = map[string]int{}
		}
		out.streams[name][e.Listed()]++
	}
	return out, nil
}

func (l listings) String() string {
	names := map[string]bool{}
	for name := range l.streams {
		names[name] = true
	}
	for name := range l.lists {
		names[name] = true
	}
	var parts []string
	for _, name := range sortedKeys(names) {
		parts = append(parts, fmt.Sprintf("%s %d LISTs, %d streaming lists (%d informer keys)", name, l.lists[name], sum(l.streams[name]), len(l.streams[name])))
	}
	return strings.Join(parts, "; ")
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func writesOf(w *writer) int {
	if w == nil {
		return 0
	}
	return w.writes
}

// handoverGap is from the dead leader's last write to the survivor's first;
// negative when they overlapped, 0 when either wrote nothing.
func handoverGap(dead, survivor *writer) time.Duration {
	if dead == nil || survivor == nil {
		return 0
	}
	return survivor.first.Sub(dead.last)
}

func conflictsOf(writers map[string]*writer) int {
	n := 0
	for _, w := range writers {
		n += w.conflicts
	}
	return n
}

func leaseHolder(t *testing.T) string {
	t.Helper()
	if noLeaderElection {
		return ""
	}
	lease, err := env.kube.CoordinationV1().Leases(framework.OperatorNamespace).Get(context.Background(), leaseName, metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil {
		t.Fatalf("lease %s: %v", leaseName, err)
	}
	return *lease.Spec.HolderIdentity
}

func leaseRenewTime(t *testing.T) time.Time {
	t.Helper()
	if noLeaderElection {
		return time.Time{}
	}
	lease, err := env.kube.CoordinationV1().Leases(framework.OperatorNamespace).Get(context.Background(), leaseName, metav1.GetOptions{})
	if err != nil || lease.Spec.RenewTime == nil {
		t.Fatalf("lease %s: %v", leaseName, err)
	}
	return lease.Spec.RenewTime.Time
}

// writer is what one operator process sent, from the audit log.
type writer struct {
	name             string
	writes, watches  int
	conflicts        int
	conflictExamples []string
	first, last      time.Time
	byResource       map[string]int
}

// writersOf sums each process's requests (told apart by their tokens),
// leaving out what every process writes by design: its lease, Events, and
// the reviews its HTTPS endpoints ask.
func writersOf(events []framework.AuditEvent, names map[string]string) map[string]*writer {
	out := map[string]*writer{}
	for _, e := range events {
		name, ok := names[e.CredentialID()]
		if !ok {
			continue
		}
		w := out[name]
		if w == nil {
			w = &writer{name: name, byResource: map[string]int{}}
		}
		if len(framework.WritesExcept([]framework.AuditEvent{e}, "leases", "events", "tokenreviews", "subjectaccessreviews")) == 0 {
			continue
		}
		out[name] = w
		w.writes++
		if w.first.IsZero() {
			w.first = e.Received
		}
		w.last = e.Received
		for k, v := range framework.CountByResource([]framework.AuditEvent{e}) {
			w.byResource[k] += v
		}
		if e.Code() == 409 {
			w.conflicts++
			if len(w.conflictExamples) < 5 {
				w.conflictExamples = append(w.conflictExamples, e.String())
			}
		}
	}
	return out
}

// bundleChurn creates a Bundle every interval: work the leader must do.
type bundleChurn struct {
	stopCh chan struct{}
	done   sync.WaitGroup
	mu     sync.Mutex
	names  []string
}

func startBundleChurn(ns string, interval time.Duration) *bundleChurn {
	c := &bundleChurn{stopCh: make(chan struct{})}
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		for i := 0; ; i++ {
			select {
			case <-c.stopCh:
				return
			case <-time.After(interval):
			}
			b, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Create(context.Background(), &subscriptionv1alpha1.Bundle{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("churn-%03d", i)},
				Spec:       subscriptionv1alpha1.BundleSpec{Entitlements: []subscriptionv1alpha1.LocalReference{{Name: "entitlement"}}},
			}, metav1.CreateOptions{})
			if err == nil {
				c.mu.Lock()
				c.names = append(c.names, b.Name)
				c.mu.Unlock()
			}
		}
	}()
	return c
}

func (c *bundleChurn) stop() []string {
	close(c.stopCh)
	c.done.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.names...)
}

// maxStatusWait is the longest any of the named Bundles waited from its
// creation to the operator's first status write, from the audit log.
func maxStatusWait(events []framework.AuditEvent, ns string, names []string) time.Duration {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	all, err := framework.Requests(env.cp.AuditLogPath, "admin", time.Time{})
	if err != nil {
		return -1
	}
	createdAt := map[string]time.Time{}
	for _, e := range all {
		if e.Verb == "create" && e.ObjectRef != nil && e.ObjectRef.Resource == "bundles" && e.ObjectRef.Namespace == ns && want[e.ObjectRef.Name] {
			createdAt[e.ObjectRef.Name] = e.Received
		}
	}
	var waits []time.Duration
	seen := map[string]bool{}
	for _, e := range events {
		r := e.ObjectRef
		if r == nil || !e.IsWrite() || r.Resource != "bundles" || r.Subresource != "status" || r.Namespace != ns || seen[r.Name] {
			continue
		}
		if at, ok := createdAt[r.Name]; ok {
			seen[r.Name] = true
			waits = append(waits, e.Received.Sub(at))
		}
	}
	sort.Slice(waits, func(i, j int) bool { return waits[i] > waits[j] })
	if len(waits) == 0 {
		return 0
	}
	return waits[0]
}
