package scale

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	versioned "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

const scopeNamespaces = 5000

// scopeProfileWindow is how long the API server (and the operator) are
// profiled from the start of each burst, with SCALE_PROFILE_DIR: the same
// for both, and longer than either, so that each profile holds all of its
// burst's 5,000 creates.
const scopeProfileWindow = 15 * time.Second

// The admin's two baseline bursts, one before the operator's and one after
// it, each a RoleBinding of its own name in every namespace.
const (
	adminBefore = "baseline-before"
	adminAfter  = "baseline-after"
)

// scopesAdminEnv set to "token" has the admin's bursts made as an
// OpenShift cluster's admins make them, by an identity bound to
// cluster-admin with a bearer token (a ServiceAccount here), which the API
// server walks through RBAC and the bind check as it does the operator;
// unset, by the system:masters client certificate, which skips both.
const scopesAdminEnv = "SCOPES_ADMIN"

// adminClient is the client of the admin's bursts: kube, or with
// scopesAdminEnv=token a ServiceAccount bound to cluster-admin, as
// unthrottled.
func adminClient(ctx context.Context, b *testing.B, kube kubernetes.Interface, config *rest.Config) kubernetes.Interface {
	switch os.Getenv(scopesAdminEnv) {
	case "":
		b.Logf("the admin's bursts: the system:masters client certificate")
		return kube
	case "token":
	default:
		b.Fatalf("%s=%q: want token, or unset", scopesAdminEnv, os.Getenv(scopesAdminEnv))
	}
	const namespace, name = "kube-system", "bench-admin"
	if _, err := kube.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: namespace}},
	}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	token, err := kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))}}, metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	admin := rest.AnonymousClientConfig(config)
	admin.BearerToken = token.Status.Token
	admin.QPS, admin.Burst = -1, 0
	b.Logf("the admin's bursts: ServiceAccount %s/%s bound to cluster-admin, by bearer token", namespace, name)
	return kubernetes.NewForConfigOrDie(admin)
}

// burstGap is the pause before each burst, after the last one's bindings
// were all seen (and its profiles written): the same for all three, so none
// starts on the tail of another.
const burstGap = 5 * time.Second

// BenchmarkScopeInstanceNamespaces: one ScopeInstance whose selector
// matches 5,000 namespaces. Reports how fast the API server takes creates
// from an unthrottled client (the namespaces themselves), the time from
// creating the instance until every RoleBinding exists and the instance
// says Bound, against the mean of two bursts of the same creates by an
// admin, one before the operator's and one after it, the operator's
// requests meanwhile, and its writes on a resync with nothing changed.
func BenchmarkScopeInstanceNamespaces(b *testing.B) {
	binary := operatorBinary(b, "bench-scopes")
	for b.Loop() {
		runScopes(b, binary)
	}
}

func runScopes(b *testing.B, binary string) {
	ctx := context.Background()
	cluster := startCluster(b, controlplane.Options{AuditLog: true})
	defer cluster.Stop()
	config := rest.CopyConfig(cluster.Config)
	config.QPS, config.Burst = -1, 0 // unthrottled: the baseline the operator is compared with
	kube := kubernetes.NewForConfigOrDie(config)
	client := versioned.NewForConfigOrDie(config)
	// With SCALE_PROFILE_DIR, the operator serves pprof (its environment is
	// the test's); the webhook, started after, does not.
	profiler, profileEnv := newProcessProfiler(b)
	for _, kv := range profileEnv {
		name, value, _ := strings.Cut(kv, "=")
		b.Setenv(name, value)
	}
	operator, stopOperator := startOperator(ctx, b, cluster, binary, "ScopeInstance")
	defer stopOperator()
	for _, kv := range profileEnv {
		name, _, _ := strings.Cut(kv, "=")
		os.Unsetenv(name)
	}
	defer startAdmissionWebhook(ctx, b, cluster, binary)()

	nsStart := time.Now()
	parallelN(b, 64, scopeNamespaces, func(i int) error {
		_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("scoped-%04d", i), Labels: map[string]string{"scope-bench": "yes"}}}, metav1.CreateOptions{})
		return err
	})
	nsTook := time.Since(nsStart)
	rate := float64(scopeNamespaces) / nsTook.Seconds()
	b.Logf("created %d namespaces in %s (%.0f creates/s, unthrottled, 64 in flight)", scopeNamespaces, nsTook.Round(time.Millisecond), rate)
	// Let the informers (the operator's, the kube-controller-manager's) take
	// in the new namespaces. The kube-controller-manager then gives each a
	// ServiceAccount and a ConfigMap, each controller 20 creates a second
	// (its client's default rate) for about four minutes: a steady load
	// beside all three bursts below alike (seen in the audit log, 2026-12-07).
	time.Sleep(20 * time.Second)

	if _, err := client.ScopesV1alpha1().ScopeTemplates().Create(ctx, &scopesv1alpha1.ScopeTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "bench"},
		Spec: scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{
			GenerateName: "bench-reader-",
			Rules:        []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}}},
			Subjects:     []scopesv1alpha1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "scoped-operator"}},
		}}},
	}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	// Count the RoleBindings with an informer, not by listing thousands of
	// them every few milliseconds: that listing would cost the API server
	// more than the operator's creates and slow what it measures. (A bare
	// watch is not enough: the API server drops a watcher that falls
	// behind, and on two busy cores this one does.) It watches every
	// RoleBinding, so that the admin's creates below are delivered to it and
	// counted the same way as the operator's: every burst pays for the same
	// watcher and ends when it has seen the last binding.
	operatorSeen, before, after := &burstCount{}, &burstCount{}, &burstCount{}
	protoConfig := rest.CopyConfig(config)
	protoConfig.ContentType = "application/vnd.kubernetes.protobuf" // cheaper for the API server than JSON
	factory := informers.NewSharedInformerFactory(kubernetes.NewForConfigOrDie(protoConfig), 0)
	informer := factory.Rbac().V1().RoleBindings().Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		binding, ok := obj.(*rbacv1.RoleBinding)
		switch {
		case !ok:
		case binding.Labels[scopesv1alpha1.ScopeInstanceLabel] == "bench":
			operatorSeen.add()
		case binding.Name == adminBefore:
			before.add()
		case binding.Name == adminAfter:
			after.add()
		}
	}}); err != nil {
		b.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	factory.WaitForCacheSync(stop)

	// The admin's first burst, then the operator's, then the admin's
	// second: whatever drifts from one burst to the next (the objects
	// stored and watched, the API server's heap, the kube-controller-
	// manager's steady creates) weighs on the operator's burst about as on
	// the mean of the two around it.
	time.Sleep(burstGap)
	admin := adminClient(ctx, b, kube, config)
	beforeBurst := adminBurst(ctx, b, admin, before, adminBefore, operator.PID())

	time.Sleep(burstGap)
	opBurst := startBurst(ctx, b, kube, operatorSeen, "the operator's burst", operator.PID())
	profiled := profileAPIServer(ctx, b, kube, scopeProfileWindow, "scopes-operator")
	operatorProfiled := profiler.cpu(b, scopeProfileWindow, "scopes-operator-process")
	benchProfiled := profileBench(b, scopeProfileWindow, "scopes-operator-bench")
	if _, err := client.ScopesV1alpha1().ScopeInstances().Create(ctx, &scopesv1alpha1.ScopeInstance{
		ObjectMeta: metav1.ObjectMeta{Name: "bench"},
		Spec: scopesv1alpha1.ScopeInstanceSpec{ScopeTemplateName: "bench",
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"scope-bench": "yes"}}},
	}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	allBindings := opBurst.end(ctx, b)
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		instance, err := client.ScopesV1alpha1().ScopeInstances().Get(ctx, "bench", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		c := meta.FindStatusCondition(instance.Status.Conditions, scopesv1alpha1.ConditionBound)
		return c != nil && c.Status == metav1.ConditionTrue && instance.Status.NamespaceCount == scopeNamespaces, nil
	}); err != nil {
		b.Fatalf("the instance never said Bound over %d namespaces: %v", scopeNamespaces, err)
	}
	converged := time.Since(opBurst.start)
	opBurst.report(ctx, b, kube, profiled, operatorProfiled, benchProfiled)
	requests, writes := count(b, cluster.AuditLogPath, opBurst.start)
	watches, err := framework.WatchesStarted(cluster.AuditLogPath, framework.OperatorUser, opBurst.start)
	if err != nil {
		b.Fatal(err)
	}
	var bindingWatches int
	for _, w := range watches {
		if w.ObjectRef != nil && w.ObjectRef.Resource == "rolebindings" {
			bindingWatches++
		}
	}
	b.Logf("all %d RoleBindings after %s, instance Bound after %s; operator requests: %s; RoleBinding watches opened: %d",
		scopeNamespaces, allBindings.Round(time.Millisecond), converged.Round(time.Millisecond), summary(requests), bindingWatches)

	time.Sleep(burstGap)
	afterBurst := adminBurst(ctx, b, admin, after, adminAfter, operator.PID())
	baselineBefore, baselineAfter := before.took, after.took
	baseline := (baselineBefore + baselineAfter) / 2

	// A resync with nothing changed: an annotation wakes the instance (and
	// its template) without changing what it asks for.
	time.Sleep(5 * time.Second)
	resync := time.Now()
	instance, err := client.ScopesV1alpha1().ScopeInstances().Get(ctx, "bench", metav1.GetOptions{})
	if err != nil {
		b.Fatal(err)
	}
	instance.Annotations = map[string]string{"bench": "resync"}
	if _, err := client.ScopesV1alpha1().ScopeInstances().Update(ctx, instance, metav1.UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
	time.Sleep(20 * time.Second)
	resyncRequests, resyncWrites := count(b, cluster.AuditLogPath, resync)
	b.Logf("resync with nothing changed: operator requests %s, writes %d", summary(resyncRequests), resyncWrites)
	_, peak := rss(b, operator.PID())
	b.Logf("operator RSS peak MiB: %.0f", peak)

	b.Logf("the operator's creates took %.2f times the mean of the admin's before and after (%.2f times the one before, %.2f the one after; all seen, each)",
		allBindings.Seconds()/baseline.Seconds(), allBindings.Seconds()/baselineBefore.Seconds(), allBindings.Seconds()/baselineAfter.Seconds())
	b.ReportMetric(float64(scopeNamespaces)/baseline.Seconds(), "rolebinding-creates/s-admin")
	b.ReportMetric(allBindings.Seconds()/baseline.Seconds(), "x-admin")
	b.ReportMetric(allBindings.Seconds()/baselineBefore.Seconds(), "x-admin-before")
	b.ReportMetric(allBindings.Seconds()/baselineAfter.Seconds(), "x-admin-after")
	b.ReportMetric(opBurst.outside, "s-cpu-others-operator")
	b.ReportMetric(max(beforeBurst.outside, afterBurst.outside), "s-cpu-others-admin-max")

	b.ReportMetric(rate, "creates/s-unthrottled")
	b.ReportMetric(allBindings.Seconds(), "s-5000-rolebindings")
	b.ReportMetric(converged.Seconds(), "s-instance-bound")
	b.ReportMetric(float64(writes), "writes-converge")
	b.ReportMetric(float64(resyncWrites), "writes-resync")
	b.ReportMetric(float64(bindingWatches), "rolebinding-watches-converge")
	b.ReportMetric(peak, "MiB-rss-peak")
	if resyncWrites != 0 {
		b.Errorf("a resync with nothing changed wrote %d times", resyncWrites)
	}
	// The API server closes a watch whose events back up (here, behind the
	// operator's own creates on a shared connection), and the informer
	// opens another and is sent again what it missed. One new watch may be
	// a watch's ordinary end (after 5 to 10 minutes).
	if bindingWatches > 1 {
		b.Errorf("the operator opened %d RoleBinding watches while converging, want at most 1: the API server closed its watches as too slow", bindingWatches)
	}
	// A sync planned from caches behind the last one's writes creates again
	// (refused) and reads what it finds (unseen.go).
	if creates, reads := requests["create rolebindings"], requests["get rolebindings"]; creates != scopeNamespaces || reads != 0 {
		b.Errorf("converging over %d namespaces, the operator created RoleBindings %d times and read %d", scopeNamespaces, creates, reads)
	}
}

// burstCount counts one burst's RoleBindings as the bench's informer sees
// them, and when it saw the first (Unix nanoseconds): what comes before it
// is the writer's reaction. took is set when the burst ends.
type burstCount struct {
	seen, first atomic.Int64
	took        time.Duration
}

func (c *burstCount) add() {
	c.first.CompareAndSwap(0, time.Now().UnixNano())
	c.seen.Add(1)
}

// adminBurst is the admin's baseline: the unthrottled admin client creates
// a RoleBinding named name to view in each namespace, 64 in flight, timed
// like the operator's: until the informer has seen the last one.
func adminBurst(ctx context.Context, b *testing.B, kube kubernetes.Interface, seen *burstCount, name string, operatorPID int) *burst {
	burst := startBurst(ctx, b, kube, seen, "the admin's burst "+strings.TrimPrefix(name, "baseline-")+" the operator's", operatorPID)
	profiled := profileAPIServer(ctx, b, kube, scopeProfileWindow, "scopes-admin-"+strings.TrimPrefix(name, "baseline-"))
	benchProfiled := profileBench(b, scopeProfileWindow, "scopes-admin-"+strings.TrimPrefix(name, "baseline-")+"-bench")
	parallelN(b, 64, scopeNamespaces, func(i int) error {
		_, err := kube.RbacV1().RoleBindings(fmt.Sprintf("scoped-%04d", i)).Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "scoped-operator", Namespace: fmt.Sprintf("scoped-%04d", i)}},
		}, metav1.CreateOptions{})
		return err
	})
	created := time.Since(burst.start)
	took := burst.end(ctx, b)
	burst.report(ctx, b, kube, profiled, benchProfiled)
	b.Logf("the admin's %d RoleBinding creates (%s), unthrottled, 64 in flight: the last returned after %s, all seen after %s (%.0f/s)",
		scopeNamespaces, name, created.Round(time.Millisecond), took.Round(time.Millisecond), float64(scopeNamespaces)/took.Seconds())
	return burst
}

// burst measures one burst of 5,000 RoleBinding creates: from start until
// the informer has seen the last, and the CPU meanwhile, of the machine and
// of each process, with the operator's apart from the webhook's (both run
// the same binary, so /proc gives them one command name); and the API
// server's Go heap at its start and its collections during it.
type burst struct {
	what        string
	seen        *burstCount
	start       time.Time
	cpu         map[string]float64
	operatorPID int
	operatorCPU float64
	machine     machineCPU
	heap        apiServerGo
	// machineDuring is the machine's CPU from start until the last binding
	// was seen; outside is how much of it went to processes other than
	// the benchmark's.
	machineDuring string
	outside       float64
}

func startBurst(ctx context.Context, b *testing.B, kube kubernetes.Interface, seen *burstCount, what string, operatorPID int) *burst {
	heap := apiServerGoNow(ctx, b, kube) // before the CPU is read: the scrape is no part of the burst
	return &burst{what: what, seen: seen, heap: heap, operatorPID: operatorPID, operatorCPU: processCPU(operatorPID),
		start: time.Now(), cpu: cpuSeconds(b), machine: machineCPUNow(b)}
}

// end waits for the burst's last binding and returns the burst's time.
func (u *burst) end(ctx context.Context, b *testing.B) time.Duration {
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 5*time.Minute, true, func(context.Context) (bool, error) {
		return u.seen.seen.Load() >= scopeNamespaces, nil
	}); err != nil {
		b.Fatalf("%s: the informer saw only %d of %d RoleBindings after 5 minutes", u.what, u.seen.seen.Load(), scopeNamespaces)
	}
	u.seen.took = time.Since(u.start)
	machine, bench := machineCPUNow(b), benchCPU(b, u.cpu)
	// What kept the cores busy besides the benchmark's processes: other
	// work on the machine, processes that ended meanwhile (which /proc no
	// longer shows), and the kernel's interrupts.
	outside, irq := machine.busy-u.machine.busy-bench, machine.irq-u.machine.irq
	u.machineDuring = fmt.Sprintf("%s; outside the benchmark's processes %.1f s, of which interrupts %.1f s", machine.since(u.machine), outside, irq)
	u.outside = outside - irq
	return u.seen.took
}

// report logs the burst once its profiles are written: with
// SCALE_PROFILE_DIR set, the CPU by process covers the profile window.
func (u *burst) report(ctx context.Context, b *testing.B, kube kubernetes.Interface, profiles ...<-chan struct{}) {
	for _, p := range profiles {
		<-p
	}
	operatorCPU := processCPU(u.operatorPID) - u.operatorCPU
	cpu := cpuSince(b, u.cpu)
	heap := apiServerGoNow(ctx, b, kube)
	b.Logf("%s: first RoleBinding seen after %s, all %d after %s; the machine's CPU meanwhile: %s",
		u.what, time.Duration(u.seen.first.Load()-u.start.UnixNano()).Round(time.Millisecond), scopeNamespaces, u.seen.took.Round(time.Millisecond), u.machineDuring)
	b.Logf("%s: CPU by process: %s; of which the operator's process %.1f s", u.what, cpu, operatorCPU)
	b.Logf("%s: the API server's Go heap at the start %.0f MB (next collection at %.0f MB), %.0f collections during it",
		u.what, u.heap.heapAlloc/1e6, u.heap.nextGC/1e6, heap.collections-u.heap.collections)
}

// processCPU is one process's user and system CPU seconds so far.
func processCPU(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	text := string(data)
	fields := strings.Fields(text[strings.LastIndexByte(text, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	user, _ := strconv.ParseFloat(fields[11], 64)
	system, _ := strconv.ParseFloat(fields[12], 64)
	return (user + system) / clockTicks
}
