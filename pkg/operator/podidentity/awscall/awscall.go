// Package awscall is what the operator's two AWS callers share, the issuer
// publisher (S3, STS) and the IAMRoleRequest controller (IAM, STS): the
// access keys read from the Secret the cloud credential operator writes, an
// HTTP client with short timeouts, and why a call failed told in words fit
// for a condition or an Event, without the request's URL (which may carry a
// presigned query) and without the keys.
package awscall

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	corev1 "k8s.io/api/core/v1"
)

// The keys of a credentials Secret, as the cloud credential operator
// writes them for an AWS CredentialsRequest (and an admin in manual mode).
const (
	AccessKeyIDKey     = "aws_access_key_id"
	SecretAccessKeyKey = "aws_secret_access_key"
)

// Keys reads the access key pair from a credentials Secret, each trimmed,
// and names the keys that are absent or empty.
func Keys(secret *corev1.Secret) (accessKeyID, secretAccessKey string, missing []string) {
	accessKeyID = strings.TrimSpace(string(secret.Data[AccessKeyIDKey]))
	secretAccessKey = strings.TrimSpace(string(secret.Data[SecretAccessKeyKey]))
	if accessKeyID == "" {
		missing = append(missing, AccessKeyIDKey)
	}
	if secretAccessKey == "" {
		missing = append(missing, SecretAccessKeyKey)
	}
	return accessKeyID, secretAccessKey, missing
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

// Unanswered is why a call got no answer: "timed out", or the transport's
// error without the request URL.
func Unanswered(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		if urlErr.Timeout() {
			return "timed out"
		}
		return urlErr.Err.Error()
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return opErr.Error()
	}
	var smithyOp *smithy.OperationError
	if errors.As(err, &smithyOp) {
		return smithyOp.Err.Error()
	}
	return err.Error()
}

// Scrub replaces every occurrence of each non-empty secret in message: a
// server may echo the access key it refused.
func Scrub(message string, secrets ...string) string {
	for _, secret := range secrets {
		if secret != "" {
			message = strings.ReplaceAll(message, secret, "[redacted]")
		}
	}
	return message
}
