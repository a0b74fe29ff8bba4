package issuerpublisher

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awscredentials "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"k8s.io/klog/v2"
)

// Reasons of IssuerPublisherDegraded for S3 failures.
const (
	// ReasonS3Unreachable: no answer from the endpoint (DNS, connection,
	// TLS, timeout).
	ReasonS3Unreachable = "S3Unreachable"
	// ReasonAccessDenied: the credentials may not do what the publisher asks.
	ReasonAccessDenied = "AccessDenied"
	// ReasonInvalidCredentials: S3 does not know the access key, or the
	// secret does not match it.
	ReasonInvalidCredentials = "InvalidCredentials"
	// ReasonBucketNameTaken: another account owns a bucket of that name.
	ReasonBucketNameTaken = "BucketNameTaken"
	// ReasonS3Error: any other error S3 answered with.
	ReasonS3Error = "S3Error"
)

// defaultSigningRegion signs requests to an S3-compatible endpoint when no
// region is configured; such servers default to it too.
const defaultSigningRegion = "us-east-1"

// connection is what an S3 client is built for. The secret is kept only as
// a hash, to notice a rotated secret without holding it here.
type connection struct {
	region, endpoint, accessKeyID string
	secretSum                     [32]byte
	secret                        string
}

// withSecret is conn carrying the secret, for newStore only: connections
// are compared without it.
func (conn connection) withSecret(secret string) connection {
	conn.secret = secret
	return conn
}

// newS3Store builds the S3 client from static credentials, without the
// SDK's config loader (which would bring in SSO, STS and IMDS providers
// the publisher never uses). Few retries and short timeouts: a resync comes
// every minute anyway, and one hung endpoint must not hold the worker.
func newS3Store(conn connection) objectStore {
	region := conn.region
	if region == "" {
		region = defaultSigningRegion
	}
	options := s3.Options{
		Region:           region,
		Credentials:      awscredentials.NewStaticCredentialsProvider(conn.accessKeyID, conn.secret, ""),
		RetryMaxAttempts: 2,
		HTTPClient: awshttp.NewBuildableClient().
			WithTimeout(30 * time.Second).
			WithDialerOptions(func(d *net.Dialer) { d.Timeout = 10 * time.Second }).
			WithTransportOptions(func(t *http.Transport) {
				t.TLSHandshakeTimeout = 10 * time.Second
				t.ResponseHeaderTimeout = 20 * time.Second
			}),
	}
	if conn.endpoint != "" {
		options.BaseEndpoint = aws.String(conn.endpoint)
		// S3-compatible servers rarely serve <bucket>.<host>; the issuer URL
		// is <endpoint>/<bucket> for the same reason.
		options.UsePathStyle = true
	}
	return s3.New(options)
}

// describe turns a failed publication into a condition reason and a message
// naming the S3 operation, bucket, key and S3's error code and message, and
// never a credential: request URLs and headers are left out, and the
// credentials are scrubbed from whatever remains.
func describe(err error, creds credentials) *failure {
	var op *opError
	if !errors.As(err, &op) {
		return &failure{ReasonS3Error, scrub(err.Error(), creds)}
	}
	where := fmt.Sprintf("S3 %s on bucket %q", op.operation, op.bucket)
	if op.key != "" {
		where += fmt.Sprintf(" key %q", op.key)
	}
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		return &failure{ReasonS3Unreachable, scrub(fmt.Sprintf("%s: S3 did not answer: %s", where, transportError(op.err)), creds)}
	}
	code, message := apiErr.ErrorCode(), apiErr.ErrorMessage()
	text := where + ": " + code
	if message != "" && message != code {
		text += ": " + message
	}
	reason := ReasonS3Error
	switch code {
	case "AccessDenied", "Forbidden", "AllAccessDisabled", "AccountProblem":
		reason = ReasonAccessDenied
	case "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken", "TokenRefreshRequired":
		reason = ReasonInvalidCredentials
	case "BucketAlreadyExists":
		reason = ReasonBucketNameTaken
		text += ": the bucket name belongs to another account; set spec.podIdentity.issuer.bucket"
	}
	return &failure{reason, scrub(text, creds)}
}

// transportError is why a request got no answer, without the request URL.
func transportError(err error) string {
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

func scrub(message string, creds credentials) string {
	for _, secret := range []string{creds.secretAccessKey, creds.accessKeyID} {
		if secret != "" {
			message = strings.ReplaceAll(message, secret, "[redacted]")
		}
	}
	return message
}

func klogUnsupported(operation, code, bucket string) {
	klog.V(2).Infof("%s: the S3 server of bucket %s answers %s; continuing without it (S3-compatible servers lack the public access block)", operation, bucket, code)
}
