package webhook

import (
	"encoding/json"
	"net/http"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// writeAnswer writes an admission's answer: out, its encoded review, which
// goes back to the pool once written, or failure, the HTTP error to answer
// instead.
func writeAnswer(w http.ResponseWriter, out []byte, failure *metav1.Status) {
	if failure != nil {
		writeStatus(w, int(failure.Code), failure.Reason, failure.Message)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	// Without a length, net/http sends an answer over 2 KB (a patch of a
	// Bundle and a role is 6 KB) chunked: more TLS records and writes.
	h.Set("Content-Length", strconv.Itoa(len(out)))
	_, _ = w.Write(out)
	releaseAnswer(out)
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

// releaseAnswer hands a written answer back to the pool encodeResponse
// takes its buffers from.
func releaseAnswer(out []byte) {
	if cap(out) <= pooledBodyBytes {
		answers.Put(&out)
	}
}

// statusRecorder is what instrument (middleware.go) hands the handlers for
// their answers: it notes the status code written.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection (the admission
// handlers set its read deadline).
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
