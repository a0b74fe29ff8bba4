package issuer

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
)

// MaxDocumentSize bounds a document read from an issuer: a JWKS of a few
// dozen keys is tens of kilobytes.
const MaxDocumentSize = 1 << 20

// ReadDiscovery parses an OIDC discovery document as AWS STS reads it: the
// issuer it names and where its keys are. issuerURL is the issuer the
// tokens carry; the document must name exactly it, and an https:// JWKS.
func ReadDiscovery(data []byte, issuerURL string) (jwksURI string, err error) {
	var doc struct {
		Issuer  *string `json:"issuer"`
		JWKSURI *string `json:"jwks_uri"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("the discovery document is not a JSON object: %w", err)
	}
	if doc.Issuer == nil || *doc.Issuer != issuerURL {
		got := "no issuer"
		if doc.Issuer != nil {
			got = fmt.Sprintf("issuer %q", *doc.Issuer)
		}
		return "", fmt.Errorf("the discovery document names %s, not %q: AWS STS refuses tokens whose iss it does not name", got, issuerURL)
	}
	if doc.JWKSURI == nil {
		return "", errors.New("the discovery document has no jwks_uri")
	}
	u, err := url.Parse(*doc.JWKSURI)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("the discovery document's jwks_uri %q is not an https:// URL", *doc.JWKSURI)
	}
	return *doc.JWKSURI, nil
}

// ReadKeyIDs returns the key IDs of a JWKS, sorted and deduplicated. A key
// without a kid is refused: this cluster's tokens all carry one, and STS
// picks the key by it.
func ReadKeyIDs(data []byte) ([]string, error) {
	var doc struct {
		Keys *[]struct {
			KeyID *string `json:"kid"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("the JWKS is not a JSON object: %w", err)
	}
	if doc.Keys == nil {
		return nil, errors.New("the JWKS has no keys list")
	}
	ids := make([]string, 0, len(*doc.Keys))
	for i, k := range *doc.Keys {
		if k.KeyID == nil || *k.KeyID == "" {
			return nil, fmt.Errorf("key %d of the JWKS has no kid", i)
		}
		ids = append(ids, *k.KeyID)
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}
