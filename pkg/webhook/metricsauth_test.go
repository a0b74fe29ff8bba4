package webhook

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// Stand-ins for the API server's TokenReview and SubjectAccessReview: the
// e2e tests run the real ones.
const scraperToken, strangerToken = "scraper-token", "stranger-token"

var testMetricsGuard = guardWith(
	authenticator.RequestFunc(func(r *http.Request) (*authenticator.Response, bool, error) {
		switch r.Header.Get("Authorization") {
		case "Bearer " + scraperToken:
			return &authenticator.Response{User: &user.DefaultInfo{Name: "system:serviceaccount:openshift-monitoring:prometheus-k8s"}}, true, nil
		case "Bearer " + strangerToken:
			return &authenticator.Response{User: &user.DefaultInfo{Name: "system:serviceaccount:shop:default"}}, true, nil
		}
		return nil, false, nil
	}),
	authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.GetUser().GetName() == "system:serviceaccount:openshift-monitoring:prometheus-k8s" && a.GetVerb() == "get" &&
			!a.IsResourceRequest() && a.GetPath() == MetricsPath {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "no rule allows it", nil
	}),
)

func TestMetricsNeedAnAuthorizedCaller(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "ca")
	ca.issue(t, dir)
	srv := startServer(t, Config{CertFile: dir + "/tls.crt", KeyFile: dir + "/tls.key", CertReloadInterval: time.Hour})
	for _, c := range []struct {
		token string
		code  int
	}{
		{"", http.StatusUnauthorized},
		{"forged", http.StatusUnauthorized},
		{strangerToken, http.StatusForbidden},
		{scraperToken, http.StatusOK},
	} {
		code, body, err := getWithToken(ca.client(), srv.url+MetricsPath, c.token)
		if err != nil {
			t.Fatal(err)
		}
		if code != c.code {
			t.Errorf("token %q: %d, want %d", c.token, code, c.code)
		}
		if c.code == http.StatusOK && !strings.Contains(body, "workload_access_webhook_") {
			t.Errorf("authorized scrape lacks the webhook's metrics")
		}
		if c.code != http.StatusOK && strings.Contains(body, "workload_access_webhook_") {
			t.Errorf("token %q read the metrics", c.token)
		}
	}
	// Health and readiness stay open for the kubelet.
	if code, _, err := getWithToken(ca.client(), srv.url+HealthzPath, ""); err != nil || code != http.StatusOK {
		t.Errorf("healthz without a token: %d %v", code, err)
	}
}
