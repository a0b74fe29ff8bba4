package stschain

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuerpublisher"
)

// keyIDOfFile is the kid kube-apiserver gives the public key in a PEM file:
// base64url(SHA-256(PKIX DER)).
func keyIDOfFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return "", fmt.Errorf("%s: no PEM block", path)
	}
	if _, err := x509.ParsePKIXPublicKey(block.Bytes); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	sum := sha256.Sum256(block.Bytes)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

func firstKeyID() string {
	kid, err := keyIDOfFile(env.cp.ServiceAccountPublicKeyFile())
	if err != nil {
		panic(err) // written by the control plane a moment ago
	}
	return kid
}

// tokenKeyID is the kid in a JWT's header.
func tokenKeyID(token string) (string, error) {
	header, _, _ := strings.Cut(token, ".")
	data, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil {
		return "", err
	}
	var h struct {
		KeyID string `json:"kid"`
	}
	return h.KeyID, json.Unmarshal(data, &h)
}

// publishedKeyIDs reads the issuer as STS does, through its HTTPS front:
// the discovery document, which must name the issuer, then its JWKS.
func publishedKeyIDs(ctx context.Context) ([]string, error) {
	var discovery struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := getJSON(ctx, issuerURL()+"/.well-known/openid-configuration", &discovery); err != nil {
		return nil, err
	}
	if discovery.Issuer != issuerURL() {
		return nil, fmt.Errorf("the discovery document names issuer %q, want %q", discovery.Issuer, issuerURL())
	}
	var jwks struct {
		Keys []struct {
			KeyID string `json:"kid"`
		} `json:"keys"`
	}
	if err := getJSON(ctx, discovery.JWKSURI, &jwks); err != nil {
		return nil, err
	}
	var kids []string
	for _, k := range jwks.Keys {
		kids = append(kids, k.KeyID)
	}
	return kids, nil
}

func getJSON(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := env.front.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d: %s", url, resp.StatusCode, body)
	}
	return json.Unmarshal(body, out)
}

// waitPublished waits until the issuer's JWKS holds kid, and returns when
// it was first seen.
func waitPublished(ctx context.Context, kid string, timeout time.Duration) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		kids, err := publishedKeyIDs(ctx)
		if err == nil && slices.Contains(kids, kid) {
			return time.Now(), nil
		}
		if err == nil {
			err = fmt.Errorf("the JWKS holds %v", kids)
		}
		last = err
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("key %s was not published at %s within %s: %v", kid, issuerURL(), timeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// trustSigningKey adds a public key to the ConfigMap of trusted service
// account keys the publisher reads, as the kube-apiserver operator does
// when it rotates the signing key.
func trustSigningKey(ctx context.Context, name, pubFile string) error {
	key, err := os.ReadFile(pubFile)
	if err != nil {
		return err
	}
	cms := env.kube.CoreV1().ConfigMaps(issuerpublisher.SigningCertsNamespace)
	for {
		cm, err := cms.Get(ctx, issuerpublisher.SigningCertsConfigMap, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[name] = string(key)
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		if !apierrors.IsConflict(err) {
			return err
		}
	}
}
