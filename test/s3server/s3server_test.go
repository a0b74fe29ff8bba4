package s3server

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestS3Server checks what the OIDC publisher's tests rely on: requests are
// authenticated (a wrong secret is refused), objects are private until a
// bucket policy makes them anonymously readable, and the server comes back
// on the same endpoint with its data after a stop.
func TestS3Server(t *testing.T) {
	s := StartT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	if err := s.Healthy(ctx); err != nil {
		t.Fatalf("not healthy after Start: %v", err)
	}
	if !strings.HasPrefix(s.Endpoint, "http://127.0.0.1:") || s.Port() == 0 {
		t.Fatalf("endpoint %q, port %d: want http://127.0.0.1:PORT", s.Endpoint, s.Port())
	}

	// Nothing is served anonymously from a bucket that does not exist.
	r, err := s.AnonymousGet(ctx, "no-such-bucket", "keys.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusForbidden && r.Status != http.StatusNotFound {
		t.Fatalf("anonymous GET from a missing bucket: %v; want 403 or 404", r)
	}

	const bucket, key = "selftest-oidc", ".well-known/openid-configuration"
	doc := []byte(`{"issuer":"http://127.0.0.1/selftest-oidc","jwks_uri":"http://127.0.0.1/selftest-oidc/keys.json"}`)
	good := signer{s.AccessKeyID, s.SecretAccessKey, s.Region}

	// A wrong secret is refused, even for creating a bucket.
	wrong := signer{s.AccessKeyID, s.SecretAccessKey + "x", s.Region}
	status, body := wrong.do(t, ctx, http.MethodPut, s.Endpoint+"/"+bucket, nil, "")
	if status != http.StatusForbidden || !strings.Contains(body, "SignatureDoesNotMatch") {
		t.Fatalf("PUT bucket signed with a wrong secret: HTTP %d %s; want 403 SignatureDoesNotMatch", status, body)
	}
	// So is an unknown access key (versitygw answers 404 XAdminUserNotFound
	// where AWS answers 403 InvalidAccessKeyId).
	unknown := signer{"AKIAUNKNOWN", s.SecretAccessKey, s.Region}
	if status, body := unknown.do(t, ctx, http.MethodPut, s.Endpoint+"/"+bucket, nil, ""); status/100 != 4 {
		t.Fatalf("PUT bucket signed with an unknown access key: HTTP %d %s; want a 4xx refusal", status, body)
	}

	if status, body := good.do(t, ctx, http.MethodPut, s.Endpoint+"/"+bucket, nil, ""); status != http.StatusOK {
		t.Fatalf("PUT bucket: HTTP %d %s", status, body)
	}
	if status, body := good.do(t, ctx, http.MethodPut, s.Endpoint+"/"+bucket+"/"+key, doc, "application/json"); status != http.StatusOK {
		t.Fatalf("PUT object: HTTP %d %s", status, body)
	}
	// Private until a policy says otherwise; a public-read ACL would not help
	// (the server ignores it, as AWS refuses it).
	if r := anonymous(t, ctx, s, bucket, key); r.Status != http.StatusForbidden {
		t.Fatalf("anonymous GET before the bucket policy: %v; want 403", r)
	}
	if status, body := wrong.do(t, ctx, http.MethodGet, s.Endpoint+"/"+bucket+"/"+key, nil, ""); status != http.StatusForbidden {
		t.Fatalf("GET object signed with a wrong secret: HTTP %d %s; want 403", status, body)
	}

	policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Sid":"AllowReadPublicAccess","Effect":"Allow",`+
		`"Principal":"*","Action":["s3:GetObject"],"Resource":["arn:aws:s3:::%s/*"]}]}`, bucket)
	if status, body := good.do(t, ctx, http.MethodPut, s.Endpoint+"/"+bucket+"?policy=", []byte(policy), "application/json"); status/100 != 2 {
		t.Fatalf("PUT bucket policy: HTTP %d %s", status, body)
	}
	want := func(when string) {
		t.Helper()
		r := anonymous(t, ctx, s, bucket, key)
		if r.Status != http.StatusOK || !bytes.Equal(r.Body, doc) || r.ContentType != "application/json" {
			t.Fatalf("anonymous GET %s: %v; want 200 application/json %s", when, r, doc)
		}
		// The policy grants objects, not the listing.
		if r := anonymous(t, ctx, s, bucket, ""); r.Status != http.StatusForbidden {
			t.Fatalf("anonymous listing %s: %v; want 403", when, r)
		}
	}
	want("after the bucket policy")

	// Down: no answer at all, on the same endpoint.
	pid := s.PID()
	s.Stop()
	if s.Running() {
		t.Fatal("still running after Stop")
	}
	if err := s.Healthy(ctx); err == nil {
		t.Fatal("healthy after Stop")
	}
	if r, err := s.AnonymousGet(ctx, bucket, key); err == nil {
		t.Fatalf("anonymous GET while stopped answered %v", r)
	}
	s.Stop() // a second Stop is harmless

	// Up again: same port, same credentials, same data and policy.
	endpoint := s.Endpoint
	if err := s.Start(ctx); err != nil {
		t.Fatalf("Start after Stop: %v", err)
	}
	if s.Endpoint != endpoint || s.PID() == pid {
		t.Fatalf("after restart: endpoint %s (was %s), pid %d (was %d)", s.Endpoint, endpoint, s.PID(), pid)
	}
	if err := s.Start(ctx); err == nil {
		t.Fatal("a second Start while running succeeded")
	}
	if err := s.Healthy(ctx); err != nil {
		t.Fatalf("not healthy after restart: %v", err)
	}
	want("after a restart")
	if status, body := wrong.do(t, ctx, http.MethodGet, s.Endpoint+"/"+bucket+"/"+key, nil, ""); status != http.StatusForbidden {
		t.Fatalf("GET object signed with a wrong secret after restart: HTTP %d %s; want 403", status, body)
	}
}

// With IAM, the IAM and STS service runs beside the gateway, stops with it
// and comes back with it on the same port.
func TestS3ServerWithIAM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{Dir: t.TempDir(), IAM: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if !strings.HasPrefix(s.IAMEndpoint, "http://127.0.0.1:") || s.IAMEndpoint == s.Endpoint {
		t.Fatalf("IAM endpoint %q beside %q: want another http://127.0.0.1:PORT", s.IAMEndpoint, s.Endpoint)
	}
	for round := range 2 {
		for _, endpoint := range []string{s.Endpoint, s.IAMEndpoint} {
			if err := healthy(ctx, endpoint); err != nil {
				t.Fatalf("start %d: %s: %v\n%s", round+1, endpoint, err, s.Tail(20))
			}
		}
		s.Stop()
		if err := healthy(ctx, s.IAMEndpoint); err == nil {
			t.Fatalf("the IAM service still answers after Stop")
		}
		if round == 0 {
			if err := s.Start(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestCheckXattrs(t *testing.T) {
	if err := CheckXattrs(t.TempDir()); err != nil {
		t.Fatalf("the test's temporary directory: %v", err)
	}
	if err := CheckXattrs("/nonexistent/dir"); err == nil {
		t.Fatal("no error for a missing directory")
	}
}

func anonymous(t *testing.T, ctx context.Context, s *Server, bucket, key string) Response {
	t.Helper()
	r, err := s.AnonymousGet(ctx, bucket, key)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// signer signs path-style S3 requests with AWS Signature Version 4, just
// enough for this test (the SDK is not a dependency of the test tooling).
type signer struct{ accessKey, secretKey, region string }

func (sg signer) do(t *testing.T, ctx context.Context, method, rawURL string, body []byte, contentType string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, rawURL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	sg.sign(req, body, time.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

func (sg signer) sign(req *http.Request, body []byte, now time.Time) {
	payload := sha256Hex(body)
	amzDate := now.UTC().Format("20060102T150405Z")
	day := amzDate[:8]
	req.Header.Set("X-Amz-Date", amzDate)
	req.Header.Set("X-Amz-Content-Sha256", payload)
	path := req.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	// url.Values.Encode sorts by key; enough for the plain names used here.
	query := req.URL.Query().Encode()
	const signed = "host;x-amz-content-sha256;x-amz-date"
	canonical := strings.Join([]string{
		req.Method, path, query,
		"host:" + req.URL.Host + "\nx-amz-content-sha256:" + payload + "\nx-amz-date:" + amzDate + "\n",
		signed, payload,
	}, "\n")
	scope := day + "/" + sg.region + "/s3/aws4_request"
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + sha256Hex([]byte(canonical))
	key := hmacSHA256([]byte("AWS4"+sg.secretKey), day)
	for _, part := range []string{sg.region, "s3", "aws4_request"} {
		key = hmacSHA256(key, part)
	}
	req.Header.Set("Authorization", fmt.Sprintf("AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s",
		sg.accessKey, scope, signed, hex.EncodeToString(hmacSHA256(key, toSign))))
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}
