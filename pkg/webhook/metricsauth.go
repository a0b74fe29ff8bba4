package webhook

import (
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// MetricsGuard wraps the /metrics handler: only callers the cluster
// authenticates (TokenReview) and allows to get the non-resource URL
// /metrics (SubjectAccessReview) read it, as Prometheus does with its
// ServiceAccount token. The admission path stays open: the API server calls
// it without credentials.
type MetricsGuard func(http.Handler) http.Handler

// Answers are cached so a scrape every 30 s costs the API server nothing
// after the first.
const (
	authCacheTTL     = 2 * time.Minute
	authDenyCacheTTL = 10 * time.Second
)

// DelegatedMetricsGuard asks the API server through kube, which must be
// allowed to create TokenReviews and SubjectAccessReviews.
func DelegatedMetricsGuard(kube kubernetes.Interface) (MetricsGuard, error) {
	backoff := &wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
	authn, _, err := authenticatorfactory.DelegatingAuthenticatorConfig{
		TokenAccessReviewClient:  kube.AuthenticationV1(),
		TokenAccessReviewTimeout: 10 * time.Second,
		WebhookRetryBackoff:      backoff,
		CacheTTL:                 authCacheTTL,
	}.New()
	if err != nil {
		return nil, err
	}
	authz, err := authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: kube.AuthorizationV1(),
		AllowCacheTTL:             authCacheTTL,
		DenyCacheTTL:              authDenyCacheTTL,
		WebhookRetryBackoff:       backoff,
	}.New()
	if err != nil {
		return nil, err
	}
	return guardWith(authn, authz), nil
}

func guardWith(authn authenticator.Request, authz authorizer.Authorizer) MetricsGuard {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			resp, ok, err := authn.AuthenticateRequest(r)
			if err != nil {
				klog.V(2).InfoS("Metrics request not authenticated", "error", err)
			}
			if !ok {
				http.Error(w, "Unauthorized", http.StatusUnauthorized)
				return
			}
			decision, reason, err := authz.Authorize(r.Context(), authorizer.AttributesRecord{
				User: resp.User, Verb: "get", Path: r.URL.Path, ResourceRequest: false,
			})
			if err != nil {
				klog.V(2).InfoS("Metrics request not authorized", "user", resp.User.GetName(), "error", err)
			}
			if decision != authorizer.DecisionAllow {
				http.Error(w, "Forbidden: "+resp.User.GetName()+" may not get "+r.URL.Path+" "+reason, http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
