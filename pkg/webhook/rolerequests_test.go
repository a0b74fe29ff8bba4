package webhook

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// roleRequestReview is an AdmissionReview of alice creating an
// IAMRoleRequest for payments/app.
func roleRequestReview(t *testing.T) []byte {
	t.Helper()
	object := `{"apiVersion":"podidentity.openshift.io/v1alpha1","kind":"IAMRoleRequest","metadata":{"name":"reader"},` +
		`"spec":{"storage":{"serviceAccount":{"namespace":"payments","name":"app"}},"providerSpec":{"statementEntries":[{"effect":"Allow","action":["s3:GetObject"],"resource":"*"}]}}}`
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: "u1", Operation: admissionv1.Create, Name: "reader",
			Resource: metav1.GroupVersionResource{Group: "podidentity.openshift.io", Version: "v1alpha1", Resource: "iamrolerequests"},
			UserInfo: authenticationv1.UserInfo{Username: "alice", Groups: []string{"system:authenticated"}},
			Object:   runtime.RawExtension{Raw: []byte(object)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// The access-grants path serves IAMRoleRequests: their requester must be
// able to patch and create ServiceAccounts where the request names one,
// asked as the requester in that namespace.
func TestAccessGrantsServesIAMRoleRequests(t *testing.T) {
	client, specs := sarRecorder(map[string]bool{"patch": true, "create": true}, nil)
	out := postGrants(t, grantsServer(t, client), roleRequestReview(t))
	if !out.Response.Allowed {
		t.Fatalf("a requester who may write ServiceAccounts in payments: %+v", out.Response.Result)
	}
	if len(*specs) != 2 {
		t.Fatalf("%d reviews, want 2", len(*specs))
	}
	for _, s := range *specs {
		if a := s.ResourceAttributes; s.User != "alice" || a == nil || a.Namespace != "payments" || a.Resource != "serviceaccounts" || a.Group != "" {
			t.Errorf("review %+v, want alice's in payments on serviceaccounts", s)
		}
	}

	client, _ = sarRecorder(map[string]bool{"create": true}, nil)
	out = postGrants(t, grantsServer(t, client), roleRequestReview(t))
	if out.Response.Allowed || out.Response.Result.Code != http.StatusForbidden ||
		!strings.Contains(out.Response.Result.Message, `user "alice" may not patch serviceaccounts in namespace "payments": an IAMRoleRequest has the operator write that ServiceAccount`) {
		t.Fatalf("a requester who may not patch ServiceAccounts there: %+v", out.Response.Result)
	}
}
