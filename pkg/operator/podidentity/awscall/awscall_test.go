package awscall

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/smithy-go"
	corev1 "k8s.io/api/core/v1"
)

func TestUnansweredLeavesOutTheURL(t *testing.T) {
	presigned := "https://bucket.s3.amazonaws.com/keys.json?X-Amz-Signature=abc"
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"deadline", fmt.Errorf("call: %w", context.DeadlineExceeded), "timed out"},
		{"url error", &url.Error{Op: "Put", URL: presigned, Err: refused}, "dial tcp: connection refused"},
		{"smithy", &smithy.OperationError{ServiceID: "IAM", OperationName: "GetRole", Err: errors.New("no route")}, "no route"},
		{"other", errors.New("plain"), "plain"},
	} {
		if got := Unanswered(tc.err); got != tc.want || strings.Contains(got, "X-Amz") {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestScrubRedactsBothKeys(t *testing.T) {
	creds := Credentials{AccessKeyID: "AKIA1", SecretAccessKey: "s3cr3t"}
	got := creds.Scrub("key AKIA1 with secret s3cr3t refused (AKIA1)")
	if got != "key [redacted] with secret [redacted] refused ([redacted])" {
		t.Errorf("%q", got)
	}
	// An empty key redacts nothing (strings.ReplaceAll would put the mark
	// between every character).
	if got := (Credentials{AccessKeyID: "AKIA1"}).Scrub("AKIA1 refused"); got != "[redacted] refused" {
		t.Errorf("%q", got)
	}
}

func TestKeysNamesWhatIsMissing(t *testing.T) {
	creds, missing := Keys(&corev1.Secret{Data: map[string][]byte{AccessKeyIDKey: []byte(" AKIA1\n"), SecretAccessKeyKey: []byte("  ")}})
	if creds != (Credentials{AccessKeyID: "AKIA1"}) || len(missing) != 1 || missing[0] != SecretAccessKeyKey {
		t.Errorf("Keys = %+v, %v", creds, missing)
	}
}

func TestErrorCodes(t *testing.T) {
	refused := &smithy.GenericAPIError{Code: "InvalidClientTokenId", Message: "The security token included in the request is invalid"}
	if got := ErrorCode(&smithy.OperationError{ServiceID: "STS", OperationName: "GetCallerIdentity", Err: refused}); got != "InvalidClientTokenId" {
		t.Errorf("ErrorCode = %q", got)
	}
	if got := ErrorCode(errors.New("connection refused")); got != "" {
		t.Errorf("ErrorCode of an unanswered call = %q", got)
	}
	for code, want := range map[string]bool{"InvalidClientTokenId": true, "SignatureDoesNotMatch": true, "ExpiredToken": true, "AccessDenied": false, "": false} {
		if CredentialsRefused(code) != want {
			t.Errorf("CredentialsRefused(%q) = %v", code, !want)
		}
	}
}

func TestAnswerAndSaid(t *testing.T) {
	denied := &smithy.OperationError{ServiceID: "IAM", OperationName: "CreateRole", Err: &smithy.GenericAPIError{Code: "AccessDenied", Message: "not authorized"}}
	if code, message, answered := Answer(denied); code != "AccessDenied" || message != "not authorized" || !answered {
		t.Errorf("Answer = %q, %q, %v", code, message, answered)
	}
	if code, message, answered := Answer(errors.New("connection refused")); code != "" || message != "" || answered {
		t.Errorf("Answer of an unanswered call = %q, %q, %v", code, message, answered)
	}
	for _, tc := range []struct{ code, message, want string }{
		{"AccessDenied", "not authorized", "AccessDenied: not authorized"},
		{"AccessDenied", "AccessDenied", "AccessDenied"},
		{"NoSuchBucket", "", "NoSuchBucket"},
	} {
		if got := Said(tc.code, tc.message); got != tc.want {
			t.Errorf("Said(%q, %q) = %q, want %q", tc.code, tc.message, got, tc.want)
		}
	}
}
