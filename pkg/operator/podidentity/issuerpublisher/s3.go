package issuerpublisher

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscredentials "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"k8s.io/klog/v2"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
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
	// ReasonBucketInAnotherRegion: the bucket exists, in another region
	// than the one configured, where the publisher sends its requests.
	ReasonBucketInAnotherRegion = "BucketInAnotherRegion"
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
	options := s3.Options{
		Region:           signingRegion(conn.region),
		Credentials:      awscredentials.NewStaticCredentialsProvider(conn.accessKeyID, conn.secret, ""),
		RetryMaxAttempts: 2,
		HTTPClient:       awscall.HTTPClient(),
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
func describe(err error, creds awscall.Credentials) *awscall.Failure {
	var op *opError
	if !errors.As(err, &op) {
		return &awscall.Failure{Reason: ReasonS3Error, Message: creds.Scrub(err.Error())}
	}
	where := fmt.Sprintf("S3 %s on bucket %q", op.operation, op.bucket)
	if op.key != "" {
		where += fmt.Sprintf(" key %q", op.key)
	}
	code, message, answered := awscall.Answer(err)
	if !answered {
		return &awscall.Failure{Reason: ReasonS3Unreachable, Message: creds.Scrub(fmt.Sprintf("%s: S3 did not answer: %s", where, awscall.Unanswered(op.err)))}
	}
	text := where + ": " + awscall.Said(code, message)
	if bucketRegion, ok := inAnotherRegion(err, op.region); ok {
		return &awscall.Failure{Reason: ReasonBucketInAnotherRegion, Message: creds.Scrub(anotherRegionMessage(where, code, op.bucket, op.region, bucketRegion))}
	}
	reason := ReasonS3Error
	switch code {
	case "AccessDenied", "Forbidden", "AllAccessDisabled", "AccountProblem":
		reason = ReasonAccessDenied
		if op.owner != "" {
			// S3 says nothing more when the owner is not the one expected.
			text += fmt.Sprintf(" (every call expects the bucket to belong to account %s, the account of the credentials: a bucket of that name in another account is refused)", op.owner)
		}
	case "InvalidAccessKeyId", "InvalidToken", "TokenRefreshRequired":
		// S3's own ways of refusing a key; awscall.CredentialsRefused's below.
		reason = ReasonInvalidCredentials
	default:
		if awscall.CredentialsRefused(code) {
			reason = ReasonInvalidCredentials
		}
	case "BucketAlreadyExists":
		reason = ReasonBucketNameTaken
		text += ": the bucket name belongs to another account; set spec.podIdentity.issuer.bucket"
	}
	return &awscall.Failure{Reason: reason, Message: creds.Scrub(text)}
}

// bucketRegionHeader is where S3 names a bucket's region in its answers,
// errors included.
const bucketRegionHeader = "X-Amz-Bucket-Region"

// expectingRegion finds the region in S3's AuthorizationHeaderMalformed
// message: "... the region 'us-east-1' is wrong; expecting 'eu-west-1'".
var expectingRegion = regexp.MustCompile(`expecting '([a-z0-9-]+)'`)

// inAnotherRegion says whether S3 refused a request because the bucket is
// in another region than the one it was sent to (configured), and that
// region when S3 names it. S3 answers 301 (PermanentRedirect with a body,
// MovedPermanently for a HEAD without one), or 400 AuthorizationHeaderMalformed
// naming the region it expects (BadRequest for a HEAD), usually with the
// bucket's region in a header; CreateBucket answers
// IllegalLocationConstraintException.
func inAnotherRegion(err error, configured string) (string, bool) {
	region, status := "", 0
	var response *smithyhttp.ResponseError
	if errors.As(err, &response) && response.Response != nil && response.Response.Response != nil {
		region, status = response.Response.Header.Get(bucketRegionHeader), response.Response.StatusCode
	}
	code, message, answered := awscall.Answer(err)
	if !answered {
		return "", false
	}
	if region == "" {
		if m := expectingRegion.FindStringSubmatch(message); m != nil {
			region = m[1]
		}
	}
	if region != "" && region == signingRegion(configured) {
		return "", false // not a region mismatch, whatever else it is
	}
	switch code {
	case "PermanentRedirect", "MovedPermanently", "IllegalLocationConstraintException":
		return region, true
	case "AuthorizationHeaderMalformed", "BadRequest":
		// Both are also answered for other reasons: only a named region
		// says this one.
		return region, region != ""
	}
	return region, status == http.StatusMovedPermanently
}

func anotherRegionMessage(where, code, bucket, configured, bucketRegion string) string {
	in := "the configured region " + configured
	if configured == "" {
		in = defaultSigningRegion + ", the default signing region (spec.podIdentity.region is empty)"
	}
	if bucketRegion == "" {
		return fmt.Sprintf("%s: %s: bucket %q is in another region than %s: set spec.podIdentity.region to the bucket's region, or spec.podIdentity.issuer.bucket to a bucket in %s",
			where, code, bucket, in, signingRegion(configured))
	}
	return fmt.Sprintf("%s: %s: bucket %q is in region %s, not in %s: set spec.podIdentity.region to %s, or spec.podIdentity.issuer.bucket to a bucket in %s",
		where, code, bucket, bucketRegion, in, bucketRegion, signingRegion(configured))
}

// signingRegion is the region requests are sent to and signed for.
func signingRegion(region string) string {
	if region == "" {
		return defaultSigningRegion
	}
	return region
}

func klogUnsupported(operation, code, bucket string) {
	klog.V(2).Infof("%s: the S3 server of bucket %s answers %s; continuing without it (S3-compatible servers lack the public access block)", operation, bucket, code)
}
