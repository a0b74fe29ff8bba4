package stschain

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const (
	// roleARNAnnotation is what an admin puts on a ServiceAccount.
	roleARNAnnotation = "eks.amazonaws.com/role-arn"
	// dataBucket holds allowedKey, which the role may read, and otherKey,
	// which it may not.
	dataBucket  = "stschain-data"
	allowedKey  = "allowed.txt"
	otherKey    = "other.txt"
	allowedBody = "read with the ServiceAccount's role"
	// requestedBucket's objects are what the role of an IAMRoleRequest may
	// read; it holds requestedKey.
	requestedBucket = "stschain-requested"
	requestedKey    = "report.txt"
	requestedBody   = "read with the role an IAMRoleRequest asked for"
)

func createDataObjects(ctx context.Context) error {
	for bucket, objects := range map[string]map[string]string{
		dataBucket:      {allowedKey: allowedBody, otherKey: "not for this role"},
		requestedBucket: {requestedKey: requestedBody},
		// Each test puts its namespaces' objects.
		byNamespaceBucket: {},
	} {
		if _, err := env.s3Client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
			return fmt.Errorf("creating bucket %s: %w", bucket, err)
		}
		for key, body := range objects {
			if _, err := env.s3Client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
				return fmt.Errorf("putting %s/%s: %w", bucket, key, err)
			}
		}
	}
	return nil
}

// policy is an IAM policy document.
func policy(t *testing.T, statement map[string]any) string {
	t.Helper()
	doc, err := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": []any{statement}})
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

// createRole creates, as an admin would, a role that the ServiceAccount
// ns/name may assume with a token of the cluster's issuer, allowed to read
// dataBucket/allowedKey and nothing else. It returns the role's ARN.
func createRole(t *testing.T, ns, name string) string {
	t.Helper()
	ctx := context.Background()
	trust := policy(t, map[string]any{
		"Effect":    "Allow",
		"Principal": map[string]any{"Federated": env.providerARN},
		"Action":    "sts:AssumeRoleWithWebIdentity",
		"Condition": map[string]any{"StringEquals": map[string]any{
			issuerHostPath() + ":sub": "system:serviceaccount:" + ns + ":" + name,
			issuerHostPath() + ":aud": stsAudience,
		}},
	})
	roleName := ns + "-" + name
	role, err := env.iam.CreateRole(ctx, &iam.CreateRoleInput{
		RoleName:                 aws.String(roleName),
		Path:                     aws.String("/stschain/"),
		AssumeRolePolicyDocument: aws.String(trust),
	})
	if err != nil {
		t.Fatalf("CreateRole: %v", err)
	}
	_, err = env.iam.PutRolePolicy(ctx, &iam.PutRolePolicyInput{
		RoleName:   aws.String(roleName),
		PolicyName: aws.String("read-one-object"),
		PolicyDocument: aws.String(policy(t, map[string]any{
			"Effect":   "Allow",
			"Action":   "s3:GetObject",
			"Resource": "arn:aws:s3:::" + dataBucket + "/" + allowedKey,
		})),
	})
	if err != nil {
		t.Fatalf("PutRolePolicy: %v", err)
	}
	return aws.ToString(role.Role.Arn)
}

func createNamespace(t *testing.T) string {
	t.Helper()
	ns, err := env.kube.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "stschain-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}

// createPod creates a ServiceAccount annotated with roleARN and a pod
// running as it, through the API server (and so the webhook), and returns
// the pod as stored.
func createPod(t *testing.T, ns, serviceAccount, roleARN string) *corev1.Pod {
	t.Helper()
	createServiceAccount(t, ns, serviceAccount, map[string]string{roleARNAnnotation: roleARN})
	return createPodOf(t, ns, serviceAccount)
}

func createServiceAccount(t *testing.T, ns, name string, annotations map[string]string) {
	t.Helper()
	_, err := env.kube.CoreV1().ServiceAccounts(ns).Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
		Name: name, Annotations: annotations,
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// createPodOf creates a pod running as the ServiceAccount ns/serviceAccount
// through the API server (and so the webhook), and returns it as stored.
func createPodOf(t *testing.T, ns, serviceAccount string) *corev1.Pod {
	t.Helper()
	pod, err := env.kube.CoreV1().Pods(ns).Create(context.Background(), &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: serviceAccount + "-"},
		Spec: corev1.PodSpec{
			ServiceAccountName: serviceAccount,
			Containers: []corev1.Container{{
				Name: "app", Image: "registry.invalid/stschain/app:1",
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false), RunAsNonRoot: ptr.To(true),
					Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
					SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
				},
			}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pod
}

// mount materializes the pod's "app" container (mountTokens) in a new
// directory and checks that its AWS_WEB_IDENTITY_TOKEN_FILE names a token
// the pod's spec projects, which only the webhook's token volume does.
func mount(t *testing.T, pod *corev1.Pod) *mountedContainer {
	t.Helper()
	mc, err := mountTokens(context.Background(), env.kube, pod, "app", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := envValue(mc.Env, "AWS_WEB_IDENTITY_TOKEN_FILE")
	if _, ok := mc.Tokens[file]; !ok {
		var volumes []string
		for _, v := range pod.Spec.Volumes {
			volumes = append(volumes, v.Name)
		}
		t.Fatalf("AWS_WEB_IDENTITY_TOKEN_FILE=%q is no projected service account token of the pod's container "+
			"(tokens written: %v; env %v; volumes %v)", file, keys(mc.Tokens), mc.Env, volumes)
	}
	return mc
}

// workloadEnv is the container's environment plus what the test adds to
// reach this machine's STS and S3 instead of AWS's.
func workloadEnv(mc *mountedContainer) []string {
	return append(append([]string(nil), mc.Env...),
		"AWS_ENDPOINT_URL_STS="+env.s3.IAMEndpoint,
		"AWS_ENDPOINT_URL_S3="+env.s3.Endpoint)
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A pod of a ServiceAccount annotated with a role gets, from the webhook
// alone, what the AWS SDK needs: the default credential chain assumes the
// role with the pod's token, reads the object the role allows and is
// refused another. Another ServiceAccount's token is refused the role.
func TestPodGetsCredentialsOfItsServiceAccountRole(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	ns := createNamespace(t)
	roleARN := createRole(t, ns, "reader")
	reader := mount(t, createPod(t, ns, "reader", roleARN))

	got, err := runWorkload(ctx, reader.Root, workloadEnv(reader), dataBucket+"/"+allowedKey, dataBucket+"/"+otherKey)
	if err != nil {
		t.Fatal(err)
	}
	if got.CredentialError != nil || got.CredentialSource != stscreds.WebIdentityProviderName {
		t.Fatalf("credentials from %q, error %v; want them from %s (env %v)", got.CredentialSource, got.CredentialError, stscreds.WebIdentityProviderName, reader.Env)
	}
	if allowed := got.Objects[dataBucket+"/"+allowedKey]; allowed.Error != nil || allowed.Body != allowedBody {
		t.Errorf("GetObject %s/%s: %q, %v; want %q", dataBucket, allowedKey, allowed.Body, allowed.Error, allowedBody)
	}
	if other := got.Objects[dataBucket+"/"+otherKey]; other.Error == nil || other.Error.Status != 403 || other.Error.Code != "AccessDenied" {
		t.Errorf("GetObject %s/%s with the role: %q, %v; want HTTP 403 AccessDenied", dataBucket, otherKey, other.Body, other.Error)
	}

	// Another ServiceAccount annotated with the same role: the webhook
	// injects it, STS refuses its token (the trust policy names reader).
	intruder := mount(t, createPod(t, ns, "intruder", roleARN))
	got, err = runWorkload(ctx, intruder.Root, workloadEnv(intruder), dataBucket+"/"+allowedKey)
	if err != nil {
		t.Fatal(err)
	}
	if got.CredentialError == nil || got.CredentialError.Code != "InvalidIdentityToken" {
		t.Errorf("another ServiceAccount's token: credentials from %q, error %v; want InvalidIdentityToken", got.CredentialSource, got.CredentialError)
	}
}

// assumeRole asks STS for the role with token, as the SDK's web identity
// provider does, without its retries.
func assumeRole(ctx context.Context, roleARN, token string) error {
	_, err := env.sts.AssumeRoleWithWebIdentity(ctx, &sts.AssumeRoleWithWebIdentityInput{
		RoleArn:          aws.String(roleARN),
		RoleSessionName:  aws.String("stschain"),
		WebIdentityToken: aws.String(token),
	})
	return err
}

// After kube-apiserver starts signing with a new key, tokens it signs are
// accepted once the publisher has published that key and STS has fetched
// it. The worst order is tried: the API server signs with the new key
// before the publisher's ConfigMap names it.
func TestTokenOfRotatedSigningKeyIsAccepted(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	ns := createNamespace(t)
	roleARN := createRole(t, ns, "reader")
	pod := createPod(t, ns, "reader", roleARN)
	before := mount(t, pod)
	if err := assumeRole(ctx, roleARN, before.Tokens[envValue(before.Env, "AWS_WEB_IDENTITY_TOKEN_FILE")]); err != nil {
		t.Fatalf("a token of the first key: %v", err)
	}

	restart := time.Now()
	newKey, err := env.cp.RotateServiceAccountSigningKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rotated := time.Now()
	t.Logf("kube-apiserver restarted with the new signing key in %s", rotated.Sub(restart).Round(100*time.Millisecond))
	if err := trustSigningKey(ctx, "service-account-002.pub", newKey); err != nil {
		t.Fatal(err)
	}
	newKID, err := keyIDOfFile(newKey)
	if err != nil {
		t.Fatal(err)
	}

	after := mount(t, pod)
	token := after.Tokens[envValue(after.Env, "AWS_WEB_IDENTITY_TOKEN_FILE")]
	if kid, err := tokenKeyID(token); err != nil || kid != newKID {
		t.Fatalf("the pod's token after the rotation has kid %q (%v), want the new key's %q", kid, err, newKID)
	}
	// STS fetches the JWKS again for an unknown kid at most every 30 s, so
	// a token tried before the key is published waits that long.
	var published, accepted time.Duration
	var last error
	deadline := time.Now().Add(90 * time.Second)
	for accepted == 0 {
		if published == 0 {
			if kids, err := publishedKeyIDs(ctx); err == nil && slices.Contains(kids, newKID) {
				published = time.Since(rotated)
			}
		}
		if last = assumeRole(ctx, roleARN, token); last == nil {
			accepted = time.Since(rotated)
			break
		}
		if time.Now().After(deadline) {
			publication := "the issuer's JWKS never held it"
			if published != 0 {
				publication = fmt.Sprintf("published after %s", published.Round(100*time.Millisecond))
			}
			t.Fatalf("a token of the new signing key %s was still refused %s after the rotation (%s): %v",
				newKID, time.Since(rotated).Round(time.Second), publication, last)
		}
		time.Sleep(time.Second)
	}
	t.Logf("signing key rotated: the new key published after %s, its first token accepted by STS after %s",
		published.Round(100*time.Millisecond), accepted.Round(100*time.Millisecond))

	// And the pod's SDK, with the new token, reads what the role allows.
	got, err := runWorkload(ctx, after.Root, workloadEnv(after), dataBucket+"/"+allowedKey)
	if err != nil {
		t.Fatal(err)
	}
	if allowed := got.Objects[dataBucket+"/"+allowedKey]; got.CredentialError != nil || allowed.Body != allowedBody {
		t.Errorf("after the rotation: credential error %v, GetObject %q %v", got.CredentialError, allowed.Body, allowed.Error)
	}
}

// dumpOnFailure logs the operator's and the webhook's last lines when t fails.
func dumpOnFailure(t *testing.T) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		t.Log(env.running.Tail(40))
		t.Log(env.webhook.Tail(20))
		t.Log(env.s3.Tail(20))
	})
}
