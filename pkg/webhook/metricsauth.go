package webhook

import (
	"crypto/sha256"
	"net/http"
	"strings"
	"time"

	utilcache "k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// MetricsGuard wraps the /metrics handler: only callers the cluster
// authenticates (TokenReview) and allows to get the non-resource URL
// /metrics (SubjectAccessReview) read it, as Prometheus does with its
// ServiceAccount token. The admission paths do not go through it: the API
// server calls them without a token (see ClientCAFile for what can check
// that caller).
type MetricsGuard func(http.Handler) http.Handler

// Answers are cached so a scrape every 30 s costs the API server nothing
// after the first.
const (
	authCacheTTL     = 2 * time.Minute
	authDenyCacheTTL = 10 * time.Second
)

// What /metrics may cost, whoever calls it. Anyone who reaches the port can
// send bearer tokens, and each unknown token is a TokenReview: these limits
// keep that from costing the API server, or the admission path, anything.
const (
	// metricsMaxInFlight caps concurrent /metrics requests (two Prometheus
	// replicas scrape every 30 s); more are answered 429 at once.
	metricsMaxInFlight = 4
	// A token not authenticated in the last authCacheTTL costs its client
	// address one of authnBurst tokens, refilled at authnPerSecond: a
	// flood of random tokens from one address reaches the API server at
	// that rate; the rest are answered 429 without a TokenReview.
	authnPerSecond = 1
	authnBurst     = 10
	// authnClients bounds the addresses remembered (about 150 bytes each).
	authnClients = 1024
	// knownTokens bounds the tokens remembered as authenticated (hashes).
	knownTokens = 64
	// The metrics guard's own client: its TokenReviews and
	// SubjectAccessReviews never take from the budget the pod path's
	// SubjectAccessReviews (ClusterBundle checks) use.
	metricsAuthQPS   = 5
	metricsAuthBurst = 10
)

// DelegatedMetricsGuard asks the API server through a client of its own,
// built from config, whose identity must be allowed to create TokenReviews
// and SubjectAccessReviews.
func DelegatedMetricsGuard(config *rest.Config) (MetricsGuard, error) {
	own := rest.CopyConfig(config)
	own.QPS, own.Burst, own.RateLimiter = metricsAuthQPS, metricsAuthBurst, nil
	kube, err := kubernetes.NewForConfig(own)
	if err != nil {
		return nil, err
	}
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

// metricsGuard is what DelegatedMetricsGuard returns, over any
// authenticator and authorizer (tests stand in for the API server's).
type metricsGuard struct {
	authn authenticator.Request
	authz authorizer.Authorizer
	slots chan struct{}
	// known maps the SHA-256 of a bearer token authenticated in the last
	// authCacheTTL to its user, so that a scrape with a known token takes
	// nothing from its address's bucket (clients).
	known   *utilcache.LRUExpireCache
	clients *clientLimiter
}

func guardWith(authn authenticator.Request, authz authorizer.Authorizer) MetricsGuard {
	g := &metricsGuard{
		authn: authn, authz: authz,
		slots:   make(chan struct{}, metricsMaxInFlight),
		known:   utilcache.NewLRUExpireCache(knownTokens),
		clients: newClientLimiter(authnPerSecond, authnBurst, authnClients),
	}
	return g.wrap
}

func (g *metricsGuard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case g.slots <- struct{}{}:
			defer func() { <-g.slots }()
		default:
			http.Error(w, "Too many metrics requests in progress; retry later", http.StatusTooManyRequests)
			return
		}
		caller, ok := g.authenticate(w, r)
		if !ok {
			return
		}
		decision, reason, err := g.authz.Authorize(r.Context(), authorizer.AttributesRecord{
			User: caller, Verb: "get", Path: r.URL.Path, ResourceRequest: false,
		})
		if err != nil {
			klog.V(2).InfoS("Metrics request not authorized", "user", caller.GetName(), "error", err)
		}
		if decision != authorizer.DecisionAllow {
			http.Error(w, "Forbidden: "+caller.GetName()+" may not get "+r.URL.Path+" "+reason, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// authenticate returns r's caller, or answers r and returns false.
func (g *metricsGuard) authenticate(w http.ResponseWriter, r *http.Request) (user.Info, bool) {
	key, hasToken := tokenKey(r)
	if hasToken {
		if caller, ok := g.known.Get(key); ok {
			return caller.(user.Info), true
		}
	}
	if !g.clients.allow(r) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Too many authentication attempts from "+clientAddress(r)+"; retry later", http.StatusTooManyRequests)
		return nil, false
	}
	resp, ok, err := g.authn.AuthenticateRequest(r)
	if err != nil {
		klog.V(2).InfoS("Metrics request not authenticated", "error", err)
	}
	if !ok {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return nil, false
	}
	if hasToken {
		g.known.Add(key, resp.User, authCacheTTL)
	}
	return resp.User, true
}

// tokenKey is the hash of r's bearer token: the token itself is not kept.
func tokenKey(r *http.Request) ([sha256.Size]byte, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	token = strings.TrimSpace(token)
	if !ok || token == "" {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256([]byte(token)), true
}
