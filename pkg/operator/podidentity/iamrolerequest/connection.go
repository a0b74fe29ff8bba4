package iamrolerequest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscredentials "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
)

// connection is what the IAM and STS clients are built for. The secret is
// kept only as a hash, to notice a rotated secret; secret travels to
// newClients only.
type connection struct {
	region, iamEndpoint, stsEndpoint, accessKeyID string
	secretSum                                     [32]byte
	secret                                        string
}

func (conn connection) key() connection {
	conn.secret = ""
	return conn
}

// defaultSigningRegion signs IAM requests when no region is known: IAM is
// global in the aws partition and signed in us-east-1.
const defaultSigningRegion = "us-east-1"

// newClients builds IAM and STS clients from static credentials, without the
// SDK's config loader (no shared files, SSO or IMDS). transport is nil
// outside tests.
func newClients(conn connection, transport http.RoundTripper) (iamAPI, *sts.Client) {
	region := conn.region
	if region == "" {
		region = defaultSigningRegion
	}
	creds := awscredentials.NewStaticCredentialsProvider(conn.accessKeyID, conn.secret, "")
	client := httpClient(transport)
	iamOptions := iam.Options{Region: region, Credentials: creds, RetryMaxAttempts: 3, HTTPClient: client}
	if conn.iamEndpoint != "" {
		iamOptions.BaseEndpoint = aws.String(conn.iamEndpoint)
	}
	stsOptions := sts.Options{Region: region, Credentials: creds, RetryMaxAttempts: 3, HTTPClient: client}
	if conn.stsEndpoint != "" {
		stsOptions.BaseEndpoint = aws.String(conn.stsEndpoint)
	}
	return iam.New(iamOptions), sts.New(stsOptions)
}

// httpClient has short timeouts: one hung endpoint must not hold the
// controller's worker.
func httpClient(transport http.RoundTripper) aws.HTTPClient {
	if transport != nil {
		return &http.Client{Transport: transport, Timeout: 30 * time.Second}
	}
	return awscall.HTTPClient()
}

func (c *controller) readCredentials() (awscall.Credentials, *awscall.Failure) {
	where := fmt.Sprintf("Secret %s/%s", operatorclient.OperatorNamespace, CredentialsSecret)
	secret, err := c.secrets.Secrets(operatorclient.OperatorNamespace).Get(CredentialsSecret)
	if apierrors.IsNotFound(err) {
		return awscall.Credentials{}, &awscall.Failure{Reason: podidentityv1alpha1.ReasonCredentialsMissing, Message: fmt.Sprintf(
			"%s with the operator's IAM credentials does not exist: the cloud credential operator writes it from the CredentialsRequest %s; in manual mode create it with keys %s and %s",
			where, CredentialsSecret, awscall.AccessKeyIDKey, awscall.SecretAccessKeyKey)}
	}
	if err != nil {
		return awscall.Credentials{}, &awscall.Failure{Reason: podidentityv1alpha1.ReasonCredentialsMissing, Message: fmt.Sprintf("%s: %v", where, err), Retry: true}
	}
	creds, missing := awscall.Keys(secret)
	if len(missing) > 0 {
		return awscall.Credentials{}, &awscall.Failure{Reason: podidentityv1alpha1.ReasonCredentialsMissing, Message: fmt.Sprintf("%s has no %s", where, strings.Join(missing, " and no "))}
	}
	return creds, nil
}

// connect returns the IAM client and the account of the credentials,
// building clients and asking STS only when the connection changed.
func (c *controller) connect(ctx context.Context, conn connection, creds awscall.Credentials) (iamAPI, string, *awscall.Failure) {
	if c.iam != nil && c.clientsFor == conn.key() && c.account != "" {
		return c.iam, c.account, nil
	}
	c.iam, c.sts = newClients(conn, c.transport)
	c.clientsFor, c.account = conn.key(), ""
	out, err := c.sts.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return nil, "", describe("sts:GetCallerIdentity", "the operator's credentials (the account names the OIDC provider in every trust policy)", err, creds)
	}
	if out.Account == nil || *out.Account == "" {
		return nil, "", &awscall.Failure{Reason: podidentityv1alpha1.ReasonIAMError, Message: "sts:GetCallerIdentity named no account; retrying with backoff", Retry: true}
	}
	c.account = *out.Account
	return c.iam, c.account, nil
}

func secretSum(secret string) [32]byte { return sha256.Sum256([]byte(secret)) }
