// Package scale measures the operator on the real test control plane with
// many objects: memory, reconcile time and API traffic. Benchmarks only, run
// once each by `make bench-scale`; figures go to docs/performance.md.
package scale

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	versioned "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

const (
	// The sizes of issue 36, five times issue 13's: SCALE_SECRETS and
	// SCALE_CLUSTERBUNDLES set others.
	defaultUnrelated      = 250000
	defaultClusterBundles = 5000
	// secretsPerNamespace spreads the Secrets over namespaces.
	secretsPerNamespace = 500
	// At most this many bundles add their role to edit, so the kube-
	// controller-manager re-aggregates edit and admin for each: 1,000, as
	// when the benchmark had 1,000 bundles. Every one of 5,000 would make
	// edit a role of 5,000 rules, which no cluster has, and the control
	// plane, not the operator, would pay for it.
	maxAggregated = 1000
	workers       = 16
)

// rss reads the resident and peak resident memory of a process, in MiB.
func rss(b *testing.B, pid int) (current, peak float64) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) < 2 {
			continue
		}
		kib, _ := strconv.ParseFloat(fields[1], 64)
		switch fields[0] {
		case "VmRSS:":
			current = kib / 1024
		case "VmHWM:":
			peak = kib / 1024
		}
	}
	return current, peak
}

// workingSet reads a memory cgroup's working set, in MiB.
func workingSet(b *testing.B, cgroup *framework.MemoryCgroup) float64 {
	r, err := cgroup.Read()
	if err != nil {
		b.Fatal(err)
	}
	return float64(r.WorkingSet) / (1 << 20)
}

// parallel runs n calls of f over workers goroutines and fails on the
// first error.
func parallel(b *testing.B, n int, f func(i int) error) { parallelN(b, workers, n, f) }

// parallelN is parallel with as many workers.
func parallelN(b *testing.B, workers, n int, f func(i int) error) {
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}

// count summarises the operator's requests as "verb resource" → n, and
// counts its writes other than events, its lease and access reviews.
func count(b *testing.B, auditLog string, since time.Time) (map[string]int, int) {
	events, err := framework.Requests(auditLog, framework.OperatorUser, since)
	if err != nil {
		b.Fatal(err)
	}
	// A SubjectAccessReview is a create that changes nothing: the
	// ClusterBundle controller asks one per source on every sync.
	return framework.CountByResource(events), len(framework.WritesExcept(events, "events", "leases", "subjectaccessreviews"))
}

func summary(m map[string]int) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// operatorBinary is the operator binary a benchmark runs, named by
// OPERATOR_BINARY, which the make target sets.
func operatorBinary(b *testing.B, makeTarget string) string {
	b.Helper()
	binary := os.Getenv("OPERATOR_BINARY")
	if binary == "" {
		b.Fatalf("OPERATOR_BINARY must name the operator binary (make %s sets it)", makeTarget)
	}
	return binary
}

// startCluster starts the test control plane with the operator's payload,
// within 5 minutes. The caller stops it.
func startCluster(b *testing.B, controlPlane controlplane.Options) *framework.Cluster {
	b.Helper()
	controlPlane.Profiling = os.Getenv(profileDirEnv) != ""
	if controlPlane.BinDir == "" { // before the deadline: a cold build has none
		var err error
		if controlPlane.BinDir, err = controlplane.ResolveBinDir(); err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cluster, err := framework.StartCluster(ctx, framework.ClusterOptions{
		ReleaseVersion: "4.99.0-scale",
		Image:          "registry.invalid/openshift/cluster-workload-access-operator:scale",
		ControlPlane:   controlPlane,
	})
	if err != nil {
		b.Fatal(err)
	}
	return cluster
}

// startOperator starts the operator on cluster and waits until the named
// controller's caches are synced, the point from which a run measures.
// The returned stop logs the operator's last lines when the run failed.
func startOperator(ctx context.Context, b *testing.B, cluster *framework.Cluster, binary, controller string) (*framework.Process, func()) {
	return startOperatorIn(ctx, b, cluster, nil, binary, controller)
}

// startOperatorIn is startOperator with the operator in cgroup.
func startOperatorIn(ctx context.Context, b *testing.B, cluster *framework.Cluster, cgroup *framework.MemoryCgroup, binary, controller string) (*framework.Process, func()) {
	b.Helper()
	operator, err := cluster.StartOperatorIn(cgroup, binary, "operator")
	if err != nil {
		b.Fatal(err)
	}
	stop := func() {
		if b.Failed() {
			b.Log(operator.Tail(40))
		}
		operator.Stop()
	}
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(context.Context) (bool, error) {
		return strings.Contains(operator.Log(), "Caches are synced for "+controller+" "), nil
	}); err != nil {
		stop()
		b.Fatalf("the %s controller never started: %v", controller, err)
	}
	return operator, stop
}

// startAdmissionWebhook starts the webhook: ScopeTemplates, ScopeInstances and
// APIAccessPolicies are admitted only through its access-grants check (and
// a policy that refuses them while its configuration is missing).
func startAdmissionWebhook(ctx context.Context, b *testing.B, cluster *framework.Cluster, binary string) func() {
	b.Helper()
	webhook, err := cluster.StartWebhook(ctx, binary, "webhook")
	if err != nil {
		b.Fatal(err)
	}
	return webhook.Stop
}

// BenchmarkOperatorAtScale: 250,000 unrelated Secrets, then 5,000
// ClusterBundles over one entitlement Secret and one yum ConfigMap.
// Reports the operator's working set, Go heap and RSS before and after each
// step, the time until every bundle is valid with its shares and role, its
// API requests, its writes during a quiet minute afterwards, and the time
// until every bundle lists the keys of a renamed entitlement.
// SCALE_SECRETS and SCALE_CLUSTERBUNDLES set the counts; SCALE_SKIP_RENAME=1
// stops after the quiet minute; SCALE_PROFILE_DIR receives the operator's
// heap profiles (with the Secrets, after the quiet minute) and a CPU profile
// of the bundles' first minute.
func BenchmarkOperatorAtScale(b *testing.B) {
	binary := operatorBinary(b, "bench-scale")
	for b.Loop() {
		runScale(b, binary)
	}
}

func runScale(b *testing.B, binary string) {
	unrelated := envCount(b, "SCALE_SECRETS", defaultUnrelated)
	clusterBundles := envCount(b, "SCALE_CLUSTERBUNDLES", defaultClusterBundles)
	namespaces := max(1, unrelated/secretsPerNamespace)
	ctx := context.Background()
	cluster := startCluster(b, controlplane.Options{AuditLog: true})
	defer cluster.Stop()
	// The operator's environment is the test's with the payload's.
	profiler, profileEnv := newProcessProfiler(b)
	for _, kv := range profileEnv {
		name, value, _ := strings.Cut(kv, "=")
		b.Setenv(name, value)
	}
	// The load generator must not be what limits the run: client-go's
	// default of 5 requests/s would take an hour for the Secrets alone.
	config := rest.CopyConfig(cluster.Config)
	config.QPS, config.Burst = 1000, 2000
	kube := kubernetes.NewForConfigOrDie(config)
	client := versioned.NewForConfigOrDie(config)
	// The operator in a memory cgroup of its own, started after the page
	// cache is dropped: its working set reads as the kubelet reads the
	// container's.
	if err := framework.DropPageCache(); err != nil {
		b.Logf("page cache not dropped (%v): pages of the binary already cached are charged elsewhere", err)
	}
	cgroup, err := framework.NewMemoryCgroup(fmt.Sprintf("workload-access-bench-operator-%d", os.Getpid()))
	if err != nil {
		b.Fatalf("a memory cgroup for the operator: %v", err)
	}
	operator, stopOperator := startOperatorIn(ctx, b, cluster, cgroup, binary, "ClusterBundle")
	defer func() { stopOperator(); _ = cgroup.Remove() }()
	time.Sleep(15 * time.Second) // let the operand settle
	settled, _ := rss(b, operator.PID())
	settledWS := workingSet(b, cgroup)

	start := time.Now()
	for i := 0; i < namespaces; i++ {
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("tenant-%03d", i)}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	parallel(b, unrelated, func(i int) error {
		_, err := kube.CoreV1().Secrets(fmt.Sprintf("tenant-%03d", i%namespaces)).Create(ctx, unrelatedSecret(i), metav1.CreateOptions{})
		return err
	})
	b.Logf("created %d Secrets in %s", unrelated, time.Since(start).Round(time.Second))
	time.Sleep(15 * time.Second)
	withSecrets, _ := rss(b, operator.PID())
	withSecretsWS := workingSet(b, cgroup)
	_, withSecretsHeap := lastGCTrace(operator.LogPath)
	profiler.heap(b, "operator-with-secrets")

	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "entitlements"}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := kube.CoreV1().Secrets("entitlements").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "etc-pki-entitlement"},
		Data: map[string][]byte{"e.pem": []byte("cert"), "e-key.pem": []byte("key")}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := kube.CoreV1().ConfigMaps("entitlements").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "satellite"},
		Data: map[string]string{"redhat.repo": "[rhel]\n"}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}

	// As an admin grants it: the Shared Resource CSI driver may read the
	// sources, or every bundle is Invalid (DriverCannotRead).
	if _, err := kube.RbacV1().Roles("entitlements").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "shared-resource-driver"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets", "configmaps"}, Verbs: []string{"get", "list", "watch"}}}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := kube.RbacV1().RoleBindings("entitlements").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "shared-resource-driver"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "shared-resource-driver"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "openshift-builds", Name: "csi-driver-shared-resource"}}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}

	bundlesStart := time.Now()
	bundlesProfiled := profiler.cpu(b, time.Minute, "operator-bundles")
	parallel(b, clusterBundles, func(i int) error {
		_, err := client.SubscriptionV1alpha1().ClusterBundles().Create(ctx, &subscriptionv1alpha1.ClusterBundle{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bundle-%04d", i)},
			Spec: subscriptionv1alpha1.ClusterBundleSpec{
				AggregateToClusterRoles: aggregateTo(i),
				Entitlements:            []subscriptionv1alpha1.ClusterReference{{Namespace: "entitlements", Name: "etc-pki-entitlement"}},
				YumRepositories:         []subscriptionv1alpha1.ClusterReference{{Namespace: "entitlements", Name: "satellite"}},
			},
		}, metav1.CreateOptions{})
		return err
	})
	created := time.Since(bundlesStart)
	var valid int
	// About 2.5 minutes per 1,000 bundles on 2 shared cores; the list
	// every 5 s costs the API server little beside that.
	if err := wait.PollUntilContextTimeout(ctx, 5*time.Second, time.Duration(clusterBundles)*time.Second+10*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := client.SubscriptionV1alpha1().ClusterBundles().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		valid = 0
		for _, cb := range list.Items {
			c := meta.FindStatusCondition(cb.Status.Conditions, subscriptionv1alpha1.ConditionInvalid)
			if cb.Status.ObservedGeneration == cb.Generation && c != nil && c.Status == metav1.ConditionFalse && len(cb.Status.Shares) == 2 {
				valid++
			}
		}
		return valid == clusterBundles, nil
	}); err != nil {
		b.Fatalf("only %d of %d ClusterBundles became valid: %v", valid, clusterBundles, err)
	}
	reconciled := time.Since(bundlesStart)
	requests, writes := count(b, cluster.AuditLogPath, bundlesStart)
	withBundles, peak := rss(b, operator.PID())
	withBundlesWS := workingSet(b, cgroup)
	<-bundlesProfiled

	quiet := time.Now()
	time.Sleep(time.Minute)
	_, idleWrites := count(b, cluster.AuditLogPath, quiet)
	idle, _ := rss(b, operator.PID())
	idleWS := workingSet(b, cgroup)
	_, idleHeap := lastGCTrace(operator.LogPath)
	profiler.heap(b, "operator-idle")

	b.Logf("ClusterBundles created in %s, all valid after %s", created.Round(time.Millisecond), reconciled.Round(time.Millisecond))
	b.Logf("operator requests while reconciling: %s", summary(requests))
	b.Logf("operator RSS MiB: settled %.0f, with %d Secrets %.0f, with %d ClusterBundles %.0f, after a quiet minute %.0f, peak %.0f",
		settled, unrelated, withSecrets, clusterBundles, withBundles, idle, peak)
	b.Logf("operator working set MiB (its own memory cgroup): settled %.1f, with %d Secrets %.1f (Go live heap %.0f MB), with %d ClusterBundles %.1f, after a quiet minute %.1f (Go live heap %.0f MB); target: at most 150 MiB with 250,000 Secrets and 5,000 ClusterBundles, and a quiet minute after",
		settledWS, unrelated, withSecretsWS, withSecretsHeap, clusterBundles, withBundlesWS, idleWS, idleHeap)
	b.ReportMetric(float64(unrelated), "secrets")
	b.ReportMetric(float64(clusterBundles), "clusterbundles")
	b.ReportMetric(reconciled.Seconds(), "s-reconcile-bundles")
	b.ReportMetric(withSecretsWS, "MiB-ws-with-secrets")
	b.ReportMetric(withBundlesWS, "MiB-ws-with-bundles")
	b.ReportMetric(idleWS, "MiB-ws-idle")
	b.ReportMetric(withSecretsHeap, "MB-live-heap-with-secrets")
	b.ReportMetric(idleHeap, "MB-live-heap-idle")
	b.ReportMetric(withSecrets, "MiB-rss-with-secrets")
	b.ReportMetric(withSecrets-settled, "MiB-rss-growth-secrets")
	b.ReportMetric(withBundles, "MiB-rss-with-bundles")
	b.ReportMetric(float64(writes), "writes-reconcile")
	b.ReportMetric(float64(idleWrites), "writes-quiet-minute")
	if idleWrites != 0 {
		b.Errorf("the operator wrote %d times during a quiet minute", idleWrites)
	}
	if os.Getenv("SCALE_SKIP_RENAME") != "" {
		return
	}

	// A routine entitlement refresh renames the keys of the Secret every
	// bundle references: every bundle must follow.
	renamed := time.Now()
	if _, err := kube.CoreV1().Secrets("entitlements").Update(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "etc-pki-entitlement"},
		Data: map[string][]byte{"f.pem": []byte("cert"), "f-key.pem": []byte("key")}}, metav1.UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
	var following int
	if err := wait.PollUntilContextTimeout(ctx, time.Second, time.Duration(clusterBundles)*time.Second/2+10*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := client.SubscriptionV1alpha1().ClusterBundles().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		following = 0
		for _, cb := range list.Items {
			if len(cb.Status.Entitlements) == 1 && strings.Join(cb.Status.Entitlements[0].Keys, ",") == "f-key.pem,f.pem" {
				following++
			}
		}
		return following == clusterBundles, nil
	}); err != nil {
		b.Fatalf("only %d of %d ClusterBundles list the renamed keys: %v", following, clusterBundles, err)
	}
	followed := time.Since(renamed)
	renameRequests, _ := count(b, cluster.AuditLogPath, renamed)
	_, peak = rss(b, operator.PID())
	b.Logf("all %d ClusterBundles list the renamed keys after %s; operator requests meanwhile: %s", clusterBundles, followed.Round(time.Millisecond), summary(renameRequests))
	b.Logf("operator RSS peak MiB after the rename: %.0f", peak)

	b.ReportMetric(followed.Seconds(), "s-bundles-follow-a-key-rename")
	b.ReportMetric(peak, "MiB-rss-peak")
}

// unrelatedSecret is Secret i of the load: 2-4 KB of data, as TLS pairs and
// pull secrets are; every fifth with Helm's labels and annotations, every
// tenth with kubectl's last-applied-configuration, which repeats the data.
func unrelatedSecret(i int) *corev1.Secret {
	data := map[string][]byte{
		"tls.crt": []byte(strings.Repeat("c", 1200+(i%3)*400)),
		"tls.key": []byte(strings.Repeat("k", 900)),
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("app-%05d", i)}, Data: data}
	if i%5 == 0 {
		s.Labels = map[string]string{"app.kubernetes.io/name": s.Name, "app.kubernetes.io/instance": "release-" + strconv.Itoa(i%50),
			"app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "app-1.2.3"}
		s.Annotations = map[string]string{"meta.helm.sh/release-name": "release-" + strconv.Itoa(i%50), "meta.helm.sh/release-namespace": "tenant"}
	}
	if i%10 == 0 {
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		s.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = fmt.Sprintf(`{"apiVersion":"v1","kind":"Secret","data":{"tls.crt":%q,"tls.key":%q}}`, data["tls.crt"], data["tls.key"])
	}
	return s
}

func aggregateTo(i int) []string {
	if i < maxAggregated {
		return []string{"edit"}
	}
	return nil
}
