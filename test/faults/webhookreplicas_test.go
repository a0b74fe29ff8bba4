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

// One of the two replicas is SIGKILLed under load, in a burst of pod
// creations, and its container restarted. The only pods refused (or, for
// the fail-open role pods, created without credentials) are those whose
// webhook call went to that replica: on one of the connections the API
// server held to it when it died (the call's request unread or
// unanswered: the kernel resets the connection, or closes it), or dialed
// to it after it died and before the API server saw its endpoint go.
//
// The bound on the first kind is the replica's own count of its open
// connections (open_connections), read before the test waits for a burst
// to kill it in: the API server calls a webhook over HTTP/1.1, one call at
// a time on each connection, and drops a connection once a call on it
// failed, so at most one call dies on each. (The API server keeps its
// connections; one it opened in the quarter second between the reading
// and the kill would go uncounted.) The admissions the replica had
// accepted and not answered are no bound: most calls lost on its
// connections were never read by it (a reset is what the kernel sends for
// a socket closed with unread data), and its in-flight gauge reads 0
// between the millisecond-long admissions. The dialed ones are bounded in
// time only: a failed dial leaves the API server a connection short, and
// it dials again, each time to a random endpoint still listed as ready.
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
	connections, err := env.replicas.running[victim].Metric(ctx, openConnectionsSeries)
	if err != nil {
		t.Fatalf("reading the victim's open connections: %v", err)
	}
	read := time.Now()
	// The kill lands in a burst, while the API server has calls to make:
	// between bursts every connection is idle and only dials can fail.
	if err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 2*loadInterval, true, func(context.Context) (bool, error) {
		return load.Pending() >= loadBurst/2, nil
	}); err != nil {
		t.Fatalf("no burst of the load in %s: %v", 2*loadInterval, err)
	}
	pending := load.Pending()
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
	k := killAttribution{victim: victim, killed: killed, dialUntil: removed.Add(endpointsSeen)}
	onConnections, dialed := k.attribute(t, f.Refused)
	for _, w := range f.Wrong {
		if w.Answered.Before(killed) || w.Answered.After(k.dialUntil) {
			t.Errorf("created without its injection outside the kill's window (%s to %s): %v", stamp(killed), stamp(k.dialUntil), w)
		}
	}
	if len(onConnections) > int(connections) {
		t.Errorf("%d requested pods refused on connections to the killed replica, which had %v open %s before the kill: more calls died with it than it held connections; refused: %v",
			len(onConnections), connections, killed.Sub(read).Round(time.Millisecond), onConnections)
	}
	if n := f.RefusedOf("plain"); n > 0 {
		t.Errorf("%d plain pods were refused: the fail-open webhook must never block them", n)
	}
	expectLoadRan(t, f)
	t.Logf("SIGKILL of replica %s (it answered %v of the warm-up's admission reviews; all replicas, since their start: %v; %v connections open to it %s before the kill; %d pod creations in flight): endpoint not ready after %s (container exit seen), restarted container ready after %s",
		victim, most, answered, connections, killed.Sub(read).Round(time.Millisecond), pending,
		removed.Sub(killed).Round(time.Millisecond), back.Sub(killed).Round(time.Millisecond))
	for _, r := range append(append([]framework.PodRefusal(nil), f.Refused...), f.Wrong...) {
		t.Logf("  %s pod sent %+.3fs, answered %+.3fs after the kill: %v", r.Kind, r.At.Sub(killed).Seconds(), r.Answered.Sub(killed).Seconds(), r.Err)
	}
	t.Logf("load %s", f)
	t.Logf("FIGURE kill: %d requested (bundle) pods refused: %d on the killed replica's connections (bound: the %v it had open), %d dialed to it before its endpoint went (%s after the kill); %d role pods created without credentials (fail-open)",
		f.RefusedOf("bundle"), len(onConnections), connections, len(dialed), removed.Sub(killed).Round(time.Millisecond), len(f.Wrong))
}

// openConnectionsSeries is what a replica reports of the connections open
// to its admission listener.
const openConnectionsSeries = "workload_access_webhook_open_connections"

// Calls lost with the killed replica come back as refusals within these
// of its death. On its connections: at once, as the kernel resets or
// closes them (10 to 20 ms seen). Dialed: until the API server's
// EndpointSlice watch delivers its endpoint's not-ready, milliseconds
// after it is written.
const (
	connectionsSeen = time.Second
	endpointsSeen   = time.Second
)

// killAttribution tells, from its error and when it came back, which calls
// to the killed replica each refused pod lost.
type killAttribution struct {
	victim    string
	killed    time.Time
	dialUntil time.Time
}

// attribute sorts the refusals: on a connection to the killed replica (its
// address in a reset or broken pipe, or a bare EOF, a connection closed
// under the call), answered within connectionsSeen of the kill; or dialed
// to it (its address, connection refused), answered before dialUntil.
// Anything else is an error of t: another replica's address, an EOF at
// another time, a refusal answered before the kill.
func (k killAttribution) attribute(t *testing.T, refused []framework.PodRefusal) (onConnections, dialed []framework.PodRefusal) {
	t.Helper()
	address := k.victim + ":"
	for _, r := range refused {
		msg := r.Err.Error()
		after := r.Answered.Sub(k.killed)
		switch {
		case strings.Contains(msg, "dial tcp "+address) && after >= 0 && r.Answered.Before(k.dialUntil):
			dialed = append(dialed, r)
		case (strings.Contains(msg, "->"+address) || strings.HasSuffix(msg, ": EOF")) && after >= 0 && after < connectionsSeen:
			onConnections = append(onConnections, r)
		default:
			t.Errorf("refused for another reason than the killed replica %s (answered %+.3fs after the kill; dials to it counted until %+.3fs): %v",
				k.victim, after.Seconds(), k.dialUntil.Sub(k.killed).Seconds(), r)
		}
	}
	return onConnections, dialed
}

func stamp(at time.Time) string { return at.Format("15:04:05.000") }

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
