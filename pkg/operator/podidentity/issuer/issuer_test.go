package issuer

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Key IDs of the fixtures in testdata, computed with openssl, not with this
// package:
//
//	openssl pkey -pubin -in F -outform DER | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '='
//
// (openssl rsa -RSAPublicKey_in -pubout for the PKCS#1 file, openssl x509
// -pubkey for the certificate: the same key, so the same ID.)
const (
	kidRSA  = "BFTCz85m0qmgjoXRBwLrsKCY8XMW_rqdgK4ImIZ5HzE"
	kidRSAB = "sHKFtFCjj3jxDXR47NCo0W1zd5SWCaY81RokDnhcVAs"
	kidP256 = "-0XIzz3eJaLTe3s_tQ-9OY1rVk10dfetxDXWqrXwOR0"
	kidP384 = "f6LPBS50fh3riW6uZtXlJPVj4lfWx74COxZlrRcOepo"
	kidP521 = "NwnllfLMvhLldUDLoBr78OjRY2JUgB-8SJuANwKQOF0"
)

const issuerURL = "https://example-oidc.s3.us-east-2.amazonaws.com"

func fixture(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

type parsedJWKS struct {
	Keys []map[string]string `json:"keys"`
}

type parsedDiscovery struct {
	Issuer            string   `json:"issuer"`
	JWKSURI           string   `json:"jwks_uri"`
	ResponseTypes     []string `json:"response_types_supported"`
	SubjectTypes      []string `json:"subject_types_supported"`
	SigningAlgorithms []string `json:"id_token_signing_alg_values_supported"`
	ClaimsSupported   []string `json:"claims_supported"`
}

func TestBuildFromConfigMap(t *testing.T) {
	for _, tc := range []struct {
		name     string
		data     map[string]string
		wantKIDs []string
		wantAlgs []string
	}{
		{
			name:     "what kube-apiserver-operator writes: one PKIX key per entry",
			data:     map[string]string{"service-account-001.pub": fixture(t, "rsa2048.pub.pem"), "service-account-002.pub": fixture(t, "rsa2048b.pub.pem")},
			wantKIDs: []string{kidRSA, kidRSAB},
			wantAlgs: []string{"RS256"},
		},
		{
			name:     "several keys in one entry",
			data:     map[string]string{"bundle": fixture(t, "rsa2048.pub.pem") + fixture(t, "ec256.pub.pem")},
			wantKIDs: []string{kidP256, kidRSA},
			wantAlgs: []string{"ES256", "RS256"},
		},
		{
			name:     "PKCS#1 and a certificate give the PKIX key's ID, once",
			data:     map[string]string{"pkix": fixture(t, "rsa2048.pub.pem"), "pkcs1": fixture(t, "rsa2048.pkcs1.pem"), "cert": fixture(t, "rsa2048.cert.pem")},
			wantKIDs: []string{kidRSA},
			wantAlgs: []string{"RS256"},
		},
		{
			name:     "every ECDSA curve kube-apiserver signs with",
			data:     map[string]string{"a": fixture(t, "ec256.pub.pem"), "b": fixture(t, "ec384.pub.pem"), "c": fixture(t, "ec521.pub.pem")},
			wantKIDs: []string{kidP256, kidP521, kidP384},
			wantAlgs: []string{"ES256", "ES384", "ES512"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := BuildFromConfigMap(issuerURL, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(tc.wantKIDs)
			slices.Sort(want)
			if !slices.Equal(docs.KeyIDs, want) {
				t.Errorf("KeyIDs %v, want %v", docs.KeyIDs, want)
			}
			var set parsedJWKS
			if err := json.Unmarshal(docs.JWKS, &set); err != nil {
				t.Fatal(err)
			}
			var kids []string
			for _, k := range set.Keys {
				kids = append(kids, k["kid"])
				if k["use"] != "sig" {
					t.Errorf("key %s use %q", k["kid"], k["use"])
				}
			}
			if !slices.Equal(kids, want) {
				t.Errorf("keys.json kids %v, want %v (sorted)", kids, want)
			}
			var d parsedDiscovery
			if err := json.Unmarshal(docs.Discovery, &d); err != nil {
				t.Fatal(err)
			}
			if d.Issuer != issuerURL || d.JWKSURI != issuerURL+"/keys.json" ||
				!slices.Equal(d.ResponseTypes, []string{"id_token"}) || !slices.Equal(d.SubjectTypes, []string{"public"}) ||
				!slices.Equal(d.ClaimsSupported, []string{"sub", "iss"}) || !slices.Equal(d.SigningAlgorithms, tc.wantAlgs) {
				t.Errorf("discovery %s", docs.Discovery)
			}
		})
	}
}

func TestJWKParametersMatchOpenSSL(t *testing.T) {
	docs, err := BuildFromConfigMap(issuerURL, map[string]string{"rsa": fixture(t, "rsa2048.pub.pem"), "p521": fixture(t, "ec521.pub.pem")})
	if err != nil {
		t.Fatal(err)
	}
	var set parsedJWKS
	if err := json.Unmarshal(docs.JWKS, &set); err != nil {
		t.Fatal(err)
	}
	byKID := map[string]map[string]string{}
	for _, k := range set.Keys {
		byKID[k["kid"]] = k
	}

	// openssl rsa -pubin -modulus
	modulus, err := hex.DecodeString(strings.TrimSpace(fixture(t, "rsa2048.modulus.hex")))
	if err != nil {
		t.Fatal(err)
	}
	rsaKey := byKID[kidRSA]
	if rsaKey["kty"] != "RSA" || rsaKey["alg"] != "RS256" || rsaKey["e"] != "AQAB" ||
		rsaKey["n"] != base64.RawURLEncoding.EncodeToString(modulus) {
		t.Errorf("RSA JWK %v", rsaKey)
	}

	// openssl ec -pubin -text: 04 || X || Y. This X starts with a zero byte,
	// which RFC 7518 says must be kept (66 bytes for P-521).
	point, err := hex.DecodeString(strings.TrimSpace(fixture(t, "ec521.point.hex")))
	if err != nil {
		t.Fatal(err)
	}
	ecKey := byKID[kidP521]
	if ecKey["kty"] != "EC" || ecKey["crv"] != "P-521" || ecKey["alg"] != "ES512" ||
		ecKey["x"] != base64.RawURLEncoding.EncodeToString(point[1:67]) ||
		ecKey["y"] != base64.RawURLEncoding.EncodeToString(point[67:]) {
		t.Errorf("P-521 JWK %v", ecKey)
	}
}

func TestOutputIsDeterministic(t *testing.T) {
	a := map[string]string{"x": fixture(t, "rsa2048.pub.pem"), "y": fixture(t, "ec384.pub.pem"), "z": fixture(t, "rsa2048b.pub.pem")}
	b := map[string]string{"renamed": fixture(t, "rsa2048b.pub.pem") + fixture(t, "ec384.pub.pem"), "other": fixture(t, "rsa2048.cert.pem")}
	first, err := BuildFromConfigMap(issuerURL, a)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		again, err := BuildFromConfigMap(issuerURL, b)
		if err != nil {
			t.Fatal(err)
		}
		if string(again.JWKS) != string(first.JWKS) || string(again.Discovery) != string(first.Discovery) {
			t.Fatalf("the same keys gave different bytes:\n%s\n%s", first.JWKS, again.JWKS)
		}
	}
}

func TestRefusals(t *testing.T) {
	ecPrivate, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sec1, err := x509.MarshalECPrivateKey(ecPrivate)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(ecPrivate)
	if err != nil {
		t.Fatal(err)
	}
	edPublic, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	edDER, err := x509.MarshalPKIXPublicKey(edPublic)
	if err != nil {
		t.Fatal(err)
	}
	good := fixture(t, "rsa2048.pub.pem")
	pemOf := func(typ string, der []byte) string {
		return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
	}
	brokenBlock := "-----BEGIN PUBLIC KEY-----\n!!!not base64!!!\n-----END PUBLIC KEY-----\n"

	for _, tc := range []struct {
		name    string
		data    map[string]string
		wantErr string
	}{
		{"empty ConfigMap", map[string]string{}, "no signing key"},
		{"empty value", map[string]string{"ok": good, "service-account-002.pub": ""}, `signing key "service-account-002.pub": no PEM public key`},
		{"not PEM", map[string]string{"k": "ssh-rsa AAAAB3NzaC1yc2E= someone"}, `signing key "k": no PEM public key`},
		{"EC private key", map[string]string{"leak": pemOf("EC PRIVATE KEY", sec1)}, `signing key "leak": PEM block 1: is a "EC PRIVATE KEY" block: only public keys may be published`},
		{"PKCS#8 private key after a good key", map[string]string{"leak": good + pemOf("PRIVATE KEY", pkcs8)}, `signing key "leak": PEM block 2: is a "PRIVATE KEY" block`},
		{"unknown block type", map[string]string{"k": pemOf("CERTIFICATE REQUEST", []byte{1})}, `signing key "k": PEM block 1: type "CERTIFICATE REQUEST" is not`},
		{"garbage DER", map[string]string{"k": pemOf("PUBLIC KEY", []byte("nope"))}, `signing key "k": PEM block 1: PUBLIC KEY does not parse`},
		{"Ed25519", map[string]string{"k": pemOf("PUBLIC KEY", edDER)}, `signing key "k": PEM block 1: ed25519.PublicKey is not an RSA or ECDSA key`},
		{"P-224", map[string]string{"k": fixture(t, "ec224.pub.pem")}, `signing key "k": PEM block 1: ECDSA curve P-224 is not P-256, P-384 or P-521`},
		{"a damaged block after a good one", map[string]string{"k": good + brokenBlock}, `signing key "k": PEM block 2 does not decode`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := BuildFromConfigMap(issuerURL, tc.data)
			if err == nil {
				t.Fatalf("built %s", docs.JWKS)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q, want it to contain %q", err, tc.wantErr)
			}
			for _, value := range tc.data {
				for _, line := range strings.Split(value, "\n") {
					if len(line) > 20 && strings.Contains(err.Error(), line) {
						t.Errorf("the error quotes the ConfigMap's data: %q", err)
					}
				}
			}
		})
	}
}

func TestBuildRefusesNothingToPublish(t *testing.T) {
	if _, err := Build("", []Key{{ID: "a"}}); err == nil {
		t.Error("built without an issuer URL")
	}
	if _, err := Build(issuerURL, nil); err == nil {
		t.Error("built an empty key set: STS would refuse every token")
	}
}

// Where the documents deliberately differ from the enhancement's script
// (docs/admission.md, "The issuer documents"): the discovery document has
// exactly the fields kube-apiserver and ccoctl publish, no
// authorization_endpoint; keys.json has each key once, under the key ID
// kube-apiserver signs with, and no copy with an empty kid.
func TestDocumentsDifferFromTheEnhancementsScript(t *testing.T) {
	docs, err := BuildFromConfigMap(issuerURL, map[string]string{
		"service-account-001.pub": fixture(t, "rsa2048.pub.pem"), "service-account-002.pub": fixture(t, "rsa2048b.pub.pem"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var discovery map[string]json.RawMessage
	if err := json.Unmarshal(docs.Discovery, &discovery); err != nil {
		t.Fatal(err)
	}
	var fields []string
	for field := range discovery {
		fields = append(fields, field)
	}
	slices.Sort(fields)
	if want := []string{"claims_supported", "id_token_signing_alg_values_supported", "issuer", "jwks_uri", "response_types_supported", "subject_types_supported"}; !slices.Equal(fields, want) {
		t.Errorf("discovery fields %v, want %v", fields, want)
	}
	var set parsedJWKS
	if err := json.Unmarshal(docs.JWKS, &set); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, key := range set.Keys {
		if key["kid"] == "" || seen[key["kid"]] || seen[key["n"]] {
			t.Errorf("keys.json has a key with an empty or repeated kid, or a key twice: %s", docs.JWKS)
		}
		seen[key["kid"]], seen[key["n"]] = true, true
	}
	if len(set.Keys) != 2 {
		t.Errorf("%d keys, want 2", len(set.Keys))
	}
}
