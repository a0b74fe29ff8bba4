package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// maxRequestBytes bounds what is read from the API server: a pod is capped at
// etcd's 1.5 MiB object limit, and an AdmissionReview wraps it once (twice for
// updates, which carry the old object too).
const maxRequestBytes = 4 << 20

var podResource = metav1.GroupVersionResource{Version: "v1", Resource: "pods"}

// podHandler answers AdmissionReviews for pods by running every mutator in
// order and concatenating their patches. Each mutator sees the pod as the
// mutators before it left it, so a patch that replaces a whole list (the
// pod's volumes, a container's mounts) keeps what an earlier one added.
type podHandler struct {
	mutators []mutation.Mutator
	// unclaimed are explicit request annotations no running mutator serves.
	unclaimed []string
	metrics   *metrics
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
	if r.Method != http.MethodPost {
		writeStatus(w, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "admission reviews are POSTed")
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeStatus(w, http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, fmt.Sprintf("content type %q is not application/json", ct))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, "reading the request: "+err.Error())
		return
	}
	if len(body) > maxRequestBytes {
		writeStatus(w, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge, "admission review too large")
		return
	}
	out, failure := h.answer(r.Context(), body)
	if failure != nil {
		writeStatus(w, int(failure.Code), failure.Reason, failure.Message)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

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
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		return nil, badRequest("decoding the admission review: " + err.Error())
	}
	if review.Request == nil {
		return nil, badRequest("the admission review has no request")
	}
	response := h.review(ctx, review.Request, &source)
	source = handlerSource
	return encodeResponse(review, response)
}

func encodeResponse(review admissionv1.AdmissionReview, response *admissionv1.AdmissionResponse) ([]byte, *metav1.Status) {
	response.UID = review.Request.UID
	out, err := json.Marshal(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: response})
	if err != nil {
		return nil, &metav1.Status{Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError, Message: "encoding the response: " + err.Error()}
	}
	return out, nil
}

// recovered answers a request whose handling panicked in source.
func (h *podHandler) recovered(body []byte, source string, v any) ([]byte, *metav1.Status) {
	h.metrics.panics.WithLabelValues(source).Inc()
	klog.ErrorS(nil, "Recovered from a panic while deciding on a pod", "source", source, "panic", v, "stack", string(debug.Stack()))
	var review admissionv1.AdmissionReview
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
	if annotation := explicitRequest(review.Request.Object.Raw); annotation != "" {
		response = &admissionv1.AdmissionResponse{Result: &metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError,
			Message: fmt.Sprintf("%s failed internally while deciding on this pod; the pod asks for an injection through annotation %s, "+
				"so it is refused rather than started without it; retry, and report it with the webhook's log if it persists", where, annotation),
		}}
	}
	return encodeResponse(review, response)
}

// explicitRequest is the first annotation of the pod in raw that asks for an
// injection, or "". That is the fail-closed webhook's matchCondition but for
// its debug-container clause: a debug container added to a pod injected
// automatically is admitted without the mounts. It decodes the metadata
// alone, since the full pod may be what failed.
func explicitRequest(raw []byte) string {
	var object struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &object) != nil {
		return ""
	}
	for _, annotation := range mutation.ExplicitRequestAnnotations {
		if _, ok := object.Metadata.Annotations[annotation]; ok {
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
func (h *podHandler) review(ctx context.Context, req *admissionv1.AdmissionRequest, source *string) *admissionv1.AdmissionResponse {
	if req.Resource != podResource || (req.SubResource != "" && req.SubResource != "ephemeralcontainers") {
		return &admissionv1.AdmissionResponse{Allowed: true}
	}
	pod := &corev1.Pod{}
	if err := json.Unmarshal(req.Object.Raw, pod); err != nil {
		return &admissionv1.AdmissionResponse{Result: &metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest,
			Message: "decoding the pod: " + err.Error(),
		}}
	}
	mreq := &mutation.Request{Operation: req.Operation, Namespace: req.Namespace, SubResource: req.SubResource, Pod: pod}
	if req.Operation == admissionv1.Update && len(req.OldObject.Raw) > 0 {
		mreq.OldPod = &corev1.Pod{}
		if err := json.Unmarshal(req.OldObject.Raw, mreq.OldPod); err != nil {
			return &admissionv1.AdmissionResponse{Result: &metav1.Status{
				Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest,
				Message: "decoding the old pod: " + err.Error(),
			}}
		}
	}

	var patch []mutation.PatchOperation
	var warnings []string
	podRaw := req.Object.Raw
	for i, m := range h.mutators {
		start := time.Now()
		*source = m.Name()
		result := m.Mutate(ctx, mreq)
		*source = handlerSource
		h.metrics.observeMutator(m.Name(), result, time.Since(start))
		if result.Denied != nil {
			klog.V(2).InfoS("Denied pod", "mutator", m.Name(), "namespace", req.Namespace, "pod", podName(pod), "reason", result.Denied.Reason)
			return denied(result.Denied.Message)
		}
		patch = append(patch, result.Patch...)
		warnings = append(warnings, result.Warnings...)
		if len(result.Patch) > 0 && i < len(h.mutators)-1 {
			var err error
			if podRaw, err = applyPatch(podRaw, result.Patch); err != nil {
				klog.ErrorS(err, "A mutator's patch does not apply", "mutator", m.Name(), "namespace", req.Namespace, "pod", podName(pod))
				return denied(fmt.Sprintf("the %s injection produced a patch that does not apply to the pod: %v", m.Name(), err))
			}
			next := &corev1.Pod{}
			if err := json.Unmarshal(podRaw, next); err != nil {
				return denied(fmt.Sprintf("the %s injection produced a pod that does not decode: %v", m.Name(), err))
			}
			shallow := *mreq
			shallow.Pod = next
			mreq = &shallow
		}
	}
	if annotation := h.unclaimedRequest(pod); annotation != "" {
		h.metrics.observeMutator("unclaimed", mutation.Deny("NotServed", ""), 0)
		return denied(fmt.Sprintf("the pod asks for an injection through annotation %s, which this webhook does not serve; "+
			"the pod would start without what it asks for, so it is refused", annotation))
	}

	response := &admissionv1.AdmissionResponse{Allowed: true, Warnings: warnings}
	if len(patch) > 0 {
		raw, err := json.Marshal(patch)
		if err != nil {
			return denied("encoding the patch: " + err.Error())
		}
		response.Patch = raw
		response.PatchType = ptrTo(admissionv1.PatchTypeJSONPatch)
	}
	klog.V(4).InfoS("Admitted pod", "namespace", req.Namespace, "pod", podName(pod), "patchOperations", len(patch))
	return response
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

func (h *podHandler) unclaimedRequest(pod *corev1.Pod) string {
	for _, annotation := range h.unclaimed {
		if _, ok := pod.Annotations[annotation]; ok {
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

// podName is the name or, for pods named by the API server, the prefix.
func podName(pod *corev1.Pod) string {
	if pod.Name != "" {
		return pod.Name
	}
	return pod.GenerateName
}

func ptrTo[T any](v T) *T { return &v }
