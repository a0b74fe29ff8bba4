package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscredentials "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuerpublisher"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// tamperer is an S3 client with the server's root credentials: a writer
// the publisher does not control, as anyone else allowed into the bucket.
func tamperer() *s3.Client {
	return s3.New(s3.Options{
		Region:       env.s3.Region,
		Credentials:  awscredentials.NewStaticCredentialsProvider(env.s3.AccessKeyID, env.s3.SecretAccessKey, ""),
		BaseEndpoint: aws.String(env.s3.Endpoint),
		UsePathStyle: true,
	})
}

// untilRestored touches the signing keys' ConfigMap every few seconds (a
// sync reads the bucket back, as the minute's resync does) until check
// passes.
func untilRestored(t *testing.T, check func(ctx context.Context) error) {
	t.Helper()
	var touched time.Time
	framework.Eventually(t, issuerpublisher.ResyncInterval+15*time.Second, func(ctx context.Context) error {
		err := check(ctx)
		if err != nil && time.Since(touched) > 6*time.Second {
			touchSigningCerts(t)
			touched = time.Now()
		}
		return err
	})
}

// A keys.json forged with other bytes, but carrying the legitimate
// document's SHA-256 in x-amz-meta-sha256 (what the publisher once trusted),
// is replaced by the next sync that reads the bucket back; status never
// stopped listing the legitimate keys. A sync with nothing changed then
// uploads nothing.
func TestIssuerForgedKeysAreRepaired(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	apiKey := apiServerKey(t)
	signingCerts(t, map[string][]byte{"service-account-001.pub": apiKey})
	waitPublished(t, time.Minute, pemKeyID(t, apiKey))

	legit, err := env.s3.AnonymousGet(ctx, issuerBucket, keysKey)
	if err != nil || legit.Status != 200 {
		t.Fatalf("anonymous GET %s: %v %v", keysKey, legit, err)
	}
	sum := sha256.Sum256(legit.Body)
	forged := []byte(`{"keys":[{"use":"sig","kty":"EC","kid":"attacker","crv":"P-256","alg":"ES256","x":"AAAA","y":"AAAA"}]}`)
	if _, err := tamperer().PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(issuerBucket), Key: aws.String(keysKey), Body: bytes.NewReader(forged),
		ContentType: aws.String("application/json"), Metadata: map[string]string{"sha256": hex.EncodeToString(sum[:])},
	}); err != nil {
		t.Fatal(err)
	}
	forgedAt := time.Now()
	untilRestored(t, func(ctx context.Context) error {
		got, err := env.s3.AnonymousGet(ctx, issuerBucket, keysKey)
		if err != nil || !bytes.Equal(got.Body, legit.Body) {
			return fmt.Errorf("keys.json is still %v (%v)", got, err)
		}
		return nil
	})
	t.Logf("the forged keys.json was replaced %s after it was written", time.Since(forgedAt).Round(time.Second))
	waitPublished(t, 10*time.Second, pemKeyID(t, apiKey))

	// Nothing changed: a sync that reads both documents back writes neither.
	keysFile := filepath.Join(env.s3.DataDir, issuerBucket, keysKey)
	discoveryFile := filepath.Join(env.s3.DataDir, issuerBucket, ".well-known", "openid-configuration")
	time.Sleep(6 * time.Second) // past the publisher's coalescing window, so the next sync reads S3
	before := modTimes(t, keysFile, discoveryFile)
	touchSigningCerts(t)
	time.Sleep(3 * time.Second)
	if after := modTimes(t, keysFile, discoveryFile); !slices.Equal(before, after) {
		t.Errorf("an unchanged issuer was uploaded again: modification times %v -> %v", before, after)
	}
}

// The publisher's anonymous read covers the two issuer documents and no
// other object; a public write planted in the bucket policy, and a deny of
// the anonymous read, are kept but reported in IssuerBucketPolicySafe and
// an Event, without a Condition's values; removing them clears it.
func TestIssuerBucketPolicyIsScopedAndForeignStatementsReported(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	apiKey := apiServerKey(t)
	signingCerts(t, map[string][]byte{"service-account-001.pub": apiKey})
	waitPublished(t, time.Minute, pemKeyID(t, apiKey))

	// Only the documents are public.
	admin := tamperer()
	if _, err := admin.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(issuerBucket), Key: aws.String("planted.html"),
		Body: strings.NewReader("<html>phish</html>"), ContentType: aws.String("text/html")}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(issuerBucket), Key: aws.String("planted.html")})
	})
	if got, err := env.s3.AnonymousGet(ctx, issuerBucket, "planted.html"); err != nil || got.Status != 403 {
		t.Errorf("anonymous GET of another object in the issuer bucket: %v %v, want 403", got, err)
	}
	for _, key := range []string{discoveryKey, keysKey} {
		if got, err := env.s3.AnonymousGet(ctx, issuerBucket, key); err != nil || got.Status != 200 {
			t.Errorf("anonymous GET %s: %v %v", key, got, err)
		}
	}
	waitPolicyCondition(t, "True", "AsExpected")

	out, err := admin.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(issuerBucket)})
	if err != nil {
		t.Fatal(err)
	}
	clean := aws.ToString(out.Policy)
	t.Cleanup(func() {
		_, _ = admin.PutBucketPolicy(context.Background(), &s3.PutBucketPolicyInput{Bucket: aws.String(issuerBucket), Policy: aws.String(clean)})
	})
	plant := func(statements ...string) {
		t.Helper()
		var doc map[string]any
		if err := json.Unmarshal([]byte(clean), &doc); err != nil {
			t.Fatal(err)
		}
		all := doc["Statement"].([]any)
		for _, s := range statements {
			var m any
			if err := json.Unmarshal([]byte(s), &m); err != nil {
				t.Fatal(err)
			}
			all = append(all, m)
		}
		doc["Statement"] = all
		policy, _ := json.Marshal(doc)
		if _, err := admin.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(issuerBucket), Policy: aws.String(string(policy))}); err != nil {
			t.Fatalf("PutBucketPolicy %s: %v", policy, err)
		}
	}
	const secret = "referer-s3cr3t-e2e"
	publicWrite := `{"Sid":"PlantedWrite","Effect":"Allow","Principal":"*","Action":["s3:PutObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::` + issuerBucket + `/*",` +
		`"Condition":{"StringEquals":{"aws:Referer":"` + secret + `"}}}`
	plant(publicWrite)
	planted := time.Now()
	cond := waitPolicyCondition(t, "False", issuerpublisher.ReasonPolicyGrantsEveryoneMore)
	t.Logf("reported %s after the statement was planted: %s", time.Since(planted).Round(time.Second), cond.Message)
	if !strings.Contains(cond.Message, `Sid "PlantedWrite") allows everyone s3:PutObject, s3:DeleteObject under a Condition`) || strings.Contains(cond.Message, secret) {
		t.Errorf("condition message %q", cond.Message)
	}
	framework.Eventually(t, 10*time.Second, func(ctx context.Context) error {
		list, err := env.kube.CoreV1().Events("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Reason == "IssuerBucketPolicyUnsafe" && strings.Contains(e.Message, "PlantedWrite") {
				if e.Type != "Warning" || strings.Contains(e.Message, secret) {
					t.Errorf("event %s: %s", e.Type, e.Message)
				}
				return nil
			}
		}
		return fmt.Errorf("no IssuerBucketPolicyUnsafe event")
	})
	// Kept: the publisher owns its statement, not the policy.
	if out, err := admin.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(issuerBucket)}); err != nil || !strings.Contains(aws.ToString(out.Policy), "PlantedWrite") {
		t.Errorf("the planted statement is gone: %v %v", out, err)
	}

	plant(`{"Sid":"NoReads","Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::` + issuerBucket + `/keys.json"}`)
	cond = waitPolicyCondition(t, "False", issuerpublisher.ReasonPolicyDeniesAnonymousRead)
	if !strings.Contains(cond.Message, `Sid "NoReads") denies everyone s3:GetObject on the issuer documents`) {
		t.Errorf("condition message %q", cond.Message)
	}

	if _, err := admin.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(issuerBucket), Policy: aws.String(clean)}); err != nil {
		t.Fatal(err)
	}
	waitPolicyCondition(t, "True", "AsExpected")
}

// waitPolicyCondition waits, touching the signing keys so that the
// publisher reads the bucket back, until IssuerBucketPolicySafe has status
// and reason.
func waitPolicyCondition(t *testing.T, status, reason string) *operatorv1.OperatorCondition {
	t.Helper()
	var cond *operatorv1.OperatorCondition
	untilRestored(t, func(ctx context.Context) error {
		var err error
		if cond, err = operatorCondition(ctx, issuerpublisher.IssuerBucketPolicySafe); err != nil {
			return err
		}
		if string(cond.Status) != status || cond.Reason != reason {
			return fmt.Errorf("%s is %s/%s (%s), want %s/%s", issuerpublisher.IssuerBucketPolicySafe, cond.Status, cond.Reason, cond.Message, status, reason)
		}
		return nil
	})
	return cond
}
