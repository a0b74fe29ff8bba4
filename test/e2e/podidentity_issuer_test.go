package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuerpublisher"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

const (
	issuerCredentialsSecret = issuerpublisher.CredentialsSecret
	discoveryKey            = ".well-known/openid-configuration"
	keysKey                 = "keys.json"
	stsAudience             = "sts.amazonaws.com"
)

// signingCerts writes the kube-apiserver operator's ConfigMap of trusted
// service account keys, as PEM files by name.
func signingCerts(t *testing.T, keys map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	_, err := env.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: issuerpublisher.SigningCertsNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	data := map[string]string{}
	for name, pemBytes := range keys {
		data[name] = string(pemBytes)
	}
	cms := env.kube.CoreV1().ConfigMaps(issuerpublisher.SigningCertsNamespace)
	cm, err := cms.Get(ctx, issuerpublisher.SigningCertsConfigMap, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: issuerpublisher.SigningCertsConfigMap}, Data: data}, metav1.CreateOptions{})
	case err == nil:
		cm.Data = data
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// touchSigningCerts changes the ConfigMap without changing its keys, which
// makes the publisher sync.
func touchSigningCerts(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	cms := env.kube.CoreV1().ConfigMaps(issuerpublisher.SigningCertsNamespace)
	cm, err := cms.Get(ctx, issuerpublisher.SigningCertsConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations["e2e/touched"] = time.Now().Format(time.RFC3339Nano)
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// apiServerKey is the control plane's own service account public key.
func apiServerKey(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(env.cp.ServiceAccountPublicKeyFile())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keyID is the kid kube-apiserver gives a key: base64url(SHA-256(DER)).
func keyID(t *testing.T, public any) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(public)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func pemKeyID(t *testing.T, pemBytes []byte) string {
	t.Helper()
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		t.Fatal("no PEM block")
	}
	public, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return keyID(t, public)
}

// waitPublished waits until status.podIdentity lists exactly kids and the
// publisher reports nothing in progress and nothing degraded.
func waitPublished(t *testing.T, timeout time.Duration, kids ...string) {
	t.Helper()
	slices.Sort(kids)
	framework.Eventually(t, timeout, func(ctx context.Context) error {
		wa, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Get(ctx, operatorv1alpha1.WorkloadAccessName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		got := wa.Status.PodIdentity
		if got.IssuerURL != issuerURL() || !slices.Equal(got.PublishedKeyIDs, kids) {
			return fmt.Errorf("status.podIdentity %+v, want issuer %s and keys %v", got, issuerURL(), kids)
		}
		for _, c := range []struct{ condition, want string }{
			{issuerpublisher.ControllerName + "Progressing", "False"},
			{issuerpublisher.ControllerName + "Degraded", "False"},
			{issuerpublisher.PodIdentityEnabled, "True"},
			{issuerpublisher.ServiceAccountIssuerMatches, "True"},
		} {
			cond, err := operatorCondition(ctx, c.condition)
			if err != nil {
				return err
			}
			if string(cond.Status) != c.want {
				return fmt.Errorf("%s is %s (%s: %s), want %s", c.condition, cond.Status, cond.Reason, cond.Message, c.want)
			}
		}
		return nil
	})
}

// serviceAccountToken is a token the API server signs for a pod's
// ServiceAccount, with STS as audience, as the projected volume holds.
func serviceAccountToken(t *testing.T) (token, subject string) {
	t.Helper()
	ns := testNamespace(t, "issuer-")
	createServiceAccount(t, ns, "reader", nil)
	tr, err := env.kube.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), "reader", &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{Audiences: []string{stsAudience}, ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token, "system:serviceaccount:" + ns + ":reader"
}

// verify checks token the way STS does: discover the issuer anonymously,
// fetch its keys, check signature, issuer, audience and expiry.
func verify(ctx context.Context, token string) (*oidc.IDToken, error) {
	provider, err := oidc.NewProvider(ctx, issuerURL())
	if err != nil {
		return nil, fmt.Errorf("discovering %s: %w", issuerURL(), err)
	}
	return provider.Verifier(&oidc.Config{ClientID: stsAudience, SupportedSigningAlgs: []string{"RS256", "ES256"}}).Verify(ctx, token)
}

// The operator publishes the issuer to a real S3 server; anyone can read
// both documents; a real OIDC client verifies a token the API server signed
// for a ServiceAccount; a key added to the ConfigMap is published within
// seconds and verifies, the old one staying trusted; and nothing is
// uploaded when nothing changed.
func TestIssuerIsPublishedAndVerifiable(t *testing.T) {
	dumpOnFailure(t)
	apiKey := apiServerKey(t)
	signingCerts(t, map[string][]byte{"service-account-001.pub": apiKey})
	waitPublished(t, time.Minute, pemKeyID(t, apiKey))

	ctx := context.Background()
	for _, key := range []string{discoveryKey, keysKey} {
		got, err := env.s3.AnonymousGet(ctx, issuerBucket, key)
		if err != nil || got.Status != 200 || got.ContentType != "application/json" {
			t.Fatalf("anonymous GET %s: %v %v", key, got, err)
		}
	}
	discovery, _ := env.s3.AnonymousGet(ctx, issuerBucket, discoveryKey)
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.Unmarshal(discovery.Body, &doc); err != nil || doc.Issuer != issuerURL() || doc.JWKSURI != issuerURL()+"/keys.json" {
		t.Fatalf("discovery document %s (%v)", discovery.Body, err)
	}

	apiToken, subject := serviceAccountToken(t)
	idToken, err := verify(ctx, apiToken)
	if err != nil {
		t.Fatalf("a token the API server signed does not verify against the published issuer: %v", err)
	}
	if idToken.Subject != subject {
		t.Errorf("subject %q, want %q", idToken.Subject, subject)
	}

	// Nothing changed: a sync uploads nothing (the files' modification
	// times, kept by the posix backend, stay).
	keysFile := filepath.Join(env.s3.DataDir, issuerBucket, keysKey)
	discoveryFile := filepath.Join(env.s3.DataDir, issuerBucket, ".well-known", "openid-configuration")
	before := modTimes(t, keysFile, discoveryFile)
	touchSigningCerts(t)
	time.Sleep(3 * time.Second)
	if after := modTimes(t, keysFile, discoveryFile); !slices.Equal(before, after) {
		t.Errorf("an unchanged key set was uploaded again: modification times %v -> %v", before, after)
	}

	// Rotation: a new ECDSA key joins; a token it signs verifies within
	// seconds, and the API server's tokens still do.
	newKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&newKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	newPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	rotated := time.Now()
	signingCerts(t, map[string][]byte{"service-account-001.pub": apiKey, "service-account-002.pub": newPEM})
	waitPublished(t, 30*time.Second, pemKeyID(t, apiKey), keyID(t, &newKey.PublicKey))
	t.Logf("the rotated key set was published %s after the ConfigMap changed", time.Since(rotated).Round(100*time.Millisecond))

	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: newKey},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", keyID(t, &newKey.PublicKey)))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	newToken, err := jwt.Signed(signer).Claims(jwt.Claims{
		Issuer: issuerURL(), Subject: subject, Audience: jwt.Audience{stsAudience},
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(time.Hour)),
	}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify(ctx, newToken); err != nil {
		t.Errorf("a token signed with the rotated-in key does not verify: %v", err)
	}
	if _, err := verify(ctx, apiToken); err != nil {
		t.Errorf("the API server's token stopped verifying after the rotation: %v", err)
	}
}

func modTimes(t *testing.T, paths ...string) []time.Time {
	t.Helper()
	var out []time.Time
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, st.ModTime())
	}
	return out
}

// An S3 outage shows in the conditions, claims nothing as published, and
// ends by itself once S3 is back; drift is repaired by the periodic resync.
func TestIssuerPublisherRecoversFromAnS3OutageAndRepairsDrift(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	apiKey := apiServerKey(t)
	signingCerts(t, map[string][]byte{"service-account-001.pub": apiKey})
	waitPublished(t, time.Minute, pemKeyID(t, apiKey))

	// S3 goes away while a key is added.
	env.s3.Stop()
	t.Cleanup(func() {
		if !env.s3.Running() {
			if err := env.s3.Start(context.Background()); err != nil {
				t.Errorf("restarting the S3 server: %v", err)
			}
		}
	})
	newKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&newKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	signingCerts(t, map[string][]byte{"service-account-001.pub": apiKey, "service-account-002.pub": pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})})
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		cond, err := operatorCondition(ctx, issuerpublisher.ControllerName+"Degraded")
		if err != nil {
			return err
		}
		if cond.Status != "True" {
			return fmt.Errorf("IssuerPublisherDegraded is %s while S3 is down", cond.Status)
		}
		t.Logf("while S3 is down: %s: %s", cond.Reason, cond.Message)
		return nil
	})
	if cond, err := operatorCondition(ctx, issuerpublisher.ControllerName+"Degraded"); err != nil || containsAny(cond.Message, env.s3.SecretAccessKey) {
		t.Errorf("the condition carries the secret key or cannot be read: %v", err)
	}
	wa, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Get(ctx, operatorv1alpha1.WorkloadAccessName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{pemKeyID(t, apiKey)}; !slices.Equal(wa.Status.PodIdentity.PublishedKeyIDs, want) {
		t.Errorf("while S3 is down, status claims keys %v are published, want %v", wa.Status.PodIdentity.PublishedKeyIDs, want)
	}

	if err := env.s3.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitPublished(t, 2*time.Minute, pemKeyID(t, apiKey), keyID(t, &newKey.PublicKey))
	got, err := env.s3.AnonymousGet(ctx, issuerBucket, keysKey)
	if err != nil || !containsAny(string(got.Body), keyID(t, &newKey.PublicKey)) {
		t.Errorf("after recovery keys.json lacks the new key: %v %v", got, err)
	}

	// A document deleted behind the publisher's back comes back on the next
	// sync that reads the bucket back: the periodic resync, or, sooner here,
	// any event (the ConfigMap touched, its keys unchanged).
	if err := os.Remove(filepath.Join(env.s3.DataDir, issuerBucket, ".well-known", "openid-configuration")); err != nil {
		t.Fatal(err)
	}
	deleted, touched := time.Now(), time.Time{}
	framework.Eventually(t, issuerpublisher.ResyncInterval+15*time.Second, func(ctx context.Context) error {
		got, err := env.s3.AnonymousGet(ctx, issuerBucket, discoveryKey)
		if err != nil || got.Status != 200 {
			if time.Since(touched) > 6*time.Second {
				touchSigningCerts(t)
				touched = time.Now()
			}
			return fmt.Errorf("the discovery document was not restored: %v %v", got, err)
		}
		return nil
	})
	t.Logf("the deleted discovery document was restored after %s", time.Since(deleted).Round(time.Second))
}

func containsAny(s string, subs ...string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return sub != "" && strings.Contains(s, sub) })
}
