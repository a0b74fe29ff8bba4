package issuerpublisher

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuer"
)

// A few answers of a real S3 wire protocol, to check what the SDK client
// built by newS3Store sends and how its errors are described. The publishing
// logic itself is tested on fakeS3; the real servers in the e2e tests.

type recordedRequest struct {
	method, path, query string
	header              http.Header
	body                string
}

type wireServer struct {
	mu       sync.Mutex
	requests []recordedRequest
	answer   func(w http.ResponseWriter, r *http.Request)
}

func (s *wireServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, recordedRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), string(body)})
	s.mu.Unlock()
	s.answer(w, r)
}

func s3Error(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	// Real S3 echoes the access key ID in AWSAccessKeyId.
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message><AWSAccessKeyId>%s</AWSAccessKeyId><RequestId>1</RequestId></Error>`, code, message, testAccessKeyID)
}

func realPublisher(t *testing.T, endpoint string) (*publisher, *[]string) {
	t.Helper()
	store := newS3Store(connection{endpoint: endpoint, accessKeyID: testAccessKeyID}.withSecret(testSecret))
	var unsupported []string
	return &publisher{store: store, bucket: "oidc", recorder: events.NewInMemoryRecorder("test", clock.RealClock{}),
		unsupported: func(operation, code, _ string) { unsupported = append(unsupported, operation+" "+code) }}, &unsupported
}

func testDocuments(t *testing.T) *issuer.Documents {
	t.Helper()
	return expectedDocuments(t, "http://s3.example/oidc", map[string]string{"a": pemFixture(t, "ec256.pub.pem")})
}

func TestRealClientPublishesPathStyleWithoutACLs(t *testing.T) {
	server := &wireServer{}
	server.answer = func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodHead && r.URL.Path == "/oidc":
			w.WriteHeader(http.StatusOK)
		case r.URL.Query().Has("publicAccessBlock"):
			s3Error(w, http.StatusNotImplemented, "NotImplemented", "A header you provided implies functionality that is not implemented")
		case r.URL.Query().Has("policy") && r.Method == http.MethodGet:
			s3Error(w, http.StatusNotFound, "NoSuchBucketPolicy", "The bucket policy does not exist")
		case r.URL.Query().Has("policy") && r.Method == http.MethodPut:
			w.WriteHeader(http.StatusNoContent)
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/oidc/"):
			s3Error(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
		case r.Method == http.MethodPut:
			w.Header().Set("ETag", `"etag"`)
			w.WriteHeader(http.StatusOK)
		default:
			s3Error(w, http.StatusBadRequest, "Unexpected", r.Method+" "+r.URL.String())
		}
	}
	ts := httptest.NewServer(server)
	defer ts.Close()
	p, unsupported := realPublisher(t, ts.URL)
	p.owner = testAccount
	docs := testDocuments(t)
	if err := p.publish(context.Background(), docs); err != nil {
		t.Fatal(describe(err, awscall.Credentials{AccessKeyID: testAccessKeyID, SecretAccessKey: testSecret}).Message)
	}
	if len(*unsupported) != 1 || (*unsupported)[0] != "GetPublicAccessBlock NotImplemented" {
		t.Errorf("unsupported %v", *unsupported)
	}
	var puts []recordedRequest
	for _, r := range server.requests {
		if !strings.HasPrefix(r.path, "/oidc") {
			t.Errorf("not path-style: %s %s", r.method, r.path)
		}
		if auth := r.header.Get("Authorization"); !strings.Contains(auth, "Credential="+testAccessKeyID+"/") || !strings.Contains(auth, "/us-east-1/s3/aws4_request") {
			t.Errorf("%s %s not signed for us-east-1 with the access key: %q", r.method, r.path, auth)
		}
		if owner := r.header.Get("X-Amz-Expected-Bucket-Owner"); owner != testAccount {
			t.Errorf("%s %s?%s expects bucket owner %q", r.method, r.path, r.query, owner)
		}
		if r.method == http.MethodPut && !strings.Contains(r.query, "policy") {
			puts = append(puts, r)
		}
	}
	if len(puts) != 2 || puts[0].path != "/oidc/keys.json" || puts[1].path != "/oidc/.well-known/openid-configuration" {
		t.Fatalf("object uploads %v", puts)
	}
	if h := puts[0].header; h.Get("Content-Type") != "application/json" || h.Get("X-Amz-Acl") != "" || h.Get("X-Amz-Meta-Sha256") != "" {
		t.Errorf("keys.json headers %v", h)
	}
	if puts[0].body != string(docs.JWKS) {
		t.Errorf("keys.json body %q", puts[0].body)
	}
}

func TestRealClientErrorsAreDescribedWithoutCredentials(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answer   func(w http.ResponseWriter, r *http.Request)
		reason   string
		contains string
	}{
		{"HeadBucket 403 has no body", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) },
			ReasonAccessDenied, `S3 HeadBucket on bucket "oidc"`},
		{"wrong secret", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusOK)
				return
			}
			s3Error(w, http.StatusForbidden, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
		}, ReasonInvalidCredentials, `S3 GetPublicAccessBlock on bucket "oidc": SignatureDoesNotMatch: The request signature`},
		{"HeadBucket 301 naming the bucket's region", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Amz-Bucket-Region", "eu-west-1")
			w.WriteHeader(http.StatusMovedPermanently)
		}, ReasonBucketInAnotherRegion, `S3 HeadBucket on bucket "oidc": MovedPermanently: bucket "oidc" is in region eu-west-1, not in us-east-1, the default signing region`},
		{"PermanentRedirect", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusOK)
				return
			}
			w.Header().Set("X-Amz-Bucket-Region", "eu-west-1")
			s3Error(w, http.StatusMovedPermanently, "PermanentRedirect", "The bucket you are attempting to access must be addressed using the specified endpoint.")
		}, ReasonBucketInAnotherRegion, `S3 GetPublicAccessBlock on bucket "oidc": PermanentRedirect: bucket "oidc" is in region eu-west-1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(&wireServer{answer: tc.answer})
			defer ts.Close()
			p, _ := realPublisher(t, ts.URL)
			err := p.publish(context.Background(), testDocuments(t))
			if err == nil {
				t.Fatal("published")
			}
			f := describe(err, awscall.Credentials{AccessKeyID: testAccessKeyID, SecretAccessKey: testSecret})
			t.Logf("%s: %s", f.Reason, f.Message)
			if f.Reason != tc.reason || !strings.Contains(f.Message, tc.contains) {
				t.Errorf("%s: %q, want %s containing %q", f.Reason, f.Message, tc.reason, tc.contains)
			}
			if strings.Contains(f.Message, testAccessKeyID) || strings.Contains(f.Message, testSecret) {
				t.Errorf("credentials in %q", f.Message)
			}
		})
	}

	t.Run("unreachable", func(t *testing.T) {
		ts := httptest.NewServer(http.NotFoundHandler())
		endpoint := ts.URL
		ts.Close()
		p, _ := realPublisher(t, endpoint)
		start := time.Now()
		err := p.publish(context.Background(), testDocuments(t))
		if err == nil {
			t.Fatal("published")
		}
		f := describe(err, awscall.Credentials{AccessKeyID: testAccessKeyID, SecretAccessKey: testSecret})
		t.Logf("%s: %s", f.Reason, f.Message)
		if f.Reason != ReasonS3Unreachable || !strings.Contains(f.Message, "connection refused") || strings.Contains(f.Message, "http://") {
			t.Errorf("%s: %q", f.Reason, f.Message)
		}
		if elapsed := time.Since(start); elapsed > 10*time.Second {
			t.Errorf("took %s: the retries are not bounded", elapsed)
		}
	})
}

// The account comes from STS GetCallerIdentity, signed with the S3
// credentials; with an S3-compatible endpoint no call is made.
func TestCallerAccountAsksSTS(t *testing.T) {
	server := &wireServer{}
	account := testAccount
	server.answer = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprintf(w, `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>`+
			`<Arn>arn:aws:iam::%[1]s:user/workload-access</Arn><UserId>AIDAEXAMPLE</UserId><Account>%[1]s</Account>`+
			`</GetCallerIdentityResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></GetCallerIdentityResponse>`, account)
	}
	ts := httptest.NewServer(server)
	defer ts.Close()
	conn := connection{region: "eu-west-1", accessKeyID: testAccessKeyID}.withSecret(testSecret)
	got, err := callerAccount(context.Background(), conn, ts.URL)
	if err != nil || got != testAccount {
		t.Fatalf("account %q, %v", got, err)
	}
	if len(server.requests) != 1 || !strings.Contains(server.requests[0].body, "Action=GetCallerIdentity") ||
		!strings.Contains(server.requests[0].header.Get("Authorization"), "Credential="+testAccessKeyID+"/") ||
		!strings.Contains(server.requests[0].header.Get("Authorization"), "/eu-west-1/sts/aws4_request") {
		t.Errorf("requests %+v", server.requests)
	}

	account = "12345"
	if got, err := callerAccount(context.Background(), conn, ts.URL); err == nil {
		t.Errorf("account %q accepted", got)
	}

	server.requests = nil
	conn.endpoint = "http://s3.example"
	if got, err := callerAccount(context.Background(), conn, ts.URL); err != nil || got != "" || len(server.requests) != 0 {
		t.Errorf("with an endpoint: account %q, %v, %d requests", got, err, len(server.requests))
	}
}
