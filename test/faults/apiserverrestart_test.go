package faults

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

const (
	// resumeWithin bounds the time from the restarted API server's
	// readiness to the first pod of each kind admitted after it.
	resumeWithin = 5 * time.Second
	// relistWatch is how long after the restart listing calls are counted.
	// An informer stuck relisting lists five times or more in it: the
	// reflector backs off 0.8 s doubling to 30 s, each step jittered up to
	// twice as long, so it tries again within 1.6, 4.8, 11.2 and 24 s.
	relistWatch = 45 * time.Second
	// relistsPerInformer is what one informer lists, answered, after the
	// restart: once. The new API server's watch cache starts at etcd's
	// current revision, so the informer's watch from its older
	// resourceVersion ends (410 Expired; 403 when it reaches the new
	// server before its authorizer has loaded RBAC) and it lists again.
	relistsPerInformer = 1
	// refusedRelistsPerInformer are the attempts of that relist the
	// starting API server may refuse (a streaming list and the LIST it
	// falls back to count as one):
	//   - one that reaches the server while the resource's watch cache is
	//     initializing (429 "storage is (re)initializing": a custom
	//     resource's cache starts at its first request after the restart),
	//     or before its authorizer has loaded RBAC (403);
	//   - one more, the retry after the reflector's first backoff (0.8 to
	//     1.6 s), if the cache is still initializing then.
	// Seen: at most one per informer, in 6 restarts under the pod load,
	// 4 of them with two CPU-bound processes beside.
	refusedRelistsPerInformer = 2
)

// restarts counts the API server's restarts, each with a log of its own and
// a Bundle of its own created after it (go test -count); lastRestart is
// when the last one began (the package's setup before the first): each
// running informer listed once since.
var (
	restarts    int
	lastRestart time.Time
)

// webhookUser is the webhook's ServiceAccount, as the API server names it.
var webhookUser = "system:serviceaccount:" + framework.OperandNamespace + ":" + framework.WebhookName

// kube-apiserver is restarted (stopped, started again with the same
// command line, as on a control-plane node reboot) while the operator and
// both webhook replicas run under the pod load. They recover without
// restarting (same processes); each of their informers lists at most once
// more, counted from the audit log; pods are admitted again as soon as the
// API server is ready; and a Bundle created after the restart is validated
// by the operator and served by both replicas, so their watches work.
func TestAPIServerRestart(t *testing.T) {
	dumpOnFailure(t)
	env.replicas.ensure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	operatorPID := env.running.PID()
	webhookPIDs := map[string]int{}
	for ip, w := range env.replicas.running {
		webhookPIDs[ip] = w.PID()
	}

	load := startLoad()
	t.Cleanup(load.Stop)
	time.Sleep(warmUp)
	stopped := time.Now()
	restarts++
	if err := env.cp.RestartAPIServer(ctx, restarts); err != nil {
		t.Fatal(err)
	}
	ready := time.Now()

	// Admissions resume.
	resumed := map[string]time.Duration{}
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		f := load.Figures()
		for _, kind := range []string{"plain", "bundle", "role"} {
			if at, ok := f.FirstCreatedSince(kind, ready); ok {
				resumed[kind] = at.Sub(ready)
			}
		}
		return len(resumed) == 3, nil
	})
	if err != nil {
		t.Fatalf("pods were not admitted again after the restart (first admitted after ready: %v): %v", resumed, err)
	}

	// The watches work: a Bundle created now is validated by the operator
	// and served by each replica.
	name := fmt.Sprintf("after-restart-%d", restarts)
	created := time.Now()
	if err := createValidatedBundle(ctx, env.load.namespace, name); err != nil {
		t.Fatalf("the operator's watches did not recover: %v", err)
	}
	validated := time.Since(created)
	served := map[string]time.Duration{}
	for ip, w := range env.replicas.running {
		var last error
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			last = admitsBundle(ctx, w, env.load.namespace, name)
			return last == nil, nil
		}); err != nil {
			t.Errorf("replica %s never served bundle %s created after the restart (its watch did not recover): %v", ip, name, last)
			continue
		}
		served[ip] = time.Since(created)
	}

	time.Sleep(time.Until(stopped.Add(relistWatch)))
	load.Stop()
	f := load.Figures()

	if env.running.Exited() || env.running.PID() != operatorPID {
		t.Errorf("the operator process (pid %d) did not survive the restart", operatorPID)
	}
	for ip, pid := range webhookPIDs {
		if w := env.replicas.running[ip]; w == nil || w.Exited() || w.PID() != pid {
			t.Errorf("webhook replica %s (pid %d) did not survive the restart", ip, pid)
		}
	}
	var late []framework.PodRefusal
	for _, r := range f.Refused {
		if r.At.After(ready) {
			late = append(late, r)
		}
	}
	for _, r := range late {
		t.Errorf("refused after the API server was ready again: %v", r)
	}
	for _, w := range f.Wrong {
		t.Errorf("created without its injection: %v", w)
	}
	for kind, d := range resumed {
		if d > resumeWithin {
			t.Errorf("the first %s pod after the restart was admitted %s after the API server was ready, want within %s", kind, d.Round(time.Millisecond), resumeWithin)
		}
	}
	// Informers are counted by what they list (resource, namespace,
	// selectors): several informers listing the same thing show as one key
	// listed as many times, at start as after the restart.
	lists, informerCount, refusedCount := map[string]int{}, map[string]int{}, map[string]int{}
	for _, user := range []string{"operator", "webhook"} {
		username := map[string]string{"operator": framework.OperatorUser, "webhook": webhookUser}[user]
		events, err := framework.Listings(env.cp.AuditLogPath, username, env.started)
		if err != nil {
			t.Fatal(err)
		}
		afterEvents := between(events, stopped, stopped.Add(relistWatch))
		// Each informer's first list (or its relist after the last
		// restart) is a streaming one: what else was listed, such as
		// library-go's one LIST of the operator's own pods at its start,
		// is no informer.
		informers := byInformer(between(events, cmp.Or(lastRestart, env.started), stopped), func(e framework.AuditEvent) bool {
			return answered(e) && e.Verb == "watch"
		})
		relists, refused := byInformer(afterEvents, answered), refusedAttempts(afterEvents)
		codes := codesByInformer(afterEvents, ready)
		lists[user], informerCount[user], refusedCount[user] = sum(relists), sum(informers), sum(refused)
		t.Logf("%s: answered listing calls in the %s after the restart (and since the last restart or the package's setup, before it: one per informer), by informer: %s",
			user, relistWatch, describe(relists, informers))
		for key, n := range relists {
			if allowed := relistsPerInformer * max(informers[key], 1); n > allowed {
				t.Errorf("%s listed %s %d times in the %s after the restart, with %d informers: a relist loop (want at most %d per informer); its listing calls, by time after ready: %s",
					user, key, n, relistWatch, informers[key], relistsPerInformer, codes[key])
			}
		}
		for _, key := range sortedKeys(refused) {
			n := refused[key]
			if allowed := refusedRelistsPerInformer * max(informers[key], 1); n > allowed {
				t.Errorf("%s had %d attempts to list %s refused in the %s after the restart, with %d informers: stuck relisting (want at most %d per informer); its listing calls, by time after ready: %s",
					user, n, key, relistWatch, informers[key], refusedRelistsPerInformer, codes[key])
			} else {
				t.Logf("%s: %d attempts to list %s refused while the API server started; its listing calls, by time after ready: %s", user, n, key, codes[key])
			}
		}
	}
	lastRestart = stopped
	expectLoadRan(t, f)
	t.Logf("load %s", f)
	t.Logf("FIGURE API server restart: down %s (stop to ready); first pod admitted after ready: plain %s, bundle %s, role %s; "+
		"%d pods refused while it was down, %d after; new Bundle validated by the operator in %s, served by the replicas in %v; "+
		"in the %s after, answered listing calls: operator %d (%d informers), webhook (2 replicas) %d (%d informers); attempts refused: operator %d, webhook %d; operator and webhook pids unchanged",
		ready.Sub(stopped).Round(time.Millisecond), resumed["plain"].Round(time.Millisecond), resumed["bundle"].Round(time.Millisecond),
		resumed["role"].Round(time.Millisecond), len(f.Refused)-len(late), len(late), validated.Round(time.Millisecond), roundAll(served),
		relistWatch, lists["operator"], informerCount["operator"], lists["webhook"], informerCount["webhook"], refusedCount["operator"], refusedCount["webhook"])
}

func between(events []framework.AuditEvent, start, end time.Time) []framework.AuditEvent {
	var out []framework.AuditEvent
	for _, e := range events {
		if !e.Received.Before(start) && e.Received.Before(end) {
			out = append(out, e)
		}
	}
	return out
}

// refusedAttempts counts, by what they list, the attempts to list that the
// API server refused: a refused streaming list, with the LIST client-go
// falls back to at once, is one attempt; so is a refused LIST alone.
func refusedAttempts(events []framework.AuditEvent) map[string]int {
	streams := byInformer(events, func(e framework.AuditEvent) bool { return !answered(e) && e.Verb == "watch" })
	lists := byInformer(events, func(e framework.AuditEvent) bool { return !answered(e) && e.Verb == "list" })
	attempts := map[string]int{}
	for key, n := range streams {
		attempts[key] = n
	}
	for key, n := range lists {
		attempts[key] = max(attempts[key], n)
	}
	return attempts
}

// answered tells a listing call the API server answered from one it refused.
func answered(e framework.AuditEvent) bool { return e.Code() < 400 }

// byInformer counts the listing calls that count says to by what an
// informer lists.
func byInformer(events []framework.AuditEvent, count func(framework.AuditEvent) bool) map[string]int {
	counts := map[string]int{}
	for _, e := range events {
		if count(e) {
			counts[e.Listed()]++
		}
	}
	return counts
}

// codesByInformer is each informer's listing calls, as the time after ready
// each was received and its HTTP status.
func codesByInformer(events []framework.AuditEvent, ready time.Time) map[string]string {
	codes := map[string]string{}
	for _, e := range events {
		key := e.Listed()
		if codes[key] != "" {
			codes[key] += ", "
		}
		kind := "list"
		if e.Verb == "watch" {
			kind = "stream"
		}
		codes[key] += fmt.Sprintf("%+.1fs %s %d", e.Received.Sub(ready).Seconds(), kind, e.Code())
	}
	return codes
}

// describe is "key: after (before)" for every key, sorted.
func describe(after, before map[string]int) string {
	keys := make([]string, 0, len(after))
	for k := range after {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d (%d)", k, after[k], before[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

func roundAll(d map[string]time.Duration) map[string]time.Duration {
	out := map[string]time.Duration{}
	for k, v := range d {
		out[k] = v.Round(time.Millisecond)
	}
	return out
}

// admitsBundle sends one replica, directly, the AdmissionReview the API
// server would for a pod asking for bundle name, and says why it was not
// admitted with the bundle injected.
func admitsBundle(ctx context.Context, w *framework.WebhookProcess, ns, name string) error {
	pod := loadPod(map[string]string{v1alpha1.InjectBundleAnnotation: name}, "default")
	pod.Namespace, pod.Name = ns, "probe"
	raw, err := json.Marshal(pod)
	if err != nil {
		return err
	}
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{UID: "faults-probe", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"}, Namespace: ns, Name: pod.Name,
			Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw},
			UserInfo: authenticationv1.UserInfo{Username: "system:admin", Groups: []string{"system:masters", "system:authenticated"}}},
	})
	if err != nil {
		return err
	}
	pool, err := w.CAPool(ctx)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: w.ServerName, MinVersion: tls.VersionTLS12},
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://"+w.Address+"/mutate-pods?timeout=5s", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &review); err != nil || review.Response == nil {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, data)
	}
	if !review.Response.Allowed {
		return fmt.Errorf("denied: %s", review.Response.Result.Message)
	}
	if !bytes.Contains(review.Response.Patch, []byte("subscription-entitlements")) {
		return fmt.Errorf("admitted without the bundle: patch %s", review.Response.Patch)
	}
	return nil
}

func sum(counts map[string]int) int {
	n := 0
	for _, v := range counts {
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
