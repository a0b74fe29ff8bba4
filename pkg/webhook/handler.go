package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

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
	// readsVolume names the volumes decoded in full (nil: all).
	readsVolume func(name string) bool
}

func newPodHandler(mutators []mutation.Mutator, m *metrics) *podHandler {
	h := &podHandler{mutators: mutators, metrics: m, readsVolume: volumesRead(mutators)}
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

// volumesRead names the volumes whose contents some mutator reads, or is
// nil when a mutator may read any (it is not a mutation.VolumeReader).
func volumesRead(mutators []mutation.Mutator) func(name string) bool {
	readers := make([]mutation.VolumeReader, 0, len(mutators))
	for _, m := range mutators {
		r, ok := m.(mutation.VolumeReader)
		if !ok {
			return nil
		}
		readers = append(readers, r)
	}
	return func(name string) bool {
		for _, r := range readers {
			if r.ReadsVolume(name) {
				return true
			}
		}
		return false
	}
}

// Where a panic happened, for panics_recovered_total: a mutator's name, or
// handlerSite for the admission handler's own code.
const handlerSite = "handler"

// answer turns an AdmissionReview into the encoded response, or into the
// HTTP error to answer when the review is unusable. A panic anywhere in it,
// in a mutator or in this handler, is recovered into the answer the
// webhook's failurePolicy intends: a pod that explicitly asks for an
// injection is refused (the fail-closed webhook sends those), any other pod
// is admitted unchanged with a warning (the fail-open webhook sends those).
func (h *podHandler) answer(ctx context.Context, body []byte) (out []byte, failure *metav1.Status) {
	site := handlerSite
	defer func() {
		if v := recover(); v != nil {
			out, failure = h.recovered(body, site, v)
		}
	}()
	var review reviewHeader
	if err := decodeReview(body, &review, h.readsVolume); err != nil {
		return undecodable(body, err)
	}
	if review.Request == nil {
		return nil, badRequest("the admission review has no request")
	}
	patch, warnings, early := h.runMutators(ctx, body, review.Request, &site)
	site = handlerSite
	if early != nil {
		return encodeResponse(review.TypeMeta, review.Request.UID, early)
	}
	return encodeAdmitted(review.TypeMeta, review.Request.UID, patch, warnings)
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

// recovered answers a request whose handling panicked at site.
func (h *podHandler) recovered(body []byte, site string, v any) ([]byte, *metav1.Status) {
	h.metrics.panics.WithLabelValues(site).Inc()
	klog.ErrorS(nil, "Recovered from a panic while deciding on a pod", "site", site, "panic", v, "stack", string(debug.Stack()))
	var review reviewHeader
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		// Without a request there is no pod to decide on: the HTTP error
		// leaves it to the failurePolicy.
		return nil, &metav1.Status{Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError,
			Message: "the workload-access webhook failed internally; retry"}
	}
	where := "the webhook"
	if site != handlerSite {
		where = "the " + site + " injection"
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
