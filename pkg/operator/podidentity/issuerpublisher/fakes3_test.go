package issuerpublisher

import (
	"bytes"
	"cmp"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// fakeS3 is an in-memory objectStore: buckets, their public access block
// and policy, and objects with the ETag S3 gives a single-part upload. It
// records every call, and can be told to fail any of them.
type fakeS3 struct {
	buckets map[string]*fakeBucket
	calls   []string
	// fail maps a call ("PutObject keys.json", or just "PutObject") to the
	// error it returns.
	fail map[string]error
	// region is where the client sends its requests ("" for an
	// S3-compatible endpoint: no region is checked). A bucket in another
	// region answers as S3 does, in the style wrongRegion says.
	region      string
	wrongRegion wrongRegionStyle
	// bytesRead counts the object bytes GetObject callers read.
	bytesRead int
	// account is the caller's account: the owner of the buckets it
	// creates, and of those whose owner is "". Calls that expect another
	// owner are refused, as S3 does; those expecting none are listed in
	// withoutOwner.
	account      string
	withoutOwner []string
}

// wrongRegionStyle is how S3 refuses a request sent to another region than
// the bucket's.
type wrongRegionStyle int

const (
	// redirect: 301 PermanentRedirect (MovedPermanently for a HEAD, which
	// has no body), with the bucket's region in a header.
	redirect wrongRegionStyle = iota
	// malformedAuthorization: 400 AuthorizationHeaderMalformed naming the
	// expected region (BadRequest for a HEAD, the region then in a header).
	malformedAuthorization
)

type fakeBucket struct {
	// region is the bucket's region, "" for one that answers in any.
	region string
	// owner is the account that owns it, "" for the caller's.
	owner              string
	locationConstraint string
	publicAccessBlock  *s3types.PublicAccessBlockConfiguration
	policy             string
	objects            map[string]fakeObject
}

type fakeObject struct {
	body                         []byte
	contentType, contentEncoding string
	metadata                     map[string]string
	acl                          s3types.ObjectCannedACL
}

func newFakeS3() *fakeS3 {
	return &fakeS3{buckets: map[string]*fakeBucket{}, fail: map[string]error{}}
}

func apiError(code, message string) error {
	return &smithy.GenericAPIError{Code: code, Message: message}
}

func (f *fakeS3) call(operation, bucket, key string, expectedOwner *string) (*fakeBucket, error) {
	name := operation
	if key != "" {
		name += " " + key
	}
	f.calls = append(f.calls, name)
	if expectedOwner == nil && operation != "CreateBucket" {
		f.withoutOwner = append(f.withoutOwner, name)
	}
	if err, ok := f.fail[name]; ok {
		return nil, err
	}
	if err, ok := f.fail[operation]; ok {
		return nil, err
	}
	b := f.buckets[bucket]
	if b != nil && b.region != "" && f.region != "" && b.region != f.region {
		return nil, f.wrongRegionError(operation, b.region)
	}
	if b != nil && expectedOwner != nil && *expectedOwner != cmp.Or(b.owner, f.account) {
		if strings.HasPrefix(operation, "Head") {
			return nil, httpError(operation, http.StatusForbidden, http.Header{}, apiError("Forbidden", "Forbidden"))
		}
		return nil, httpError(operation, http.StatusForbidden, http.Header{}, apiError("AccessDenied", "Access Denied"))
	}
	return b, nil
}

// wrongRegionError is the error the SDK returns for S3's answer to a
// request sent to region f.region for a bucket in bucketRegion.
func (f *fakeS3) wrongRegionError(operation, bucketRegion string) error {
	head := strings.HasPrefix(operation, "Head")
	status, header := http.StatusMovedPermanently, http.Header{}
	var err error
	switch {
	case f.wrongRegion == redirect && head:
		header.Set("X-Amz-Bucket-Region", bucketRegion)
		err = apiError("MovedPermanently", "Moved Permanently")
	case f.wrongRegion == redirect:
		header.Set("X-Amz-Bucket-Region", bucketRegion)
		err = apiError("PermanentRedirect", "The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.")
	case head:
		status = http.StatusBadRequest
		header.Set("X-Amz-Bucket-Region", bucketRegion)
		err = apiError("BadRequest", "Bad Request")
	default:
		status = http.StatusBadRequest
		err = apiError("AuthorizationHeaderMalformed", fmt.Sprintf("The authorization header is malformed; the region '%s' is wrong; expecting '%s'", f.region, bucketRegion))
	}
	return httpError(operation, status, header, err)
}

// httpError wraps err as the SDK does an answer with status and header.
func httpError(operation string, status int, header http.Header, err error) error {
	return &smithy.OperationError{ServiceID: "S3", OperationName: operation, Err: &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status, Header: header}}, Err: err},
	}}
}

// writes are the calls that change something.
func (f *fakeS3) writes() []string {
	var out []string
	for _, c := range f.calls {
		if strings.HasPrefix(c, "Put") || strings.HasPrefix(c, "Create") || strings.HasPrefix(c, "Delete") {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeS3) HeadBucket(_ context.Context, in *s3.HeadBucketInput, _ ...func(*s3.Options)) (*s3.HeadBucketOutput, error) {
	b, err := f.call("HeadBucket", aws.ToString(in.Bucket), "", in.ExpectedBucketOwner)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, &s3types.NotFound{}
	}
	return &s3.HeadBucketOutput{}, nil
}

func (f *fakeS3) CreateBucket(_ context.Context, in *s3.CreateBucketInput, _ ...func(*s3.Options)) (*s3.CreateBucketOutput, error) {
	b, err := f.call("CreateBucket", aws.ToString(in.Bucket), "", nil)
	if err != nil {
		return nil, err
	}
	if b != nil {
		return nil, apiError("BucketAlreadyOwnedByYou", "Your previous request to create the named bucket succeeded and you already own it.")
	}
	b = &fakeBucket{objects: map[string]fakeObject{}, region: f.region, owner: f.account}
	if in.CreateBucketConfiguration != nil {
		b.locationConstraint = string(in.CreateBucketConfiguration.LocationConstraint)
	}
	// New AWS buckets block all public access.
	b.publicAccessBlock = &s3types.PublicAccessBlockConfiguration{BlockPublicAcls: aws.Bool(true), IgnorePublicAcls: aws.Bool(true), BlockPublicPolicy: aws.Bool(true), RestrictPublicBuckets: aws.Bool(true)}
	f.buckets[aws.ToString(in.Bucket)] = b
	return &s3.CreateBucketOutput{}, nil
}

func (f *fakeS3) GetPublicAccessBlock(_ context.Context, in *s3.GetPublicAccessBlockInput, _ ...func(*s3.Options)) (*s3.GetPublicAccessBlockOutput, error) {
	b, err := f.call("GetPublicAccessBlock", aws.ToString(in.Bucket), "", in.ExpectedBucketOwner)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, apiError("NoSuchBucket", "The specified bucket does not exist")
	}
	if b.publicAccessBlock == nil {
		return nil, apiError("NoSuchPublicAccessBlockConfiguration", "The public access block configuration was not found")
	}
	c := *b.publicAccessBlock
	return &s3.GetPublicAccessBlockOutput{PublicAccessBlockConfiguration: &c}, nil
}

func (f *fakeS3) PutPublicAccessBlock(_ context.Context, in *s3.PutPublicAccessBlockInput, _ ...func(*s3.Options)) (*s3.PutPublicAccessBlockOutput, error) {
	b, err := f.call("PutPublicAccessBlock", aws.ToString(in.Bucket), "", in.ExpectedBucketOwner)
	if err != nil {
		return nil, err
	}
	c := *in.PublicAccessBlockConfiguration
	b.publicAccessBlock = &c
	return &s3.PutPublicAccessBlockOutput{}, nil
}

func (f *fakeS3) GetBucketPolicy(_ context.Context, in *s3.GetBucketPolicyInput, _ ...func(*s3.Options)) (*s3.GetBucketPolicyOutput, error) {
	b, err := f.call("GetBucketPolicy", aws.ToString(in.Bucket), "", in.ExpectedBucketOwner)
	if err != nil {
		return nil, err
	}
	if b.policy == "" {
		return nil, apiError("NoSuchBucketPolicy", "The bucket policy does not exist")
	}
	return &s3.GetBucketPolicyOutput{Policy: aws.String(b.policy)}, nil
}

func (f *fakeS3) PutBucketPolicy(_ context.Context, in *s3.PutBucketPolicyInput, _ ...func(*s3.Options)) (*s3.PutBucketPolicyOutput, error) {
	b, err := f.call("PutBucketPolicy", aws.ToString(in.Bucket), "", in.ExpectedBucketOwner)
	if err != nil {
		return nil, err
	}
	if b.publicAccessBlock != nil && aws.ToBool(b.publicAccessBlock.BlockPublicPolicy) {
		return nil, apiError("AccessDenied", "public policies are blocked by the BlockPublicPolicy block public access setting")
	}
	b.policy = aws.ToString(in.Policy)
	return &s3.PutBucketPolicyOutput{}, nil
}

func etagOf(body []byte) string {
	sum := md5.Sum(body)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

func (f *fakeS3) GetObject(_ context.Context, in *s3.GetObjectInput, _ ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	b, err := f.call("GetObject", aws.ToString(in.Bucket), aws.ToString(in.Key), in.ExpectedBucketOwner)
	if err != nil {
		return nil, err
	}
	o, ok := b.objects[aws.ToString(in.Key)]
	if !ok {
		return nil, &s3types.NoSuchKey{Message: aws.String("The specified key does not exist.")}
	}
	body := &countingBody{Reader: bytes.NewReader(o.body), read: &f.bytesRead}
	return &s3.GetObjectOutput{Body: body, ETag: aws.String(etagOf(o.body)), ContentType: aws.String(o.contentType),
		ContentEncoding: aws.String(o.contentEncoding), ContentLength: aws.Int64(int64(len(o.body))), Metadata: maps.Clone(o.metadata)}, nil
}

// countingBody adds what is read from it to read.
type countingBody struct {
	io.Reader
	read *int
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.Reader.Read(p)
	*b.read += n
	return n, err
}

func (b *countingBody) Close() error { return nil }

func (f *fakeS3) PutObject(_ context.Context, in *s3.PutObjectInput, _ ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	b, err := f.call("PutObject", aws.ToString(in.Bucket), aws.ToString(in.Key), in.ExpectedBucketOwner)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(in.Body)
	if err != nil {
		return nil, err
	}
	if in.ContentLength != nil && *in.ContentLength != int64(len(body)) {
		return nil, fmt.Errorf("content length %d for %d bytes", *in.ContentLength, len(body))
	}
	b.objects[aws.ToString(in.Key)] = fakeObject{body: body, contentType: aws.ToString(in.ContentType), contentEncoding: aws.ToString(in.ContentEncoding),
		metadata: maps.Clone(in.Metadata), acl: in.ACL}
	return &s3.PutObjectOutput{ETag: aws.String(etagOf(body))}, nil
}
