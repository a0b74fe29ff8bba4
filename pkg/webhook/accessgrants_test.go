package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	versionedfake "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/clusterreads"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/grants"
)

// noScopeInstances finds no ScopeInstance: a ScopeTemplate checked here
// binds no one.
var noScopeInstances = clusterreads.LiveScopeInstances{Client: versionedfake.NewSimpleClientset().ScopesV1alpha1()}

// sarRecorder answers SubjectAccessReviews from allowed (keyed by verb) and
// records each spec.
func sarRecorder(allowed map[string]bool, err error) (*fake.Clientset, *[]authorizationv1.SubjectAccessReviewSpec) {
	client := fake.NewClientset()
	var specs []authorizationv1.SubjectAccessReviewSpec
	client.PrependReactor("create", "subjectaccessreviews", func(action clienttesting.Action) (bool, runtime.Object, error) {
		review := action.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		specs = append(specs, review.Spec)
		if err != nil {
			return true, nil, err
		}
		verb := ""
		if review.Spec.ResourceAttributes != nil {
			verb = review.Spec.ResourceAttributes.Verb
		}
		review.Status.Allowed = allowed[verb]
		return true, review, nil
	})
	return client, &specs
}

func grantsReview(t *testing.T) []byte {
	t.Helper()
	tmpl := scopesv1alpha1.ScopeTemplate{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: scopesv1alpha1.ScopeTemplateSpec{
		ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{GenerateName: "r", Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "delete"}}}}},
	}}
	object, _ := json.Marshal(tmpl)
	body, _ := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: "u1", Operation: admissionv1.Create, Name: "x",
			Resource: metav1.GroupVersionResource{Group: scopesv1alpha1.GroupName, Version: "v1alpha1", Resource: "scopetemplates"},
			UserInfo: authenticationv1.UserInfo{Username: "alice", UID: "42", Groups: []string{"team"}, Extra: map[string]authenticationv1.ExtraValue{"scopes": {"a"}}},
			Object:   runtime.RawExtension{Raw: object},
		},
	})
	return body
}

func grantsServer(t *testing.T, client *fake.Clientset) http.Handler {
	t.Helper()
	s, err := New(Config{CertFile: "c", KeyFile: "k", CertReloadInterval: time.Second, MetricsGuard: func(h http.Handler) http.Handler { return h },
		AccessGrants: &grants.Checker{Authorizer: clusterreads.GrantsAuthorizer{Client: client.AuthorizationV1().SubjectAccessReviews()}, Instances: noScopeInstances}})
	if err != nil {
		t.Fatal(err)
	}
	return s.Handler()
}

func postGrants(t *testing.T, h http.Handler, body []byte) *admissionv1.AdmissionReview {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, ValidateAccessGrantsPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Response == nil || out.Response.UID != "u1" {
		t.Fatalf("response %+v", out.Response)
	}
	return &out
}

func TestAccessGrantsAsksAsTheRequester(t *testing.T) {
	client, specs := sarRecorder(map[string]bool{"get": true}, nil)
	out := postGrants(t, grantsServer(t, client), grantsReview(t))
	if out.Response.Allowed || out.Response.Result.Code != http.StatusForbidden ||
		out.Response.Result.Message != `ScopeTemplate "x" grants verb "delete" on "secrets" (group "") cluster-wide, which user "alice" does not hold; you can only grant what you hold` {
		t.Fatalf("response %+v", out.Response.Result)
	}
	if len(*specs) != 2 {
		t.Fatalf("%d reviews, want 2", len(*specs))
	}
	for _, s := range *specs {
		if s.User != "alice" || s.UID != "42" || len(s.Groups) != 1 || s.Extra["scopes"][0] != "a" || s.ResourceAttributes.Namespace != "" {
			t.Errorf("review not as the requester, cluster-wide: %+v", s)
		}
	}
}

func TestAccessGrantsFailsClosed(t *testing.T) {
	client, _ := sarRecorder(nil, errors.New("the server is currently unable to handle the request"))
	out := postGrants(t, grantsServer(t, client), grantsReview(t))
	if out.Response.Allowed || out.Response.Result.Code != http.StatusServiceUnavailable || !strings.HasSuffix(out.Response.Result.Message, "retry") {
		t.Fatalf("response %+v", out.Response.Result)
	}
}

// A panic while checking refuses: in the handler's goroutine (a template
// lookup) as in the questions' (the authorizer).
func TestAccessGrantsPanicRefuses(t *testing.T) {
	for name, checker := range map[string]*grants.Checker{
		"handler":    {Authorizer: panicking{}, Templates: panicking{}},
		"authorizer": {Authorizer: panicking{}},
	} {
		h := &grantsHandler{checker: checker, metrics: newMetrics(), timeout: time.Second}
		object := `{"spec":{"clusterRoles":[{"rules":[{"apiGroups":[""],"resources":["a"],"verbs":["get"]}]}]}}`
		resource := "scopetemplates"
		if name == "handler" {
			object, resource = `{"spec":{"scopeTemplateName":"t"}}`, "scopeinstances"
		}
		resp := h.decide(context.Background(), &admissionv1.AdmissionRequest{
			Operation: admissionv1.Create, Resource: metav1.GroupVersionResource{Group: scopesv1alpha1.GroupName, Resource: resource},
			Object: runtime.RawExtension{Raw: []byte(object)},
		})
		if resp.Allowed || resp.Result == nil || resp.Result.Code < 500 {
			t.Errorf("%s: a panic answered %+v", name, resp)
		}
	}
}

type panicking struct{}

func (panicking) Allowed(context.Context, grants.Requester, string, grants.Permission) (bool, error) {
	panic("boom")
}

func (panicking) GetScopeTemplate(context.Context, string) (*scopesv1alpha1.ScopeTemplate, error) {
	panic("boom")
}

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
