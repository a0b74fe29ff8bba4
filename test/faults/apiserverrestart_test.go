package faults

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
	// relistWatch is how long after the restart listing calls are counted:
	// an informer stuck relisting with client-go's backoff (0.8 s doubling
	// to 30 s) lists six times or more in it.
	relistWatch = 45 * time.Second
	// maxListingsPerInformer is what one informer may list successfully
	// after a restart: once (the new API server's watch cache starts at
	// etcd's current revision, so a watch from an older one is refused as
	// too old), and up to twice more if the next watches are refused too.
	// Seen once under the pod load: ClusterOperators and SharedConfigMaps,
	// both custom resources, listed three times each. A stuck informer
	// lists six times or more (relistWatch).
	maxListingsPerInformer = 3
	// maxRefusedListings is how many of an informer's lists the restarted
	// API server may refuse while it starts serving (a custom resource's
	// lists answer 404 or 503 until its CustomResourceDefinition is served
	// again): client-go retries them with its backoff, so a stuck informer
	// reaches six in relistWatch.
	maxRefusedListings = 3
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
	if err := env.cp.RestartAPIServer(ctx, 1); err != nil {
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
	name := "after-restart"
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
	lists := map[string]int{}
	for _, user := range []string{"operator", "webhook"} {
		username := map[string]string{"operator": framework.OperatorUser, "webhook": webhookUser}[user]
		events, err := framework.Listings(env.cp.AuditLogPath, username, env.started)
		if err != nil {
			t.Fatal(err)
		}
		afterEvents := between(events, stopped, stopped.Add(relistWatch))
		atStart, afterRestart := byInformer(before(events, stopped), answered), byInformer(afterEvents, answered)
		refused, codes := byInformer(afterEvents, func(e framework.AuditEvent) bool { return !answered(e) }), codesByInformer(afterEvents, ready)
		for _, n := range afterRestart {
			lists[user] += n
		}
		t.Logf("%s: answered listing calls in the %s after the restart (and since the package's setup, before it), by informer: %s",
			user, relistWatch, describe(afterRestart, atStart))
		for key, n := range afterRestart {
			if allowed := maxListingsPerInformer * max(atStart[key], 1); n > allowed {
				t.Errorf("%s listed %s %d times in the %s after the restart, %d before it since the package's setup: a relist loop (want at most %d answered per informer); its lists, by time after ready: %s",
					user, key, n, relistWatch, atStart[key], maxListingsPerInformer, codes[key])
			}
		}
		for key, n := range refused {
			if allowed := maxRefusedListings * max(atStart[key], 1); n > allowed {
				t.Errorf("%s had %d lists of %s refused in the %s after the restart: stuck relisting (want at most %d per informer); its lists, by time after ready: %s",
					user, n, key, relistWatch, maxRefusedListings, codes[key])
			} else {
				t.Logf("%s: %d lists of %s refused while the API server started; its lists, by time after ready: %s", user, n, key, codes[key])
			}
		}
	}
	expectLoadRan(t, f)
	t.Logf("load %s", f)
	t.Logf("FIGURE API server restart: down %s (stop to ready); first pod admitted after ready: plain %s, bundle %s, role %s; "+
		"%d pods refused while it was down, %d after; new Bundle validated by the operator in %s, served by the replicas in %v; "+
		"answered listing calls in the %s after: operator %d, webhook (2 replicas) %d; operator and webhook pids unchanged",
		ready.Sub(stopped).Round(time.Millisecond), resumed["plain"].Round(time.Millisecond), resumed["bundle"].Round(time.Millisecond),
		resumed["role"].Round(time.Millisecond), len(f.Refused)-len(late), len(late), validated.Round(time.Millisecond), roundAll(served),
		relistWatch, lists["operator"], lists["webhook"])
}

func before(events []framework.AuditEvent, end time.Time) []framework.AuditEvent {
	return between(events, time.Time{}, end)
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

// answered tells a listing call the API server answered from one it refused.
func answered(e framework.AuditEvent) bool { return e.Code() < 400 }

// byInformer counts the listing calls that count says to by what an
// informer lists.
func byInformer(events []framework.AuditEvent, count func(framework.AuditEvent) bool) map[string]int {
	counts := map[string]int{}
	for _, e := range events {
		if count(e) {
			counts[informerKey(e)]++
		}
	}
	return counts
}

// codesByInformer is each informer's listing calls, as the time after ready
// each was received and its HTTP status.
func codesByInformer(events []framework.AuditEvent, ready time.Time) map[string]string {
	codes := map[string]string{}
	for _, e := range events {
		key := informerKey(e)
		if codes[key] != "" {
			codes[key] += ", "
		}
		codes[key] += fmt.Sprintf("%+.1fs %d", e.Received.Sub(ready).Seconds(), e.Code())
	}
	return codes
}

// informerKey is what an informer lists: resource, namespace and selectors.
func informerKey(e framework.AuditEvent) string {
	key := e.Verb
	if e.ObjectRef != nil {
		key = e.ObjectRef.Resource
		if e.ObjectRef.APIGroup != "" {
			key += "." + e.ObjectRef.APIGroup
		}
		if e.ObjectRef.Namespace != "" {
			key += " in " + e.ObjectRef.Namespace
		}
	}
	if u, err := url.Parse(e.RequestURI); err == nil {
		for _, selector := range []string{"labelSelector", "fieldSelector"} {
			if v := u.Query().Get(selector); v != "" {
				key += " " + selector + "=" + v
			}
		}
	}
	return key
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
