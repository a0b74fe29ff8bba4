package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

var podResource = metav1.GroupVersionResource{Version: "v1", Resource: "pods"}

// reviewPods decodes a review's pods from its body, each in the shape
// asked for, in one pass over the body.
type reviewPods []byte

func (s reviewPods) DecodePod(into any) error {
	var review struct {
		Request struct {
			Object any `json:"object"`
		} `json:"request"`
	}
	review.Request.Object = into
	return json.Unmarshal(s, &review)
}

func (s reviewPods) DecodeOldPod(into any) error {
	var review struct {
		Request struct {
			OldObject any `json:"oldObject"`
		} `json:"request"`
	}
	review.Request.OldObject = into
	return json.Unmarshal(s, &review)
}

// runMutators runs the mutator chain on one request: every mutator in
// order, each on the pod as the ones before it left it. It returns their
// patch and warnings, or the answer that ends the chain early: a refusal,
// or an allowance for requests this webhook is not configured for
// (refusing them would only turn a configuration mistake into an outage).
// It names the mutator it is running in *site.
func (h *podHandler) runMutators(ctx context.Context, body []byte, req *requestHeader, site *string) ([]mutation.PatchOperation, []string, *admissionv1.AdmissionResponse) {
	if req.Resource != podResource || (req.SubResource != "" && req.SubResource != "ephemeralcontainers") {
		return nil, nil, &admissionv1.AdmissionResponse{Allowed: true}
	}
	if req.Object == nil {
		return nil, nil, &admissionv1.AdmissionResponse{Result: &metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest,
			Message: "the admission review has no pod",
		}}
	}
	outline := req.Object
	mreq := mutation.NewRequest(req.Operation, req.Namespace, req.SubResource, outline, reviewPods(body))

	var patch []mutation.PatchOperation
	var warnings []string
	for i, m := range h.mutators {
		start := time.Now()
		*site = m.Name()
		result := m.Mutate(ctx, mreq)
		*site = handlerSite
		h.metrics.observeMutator(m.Name(), result, time.Since(start))
		if result.Denied != nil {
			klog.V(2).InfoS("Denied pod", "mutator", m.Name(), "namespace", req.Namespace, "pod", outline.DisplayName(), "reason", result.Denied.Reason)
			return nil, nil, denied(result.Denied.Message)
		}
		if patch == nil {
			// The first patch is taken as it is: a copy per admission is
			// garbage. Clipped, so that the next append copies rather
			// than writing past it into the mutator's array.
			patch = slices.Clip(result.Patch)
		} else {
			patch = append(patch, result.Patch...)
		}
		warnings = append(warnings, result.Warnings...)
		if len(result.Patch) > 0 && i < len(h.mutators)-1 {
			next, err := h.nextRequest(mreq, reviewPods(body), patch, result.Patch)
			if err != nil {
				klog.ErrorS(err, "A mutator's patch does not apply", "mutator", m.Name(), "namespace", req.Namespace, "pod", outline.DisplayName())
				return nil, nil, denied(fmt.Sprintf("the %s injection produced a patch that does not apply to the pod: %v", m.Name(), err))
			}
			mreq = next
		}
	}
	if annotation := h.unclaimedRequest(outline.Metadata.Annotations); annotation != "" {
		h.metrics.observeMutator("unclaimed", mutation.Deny("NotServed", ""), 0)
		return nil, nil, denied(fmt.Sprintf("the pod asks for an injection through annotation %s, which this webhook does not serve; "+
			"the pod would start without what it asks for, so it is refused", annotation))
	}

	// Guarded: the arguments cost allocations on every admission even
	// when the line is not logged.
	if logger := klog.V(4); logger.Enabled() {
		logger.InfoS("Admitted pod", "namespace", req.Namespace, "pod", outline.DisplayName(), "patchOperations", len(patch))
	}
	return patch, warnings, nil
}

// nextRequest is the request the next mutator sees: the pod as the patch so far
// leaves it, ops being its last operations. The outline follows ops alone;
// only where it cannot tell is the whole pod patched and decoded again,
// which costs the whole pod's JSON twice over.
func (h *podHandler) nextRequest(req *mutation.Request, review reviewPods, all, ops []mutation.PatchOperation) (*mutation.Request, error) {
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
func wholePodPatched(review reviewPods, patch []mutation.PatchOperation) (*mutation.PodOutline, error) {
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

func (m *metrics) observeMutator(name string, result mutation.Result, took time.Duration) {
	outcome := "unchanged"
	switch {
	case result.Denied != nil:
		outcome = "denied"
		m.denials.WithLabelValues(name, result.Denied.Reason).Inc()
	case len(result.Patch) > 0:
		outcome = "patched"
	}
	m.admissions.WithLabelValues(name, outcome).Inc()
	m.mutatorDuration.WithLabelValues(name).Observe(took.Seconds())
}
