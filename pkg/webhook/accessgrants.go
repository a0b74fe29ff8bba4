package webhook

import (
	"context"
	"net/http"
	"runtime/debug"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/grants"
)

// ValidateAccessGrantsPath is where the API server sends ScopeTemplates,
// ScopeInstances, APIAccessPolicies and IAMRoleRequests being created or
// changed, and IAMRoleRequests being deleted.
const ValidateAccessGrantsPath = "/validate-access-grants"

// accessGrantsTimeout bounds one check, inside the 15 s the
// ValidatingWebhookConfiguration gives the call: the check refuses with its
// own message rather than letting the API server time out.
const accessGrantsTimeout = 12 * time.Second

// grantsWebhookTimeout is that configuration's timeoutSeconds, which bounds
// a request (its body's read included) that does not say its timeout.
const grantsWebhookTimeout = 15 * time.Second

// grantsCheckLabel names the check in metrics, where mutators give their names.
const grantsCheckLabel = "access-grants"

// grantsHandler answers AdmissionReviews of the four kinds with the
// attenuation check. It never admits what it could not check: every
// failure, a panic included, is a refusal.
type grantsHandler struct {
	checker *grants.Checker
	metrics *metrics
	timeout time.Duration
	intake  intake
}

// decide runs the check; a panic in it refuses the request.
func (h *grantsHandler) decide(ctx context.Context, req *admissionv1.AdmissionRequest) (response *admissionv1.AdmissionResponse) {
	start := time.Now()
	defer func() {
		if v := recover(); v != nil {
			h.metrics.panics.WithLabelValues(grantsCheckLabel).Inc()
			klog.ErrorS(nil, "Recovered from a panic in the access grants check", "panic", v, "stack", string(debug.Stack()))
			response = refusal(http.StatusInternalServerError, metav1.StatusReasonInternalError,
				"the access grants check failed internally; it is refused rather than admitted unchecked; retry, and report it with the webhook's log if it persists")
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	d := h.checker.Check(ctx, grants.Request{
		Group: req.Resource.Group, Resource: req.Resource.Resource, Operation: string(req.Operation),
		Object: req.Object.Raw, OldObject: req.OldObject.Raw,
		Requester: grants.Requester{Name: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups, Extra: extra(req.UserInfo.Extra)},
	})
	h.observe(d, time.Since(start))
	if d.Allowed {
		return &admissionv1.AdmissionResponse{Allowed: true, Warnings: d.Warnings}
	}
	klog.V(2).InfoS("Refused an access grant", "resource", req.Resource.Resource, "name", req.Name, "user", req.UserInfo.Username, "reason", d.Reason, "reviews", d.Reviews)
	if d.Reason == grants.CheckFailed {
		return refusal(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, d.Message)
	}
	response = refusal(http.StatusForbidden, metav1.StatusReasonForbidden, d.Message)
	response.Warnings = d.Warnings
	return response
}

func (h *grantsHandler) observe(d grants.Decision, took time.Duration) {
	outcome := "unchanged"
	if !d.Allowed {
		outcome = "denied"
		h.metrics.denials.WithLabelValues(grantsCheckLabel, string(d.Reason)).Inc()
	}
	h.metrics.admissions.WithLabelValues(grantsCheckLabel, outcome).Inc()
	h.metrics.mutatorDuration.WithLabelValues(grantsCheckLabel).Observe(took.Seconds())
}

func refusal(code int32, reason metav1.StatusReason, message string) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Result: &metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: message}}
}

func extra[V ~[]string](in map[string]V) map[string][]string {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string][]string, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}
