package framework

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// PodKind is one kind of pod a PodLoad creates: a plain pod, one that asks
// for a bundle, one whose ServiceAccount has a role.
type PodKind struct {
	// Name labels the kind in the figures ("plain", "bundle", "role").
	Name      string
	Namespace string
	// Pod returns a new pod to create (GenerateName, so every call differs).
	Pod func() *corev1.Pod
	// Check, when set, says what is wrong with a created pod (the webhook
	// let it through without its injection); nil means it is as wanted.
	Check func(*corev1.Pod) error
}

// PodRefusal is one pod creation the API server did not accept.
type PodRefusal struct {
	Kind string
	// At is when the creation was sent, Answered when the API server's
	// answer (or the error) came back.
	At, Answered time.Time
	Err          error
}

func (r PodRefusal) String() string {
	return fmt.Sprintf("%s %s: %v", r.At.Format("15:04:05.000"), r.Kind, r.Err)
}

// PodLoad creates pods of each kind in turn, one every interval, the steady
// pod churn a cluster has while it is upgraded or drained, and keeps count
// of what the API server answered.
type PodLoad struct {
	kinds  []PodKind
	client kubernetes.Interface
	stop   chan struct{}
	done   sync.WaitGroup

	mu        sync.Mutex
	created   map[string]int
	createdAt map[string][]time.Time
	refused   []PodRefusal
	wrong     []PodRefusal
	started   time.Time
	// pending are the creations sent and not answered yet.
	pending int
}

// StartPodLoad starts creating pods as the given config's user until Stop.
// Each creation has 30 s (the API server's own call timeout is shorter).
func StartPodLoad(config *rest.Config, interval time.Duration, kinds ...PodKind) *PodLoad {
	return StartPodLoadBursts(config, interval, 1, kinds...)
}

// StartPodLoadBursts is StartPodLoad creating burst pods at once every
// interval, as a controller scaling up does: concurrent admissions make the
// API server hold several connections to a webhook, and dial new ones.
func StartPodLoadBursts(config *rest.Config, interval time.Duration, burst int, kinds ...PodKind) *PodLoad {
	c := *config
	c.QPS, c.Burst = 200, 200
	l := &PodLoad{
		kinds:     kinds,
		client:    kubernetes.NewForConfigOrDie(&c),
		stop:      make(chan struct{}),
		created:   map[string]int{},
		createdAt: map[string][]time.Time{},
		started:   time.Now(),
	}
	l.done.Add(1)
	go l.run(interval, max(burst, 1))
	return l
}

func (l *PodLoad) run(interval time.Duration, burst int) {
	defer l.done.Done()
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for i := 0; ; {
		select {
		case <-l.stop:
			return
		case <-ticker.C:
		}
		for range burst {
			kind := l.kinds[i%len(l.kinds)]
			i++
			// Each creation in its own goroutine: a slow answer (a webhook
			// that hangs) must not slow the load, or the load would hide
			// the fault.
			l.done.Add(1)
			go func() {
				defer l.done.Done()
				l.create(kind)
			}()
		}
	}
}

func (l *PodLoad) create(kind PodKind) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l.mu.Lock()
	l.pending++
	l.mu.Unlock()
	at := time.Now()
	pod, err := l.client.CoreV1().Pods(kind.Namespace).Create(ctx, kind.Pod(), metav1.CreateOptions{})
	answered := time.Now()
	var wrong error
	if err == nil && kind.Check != nil {
		wrong = kind.Check(pod)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending--
	switch {
	case err != nil:
		l.refused = append(l.refused, PodRefusal{Kind: kind.Name, At: at, Answered: answered, Err: err})
	case wrong != nil:
		l.wrong = append(l.wrong, PodRefusal{Kind: kind.Name, At: at, Answered: answered, Err: wrong})
	default:
		l.created[kind.Name]++
		l.createdAt[kind.Name] = append(l.createdAt[kind.Name], at)
	}
}

// Pending is the number of creations sent and not answered yet.
func (l *PodLoad) Pending() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pending
}

// Stop ends the load and waits for the creations in flight.
func (l *PodLoad) Stop() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.done.Wait()
}

// PodLoadFigures is what a load saw so far.
type PodLoadFigures struct {
	Duration time.Duration
	// Created counts accepted pods by kind.
	Created map[string]int
	// CreatedAt is when each accepted creation was sent, by kind.
	CreatedAt map[string][]time.Time
	// Refused are creations the API server answered with an error.
	Refused []PodRefusal
	// Wrong are pods created without what their kind asked for.
	Wrong []PodRefusal
}

// Figures returns a copy of the counts so far.
func (l *PodLoad) Figures() PodLoadFigures {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := PodLoadFigures{
		Duration:  time.Since(l.started).Round(time.Millisecond),
		Created:   make(map[string]int, len(l.created)),
		CreatedAt: make(map[string][]time.Time, len(l.createdAt)),
		Refused:   append([]PodRefusal(nil), l.refused...),
		Wrong:     append([]PodRefusal(nil), l.wrong...),
	}
	for k, v := range l.created {
		f.Created[k] = v
	}
	for k, v := range l.createdAt {
		f.CreatedAt[k] = append([]time.Time(nil), v...)
	}
	return f
}

// FirstCreatedSince is the earliest send time, at or after since, of an
// accepted pod of kind: when admissions resumed after a fault.
func (f PodLoadFigures) FirstCreatedSince(kind string, since time.Time) (time.Time, bool) {
	var first time.Time
	for _, at := range f.CreatedAt[kind] {
		if !at.Before(since) && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	return first, !first.IsZero()
}

// TotalCreated is the number of pods accepted, of every kind.
func (f PodLoadFigures) TotalCreated() int {
	n := 0
	for _, v := range f.Created {
		n += v
	}
	return n
}

// RefusedOf counts the refusals of one kind.
func (f PodLoadFigures) RefusedOf(kind string) int {
	n := 0
	for _, r := range f.Refused {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

// String is one line for a test log: duration, created and refused by kind.
func (f PodLoadFigures) String() string {
	kinds := make([]string, 0, len(f.Created))
	for k := range f.Created {
		kinds = append(kinds, k)
	}
	for _, r := range append(f.Refused, f.Wrong...) {
		if _, ok := f.Created[r.Kind]; !ok {
			f.Created[r.Kind] = 0
			kinds = append(kinds, r.Kind)
		}
	}
	sort.Strings(kinds)
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d created/%d refused", k, f.Created[k], f.RefusedOf(k)))
	}
	return fmt.Sprintf("over %s: %s; %d created without their injection", f.Duration, strings.Join(parts, ", "), len(f.Wrong))
}
