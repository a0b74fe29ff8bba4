package stschain

import (
	"context"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuerpublisher"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// ccoctlBucket holds an issuer published the way ccoctl publishes an
// STS-mode cluster's: its own bucket, documents written by the installer's
// side (here, the test), registered in IAM by the admin.
const ccoctlBucket = "stschain-ccoctl-oidc"

func ccoctlIssuerURL() string { return env.front.URL + "/" + ccoctlBucket }

// kubernetesDefaultIssuer is what kube-apiserver signs for when the cluster
// names no issuer (a mint-mode cluster before the day-2 change).
const kubernetesDefaultIssuer = "https://kubernetes.default.svc"

// publishLikeCCOctl writes the discovery document and the JWKS of the
// cluster's signing keys (as ccoctl does from the key pair it makes for
// the installer) into ccoctlBucket, readable by anyone, and registers the
// issuer as an IAM OIDC provider.
func publishLikeCCOctl(ctx context.Context, t *testing.T) string {
	t.Helper()
	cm, err := env.kube.CoreV1().ConfigMaps(issuerpublisher.SigningCertsNamespace).Get(ctx, issuerpublisher.SigningCertsConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jwks := struct {
		Keys []map[string]string `json:"keys"`
	}{Keys: []map[string]string{}}
	for name, value := range cm.Data {
		block, _ := pem.Decode([]byte(value))
		if block == nil {
			t.Fatalf("signing key %s: no PEM block", name)
		}
		public, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			t.Fatalf("signing key %s: %v", name, err)
		}
		key, ok := public.(*rsa.PublicKey)
		if !ok {
			t.Fatalf("signing key %s is a %T; the test publishes RSA keys", name, public)
		}
		sum := sha256.Sum256(block.Bytes)
		jwks.Keys = append(jwks.Keys, map[string]string{
			"kty": "RSA", "alg": "RS256", "use": "sig",
			"kid": base64.RawURLEncoding.EncodeToString(sum[:]),
			"n":   base64.RawURLEncoding.EncodeToString(key.N.Bytes()),
			"e":   base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes()),
		})
	}
	keysJSON, err := json.Marshal(jwks)
	if err != nil {
		t.Fatal(err)
	}
	discovery := fmt.Sprintf(`{"issuer":%q,"jwks_uri":%q,"response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256"]}`,
		ccoctlIssuerURL(), ccoctlIssuerURL()+"/keys.json")
	if _, err := env.s3Client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(ccoctlBucket)}); err != nil {
		t.Fatal(err)
	}
	for key, body := range map[string]string{".well-known/openid-configuration": discovery, "keys.json": string(keysJSON)} {
		if _, err := env.s3Client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(ccoctlBucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}
	policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":["s3:GetObject"],"Resource":["arn:aws:s3:::%s/*"]}]}`, ccoctlBucket)
	if _, err := env.s3Client.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(ccoctlBucket), Policy: aws.String(policy)}); err != nil {
		t.Fatal(err)
	}
	provider, err := env.iam.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(ccoctlIssuerURL()), ClientIDList: []string{stsAudience}, ThumbprintList: []string{env.front.Thumbprint},
	})
	if err != nil {
		t.Fatalf("registering ccoctl's issuer: %v", err)
	}
	return aws.ToString(provider.OpenIDConnectProviderArn)
}

// moveClusterIssuer does what the kube-apiserver operator does when
// Authentication/cluster names another issuer: kube-apiserver signs for the
// first of issuers and still accepts the others; then Authentication says
// so ("" names none).
func moveClusterIssuer(ctx context.Context, t *testing.T, authIssuer string, issuers ...string) {
	t.Helper()
	if err := env.cp.SetServiceAccountIssuers(ctx, "issuer-"+strings.ReplaceAll(strings.TrimPrefix(issuers[0], "https://"), "/", "_"), issuers...); err != nil {
		t.Fatal(err)
	}
	config := configclient.NewForConfigOrDie(env.cp.Config)
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		auth, err := config.ConfigV1().Authentications().Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return err
		}
		auth.Spec.ServiceAccountIssuer = authIssuer
		_, err = config.ConfigV1().Authentications().Update(ctx, auth, metav1.UpdateOptions{})
		return err
	})
}

// waitTokensAccepted waits for the request's TokensAccepted to be status
// with reason and a message saying each of messageHas (the operator may
// judge the request once more before its informer sees the new
// Authentication), and returns it.
func waitTokensAccepted(t *testing.T, name string, status metav1.ConditionStatus, reason string, messageHas ...string) metav1.Condition {
	t.Helper()
	var got metav1.Condition
	framework.Eventually(t, 2*time.Minute, func(ctx context.Context) error {
		request, err := env.operator.PodIdentityV1alpha1().IAMRoleRequests().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c := meta.FindStatusCondition(request.Status.Conditions, podidentityv1alpha1.ConditionTokensAccepted)
		if c == nil || c.Status != status || c.Reason != reason {
			return fmt.Errorf("want TokensAccepted=%s %s: %s", status, reason, describeConditions(request.Status.Conditions))
		}
		for _, part := range messageHas {
			if !strings.Contains(c.Message, part) {
				return fmt.Errorf("want TokensAccepted=%s %s saying %q: %s", status, reason, part, describeConditions(request.Status.Conditions))
			}
		}
		got = *c
		return nil
	})
	return got
}

// podCredentials runs a new pod of ns/serviceAccount and returns what the
// AWS SDK's default chain got, after checking its token's iss.
func podCredentials(t *testing.T, ns, serviceAccount, wantIssuer string) *podResult {
	t.Helper()
	pod := mount(t, createPodOf(t, ns, serviceAccount))
	token := pod.Tokens[envValue(pod.Env, "AWS_WEB_IDENTITY_TOKEN_FILE")]
	if iss := tokenIssuer(t, token); iss != wantIssuer {
		t.Fatalf("the pod's token carries iss %q, want %q", iss, wantIssuer)
	}
	got, err := runWorkload(context.Background(), pod.Root, workloadEnv(pod), requestedBucket+"/"+requestedKey)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func tokenIssuer(t *testing.T, token string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %d parts", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Issuer string `json:"iss"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return claims.Issuer
}

// The two kinds of cluster AWS users run. An STS-mode cluster's tokens
// carry ccoctl's issuer, registered in IAM at install: a request's role
// trusts that issuer, TokensAccepted says so, and a pod's token becomes
// credentials at STS. A mint-mode cluster before the day-2 change signs for
// kubernetes.default.svc: TokensAccepted is False and says how to move the
// issuer, and STS indeed refuses the pod; after the move to the published
// issuer it is True and the pod gets credentials. On 0c036ad8 the role
// trusted only the published issuer, and the request had no TokensAccepted.
func TestRolesTrustTheIssuerTheClustersTokensCarry(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	ccoctlProvider := publishLikeCCOctl(ctx, t)
	// Whatever happens, the cluster ends signing for the published issuer,
	// as the package's other tests expect, still accepting the others.
	t.Cleanup(func() {
		if err := env.cp.SetServiceAccountIssuers(context.Background(), "issuer-restored", issuerURL(), ccoctlIssuerURL(), kubernetesDefaultIssuer); err != nil {
			t.Errorf("restoring the issuer: %v", err)
		}
	})

	// STS mode: the cluster signs for ccoctl's issuer.
	moveClusterIssuer(ctx, t, ccoctlIssuerURL(), ccoctlIssuerURL(), issuerURL())
	ns := createNamespace(t)
	request := createRoleRequest(t, ns+"-sts", ns, "app")
	waitForRole(t, request.Name)
	waitTokensAccepted(t, request.Name, metav1.ConditionTrue, podidentityv1alpha1.ReasonTokensAccepted, ccoctlProvider, "carry the issuer "+ccoctlIssuerURL()+" ")
	role, err := readRole(ctx, roleNameFor(request.Name))
	if err != nil {
		t.Fatal(err)
	}
	if want := trustFrom(ccoctlProvider, ns, "app"); !reflect.DeepEqual(role.Trust, want) {
		t.Fatalf("on an STS-mode cluster the role's trust policy is\n%s\nwant\n%s", role.Trust, want)
	}
	got := podCredentials(t, ns, "app", ccoctlIssuerURL())
	if got.CredentialError != nil || got.CredentialSource != stscreds.WebIdentityProviderName {
		t.Fatalf("STS-mode pod: credentials from %q, error %v; want them from %s", got.CredentialSource, got.CredentialError, stscreds.WebIdentityProviderName)
	}
	if obj := got.Objects[requestedBucket+"/"+requestedKey]; obj.Error != nil || obj.Body != requestedBody {
		t.Errorf("STS-mode pod: GetObject: %q, %v", obj.Body, obj.Error)
	}

	// Mint mode before the day-2 change: no issuer named.
	moveClusterIssuer(ctx, t, "", kubernetesDefaultIssuer, ccoctlIssuerURL(), issuerURL())
	refused := waitTokensAccepted(t, request.Name, metav1.ConditionFalse, podidentityv1alpha1.ReasonClusterIssuerNotPublic)
	if want := `"serviceAccountIssuer":"` + issuerURL() + `"`; !strings.Contains(refused.Message, want) {
		t.Errorf("ClusterIssuerNotPublic does not give the command with %s: %q", want, refused.Message)
	}
	got = podCredentials(t, ns, "app", kubernetesDefaultIssuer)
	if got.CredentialError == nil {
		t.Fatalf("before the day-2 change STS accepted a token of %s, which the condition said it refuses", kubernetesDefaultIssuer)
	}

	// The day-2 change: the cluster signs for the published issuer.
	moveClusterIssuer(ctx, t, issuerURL(), issuerURL(), ccoctlIssuerURL(), kubernetesDefaultIssuer)
	waitTokensAccepted(t, request.Name, metav1.ConditionTrue, podidentityv1alpha1.ReasonTokensAccepted, "carry the issuer "+issuerURL()+" ")
	got = podCredentials(t, ns, "app", issuerURL())
	if got.CredentialError != nil || got.CredentialSource != stscreds.WebIdentityProviderName {
		t.Fatalf("after the day-2 change: credentials from %q, error %v", got.CredentialSource, got.CredentialError)
	}
	role, err = readRole(ctx, roleNameFor(request.Name))
	if err != nil {
		t.Fatal(err)
	}
	if want := expectedTrust(ns, "app"); !reflect.DeepEqual(role.Trust, want) {
		t.Errorf("after the day-2 change the role's trust policy is\n%s\nwant\n%s", role.Trust, want)
	}
}

// trustFrom is the contract's trust policy for a ServiceAccount through
// the provider of arn.
func trustFrom(arn, ns, serviceAccount string) policyDocument {
	hostPath := arn[strings.Index(arn, ":oidc-provider/")+len(":oidc-provider/"):]
	return policyDocument{Version: "2012-10-17", Statement: []statement{{
		Effect:    "Allow",
		Principal: map[string]stringList{"Federated": {arn}},
		Action:    stringList{"sts:AssumeRoleWithWebIdentity"},
		Condition: map[string]map[string]stringList{"StringEquals": {
			hostPath + ":sub": {"system:serviceaccount:" + ns + ":" + serviceAccount},
			hostPath + ":aud": {stsAudience},
		}},
	}}}
}
