package faults

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// warmUp and coolDown are load before and after the fault, so the figures
// cover a steady state on both sides.
const (
	warmUp   = 5 * time.Second
	coolDown = 5 * time.Second
)

// One of the two replicas is SIGKILLed under load and its container
// restarted. The only pods refused (or, for the fail-open role pods, created
// without credentials) are those whose webhook call went to that replica
// before its endpoint left the slice: in flight on it when it died, or
// dialed to it in the second its death takes to reach the endpoints.
func TestWebhookReplicaKilled(t *testing.T) {
	dumpOnFailure(t)
	env.replicas.ensure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	load := startLoad()
	t.Cleanup(load.Stop)
	// The victim is the replica that answered most in the warm-up: the API
	// server keeps its connections to a webhook open, so one replica may
	// carry all of them (a replica restarted earlier gets none until the
	// API server needs a new one).
	before := env.replicas.admitted()
	time.Sleep(warmUp)
	answered := env.replicas.admitted()
	victim, most := "", -1.0
	for ip, n := range answered {
		if n-before[ip] > most {
			victim, most = ip, n-before[ip]
		}
	}
	victimAddress := victim + ":"
	killed := time.Now()
	env.replicas.kill(victim)
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return !env.replicas.endpoints.isReady(victim), nil
	}); err != nil {
		t.Fatalf("the killed replica's endpoint never became not ready: %v", err)
	}
	removed := env.replicas.endpoints.changesSince(victim, killed)[0].At
	if err := env.replicas.restartContainer(ctx, victim); err != nil {
		t.Fatal(err)
	}
	if err := env.replicas.waitReady(ctx, victim); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	time.Sleep(coolDown)
	load.Stop()

	f := load.Figures()
	// A call in flight started at most the webhook's 5 s timeout before the
	// kill; the API server sees the slice change within a second.
	from, to := killed.Add(-5*time.Second), removed.Add(time.Second)
	var inFlight, dialed []framework.PodRefusal
	for _, r := range f.Refused {
		msg := r.Err.Error()
		switch {
		case r.At.Before(from) || r.At.After(to):
			t.Errorf("refused outside the kill's window (%s to %s): %v", from.Format("15:04:05.000"), to.Format("15:04:05.000"), r)
		case strings.Contains(msg, "dial tcp "+victimAddress):
			dialed = append(dialed, r)
		case strings.Contains(msg, victimAddress) || strings.HasSuffix(msg, "EOF"):
			inFlight = append(inFlight, r)
		default:
			t.Errorf("refused for another reason than the killed replica: %v", r)
		}
	}
	for _, w := range f.Wrong {
		if w.At.Before(from) || w.At.After(to) {
			t.Errorf("created without its injection outside the kill's window: %v", w)
		}
	}
	if n := f.RefusedOf("plain"); n > 0 {
		t.Errorf("%d plain pods were refused: the fail-open webhook must never block them", n)
	}
	expectLoadRan(t, f)
	t.Logf("SIGKILL of replica %s (it answered %v of the warm-up's admission reviews; all replicas, since their start: %v): endpoint not ready after %s (container exit seen), restarted container ready after %s",
		victim, most, answered, removed.Sub(killed).Round(time.Millisecond), back.Sub(killed).Round(time.Millisecond))
	t.Logf("load %s", f)
	t.Logf("FIGURE kill: %d requested (bundle) pods refused: %d in flight on the killed replica, %d dialed to it before its endpoint went; %d role pods created without credentials (fail-open)",
		f.RefusedOf("bundle"), countKind(inFlight, "bundle"), countKind(dialed, "bundle"), len(f.Wrong))
}

// Both replicas are rolled as the Deployment rolls them (maxSurge 0,
// maxUnavailable 1): the old pod is sent SIGTERM and a new one (a new IP)
// starts; the next old pod goes once the new one is ready. Every replica
// drains gracefully (readiness fails, it keeps serving until its endpoint
// is gone, finishes what is in flight, exits), so no pod is refused and
// every role pod gets its credentials.
func TestWebhookRollingRestart(t *testing.T) {
	dumpOnFailure(t)
	env.replicas.ensure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	load := startLoad()
	t.Cleanup(load.Stop)
	time.Sleep(warmUp)
	admittedBefore := env.replicas.admitted()

	type rolled struct {
		old, replacement string
		sigterm, ready   time.Time
		exited           <-chan time.Time
	}
	var steps []*rolled
	for _, old := range env.replicas.ips() {
		s := &rolled{old: old, sigterm: time.Now()}
		s.exited = env.replicas.terminate(old)
		var err error
		if s.replacement, err = env.replicas.startPod(ctx); err != nil {
			t.Fatal(err)
		}
		if err := env.replicas.waitReady(ctx, s.replacement); err != nil {
			t.Fatal(err)
		}
		s.ready = time.Now()
		steps = append(steps, s)
	}
	for _, s := range steps {
		exitedAt := <-s.exited
		env.replicas.forget(s.old)
		changes := env.replicas.endpoints.changesSince(s.old, s.sigterm)
		if len(changes) == 0 || changes[0].Ready {
			t.Errorf("replica %s exited without its endpoint becoming not ready first: it stopped serving while still in the Service", s.old)
			continue
		}
		notReady := changes[0].At
		if !notReady.Before(exitedAt) || changes[0].Why == whyExited {
			t.Errorf("replica %s exited %s after SIGTERM, before its endpoint was not ready (%s): its drain is shorter than the readiness probe's window",
				s.old, exitedAt.Sub(s.sigterm).Round(time.Millisecond), notReady.Sub(s.sigterm).Round(time.Millisecond))
		}
		t.Logf("replica %s: SIGTERM, endpoint not ready after %s (%s), exited after %s; replacement %s ready after %s",
			s.old, notReady.Sub(s.sigterm).Round(time.Millisecond), changes[0].Why, exitedAt.Sub(s.sigterm).Round(time.Millisecond),
			s.replacement, s.ready.Sub(s.sigterm).Round(time.Millisecond))
	}
	time.Sleep(coolDown)
	load.Stop()

	f := load.Figures()
	t.Logf("load %s", f)
	t.Logf("admission reviews answered before the roll, by replica: %v", admittedBefore)
	for _, r := range f.Refused {
		t.Errorf("refused during the rolling restart: %v", r)
	}
	for _, w := range f.Wrong {
		t.Errorf("created without its injection during the rolling restart: %v", w)
	}
	expectLoadRan(t, f)
	t.Logf("FIGURE rolling restart: %d requested (bundle) pods refused, %d role pods created without credentials, of %d pods created",
		f.RefusedOf("bundle"), len(f.Wrong), f.TotalCreated())
}

// expectLoadRan fails when a kind of pod was hardly created: the load did
// not run, and a figure of 0 refused would mean nothing.
func expectLoadRan(t *testing.T, f framework.PodLoadFigures) {
	t.Helper()
	for _, kind := range []string{"plain", "bundle", "role"} {
		if f.Created[kind] < 20 {
			t.Errorf("only %d %s pods were created over %s: the load did not run", f.Created[kind], kind, f.Duration)
		}
	}
}

func countKind(refusals []framework.PodRefusal, kind string) int {
	n := 0
	for _, r := range refusals {
		if r.Kind == kind {
			n++
		}
	}
	return n
}
