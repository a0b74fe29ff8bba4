// Package awsfailure tells why an AWS call failed in words fit for a
// condition or an Event: without the request's URL (which may carry a
// presigned query) and without the caller's keys. The issuer publisher (S3,
// STS) and the IAMRoleRequest controller (IAM, STS) both write such messages.
package awsfailure

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"

	"github.com/aws/smithy-go"
)

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
