package issuer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzSigningKeys builds the documents from a ConfigMap of up to two
// entries. It never panics; it either refuses with an error that names a
// ConfigMap key and quotes none of its data, or returns documents that round
// trip: every JWK decodes back to a public key whose recomputed key ID is its
// "kid", the key IDs are sorted and unique, the same keys under other names
// give the same bytes, and the discovery document announces exactly the
// algorithms of the keys.
func FuzzSigningKeys(f *testing.F) {
	for _, name := range []string{"rsa2048.pub.pem", "rsa2048.pkcs1.pem", "rsa2048.cert.pem", "ec256.pub.pem", "ec384.pub.pem", "ec521.pub.pem", "ec224.pub.pem", "ed25519.pub.pem"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add("service-account-001.pub", string(data), "", "")
		f.Add("a", string(data), "b", string(data))
	}
	f.Fuzz(func(t *testing.T, name1, value1, name2, value2 string) {
		data := map[string]string{name1: value1}
		if name2 != "" {
			data[name2] = value2
		}
		docs, err := BuildFromConfigMap(issuerURL, data)
		if err != nil {
			checkRefusal(t, data, err)
			return
		}
		checkRoundTrip(t, docs)

		// The names of the entries do not matter, only the keys.
		renamed := map[string]string{"x": strings.Join(valuesOf(data), "\n")}
		again, err := BuildFromConfigMap(issuerURL, renamed)
		if err != nil {
			t.Fatalf("the same keys in one entry were refused: %v", err)
		}
		if string(again.JWKS) != string(docs.JWKS) || string(again.Discovery) != string(docs.Discovery) {
			t.Fatalf("the same keys gave other bytes:\n%s\n%s", docs.JWKS, again.JWKS)
		}
	})
}

func valuesOf(data map[string]string) []string {
	names := make([]string, 0, len(data))
	for name := range data {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]string, 0, len(names))
	for _, name := range names {
		out = append(out, data[name])
	}
	return out
}

func checkRefusal(t *testing.T, data map[string]string, err error) {
	t.Helper()
	message := err.Error()
	named := ""
	for name := range data {
		if strings.HasPrefix(message, fmt.Sprintf("signing key %q: ", name)) {
			named = name
		}
	}
	if named == "" {
		t.Fatalf("the error names no ConfigMap key: %q", message)
	}
	// What follows the name is ours: it may not quote the data.
	rest := strings.TrimPrefix(message, fmt.Sprintf("signing key %q: ", named))
	for _, value := range data {
		for _, line := range strings.Split(value, "\n") {
			if len(line) >= 24 && strings.Contains(rest, line) {
				t.Fatalf("the error quotes the ConfigMap's data: %q", message)
			}
		}
	}
}

func checkRoundTrip(t *testing.T, docs *Documents) {
	t.Helper()
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.Unmarshal(docs.JWKS, &set); err != nil {
		t.Fatalf("keys.json does not parse: %v", err)
	}
	if len(set.Keys) == 0 || len(set.Keys) != len(docs.KeyIDs) {
		t.Fatalf("%d keys for key IDs %v", len(set.Keys), docs.KeyIDs)
	}
	if !slices.IsSorted(docs.KeyIDs) || len(slices.Compact(slices.Clone(docs.KeyIDs))) != len(docs.KeyIDs) {
		t.Fatalf("key IDs not sorted and unique: %v", docs.KeyIDs)
	}
	var algorithms []string
	for i, k := range set.Keys {
		public := decodeJWK(t, k)
		id, err := KeyID(public)
		if err != nil {
			t.Fatal(err)
		}
		if id != k["kid"] || id != docs.KeyIDs[i] || k["use"] != "sig" {
			t.Fatalf("JWK %v: recomputed kid %s, KeyIDs[%d] %s", k, id, i, docs.KeyIDs[i])
		}
		algorithms = append(algorithms, k["alg"])
	}
	slices.Sort(algorithms)
	var d parsedDiscovery
	if err := json.Unmarshal(docs.Discovery, &d); err != nil {
		t.Fatalf("discovery does not parse: %v", err)
	}
	if d.Issuer != issuerURL || d.JWKSURI != issuerURL+"/keys.json" || !slices.Equal(d.SigningAlgorithms, slices.Compact(algorithms)) {
		t.Fatalf("discovery %s for algorithms %v", docs.Discovery, algorithms)
	}
}

func decodeJWK(t *testing.T, k map[string]string) any {
	t.Helper()
	b64 := func(field string) []byte {
		out, err := base64.RawURLEncoding.DecodeString(k[field])
		if err != nil {
			t.Fatalf("JWK %s %q: %v", field, k[field], err)
		}
		return out
	}
	switch k["kty"] {
	case "RSA":
		if k["alg"] != "RS256" {
			t.Fatalf("RSA key with alg %q", k["alg"])
		}
		return &rsa.PublicKey{N: new(big.Int).SetBytes(b64("n")), E: int(new(big.Int).SetBytes(b64("e")).Int64())}
	case "EC":
		curves := map[string]struct {
			curve elliptic.Curve
			alg   string
		}{"P-256": {elliptic.P256(), "ES256"}, "P-384": {elliptic.P384(), "ES384"}, "P-521": {elliptic.P521(), "ES512"}}
		c, ok := curves[k["crv"]]
		if !ok || c.alg != k["alg"] {
			t.Fatalf("EC key crv %q alg %q", k["crv"], k["alg"])
		}
		x, y := b64("x"), b64("y")
		size := (c.curve.Params().BitSize + 7) / 8
		if len(x) != size || len(y) != size {
			t.Fatalf("EC coordinates of %d and %d bytes, want %d", len(x), len(y), size)
		}
		public, err := ecdsa.ParseUncompressedPublicKey(c.curve, append(append([]byte{4}, x...), y...))
		if err != nil {
			t.Fatalf("EC point does not decode: %v", err)
		}
		return public
	}
	t.Fatalf("JWK kty %q", k["kty"])
	return nil
}

// What an issuer serves is read by the IAMRoleRequest controller to judge
// TokensAccepted: any bytes are an answer or a refusal, never a panic, and
// an answer is what the bytes say.
func FuzzReadIssuerDocuments(f *testing.F) {
	f.Add([]byte(`{"issuer":"https://i.example/b","jwks_uri":"https://i.example/b/keys.json"}`), []byte(`{"keys":[{"kid":"a"},{"kid":"b"}]}`))
	f.Add([]byte(`{"issuer":null}`), []byte(`{"keys":[{}]}`))
	f.Add([]byte(`[]`), []byte(`{"keys":null}`))
	f.Fuzz(func(t *testing.T, discovery, jwks []byte) {
		if uri, err := ReadDiscovery(discovery, "https://i.example/b"); err == nil {
			if !strings.HasPrefix(uri, "https://") {
				t.Errorf("accepted jwks_uri %q", uri)
			}
		}
		ids, err := ReadKeyIDs(jwks)
		if err != nil {
			return
		}
		for i, id := range ids {
			if id == "" || (i > 0 && ids[i-1] >= id) {
				t.Errorf("key IDs not sorted, unique and non-empty: %q", ids)
			}
		}
	})
}
