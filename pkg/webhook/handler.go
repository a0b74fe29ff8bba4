package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// maxRequestBytes bounds what is read from the API server: a pod is capped at
// etcd's 1.5 MiB object limit, and an AdmissionReview wraps it once (twice for
// updates, which carry the old object too).
const maxRequestBytes = 4 << 20

var podResource = metav1.GroupVersionResource{Version: "v1", Resource: "pods"}

// Request bodies are read into pooled buffers: a pod's review is several
// KB, read by every admission, and nothing decoded from it keeps a
// reference to it (encoding/json copies strings). Buffers grown past
// pooledBodyBytes by an unusually large pod are left to the GC.
const pooledBodyBytes = 64 << 10

var bodies = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 16<<10)) }}

// Patches are encoded into pooled buffers too: the answer carries them
// base64-encoded, a copy, so the buffer is free once the answer is.
var patchBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// So are answers, once written: one carries its patch in base64.
var answers sync.Pool

func releaseAnswer(out []byte) {
	if cap(out) <= pooledBodyBytes {
		answers.Put(&out)
	}
}

// answerBuffer is an empty buffer of at least size bytes.
func answerBuffer(size int) []byte {
	if b, ok := answers.Get().(*[]byte); ok && cap(*b) >= size {
		return (*b)[:0]
	}
	return make([]byte, 0, size)
}

func releasePatchBuffer(buf *[]byte) {
	if cap(*buf) <= pooledBodyBytes {
		*buf = (*buf)[:0]
		patchBuffers.Put(buf)
	}
}

func releaseBody(buf *bytes.Buffer) {
	if buf.Cap() <= pooledBodyBytes {
		buf.Reset()
		bodies.Put(buf)
	}
}

// podHandler answers AdmissionReviews for pods by running every mutator in
// order and concatenating their patches. Each mutator sees the pod as the
// mutators before it left it, so a patch that replaces a whole list (the
// pod's volumes, a container's mounts) keeps what an earlier one added.
type podHandler struct {
	mutators []mutation.Mutator
	// unclaimed are explicit request annotations no running mutator serves.
	unclaimed []string
	metrics   *metrics
	// intake reads each body, then caps concurrent admissions (the server
	// sets it; the zero value caps nothing).
	intake intake
}

func newPodHandler(mutators []mutation.Mutator, m *metrics) *podHandler {
	h := &podHandler{mutators: mutators, metrics: m}
	for _, annotation := range mutation.ExplicitRequestAnnotations {
		claimed := slices.ContainsFunc(mutators, func(m mutation.Mutator) bool {
			return slices.Contains(m.RequestAnnotations(), annotation)
		})
		if !claimed {
			h.unclaimed = append(h.unclaimed, annotation)
		}
	}
	return h
}

func (h *podHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a, ok := h.intake.admit(w, r, podsTimeout)
	if !ok {
		return
	}
	defer h.intake.done(a)
	out, failure := h.answer(a.ctx, a.body.Bytes())
	if failure != nil {
		writeStatus(w, int(failure.Code), failure.Reason, failure.Message)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
	releaseAnswer(out)
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

// Where a panic happened, for panics_recovered_total: a mutator's name, or
// handlerSource for the admission handler's own code.
const handlerSource = "handler"

// answer turns an AdmissionReview into the encoded response, or into the
// HTTP error to answer when the review is unusable. A panic anywhere in it,
// in a mutator or in this handler, is recovered into the answer the
// webhook's failurePolicy intends: a pod that explicitly asks for an
// injection is refused (the fail-closed webhook sends those), any other pod
// is admitted unchanged with a warning (the fail-open webhook sends those).
func (h *podHandler) answer(ctx context.Context, body []byte) (out []byte, failure *metav1.Status) {
	source := handlerSource
	defer func() {
		if v := recover(); v != nil {
			out, failure = h.recovered(body, source, v)
		}
	}()
	var review reviewHeader
	if err := decodeReview(body, &review); err != nil {
		return undecodable(body, err)
	}
	if review.Request == nil {
		return nil, badRequest("the admission review has no request")
	}
	patchBuf := patchBuffers.Get().(*[]byte)
	defer releasePatchBuffer(patchBuf)
	response := h.review(ctx, body, review.Request, &source, patchBuf)
	source = handlerSource
	return encodeResponse(review.TypeMeta, review.Request.UID, response)
}

// undecodable answers a body whose first pass failed. A well-formed review
// of a pod that does not decode is answered with a refusal, which the API
// server honours under either failurePolicy; an HTTP error would let the
// fail-open webhook's pods through.
func undecodable(body []byte, err error) ([]byte, *metav1.Status) {
	var review struct {
		metav1.TypeMeta `json:",inline"`
		Request         *struct {
			UID         types.UID                   `json:"uid"`
			Resource    metav1.GroupVersionResource `json:"resource"`
			SubResource string                      `json:"subResource"`
		} `json:"request"`
	}
	if json.Unmarshal(body, &review) != nil || review.Request == nil {
		return nil, badRequest("decoding the admission review: " + err.Error())
	}
	response := &admissionv1.AdmissionResponse{Allowed: true}
	if review.Request.Resource == podResource {
		response = &admissionv1.AdmissionResponse{Result: &metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest,
			Message: "decoding the pod: " + err.Error(),
		}}
	}
	return encodeResponse(review.TypeMeta, review.Request.UID, response)
}

// reviewHeader is the one pass over an AdmissionReview every request costs:
// what routes it and the pod's outline. The whole pod is decoded from the
// same body only if a mutator asks for it.
type reviewHeader struct {
	metav1.TypeMeta `json:",inline"`
	Request         *requestHeader `json:"request"`
}

type requestHeader struct {
	UID         types.UID                   `json:"uid"`
	Resource    metav1.GroupVersionResource `json:"resource"`
	SubResource string                      `json:"subResource"`
	Namespace   string                      `json:"namespace"`
	Operation   admissionv1.Operation       `json:"operation"`
	Object      *mutation.PodOutline        `json:"object"`
}

// reviewSource decodes a review's pods from its body, each in the shape
// asked for, in one pass over the body.
type reviewSource []byte

func (s reviewSource) DecodePod(into any) error {
	var review struct {
		Request struct {
			Object any `json:"object"`
		} `json:"request"`
	}
	review.Request.Object = into
	return json.Unmarshal(s, &review)
}

func (s reviewSource) DecodeOldPod(into any) error {
	var review struct {
		Request struct {
			OldObject any `json:"oldObject"`
		} `json:"request"`
	}
	review.Request.OldObject = into
	return json.Unmarshal(s, &review)
}

// recovered answers a request whose handling panicked in source.
func (h *podHandler) recovered(body []byte, source string, v any) ([]byte, *metav1.Status) {
	h.metrics.panics.WithLabelValues(source).Inc()
	klog.ErrorS(nil, "Recovered from a panic while deciding on a pod", "source", source, "panic", v, "stack", string(debug.Stack()))
	var review reviewHeader
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		// Without a request there is no pod to decide on: the HTTP error
		// leaves it to the failurePolicy.
		return nil, &metav1.Status{Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError,
			Message: "the workload-access webhook failed internally; retry"}
	}
	where := "the webhook"
	if source != handlerSource {
		where = "the " + source + " injection"
	}
	response := &admissionv1.AdmissionResponse{Allowed: true, Warnings: []string{
		fmt.Sprintf("%s failed internally while deciding on this pod; the pod asks for no injection, so it was admitted unchanged, without automatic injections", where),
	}}
	if annotation := explicitRequest(review.Request.Object); annotation != "" {
		response = &admissionv1.AdmissionResponse{Result: &metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError,
			Message: fmt.Sprintf("%s failed internally while deciding on this pod; the pod asks for an injection through annotation %s, "+
				"so it is refused rather than started without it; retry, and report it with the webhook's log if it persists", where, annotation),
		}}
	}
	return encodeResponse(review.TypeMeta, review.Request.UID, response)
}

// explicitRequest is the first annotation of the pod that asks for an
// injection (an empty one asks for nothing), or "". That is the fail-closed webhook's matchCondition but for
// its debug-container clause: a debug container added to a pod injected
// automatically is admitted without the mounts. It reads the outline alone,
// since the whole pod may be what failed.
func explicitRequest(pod *mutation.PodOutline) string {
	if pod == nil {
		return ""
	}
	for _, annotation := range mutation.ExplicitRequestAnnotations {
		if mutation.Asks(pod.Metadata.Annotations, annotation) {
			return annotation
		}
	}
	return ""
}

func badRequest(message string) *metav1.Status {
	return &metav1.Status{Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: message}
}

// review decides one request. Requests this webhook is not configured for are
// allowed untouched: refusing them would only turn a configuration mistake
// into an outage. It names the mutator it is running in *source.
func (h *podHandler) review(ctx context.Context, body []byte, req *requestHeader, source *string, patchBuf *[]byte) *admissionv1.AdmissionResponse {
	if req.Resource != podResource || (req.SubResource != "" && req.SubResource != "ephemeralcontainers") {
		return &admissionv1.AdmissionResponse{Allowed: true}
	}
	if req.Object == nil {
		return &admissionv1.AdmissionResponse{Result: &metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest,
			Message: "the admission review has no pod",
		}}
	}
	outline := req.Object
	mreq := mutation.NewRequest(req.Operation, req.Namespace, req.SubResource, outline, reviewSource(body))

	var patch []mutation.PatchOperation
	var warnings []string
	for i, m := range h.mutators {
		start := time.Now()
		*source = m.Name()
		result := m.Mutate(ctx, mreq)
		*source = handlerSource
		h.metrics.observeMutator(m.Name(), result, time.Since(start))
		if result.Denied != nil {
			klog.V(2).InfoS("Denied pod", "mutator", m.Name(), "namespace", req.Namespace, "pod", outline.DisplayName(), "reason", result.Denied.Reason)
			return denied(result.Denied.Message)
		}
		patch = append(patch, result.Patch...)
		warnings = append(warnings, result.Warnings...)
		if len(result.Patch) > 0 && i < len(h.mutators)-1 {
			next, err := h.patched(mreq, reviewSource(body), patch, result.Patch)
			if err != nil {
				klog.ErrorS(err, "A mutator's patch does not apply", "mutator", m.Name(), "namespace", req.Namespace, "pod", outline.DisplayName())
				return denied(fmt.Sprintf("the %s injection produced a patch that does not apply to the pod: %v", m.Name(), err))
			}
			mreq = next
		}
	}
	if annotation := h.unclaimedRequest(outline.Metadata.Annotations); annotation != "" {
		h.metrics.observeMutator("unclaimed", mutation.Deny("NotServed", ""), 0)
		return denied(fmt.Sprintf("the pod asks for an injection through annotation %s, which this webhook does not serve; "+
			"the pod would start without what it asks for, so it is refused", annotation))
	}

	response := &admissionv1.AdmissionResponse{Allowed: true, Warnings: warnings}
	if len(patch) > 0 {
		raw, err := appendPatch((*patchBuf)[:0], patch)
		if err != nil {
			return denied("encoding the patch: " + err.Error())
		}
		*patchBuf = raw
		response.Patch = raw
		response.PatchType = ptrTo(admissionv1.PatchTypeJSONPatch)
	}
	klog.V(4).InfoS("Admitted pod", "namespace", req.Namespace, "pod", outline.DisplayName(), "patchOperations", len(patch))
	return response
}

// patched is the request the next mutator sees: the pod as the patch so far
// leaves it, ops being its last operations. The outline follows ops alone;
// only where it cannot tell is the whole pod patched and decoded again,
// which costs the whole pod's JSON twice over.
func (h *podHandler) patched(req *mutation.Request, review reviewSource, all, ops []mutation.PatchOperation) (*mutation.Request, error) {
	outline, err := req.Outline.Apply(ops)
	if err != nil {
		h.metrics.outlineFallbacks.Inc()
		if outline, err = wholePodPatched(review, all); err != nil {
			return nil, err
		}
	}
	// The old pod is still the review's.
	return mutation.NewRequest(req.Operation, req.Namespace, req.SubResource, outline, review), nil
}

// wholePodPatched is the outline of the review's pod with every operation
// of patch applied, as the API server will apply them.
func wholePodPatched(review reviewSource, patch []mutation.PatchOperation) (*mutation.PodOutline, error) {
	var raw json.RawMessage
	if err := review.DecodePod(&raw); err != nil {
		return nil, err
	}
	podRaw, err := applyPatch(raw, patch)
	if err != nil {
		return nil, err
	}
	outline := &mutation.PodOutline{}
	if err := json.Unmarshal(podRaw, outline); err != nil {
		return nil, fmt.Errorf("the patched pod does not decode: %w", err)
	}
	return outline, nil
}

// applyPatch returns the pod as a mutator's patch leaves it.
func applyPatch(podRaw []byte, ops []mutation.PatchOperation) ([]byte, error) {
	raw, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	decoded, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		return nil, err
	}
	return decoded.Apply(podRaw)
}

func (h *podHandler) unclaimedRequest(annotations map[string]string) string {
	for _, annotation := range h.unclaimed {
		if mutation.Asks(annotations, annotation) {
			return annotation
		}
	}
	return ""
}

func denied(message string) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Result: &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: message,
	}}
}

func ptrTo[T any](v T) *T { return &v }
