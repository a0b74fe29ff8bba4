package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The admission paths' handlers: each takes its request in (the body, then
// a slot), has it decided, writes the answer and gives the slot back, so an
// admission enters this file once (see docs/admission.md, "One admission's
// walk").

// ServeHTTP answers one pod admission: answer (handler.go) decodes it, runs
// the mutators and encodes the answer.
func (h *podHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a, ok := h.intake.admit(w, r, podsTimeout)
	if !ok {
		return
	}
	defer h.intake.done(a)
	out, failure := h.answer(a.ctx, a.body.Bytes())
	writeAnswer(w, out, failure)
}

// ServeHTTP answers one access grant admission: decide (accessgrants.go)
// runs the check.
func (h *grantsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a, ok := h.intake.admit(w, r, grantsWebhookTimeout)
	if !ok {
		return
	}
	defer h.intake.done(a)
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(a.body.Bytes(), &review); err != nil || review.Request == nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, "not an admission review with a request")
		return
	}
	out, failure := encodeResponse(review.TypeMeta, review.Request.UID, h.decide(a.ctx, review.Request))
	writeAnswer(w, out, failure)
}

// intake is how both admission paths take a request in: the body first,
// read whole within the admission's deadline, then a slot. A client that
// sends its body slowly (or never) holds a goroutine and a connection until
// the deadline, but no slot, so it cannot crowd out the API server's
// reviews; the slots count only admissions being decided.
type intake struct {
	// slots caps concurrent admissions; nil (handlers built in tests) caps
	// nothing.
	slots chan struct{}
	// readTimeout is the server's ReadTimeout, which a body's read deadline
	// never extends; zero leaves it to the admission's deadline.
	readTimeout time.Duration
	metrics     *metrics
}

func newIntake(max int, readTimeout time.Duration, m *metrics) intake {
	return intake{slots: make(chan struct{}, max), readTimeout: readTimeout, metrics: m}
}

// taken is a request taken in: its body, and its context, which ends
// at the admission's deadline.
type taken struct {
	ctx    context.Context
	cancel context.CancelFunc
	body   *bytes.Buffer
}

// admit takes r in: its body by the admission's deadline (see
// admissionDeadline; fallback when r does not say its timeout), then a
// slot. It returns false when it has answered r already; otherwise the
// caller calls done when its work is over.
func (in intake) admit(w http.ResponseWriter, r *http.Request, fallback time.Duration) (taken, bool) {
	deadline := admissionDeadline(r, fallback)
	body := in.read(w, r, deadline)
	if body == nil {
		return taken{}, false
	}
	if !in.enter(w) {
		releaseBody(body)
		return taken{}, false
	}
	ctx, cancel := context.WithDeadline(r.Context(), deadline)
	return taken{ctx: ctx, cancel: cancel, body: body}, true
}

func (in intake) done(a taken) {
	a.cancel()
	in.leave()
	releaseBody(a.body)
}

// read checks that r is a POSTed JSON review and reads its body, at most
// maxRequestBytes, into a pooled buffer by deadline. It answers and returns
// nil when the request is unusable; otherwise the caller hands the buffer
// back with releaseBody.
func (in intake) read(w http.ResponseWriter, r *http.Request, deadline time.Time) *bytes.Buffer {
	if r.Method != http.MethodPost {
		writeStatus(w, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "admission reviews are POSTed")
		return nil
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeStatus(w, http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, fmt.Sprintf("content type %q is not application/json", ct))
		return nil
	}
	// A body that arrives after the API server stopped waiting is not worth
	// reading: the read ends at the admission's deadline, or at the
	// server's ReadTimeout if that is sooner. Writers that cannot set
	// deadlines (test recorders) read unbounded.
	rc := http.NewResponseController(w)
	if limit := time.Now().Add(in.readTimeout); in.readTimeout > 0 && limit.Before(deadline) {
		deadline = limit
	}
	bounded := rc.SetReadDeadline(deadline) == nil
	buf := bodies.Get().(*bytes.Buffer)
	if _, err := buf.ReadFrom(io.LimitReader(r.Body, maxRequestBytes+1)); err != nil {
		releaseBody(buf)
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, "reading the request: "+err.Error())
		return nil
	}
	if buf.Len() > maxRequestBytes {
		releaseBody(buf)
		writeStatus(w, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge, "admission review too large")
		return nil
	}
	// With the whole body in, the deadline is lifted, so that the
	// connection's background read cannot cancel the admission while it is
	// decided; the handler's own deadline bounds that. (On the refusals
	// above it stays: the server may still drain the unread body.)
	if bounded {
		_ = rc.SetReadDeadline(time.Time{})
	}
	return buf
}

// enter takes a slot, or refuses at once with 429 when all are taken. The
// API server treats that like any failed call, by the webhook's
// failurePolicy: a pod that asked for an injection is refused with this
// message (it would rather wait than start without it), any other pod is
// admitted without automatic injections. There is no Retry-After: with
// one, client-go would retry inside the same admission and keep an
// overloaded replica busier, and the user would see a timeout instead of
// the reason.
func (in intake) enter(w http.ResponseWriter) bool {
	if in.slots == nil {
		return true
	}
	select {
	case in.slots <- struct{}{}:
	default:
		writeStatus(w, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, fmt.Sprintf(
			"the workload-access webhook is overloaded: %d admissions are already in progress on this replica; retry in a few seconds", cap(in.slots)))
		return false
	}
	in.metrics.inFlight.Inc()
	return true
}

func (in intake) leave() {
	if in.slots == nil {
		return
	}
	in.metrics.inFlight.Dec()
	<-in.slots
}

// admissionDeadline is when an admission, the read of its body included,
// must be over: a little before the API server gives up on this call (it
// sends its timeout as the "timeout" query parameter, at most 30 s), since
// an answer it never reads is worth less than an answer that says what ran
// out of time. A request without a usable timeout is not the API server's
// (it always sends one), and gets the path's default: the longest any of
// our webhook configurations gives that path.
func admissionDeadline(r *http.Request, fallback time.Duration) time.Time {
	timeout, err := time.ParseDuration(r.URL.Query().Get("timeout"))
	if err != nil || timeout <= 0 {
		timeout = fallback
	}
	timeout = min(timeout, maxAdmissionTimeout)
	return time.Now().Add(timeout - min(admissionMargin, timeout/4))
}

const (
	// podsTimeout is the timeoutSeconds of the fail-closed pod webhook
	// (bindata/operand/webhook-mutatingwebhookconfiguration.yaml), the
	// longest of the three that call MutatePodsPath (the others give 3 s).
	podsTimeout = 5 * time.Second
	// maxAdmissionTimeout is the most the API server waits for a webhook.
	maxAdmissionTimeout = 30 * time.Second
)

// admissionMargin is what an answer needs to be written and read.
const admissionMargin = 300 * time.Millisecond

// maxRequestBytes bounds what is read from the API server: a pod is capped at
// etcd's 1.5 MiB object limit, and an AdmissionReview wraps it once (twice for
// updates, which carry the old object too).
const maxRequestBytes = 4 << 20

// Request bodies are read into pooled buffers: a pod's review is several
// KB, read by every admission, and nothing decoded from it keeps a
// reference to it (encoding/json copies strings). Buffers grown past
// pooledBodyBytes by an unusually large pod are left to the GC.
const pooledBodyBytes = 64 << 10

var bodies = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 16<<10)) }}

func releaseBody(buf *bytes.Buffer) {
	if buf.Cap() <= pooledBodyBytes {
		buf.Reset()
		bodies.Put(buf)
	}
}
