package issuerpublisher

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/openshift/library-go/pkg/operator/events"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuer"
)

// objectStore is the part of the S3 API the publisher calls, and nothing
// more: *s3.Client implements it, and so does the tests' in-memory bucket.
// The CredentialsRequest grants exactly these calls.
type objectStore interface {
	HeadBucket(context.Context, *s3.HeadBucketInput, ...func(*s3.Options)) (*s3.HeadBucketOutput, error)
	CreateBucket(context.Context, *s3.CreateBucketInput, ...func(*s3.Options)) (*s3.CreateBucketOutput, error)
	GetPublicAccessBlock(context.Context, *s3.GetPublicAccessBlockInput, ...func(*s3.Options)) (*s3.GetPublicAccessBlockOutput, error)
	PutPublicAccessBlock(context.Context, *s3.PutPublicAccessBlockInput, ...func(*s3.Options)) (*s3.PutPublicAccessBlockOutput, error)
	GetBucketPolicy(context.Context, *s3.GetBucketPolicyInput, ...func(*s3.Options)) (*s3.GetBucketPolicyOutput, error)
	PutBucketPolicy(context.Context, *s3.PutBucketPolicyInput, ...func(*s3.Options)) (*s3.PutBucketPolicyOutput, error)
	GetObject(context.Context, *s3.GetObjectInput, ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	PutObject(context.Context, *s3.PutObjectInput, ...func(*s3.Options)) (*s3.PutObjectOutput, error)
}

// contentType of both documents.
const contentType = "application/json"

// readPolicySid names the statement of the bucket policy this publisher
// owns.
const readPolicySid = "AllowReadPublicAccess"

// publisher makes one publication: bucket, public access block, bucket
// policy, then keys.json before the discovery document that points to it,
// each written only when S3 holds something else.
type publisher struct {
	store  objectStore
	bucket string
	region string
	// owner is the account the bucket must belong to, sent with every call
	// on it: S3 refuses a call on a bucket of another account (one named
	// like ours before we created it) rather than serve it. "" sends none.
	owner    string
	recorder events.Recorder
	// unsupported is told once about each call an S3-compatible server does
	// not implement.
	unsupported func(operation, code, where string)

	// policyRead says the bucket policy was read; unsafe then lists its
	// statements that undo the issuer's protection.
	policyRead bool
	unsafe     []policyFinding
}

// opError is a failed S3 call: what was called on which bucket and key, and
// the region the request was sent to ("" for an S3-compatible endpoint
// without one).
type opError struct {
	operation, bucket, key, region string
	// owner is the account the bucket was expected to belong to, "" for none.
	owner string
	err   error
}

func (e *opError) Error() string {
	return fmt.Sprintf("S3 %s on bucket %q key %q: %v", e.operation, e.bucket, e.key, e.err)
}

func (e *opError) Unwrap() error { return e.err }

func (p *publisher) fail(operation, key string, err error) error {
	return &opError{operation: operation, bucket: p.bucket, key: key, region: p.region, owner: p.owner, err: err}
}

func (p *publisher) publish(ctx context.Context, docs *issuer.Documents) error {
	if err := p.ensureBucket(ctx); err != nil {
		return err
	}
	if err := p.ensurePublicAccessBlock(ctx); err != nil {
		return err
	}
	if err := p.ensureReadPolicy(ctx); err != nil {
		return err
	}
	// A verifier reads the discovery document, then keys.json: the keys go
	// first so the document never points to a key set older than itself.
	if err := p.putIfChanged(ctx, issuer.KeysPath, docs.JWKS, "key IDs "+strings.Join(docs.KeyIDs, ", ")); err != nil {
		return err
	}
	return p.putIfChanged(ctx, issuer.DiscoveryPath, docs.Discovery, "")
}

func (p *publisher) ensureBucket(ctx context.Context) error {
	_, err := p.store.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(p.bucket), ExpectedBucketOwner: p.expectedOwner()})
	if err == nil {
		return nil
	}
	if !isNotFound(err) {
		return p.fail("HeadBucket", "", err)
	}
	in := &s3.CreateBucketInput{Bucket: aws.String(p.bucket)}
	// us-east-1 is the one region S3 refuses as a location constraint.
	if p.region != "" && p.region != "us-east-1" {
		in.CreateBucketConfiguration = &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraint(p.region)}
	}
	_, err = p.store.CreateBucket(ctx, in)
	if awscall.ErrorCode(err) == "BucketAlreadyOwnedByYou" {
		return nil
	}
	if err != nil {
		return p.fail("CreateBucket", "", err)
	}
	p.recorder.Eventf("BucketCreated", "Created S3 bucket %s for the service account issuer", p.bucket)
	return nil
}

// wantPublicAccessBlock blocks ACLs, so no object can be made public by an
// ACL, and allows the one public bucket policy below.
var wantPublicAccessBlock = s3types.PublicAccessBlockConfiguration{
	BlockPublicAcls:       aws.Bool(true),
	IgnorePublicAcls:      aws.Bool(true),
	BlockPublicPolicy:     aws.Bool(false),
	RestrictPublicBuckets: aws.Bool(false),
}

func (p *publisher) ensurePublicAccessBlock(ctx context.Context) error {
	out, err := p.store.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: aws.String(p.bucket), ExpectedBucketOwner: p.expectedOwner()})
	switch {
	case err == nil && out.PublicAccessBlockConfiguration != nil && samePublicAccessBlock(*out.PublicAccessBlockConfiguration, wantPublicAccessBlock):
		return nil
	case err == nil, awscall.ErrorCode(err) == "NoSuchPublicAccessBlockConfiguration":
	case isUnsupported(err):
		p.unsupported("GetPublicAccessBlock", awscall.ErrorCode(err), p.bucket)
		return nil
	default:
		return p.fail("GetPublicAccessBlock", "", err)
	}
	config := wantPublicAccessBlock
	_, err = p.store.PutPublicAccessBlock(ctx, &s3.PutPublicAccessBlockInput{Bucket: aws.String(p.bucket), PublicAccessBlockConfiguration: &config,
		ExpectedBucketOwner: p.expectedOwner()})
	if isUnsupported(err) {
		p.unsupported("PutPublicAccessBlock", awscall.ErrorCode(err), p.bucket)
		return nil
	}
	if err != nil {
		return p.fail("PutPublicAccessBlock", "", err)
	}
	p.recorder.Eventf("PublicAccessBlockUpdated", "Set the public access block of S3 bucket %s: ACLs blocked, the bucket policy may grant anonymous reads", p.bucket)
	return nil
}

func samePublicAccessBlock(a, b s3types.PublicAccessBlockConfiguration) bool {
	return aws.ToBool(a.BlockPublicAcls) == aws.ToBool(b.BlockPublicAcls) &&
		aws.ToBool(a.IgnorePublicAcls) == aws.ToBool(b.IgnorePublicAcls) &&
		aws.ToBool(a.BlockPublicPolicy) == aws.ToBool(b.BlockPublicPolicy) &&
		aws.ToBool(a.RestrictPublicBuckets) == aws.ToBool(b.RestrictPublicBuckets)
}

// isUnsupported is how S3-compatible servers answer calls they lack:
// versitygw and s3rver say NotImplemented, MinIO MalformedXML.
func isUnsupported(err error) bool {
	code := awscall.ErrorCode(err)
	return code == "NotImplemented" || code == "MalformedXML"
}

func (p *publisher) ensureReadPolicy(ctx context.Context) error {
	existing := ""
	out, err := p.store.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(p.bucket), ExpectedBucketOwner: p.expectedOwner()})
	switch {
	case err == nil:
		existing = aws.ToString(out.Policy)
	case awscall.ErrorCode(err) == "NoSuchBucketPolicy":
	default:
		return p.fail("GetBucketPolicy", "", err)
	}
	policy, changed := withReadStatement(existing, readStatement(p.bucket, p.region))
	// Judged on the policy as it will stand: the statements kept are others'.
	p.policyRead, p.unsafe = true, unsafeStatements(policy, documentARNs(p.bucket, p.region))
	if !changed {
		return nil
	}
	if _, err := p.store.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(p.bucket), Policy: aws.String(policy), ExpectedBucketOwner: p.expectedOwner()}); err != nil {
		return p.fail("PutBucketPolicy", "", err)
	}
	p.recorder.Eventf("BucketPolicyUpdated", "Set the policy of S3 bucket %s: anyone may read the issuer documents %s and %s, and nothing else", p.bucket, issuer.DiscoveryPath, issuer.KeysPath)
	return nil
}

func (p *publisher) expectedOwner() *string {
	if p.owner == "" {
		return nil
	}
	return aws.String(p.owner)
}

// readStatement lets anyone read the two issuer documents, and nothing
// else: no other object a writer might plant, no listing.
func readStatement(bucket, region string) map[string]any {
	var resources []any
	for _, arn := range documentARNs(bucket, region) {
		resources = append(resources, arn)
	}
	return map[string]any{
		"Sid":       readPolicySid,
		"Effect":    "Allow",
		"Principal": "*",
		"Action":    []any{"s3:GetObject"},
		"Resource":  resources,
	}
}

// documentARNs are the ARNs of the issuer documents in bucket.
func documentARNs(bucket, region string) []string {
	var out []string
	for _, key := range []string{issuer.DiscoveryPath, issuer.KeysPath} {
		out = append(out, fmt.Sprintf("arn:%s:s3:::%s/%s", partition(region), bucket, key))
	}
	return out
}

// partition is the AWS partition of region, for ARNs.
func partition(region string) string {
	name, _ := podidentity.Partition(region)
	return name
}

// withReadStatement returns existing with statement in it, and whether
// that changed anything. Other statements (an admin's, say, denying
// plain-HTTP access) are kept; a statement with our Sid is replaced.
func withReadStatement(existing string, statement map[string]any) (string, bool) {
	doc := map[string]any{}
	var statements []any
	// "null" decodes to a nil map.
	if existing != "" && json.Unmarshal([]byte(existing), &doc) == nil && doc != nil {
		switch s := doc["Statement"].(type) {
		case []any:
			statements = s
		case map[string]any:
			statements = []any{s}
		}
	} else {
		doc = map[string]any{}
	}
	for _, s := range statements {
		if sameStatement(s, statement) {
			return existing, false
		}
	}
	kept := []any{}
	for _, s := range statements {
		if m, ok := s.(map[string]any); ok && m["Sid"] == readPolicySid {
			continue
		}
		kept = append(kept, s)
	}
	doc["Statement"] = append(kept, statement)
	if _, ok := doc["Version"]; !ok {
		doc["Version"] = "2012-10-17"
	}
	out, err := json.Marshal(doc)
	if err != nil {
		// Only values decoded from JSON or built above are in doc.
		panic(err)
	}
	return string(out), true
}

// sameStatement compares statements the way IAM reads them: a string and
// a one-element list are the same, order in lists does not matter, and
// Principal "*" is {"AWS": "*"}.
func sameStatement(got any, want map[string]any) bool {
	m, ok := got.(map[string]any)
	if !ok || m["Effect"] != want["Effect"] || m["Condition"] != nil || m["NotAction"] != nil || m["NotResource"] != nil || m["NotPrincipal"] != nil {
		return false
	}
	principal := m["Principal"]
	if p, ok := principal.(map[string]any); ok && len(p) == 1 {
		principal = p["AWS"]
	}
	return slices.Equal(stringSet(principal), []string{"*"}) &&
		slices.Equal(stringSet(m["Action"]), stringSet(want["Action"])) &&
		slices.Equal(stringSet(m["Resource"]), stringSet(want["Resource"]))
}

func stringSet(v any) []string {
	var out []string
	switch t := v.(type) {
	case string:
		out = []string{t}
	case []any:
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil
			}
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// putIfChanged uploads body unless the object already holds it. No ACL:
// the bucket policy makes it readable.
func (p *publisher) putIfChanged(ctx context.Context, key string, body []byte, what string) error {
	holds, err := p.holds(ctx, key, body)
	if err != nil || holds {
		return err
	}
	_, err = p.store.PutObject(ctx, &s3.PutObjectInput{
		Bucket:              aws.String(p.bucket),
		Key:                 aws.String(key),
		Body:                bytes.NewReader(body),
		ContentLength:       aws.Int64(int64(len(body))),
		ContentType:         aws.String(contentType),
		ExpectedBucketOwner: p.expectedOwner(),
	})
	if err != nil {
		return p.fail("PutObject", key, err)
	}
	message := fmt.Sprintf("Uploaded %s to S3 bucket %s", key, p.bucket)
	if what != "" {
		message += " (" + what + ")"
	}
	p.recorder.Eventf("IssuerDocumentUploaded", "%s", message)
	return nil
}

// holds says whether key serves exactly body to a reader: the same bytes,
// as JSON, not encoded. It reads the bytes back rather than trust a digest:
// user metadata says whatever the last uploader wrote, and the ETag is no
// MD5 of the body under SSE-KMS. The documents are a few KB, and a GET is
// billed as a HEAD (docs/performance.md). An object of another length is
// not read at all, so a planted large object costs nothing to detect.
func (p *publisher) holds(ctx context.Context, key string, body []byte) (bool, error) {
	out, err := p.store.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(p.bucket), Key: aws.String(key), ExpectedBucketOwner: p.expectedOwner()})
	if isNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, p.fail("GetObject", key, err)
	}
	defer out.Body.Close()
	if aws.ToString(out.ContentType) != contentType || aws.ToString(out.ContentEncoding) != "" ||
		(out.ContentLength != nil && *out.ContentLength != int64(len(body))) {
		return false, nil
	}
	got, err := io.ReadAll(io.LimitReader(out.Body, int64(len(body))+1))
	if err != nil {
		return false, p.fail("GetObject", key, err)
	}
	return bytes.Equal(got, body), nil
}

// isNotFound is HeadBucket's 404 (no body, so the SDK names it NotFound),
// GetObject's NoSuchKey, or a NoSuchBucket.
func isNotFound(err error) bool {
	var nf *s3types.NotFound
	if errors.As(err, &nf) {
		return true
	}
	switch awscall.ErrorCode(err) {
	case "NotFound", "NoSuchBucket", "NoSuchKey":
		return true
	}
	return false
}
