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

func TestScrubRedactsEverySecret(t *testing.T) {
	got := Scrub("key AKIA1 with secret s3cr3t refused (AKIA1)", "AKIA1", "s3cr3t", "")
	if got != "key [redacted] with secret [redacted] refused ([redacted])" {
		t.Errorf("%q", got)
	}
}

func TestKeysNamesWhatIsMissing(t *testing.T) {
	id, secret, missing := Keys(&corev1.Secret{Data: map[string][]byte{AccessKeyIDKey: []byte(" AKIA1\n"), SecretAccessKeyKey: []byte("  ")}})
	if id != "AKIA1" || secret != "" || len(missing) != 1 || missing[0] != SecretAccessKeyKey {
		t.Errorf("Keys = %q, %q, %v", id, secret, missing)
	}
}
