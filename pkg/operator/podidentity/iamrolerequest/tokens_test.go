package iamrolerequest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamrole"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuer"
)

// clusterIssuer is an issuer published the ccoctl way: its own HTTPS
// server serving a discovery document and a JWKS, registered in IAM by an
// admin.
type clusterIssuer struct {
	url, hostPath, providerARN string
	srv                        *httptest.Server
	mu                         sync.Mutex
	keyIDs                     []string
	broken                     bool
}

func (ci *clusterIssuer) serve(w http.ResponseWriter, r *http.Request) {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	switch {
	case ci.broken:
		http.NotFound(w, r)
	case strings.HasSuffix(r.URL.Path, "/"+issuer.DiscoveryPath):
		fmt.Fprintf(w, `{"issuer":%q,"jwks_uri":%q}`, ci.url, ci.url+"/"+issuer.KeysPath)
	case strings.HasSuffix(r.URL.Path, "/"+issuer.KeysPath):
		var keys []string
		for _, id := range ci.keyIDs {
			keys = append(keys, fmt.Sprintf(`{"kid":%q}`, id))
		}
		fmt.Fprintf(w, `{"keys":[%s]}`, strings.Join(keys, ","))
	default:
		http.NotFound(w, r)
	}
}

func (ci *clusterIssuer) set(keyIDs []string, broken bool) {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	ci.keyIDs, ci.broken = keyIDs, broken
}

// clusterSigns gives the cluster a signing key (the kube-apiserver
// operator's ConfigMap) and returns its key ID.
func (f *fixture) clusterSigns() string {
	f.t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		f.t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		f.t.Fatal(err)
	}
	id, err := issuer.KeyID(&key.PublicKey)
	if err != nil {
		f.t.Fatal(err)
	}
	_, err = f.kube.CoreV1().ConfigMaps(issuer.SigningCertsNamespace).Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: issuer.SigningCertsConfigMap},
		Data:       map[string]string{"service-account-001.pub": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))},
	}, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return id
}

// ccoctlIssuer starts an issuer serving keyIDs and, with audiences,
// registers it in IAM.
func (f *fixture) ccoctlIssuer(keyIDs []string, audiences ...string) *clusterIssuer {
	f.t.Helper()
	ci := &clusterIssuer{keyIDs: keyIDs}
	ci.srv = httptest.NewTLSServer(http.HandlerFunc(ci.serve))
	f.t.Cleanup(ci.srv.Close)
	// A name, as IAM wants (versitygw refuses addresses and ports),
	// dialled at the server.
	ci.url = "https://ccoctl.example.test/" + f.infraName + "-oidc"
	ci.hostPath = strings.TrimPrefix(ci.url, "https://")
	if len(audiences) > 0 {
		out, err := f.root.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{
			Url: aws.String(ci.url), ClientIDList: audiences, ThumbprintList: []string{testThumbprint}})
		if err != nil {
			f.t.Fatalf("registering %s: %v", ci.url, err)
		}
		ci.providerARN = aws.ToString(out.OpenIDConnectProviderArn)
	}
	transport := ci.srv.Client().Transport.(*http.Transport).Clone()
	transport.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, ci.srv.Listener.Addr().String())
	}
	transport.TLSClientConfig.ServerName = "example.com" // in httptest's certificate
	f.controller().issuerTransport = transport
	return ci
}

// tokensCarry sets Authentication/cluster spec.serviceAccountIssuer ("" for
// none set).
func (f *fixture) tokensCarry(issuerURL string) {
	f.auth = &configv1.Authentication{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: configv1.AuthenticationSpec{ServiceAccountIssuer: issuerURL}}
}

func (f *fixture) wantTrust(request string, providers ...iamrole.Provider) {
	f.t.Helper()
	role, err := f.getRole(request)
	if err != nil {
		f.t.Fatal(err)
	}
	held, err := iamrole.DecodeDocument(aws.ToString(role.Role.AssumeRolePolicyDocument))
	if err != nil {
		f.t.Fatal(err)
	}
	if want := iamrole.TrustPolicy(providers, "apps", "sa", testAudience); held != want {
		f.t.Fatalf("the role's trust policy is\n%s\nwant\n%s", held, want)
	}
}

// On an STS-mode cluster the tokens carry ccoctl's issuer: the role
// trusts it and not the published one, and says the tokens are accepted.
// Then the cluster's issuer is unset (a mint-mode cluster before the day-2
// change): the trust moves to the published issuer, and the condition says
// STS refuses the tokens and how to move the issuer.
func TestTheTrustFollowsTheIssuerTheTokensCarry(t *testing.T) {
	f := newFixture(t, true)
	kid := f.clusterSigns()
	ccoctl := f.ccoctlIssuer([]string{kid}, testAudience)
	f.tokensCarry(ccoctl.url)
	f.request("sts", "apps", "sa")
	if err := f.sync("sts"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("sts", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionTrue, podidentityv1alpha1.ReasonProvisioned, ccoctl.providerARN)
	f.wantTrust("sts", iamrole.Provider{ARN: ccoctl.providerARN, HostPath: ccoctl.hostPath})
	f.wantCondition("sts", podidentityv1alpha1.ConditionTokensAccepted, metav1.ConditionTrue, podidentityv1alpha1.ReasonTokensAccepted, ccoctl.url, kid)
	f.resetRecords()
	if err := f.sync("sts"); err != nil {
		t.Fatal(err)
	}
	for _, call := range f.http.calls {
		if !strings.HasPrefix(call.action, "Get") {
			t.Errorf("a resync with nothing changed called IAM %s", call.action)
		}
	}
	if writes := f.kubeWrites(); len(writes) > 0 {
		t.Errorf("a resync with nothing changed wrote %v", writes)
	}

	f.tokensCarry("")
	if err := f.sync("sts"); err != nil {
		t.Fatal(err)
	}
	f.wantTrust("sts", iamrole.Provider{ARN: f.providerARN, HostPath: f.hostPath})
	f.wantCondition("sts", podidentityv1alpha1.ConditionTokensAccepted, metav1.ConditionFalse, podidentityv1alpha1.ReasonClusterIssuerNotPublic,
		"https://kubernetes.default.svc", `oc patch authentication cluster --type merge -p '{"spec":{"serviceAccountIssuer":"`+f.issuerURL+`"}}'`)
	if events := strings.Join(f.drainEvents(), "\n"); !strings.Contains(events, "RoleTrustMoved") {
		t.Errorf("no RoleTrustMoved event: %s", events)
	}
}

// While the cluster's issuer moves, tokens of the old one are accepted
// until the kube-apiserver operator's expiration: the role trusts both,
// then only the new one.
func TestAMovedIssuerIsTrustedUntilItsTokensExpire(t *testing.T) {
	f := newFixture(t, true)
	kid := f.clusterSigns()
	ccoctl := f.ccoctlIssuer([]string{kid}, testAudience)
	now := time.Now()
	clock := &settableClock{now: now}
	f.controller().clock = clock
	f.tokensCarry(ccoctl.url)
	kas := &operatorv1.KubeAPIServer{Status: operatorv1.KubeAPIServerStatus{ServiceAccountIssuers: []operatorv1.ServiceAccountIssuerStatus{
		{Name: ccoctl.url},
		{Name: f.issuerURL, ExpirationTime: &metav1.Time{Time: now.Add(24 * time.Hour)}},
	}}}
	f.controller().kubeAPIServer = func(context.Context) (*operatorv1.KubeAPIServer, error) { return kas, nil }
	f.request("moving", "apps", "sa")
	if err := f.sync("moving"); err != nil {
		t.Fatal(err)
	}
	f.wantTrust("moving", iamrole.Provider{ARN: ccoctl.providerARN, HostPath: ccoctl.hostPath}, iamrole.Provider{ARN: f.providerARN, HostPath: f.hostPath})
	if len(f.retries) == 0 || f.retries[len(f.retries)-1] < 24*time.Hour {
		t.Errorf("no sync scheduled for the old issuer's expiry: %v", f.retries)
	}
	f.wantCondition("moving", podidentityv1alpha1.ConditionTokensAccepted, metav1.ConditionTrue, podidentityv1alpha1.ReasonTokensAccepted)

	clock.now = now.Add(24*time.Hour + time.Second)
	if err := f.sync("moving"); err != nil {
		t.Fatal(err)
	}
	f.wantTrust("moving", iamrole.Provider{ARN: ccoctl.providerARN, HostPath: ccoctl.hostPath})
}

// Each way STS would refuse the tokens has its reason and the command
// that fixes it.
func TestTokensAcceptedSaysWhyNot(t *testing.T) {
	t.Run("issuer not registered", func(t *testing.T) {
		f := newFixture(t, true)
		kid := f.clusterSigns()
		ccoctl := f.ccoctlIssuer([]string{kid})
		f.tokensCarry(ccoctl.url)
		f.request("unregistered", "apps", "sa")
		if err := f.sync("unregistered"); err != nil {
			t.Fatal(err)
		}
		// The role is made, trusting the published issuer, while IAM lacks
		// the one the tokens carry.
		f.wantTrust("unregistered", iamrole.Provider{ARN: f.providerARN, HostPath: f.hostPath})
		f.wantCondition("unregistered", podidentityv1alpha1.ConditionTokensAccepted, metav1.ConditionFalse, podidentityv1alpha1.ReasonOIDCProviderNotRegistered,
			"aws iam create-open-id-connect-provider --url "+ccoctl.url+" --client-id-list "+testAudience)
		f.wantRetry(waitingRecheck)
	})
	t.Run("audience not registered", func(t *testing.T) {
		f := newFixture(t, true)
		kid := f.clusterSigns()
		ccoctl := f.ccoctlIssuer([]string{kid}, "openshift")
		f.tokensCarry(ccoctl.url)
		f.request("audience", "apps", "sa")
		if err := f.sync("audience"); err != nil {
			t.Fatal(err)
		}
		f.wantCondition("audience", podidentityv1alpha1.ConditionTokensAccepted, metav1.ConditionFalse, podidentityv1alpha1.ReasonAudienceNotRegistered,
			"aws iam add-client-id-to-open-id-connect-provider --open-id-connect-provider-arn "+ccoctl.providerARN+" --client-id "+testAudience)
	})
	t.Run("signing key not published", func(t *testing.T) {
		f := newFixture(t, true)
		kid := f.clusterSigns()
		ccoctl := f.ccoctlIssuer([]string{"some-other-key"}, testAudience)
		f.tokensCarry(ccoctl.url)
		f.request("keys", "apps", "sa")
		if err := f.sync("keys"); err != nil {
			t.Fatal(err)
		}
		f.wantCondition("keys", podidentityv1alpha1.ConditionTokensAccepted, metav1.ConditionFalse, podidentityv1alpha1.ReasonSigningKeysNotPublished, kid, "keys.json")
		f.wantRetry(waitingRecheck)

		// Published once the TTL passes: True.
		ccoctl.set([]string{kid, "some-other-key"}, false)
		f.controller().issuers = issuerReads{}
		if err := f.sync("keys"); err != nil {
			t.Fatal(err)
		}
		f.wantCondition("keys", podidentityv1alpha1.ConditionTokensAccepted, metav1.ConditionTrue, podidentityv1alpha1.ReasonTokensAccepted)
	})
	t.Run("issuer unreachable", func(t *testing.T) {
		f := newFixture(t, true)
		kid := f.clusterSigns()
		ccoctl := f.ccoctlIssuer([]string{kid}, testAudience)
		ccoctl.set(nil, true)
		f.tokensCarry(ccoctl.url)
		f.request("gone", "apps", "sa")
		if err := f.sync("gone"); err != nil {
			t.Fatal(err)
		}
		f.wantCondition("gone", podidentityv1alpha1.ConditionTokensAccepted, metav1.ConditionFalse, podidentityv1alpha1.ReasonIssuerUnreachable, "404")
	})
	t.Run("no role", func(t *testing.T) {
		f := newFixture(t, false)
		f.request("none", "apps", "sa")
		if err := f.sync("none"); err != nil {
			t.Fatal(err)
		}
		f.wantCondition("none", podidentityv1alpha1.ConditionTokensAccepted, metav1.ConditionFalse, podidentityv1alpha1.ReasonRoleNotProvisioned)
	})
}

// settableClock is a clock.PassiveClock a test sets.
type settableClock struct{ now time.Time }

func (c *settableClock) Now() time.Time                  { return c.now }
func (c *settableClock) Since(t time.Time) time.Duration { return c.now.Sub(t) }

// A trust move IAM refuses (the grant, throttling that lasts) leaves the
// role trusting the old issuer: TokensAccepted must not keep saying True.
func TestARefusedTrustMoveIsNotTokensAccepted(t *testing.T) {
	f := newFixture(t, true)
	kid := f.clusterSigns()
	ccoctl := f.ccoctlIssuer([]string{kid}, testAudience)
	f.tokensCarry(ccoctl.url)
	f.request("stuck", "apps", "sa")
	if err := f.sync("stuck"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("stuck", podidentityv1alpha1.ConditionTokensAccepted, metav1.ConditionTrue, podidentityv1alpha1.ReasonTokensAccepted)

	// The cluster's issuer moves to the published one, and IAM now allows
	// the operator's keys only reads.
	f.tokensCarry(f.issuerURL)
	f.useKeys(f.user("mover", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:GetRole","iam:GetRolePolicy","iam:GetOpenIDConnectProvider"],"Resource":"*"}]}`))
	_ = f.sync("stuck")
	f.wantCondition("stuck", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonAccessDenied, "UpdateAssumeRolePolicy")
	f.wantCondition("stuck", podidentityv1alpha1.ConditionTokensAccepted, metav1.ConditionFalse, podidentityv1alpha1.ReasonRoleNotProvisioned, "still names other issuers")
	f.wantTrust("stuck", iamrole.Provider{ARN: ccoctl.providerARN, HostPath: ccoctl.hostPath})
}
