package webhook

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime/debug"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// limitInFlight answers at most max admissions at once and refuses the rest
// at once with 429. The API server treats that like any failed call, by the
// webhook's failurePolicy: a pod that asked for an injection is refused with
// this message (it would rather wait than start without it), any other pod
// is admitted without automatic injections. There is no Retry-After: with
// one, client-go would retry inside the same admission and keep an
// overloaded replica busier, and the user would see a timeout instead of
// the reason.
func limitInFlight(max int, m *metrics, next http.Handler) http.Handler {
	slots := make(chan struct{}, max)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
		default:
			writeStatus(w, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, fmt.Sprintf(
				"the workload-access webhook is overloaded: %d admissions are already in progress on this replica; retry in a few seconds", max))
			return
		}
		m.inFlight.Inc()
		defer func() {
			m.inFlight.Dec()
			<-slots
		}()
		next.ServeHTTP(w, r)
	})
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
