package webhook

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/clusterreads"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
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

// countingAPIServer answers TokenReviews (only scraperToken is valid) and
// SubjectAccessReviews (all allowed) as the API server would, and counts
// them: what is under test is what reaches it, and when.
type countingAPIServer struct {
	*httptest.Server
	tokenReviews, accessReviews atomic.Int64
}

func newCountingAPIServer(t *testing.T) *countingAPIServer {
	s := &countingAPIServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/apis/authentication.k8s.io/v1/tokenreviews":
			s.tokenReviews.Add(1)
			review := &authenticationv1.TokenReview{}
			if err := json.NewDecoder(r.Body).Decode(review); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if review.Spec.Token == scraperToken {
				review.Status = authenticationv1.TokenReviewStatus{Authenticated: true,
					User: authenticationv1.UserInfo{Username: "system:serviceaccount:openshift-monitoring:prometheus-k8s"}}
			}
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(review)
		case "/apis/authorization.k8s.io/v1/subjectaccessreviews":
			s.accessReviews.Add(1)
			review := &authorizationv1.SubjectAccessReview{}
			if err := json.NewDecoder(r.Body).Decode(review); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			review.Status.Allowed = true
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(review)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// A flood of random bearer tokens on /metrics from one address reaches the
// API server as a trickle, on a client of its own: a ClusterBundle check on
// the pod path is answered as fast during the flood as without it, and
// Prometheus' scrape still works.
func TestMetricsFloodCannotDelayClusterBundleChecks(t *testing.T) {
	api := newCountingAPIServer(t)
	// The webhook's client configuration, limits as pkg/cmd/webhook sets them.
	// (JSON, which the stand-in decodes.)
	config := &rest.Config{Host: api.URL, QPS: 50, Burst: 100,
		ContentConfig: rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"}}
	podKube, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	reviewer := clusterreads.NewSubjectAccessReviewer(podKube.AuthorizationV1().SubjectAccessReviews())
	guard, err := DelegatedMetricsGuard(config)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ca := newTestCA(t, "ca")
	ca.issue(t, dir)
	srv := startServer(t, Config{CertFile: dir + "/tls.crt", KeyFile: dir + "/tls.key", CertReloadInterval: time.Hour, MetricsGuard: guard})
	client := ca.client()
	client.Transport.(*http.Transport).DisableKeepAlives = false
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = 64

	// Prometheus scrapes once before the flood.
	if code, _, err := getWithToken(client, srv.url+MetricsPath, scraperToken); err != nil || code != http.StatusOK {
		t.Fatalf("scrape before the flood: %d %v", code, err)
	}
	reviewsBefore := api.tokenReviews.Load()

	const flood = 2 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), flood)
	defer cancel()
	var wg sync.WaitGroup
	var sent, refused atomic.Int64
	for range 64 {
		wg.Go(func() {
			for ctx.Err() == nil {
				code, _, err := getWithToken(client, srv.url+MetricsPath, rand.Text())
				if err != nil {
					continue
				}
				sent.Add(1)
				if code == http.StatusTooManyRequests {
					refused.Add(1)
				}
			}
		})
	}
	// ClusterBundle checks while the flood runs, each a new question (no
	// cached answer).
	time.Sleep(300 * time.Millisecond)
	var slowest time.Duration
	for i := range 10 {
		start := time.Now()
		if _, err := reviewer.MayGetClusterBundle(context.Background(), "shop", "default", fmt.Sprintf("bundle-%d", i)); err != nil {
			t.Fatal(err)
		}
		slowest = max(slowest, time.Since(start))
		time.Sleep(100 * time.Millisecond)
	}
	wg.Wait()

	reviews := api.tokenReviews.Load() - reviewsBefore
	t.Logf("%d flood requests, %d refused with 429, %d TokenReviews; slowest ClusterBundle check %v", sent.Load(), refused.Load(), reviews, slowest)
	if most := int64(authnBurst + authnPerSecond*flood/time.Second + 1); reviews > most {
		t.Errorf("the flood from one address caused %d TokenReviews, want at most %d", reviews, most)
	}
	if slowest > 500*time.Millisecond {
		t.Errorf("a ClusterBundle check took %v during the flood", slowest)
	}
	if code, _, err := getWithToken(client, srv.url+MetricsPath, scraperToken); err != nil || code != http.StatusOK {
		t.Errorf("scrape after the flood: %d %v", code, err)
	}
}

// Requests beyond the cap wait for nothing: they are answered 429 while
// the others are being authenticated.
func TestMetricsInFlightCap(t *testing.T) {
	release := make(chan struct{})
	var entered atomic.Int64
	guard := guardWith(
		authenticator.RequestFunc(func(r *http.Request) (*authenticator.Response, bool, error) {
			entered.Add(1)
			<-release
			return nil, false, nil
		}),
		authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
			return authorizer.DecisionNoOpinion, "", nil
		}),
	)
	handler := guard(http.NotFoundHandler())
	var wg sync.WaitGroup
	for i := range metricsMaxInFlight {
		wg.Go(func() {
			r := httptest.NewRequest(http.MethodGet, MetricsPath, nil)
			r.RemoteAddr = fmt.Sprintf("10.0.0.%d:1234", i)
			handler.ServeHTTP(httptest.NewRecorder(), r)
		})
	}
	if err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		return entered.Load() == metricsMaxInFlight, nil
	}); err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, MetricsPath, nil))
	if w.Code != http.StatusTooManyRequests {
		t.Errorf("request beyond the cap: %d, want 429", w.Code)
	}
	close(release)
	wg.Wait()
}

// Whatever a caller sends as its token, and from wherever, the guard
// answers with one of its codes, never serves an unknown token, and keeps
// no more addresses or tokens than its bounds.
func FuzzMetricsGuard(f *testing.F) {
	f.Add("Bearer "+scraperToken, "10.0.0.1:443")
	f.Add("Bearer "+strangerToken, "[fd00::1]:1")
	f.Add("Bearer ", "no-port")
	f.Add("bearer x", "")
	f.Add("Basic dXNlcjpwYXNz", "10.0.0.1:1")
	handler := testMetricsGuard(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("metrics")) }))
	f.Fuzz(func(t *testing.T, authorization, remoteAddr string) {
		r := httptest.NewRequest(http.MethodGet, MetricsPath, nil)
		r.Header.Set("Authorization", authorization)
		r.RemoteAddr = remoteAddr
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		switch w.Code {
		case http.StatusOK:
			if authorization != "Bearer "+scraperToken {
				t.Errorf("served %q", authorization)
			}
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests:
		default:
			t.Errorf("answered %d", w.Code)
		}
	})
}
