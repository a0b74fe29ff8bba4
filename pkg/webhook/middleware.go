package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

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

// admission is a request taken in: its body, and its context, which ends
// at the admission's deadline.
type admission struct {
	ctx    context.Context
	cancel context.CancelFunc
	body   *bytes.Buffer
}

// admit takes r in: its body by the admission's deadline (see
// admissionDeadline; fallback when r does not say its timeout), then a
// slot. It returns false when it has answered r already; otherwise the
// caller calls done when its work is over.
func (in intake) admit(w http.ResponseWriter, r *http.Request, fallback time.Duration) (admission, bool) {
	deadline := admissionDeadline(r, fallback)
	body := in.read(w, r, deadline)
	if body == nil {
		return admission{}, false
	}
	if !in.enter(w) {
		releaseBody(body)
		return admission{}, false
	}
	ctx, cancel := context.WithDeadline(r.Context(), deadline)
	return admission{ctx: ctx, cancel: cancel, body: body}, true
}

func (in intake) done(a admission) {
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

// recoverPanics is the last resort for every path: a panic is counted,
// logged with its stack and answered 500, rather than dropping the
// connection. The admission handler recovers its own panics first, where it
// still knows the pod (see podHandler.answer).
func recoverPanics(m *metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			m.panics.WithLabelValues("http").Inc()
			klog.ErrorS(nil, "Recovered from a panic", "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			writeStatus(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, "the workload-access webhook failed internally; retry")
		}()
		next.ServeHTTP(w, r)
	})
}

// writeStatus answers an error as a metav1.Status, the body the API server's
// client decodes: the user then reads message after the API server's
// `failed calling webhook "<name>": failed to call webhook:`.
func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, message string) {
	body, err := json.Marshal(&metav1.Status{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status:   metav1.StatusFailure, Code: int32(code), Reason: reason, Message: message,
	})
	if err != nil { // a Status always encodes; keep the code regardless
		http.Error(w, message, code)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
