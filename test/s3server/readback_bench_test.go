package s3server

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscredentials "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// BenchmarkReadBack compares how the issuer publisher can check that an
// object still holds what it wrote: HeadObject (trusting the ETag or
// metadata the uploader chose) or GetObject and a comparison of the bytes
// (what it does). keys.json with two RSA keys is about 1 KB; a large key
// set stays a few KB. docs/performance.md has the figures.
func BenchmarkReadBack(b *testing.B) {
	s := StartT(b)
	ctx := context.Background()
	client := s3.New(s3.Options{
		Region:       s.Region,
		Credentials:  awscredentials.NewStaticCredentialsProvider(s.AccessKeyID, s.SecretAccessKey, ""),
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
	})
	const bucket, key = "bench-workload-access-oidc", "keys.json"
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		b.Fatal(err)
	}
	for _, size := range []int{1 << 10, 8 << 10} {
		body := bytes.Repeat([]byte("k"), size)
		if _, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body),
			ContentType: aws.String("application/json")}); err != nil {
			b.Fatal(err)
		}
		name := map[int]string{1 << 10: "1KiB", 8 << 10: "8KiB"}[size]
		b.Run("HeadObject/"+name, func(b *testing.B) {
			for b.Loop() {
				if _, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("GetObjectAndCompare/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
				if err != nil {
					b.Fatal(err)
				}
				got, err := io.ReadAll(io.LimitReader(out.Body, int64(size)+1))
				out.Body.Close()
				if err != nil || !bytes.Equal(got, body) {
					b.Fatalf("read back %d bytes: %v", len(got), err)
				}
			}
		})
	}
}
