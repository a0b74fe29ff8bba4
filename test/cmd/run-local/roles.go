package main

// Phase 2 of pod identity on the local cluster (docs/aws-roles.md): the
// operator's IAMRoleRequest controller pointed at versitygw's IAM and STS,
// with the credentials Secret the CredentialsRequest workload-access-iam
// would provision, and the issuer registered as an IAM OIDC provider when
// IAM accepts its URL.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
	"github.com/openshift/cluster-workload-access-operator/test/s3server"
)

// The IAM credentials Secret of the contract (docs/aws-roles.md): what the
// cloud credential operator writes for the CredentialsRequest
// workload-access-iam, or the admin in manual mode.
const (
	iamCredentialsSecret = "workload-access-iam"
	accessKeyIDKey       = "aws_access_key_id"
	secretAccessKeyKey   = "aws_secret_access_key"
	// stsAudience is what the webhook puts in a role-bearing pod's token
	// by default, and so the OIDC provider's client ID.
	stsAudience = "sts.amazonaws.com"
	// issuerAddress is where the HTTPS front serves the issuer without a
	// network namespace (gateway.go), when it may listen on port 443: versitygw's IAM registers OIDC providers only
	// for https:// URLs without a port.
	issuerAddress = "127.0.0.1"
)

// demoObjectKey is a private object of the issuer bucket, which the role
// of demo-reader may read (s3:GetObject on <bucket>/*) and nobody
// anonymously: the bucket's public policy names only the issuer's
// documents.
const (
	demoObjectKey  = "demo/reader.txt"
	demoObjectBody = "read with the role of IAMRoleRequest demo-reader"
)

// putDemoObject creates the issuer bucket, which the operator then finds
// (it creates it only when absent), and puts demoObjectKey in it with the
// root account.
func putDemoObject(ctx context.Context, server *s3server.Server, bucket string) error {
	client := s3.New(s3.Options{
		Region:       server.Region,
		Credentials:  credentials.NewStaticCredentialsProvider(server.AccessKeyID, server.SecretAccessKey, ""),
		BaseEndpoint: aws.String(server.Endpoint),
		UsePathStyle: true,
	})
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return fmt.Errorf("creating bucket %s: %w", bucket, err)
	}
	_, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(demoObjectKey), Body: strings.NewReader(demoObjectBody)})
	if err != nil {
		return fmt.Errorf("putting %s/%s: %w", bucket, demoObjectKey, err)
	}
	return nil
}

// enableRoles points spec.podIdentity.roles at versitygw's IAM and STS (one
// endpoint serves both) and gives the operator the IAM credentials Secret,
// here versitygw's root account.
func enableRoles(ctx context.Context, cluster *framework.Cluster, s3 *s3server.Server) error {
	kube, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		return err
	}
	_, err = kube.CoreV1().Secrets(framework.OperatorNamespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: iamCredentialsSecret},
		Data: map[string][]byte{
			accessKeyIDKey:     []byte(s3.AccessKeyID),
			secretAccessKeyKey: []byte(s3.SecretAccessKey),
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating the IAM credentials Secret: %w", err)
	}
	operator, err := operatorclientset.NewForConfig(cluster.Config)
	if err != nil {
		return err
	}
	wa, err := operator.OperatorV1alpha1().WorkloadAccesses().Get(ctx, operatorv1alpha1.WorkloadAccessName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	wa.Spec.PodIdentity.Roles = operatorv1alpha1.IAMRolesSpec{IAMEndpoint: s3.IAMEndpoint, STSEndpoint: s3.IAMEndpoint}
	if _, err := operator.OperatorV1alpha1().WorkloadAccesses().Update(ctx, wa, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("setting WorkloadAccess cluster spec.podIdentity.roles: %w", err)
	}
	return nil
}

// registerIssuer registers issuerURL with versitygw's IAM as an admin would
// (phase 1 of the enhancement), pinning the front's CA.
func registerIssuer(ctx context.Context, s3 *s3server.Server, issuerURL, thumbprint string) (string, error) {
	client := iam.New(iam.Options{
		Region:       s3.Region,
		Credentials:  credentials.NewStaticCredentialsProvider(s3.AccessKeyID, s3.SecretAccessKey, ""),
		BaseEndpoint: aws.String(s3.IAMEndpoint),
	})
	out, err := client.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{
		Url:            aws.String(issuerURL),
		ClientIDList:   []string{stsAudience},
		ThumbprintList: []string{thumbprint},
	})
	if err != nil {
		return "", fmt.Errorf("registering %s as an IAM OIDC provider: %w", issuerURL, err)
	}
	return aws.ToString(out.OpenIDConnectProviderArn), nil
}

// createDemoRequest creates rolesDemoNamespace and the IAMRoleRequest of
// rolesDemoRequest, as an admin would apply it, once the webhook runs.
func createDemoRequest(ctx context.Context, cluster *framework.Cluster) error {
	kube, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		return err
	}
	_, err = kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: rolesDemoNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	request := &podidentityv1alpha1.IAMRoleRequest{}
	if err := yaml.UnmarshalStrict([]byte(rolesDemoRequest), request); err != nil {
		return err
	}
	operator, err := operatorclientset.NewForConfig(cluster.Config)
	if err != nil {
		return err
	}
	// Until the operator has registered the access-grants check with the
	// webhook running, the access-grants-checked policy refuses every
	// request, an admin's too.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		_, err := operator.PodIdentityV1alpha1().IAMRoleRequests().Create(ctx, request, metav1.CreateOptions{})
		if err == nil {
			return nil
		}
		if !apierrors.IsForbidden(err) || time.Now().After(deadline) {
			return fmt.Errorf("creating IAMRoleRequest %s: %w", request.Name, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("creating IAMRoleRequest %s: %w", request.Name, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}
