package awscall

import (
	"context"
	"errors"
	"net"
	"net/url"

	"github.com/aws/smithy-go"
)

// Failure is why an AWS call, or what it needs (the credentials, the
// account), failed: the condition reason; a message for a condition or an
// Event that names the call, the AWS error code and what to do, never a URL
// or a key; and whether to retry with backoff (transient: throttled,
// unanswered) rather than wait for an event or the periodic resync (fixed by
// a person). The issuer publisher retries every failure alike and leaves
// Retry unset.
type Failure struct {
	Reason, Message string
	Retry           bool
}

func (f *Failure) Error() string { return f.Message }

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

// Answer is the AWS error code and message in err's chain; answered is
// false when no server answered (or err is nil).
func Answer(err error) (code, message string, answered bool) {
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		return "", "", false
	}
	return apiErr.ErrorCode(), apiErr.ErrorMessage(), true
}

// ErrorCode is the AWS error code in err's chain, "" when no server
// answered (or err is nil).
func ErrorCode(err error) string {
	code, _, _ := Answer(err)
	return code
}

// Said is how a failure quotes AWS: the code, then the message when it
// says more.
func Said(code, message string) string {
	if message != "" && message != code {
		return code + ": " + message
	}
	return code
}

// CredentialsRefused says whether STS or IAM refused the access key itself:
// a key it does not know, a secret that does not match it, or an expired
// token.
func CredentialsRefused(code string) bool {
	switch code {
	case "InvalidClientTokenId", "SignatureDoesNotMatch", "ExpiredToken":
		return true
	}
	return false
}
