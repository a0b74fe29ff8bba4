// Package issuer builds the two documents that make a service account
// issuer discoverable over OIDC: the JSON Web Key Set (keys.json) of every
// key the API server verifies service account tokens with, and the discovery
// document (.well-known/openid-configuration) that points to it. It is pure:
// ConfigMap data in, bytes out, the same bytes for the same keys.
package issuer

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// SigningCertsNamespace and SigningCertsConfigMap hold the public keys
// kube-apiserver verifies service account tokens with, written by the
// kube-apiserver operator: what the issuer publishes, and what an issuer
// must serve for STS to accept the cluster's tokens.
const (
	SigningCertsNamespace = "openshift-kube-apiserver"
	SigningCertsConfigMap = "bound-sa-token-signing-certs"
)

// Object keys of the two documents, relative to the issuer URL.
const (
	KeysPath      = "keys.json"
	DiscoveryPath = ".well-known/openid-configuration"
)

// Key is one public key the API server verifies tokens with.
type Key struct {
	// ID is the "kid" the API server puts in the tokens it signs:
	// base64url (no padding) of the SHA-256 of the DER PKIX public key.
	ID string
	// Algorithm is the JWS algorithm the key signs with: RS256, ES256,
	// ES384 or ES512.
	Algorithm string
	Public    crypto.PublicKey
}

// Documents are what the issuer publishes.
type Documents struct {
	// KeyIDs are the key IDs in JWKS, sorted.
	KeyIDs []string
	// JWKS is keys.json.
	JWKS []byte
	// Discovery is .well-known/openid-configuration.
	Discovery []byte
}

// SigningKeys parses ConfigMap data in which every value holds one or more
// PEM public keys, as kube-apiserver-operator writes
// openshift-kube-apiserver/bound-sa-token-signing-certs: "PUBLIC KEY"
// (PKIX) blocks, and also "RSA PUBLIC KEY" (PKCS#1) blocks and certificates,
// which kube-apiserver accepts too. RSA and ECDSA P-256, P-384 and P-521
// keys are supported. Anything else (a private key, another block type or
// key type, a block that does not decode, a value without a key) is refused
// with an error naming the ConfigMap key and never quoting its data. The
// result is deduplicated and sorted by key ID.
func SigningKeys(data map[string]string) ([]Key, error) {
	names := make([]string, 0, len(data))
	for name := range data {
		names = append(names, name)
	}
	slices.Sort(names)
	byID := map[string]Key{}
	for _, name := range names {
		keys, err := parseValue(data[name])
		if err != nil {
			return nil, fmt.Errorf("signing key %q: %w", name, err)
		}
		for _, key := range keys {
			byID[key.ID] = key
		}
	}
	if len(byID) == 0 {
		return nil, errors.New("no signing key: the ConfigMap has no data")
	}
	out := make([]Key, 0, len(byID))
	for _, key := range byID {
		out = append(out, key)
	}
	slices.SortFunc(out, func(a, b Key) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Build returns the documents for issuerURL (exactly the "iss" of the
// tokens, which is why it is not normalised) publishing keys.
func Build(issuerURL string, keys []Key) (*Documents, error) {
	if issuerURL == "" {
		return nil, errors.New("no issuer URL")
	}
	if len(keys) == 0 {
		return nil, errors.New("no signing key to publish")
	}
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, func(a, b Key) int { return strings.Compare(a.ID, b.ID) })
	sorted = slices.CompactFunc(sorted, func(a, b Key) bool { return a.ID == b.ID })

	set := jwks{Keys: make([]jwk, 0, len(sorted))}
	ids := make([]string, 0, len(sorted))
	var algorithms []string
	for _, key := range sorted {
		k, err := toJWK(key)
		if err != nil {
			return nil, err
		}
		set.Keys = append(set.Keys, k)
		ids = append(ids, key.ID)
		algorithms = append(algorithms, key.Algorithm)
	}
	slices.Sort(algorithms)
	jwksBytes, err := marshal(set)
	if err != nil {
		return nil, err
	}
	discoveryBytes, err := marshal(discovery{
		Issuer:            issuerURL,
		JWKSURI:           strings.TrimSuffix(issuerURL, "/") + "/" + KeysPath,
		ResponseTypes:     []string{"id_token"},
		SubjectTypes:      []string{"public"},
		SigningAlgorithms: slices.Compact(algorithms),
		ClaimsSupported:   []string{"sub", "iss"},
	})
	if err != nil {
		return nil, err
	}
	return &Documents{KeyIDs: ids, JWKS: jwksBytes, Discovery: discoveryBytes}, nil
}

// BuildFromConfigMap is SigningKeys then Build.
func BuildFromConfigMap(issuerURL string, data map[string]string) (*Documents, error) {
	keys, err := SigningKeys(data)
	if err != nil {
		return nil, err
	}
	return Build(issuerURL, keys)
}

// KeyID is the key ID kube-apiserver gives a public key.
func KeyID(public crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(public)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

func parseValue(value string) ([]Key, error) {
	rest := []byte(value)
	var keys []Key
	for n := 1; ; n++ {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		key, err := parseBlock(block)
		if err != nil {
			return nil, fmt.Errorf("PEM block %d: %w", n, err)
		}
		keys = append(keys, key)
	}
	// pem.Decode skips text it cannot decode, including a damaged block;
	// publishing the rest would silently drop a key.
	if strings.Contains(string(rest), "-----BEGIN") {
		return nil, fmt.Errorf("PEM block %d does not decode", len(keys)+1)
	}
	if len(keys) == 0 {
		return nil, errors.New("no PEM public key")
	}
	return keys, nil
}

func parseBlock(block *pem.Block) (Key, error) {
	var public crypto.PublicKey
	var err error
	switch block.Type {
	case "PUBLIC KEY":
		public, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		public, err = x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		var cert *x509.Certificate
		if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
			public = cert.PublicKey
		}
	default:
		typ := block.Type
		if len(typ) > 40 {
			typ = typ[:40] + "..."
		}
		if strings.Contains(typ, "PRIVATE KEY") {
			return Key{}, fmt.Errorf("is a %q block: only public keys may be published", typ)
		}
		return Key{}, fmt.Errorf("type %q is not PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE", typ)
	}
	if err != nil {
		return Key{}, fmt.Errorf("%s does not parse: %w", block.Type, err)
	}
	algorithm, err := algorithmOf(public)
	if err != nil {
		return Key{}, err
	}
	id, err := KeyID(public)
	if err != nil {
		return Key{}, err
	}
	return Key{ID: id, Algorithm: algorithm, Public: public}, nil
}

// algorithmOf is the JWS algorithm kube-apiserver signs with for the key.
func algorithmOf(public crypto.PublicKey) (string, error) {
	switch k := public.(type) {
	case *rsa.PublicKey:
		return "RS256", nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return "ES256", nil
		case elliptic.P384():
			return "ES384", nil
		case elliptic.P521():
			return "ES512", nil
		}
		return "", fmt.Errorf("ECDSA curve %s is not P-256, P-384 or P-521", k.Curve.Params().Name)
	}
	return "", fmt.Errorf("%T is not an RSA or ECDSA key", public)
}

type jwks struct {
	Keys []jwk `json:"keys"`
}

// jwk is one key of RFC 7517 (RFC 7518 section 6 for the parameters).
type jwk struct {
	Use string `json:"use"`
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Alg string `json:"alg"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
	Crv string `json:"crv,omitempty"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`
}

func toJWK(key Key) (jwk, error) {
	out := jwk{Use: "sig", Kid: key.ID, Alg: key.Algorithm}
	switch k := key.Public.(type) {
	case *rsa.PublicKey:
		out.Kty = "RSA"
		out.N = base64.RawURLEncoding.EncodeToString(k.N.Bytes())
		out.E = base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes())
	case *ecdsa.PublicKey:
		// Uncompressed point 0x04 || X || Y, each coordinate padded to the
		// curve's size, as RFC 7518 requires of "x" and "y".
		point, err := k.Bytes()
		if err != nil {
			return jwk{}, fmt.Errorf("key %s: %w", key.ID, err)
		}
		size := (len(point) - 1) / 2
		out.Kty = "EC"
		out.Crv = k.Curve.Params().Name
		out.X = base64.RawURLEncoding.EncodeToString(point[1 : 1+size])
		out.Y = base64.RawURLEncoding.EncodeToString(point[1+size:])
	default:
		return jwk{}, fmt.Errorf("key %s: %T is not an RSA or ECDSA key", key.ID, key.Public)
	}
	return out, nil
}

// discovery is the OpenID Provider Metadata (OIDC Discovery 1.0, section
// 3) as kube-apiserver serves it at /.well-known/openid-configuration (no
// authorization endpoint: tokens come from the TokenRequest API), with the
// claims every service account token carries.
type discovery struct {
	Issuer            string   `json:"issuer"`
	JWKSURI           string   `json:"jwks_uri"`
	ResponseTypes     []string `json:"response_types_supported"`
	SubjectTypes      []string `json:"subject_types_supported"`
	SigningAlgorithms []string `json:"id_token_signing_alg_values_supported"`
	ClaimsSupported   []string `json:"claims_supported"`
}

// marshal is indented JSON with a final newline: readable with curl, and
// the same bytes (so the same ETag) for the same content.
func marshal(v any) ([]byte, error) {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
