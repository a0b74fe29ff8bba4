// Package awscall is what the operator's two AWS callers share, the issuer
// publisher (S3, STS) and the IAMRoleRequest controller (IAM, STS): the
// access keys read from the Secret the cloud credential operator writes, and
// their scrubbing from any message that may echo them; an HTTP client with
// short timeouts; and why a call failed (failure.go), told in words fit for
// a condition or an Event, without the request's URL (which may carry a
// presigned query) and without the keys.
package awscall

import (
	"net"
	"net/http"
	"strings"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	corev1 "k8s.io/api/core/v1"
)

// The keys of a credentials Secret, as the cloud credential operator
// writes them for an AWS CredentialsRequest (and an admin in manual mode).
const (
	AccessKeyIDKey     = "aws_access_key_id"
	SecretAccessKeyKey = "aws_secret_access_key"
)

// Credentials are an access key pair. Never logged: Scrub takes both keys
// out of any message that may echo them.
type Credentials struct {
	AccessKeyID, SecretAccessKey string
}

// Keys reads the access key pair from a credentials Secret, each trimmed,
// and names the keys that are absent or empty.
func Keys(secret *corev1.Secret) (creds Credentials, missing []string) {
	creds.AccessKeyID = strings.TrimSpace(string(secret.Data[AccessKeyIDKey]))
	creds.SecretAccessKey = strings.TrimSpace(string(secret.Data[SecretAccessKeyKey]))
	if creds.AccessKeyID == "" {
		missing = append(missing, AccessKeyIDKey)
	}
	if creds.SecretAccessKey == "" {
		missing = append(missing, SecretAccessKeyKey)
	}
	return creds, missing
}

// Scrub replaces every occurrence of either key in message: a server may
// echo the access key it refused.
func (creds Credentials) Scrub(message string) string {
	for _, secret := range [...]string{creds.SecretAccessKey, creds.AccessKeyID} {
		if secret != "" {
			message = strings.ReplaceAll(message, secret, "[redacted]")
		}
	}
	return message
}

// HTTPClient is the AWS SDK clients' transport with short timeouts: a slow
// endpoint holds a controller's worker for at most half a minute.
func HTTPClient() *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().
		WithTimeout(30 * time.Second).
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = 10 * time.Second }).
		WithTransportOptions(func(t *http.Transport) {
			t.TLSHandshakeTimeout = 10 * time.Second
			t.ResponseHeaderTimeout = 20 * time.Second
		})
}
