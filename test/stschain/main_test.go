// Package stschain proves the pod identity chain ends in credentials, on
// real parts only: the operator publishes the service account issuer to
// versitygw (S3) through an HTTPS front; versitygw's IAM and STS trust it as
// an OIDC provider; the webhook mutates a pod created through kube-apiserver;
// the pod's token comes from the TokenRequest API as the kubelet asks for
// it; and the AWS SDK's default credential chain, given only the pod's
// environment, assumes the ServiceAccount's role and reads S3 with it.
//
// versitygw's IAM service fetches an issuer only over HTTPS on port 443 and
// never from loopback or private addresses, so the package runs in a network
// namespace of its own, with the issuer on a TEST-NET-1 address of its
// loopback (see netns_test.go). Everything it runs is built before entering
// it, since the namespace has no route anywhere.
package stschain

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"k8s.io/client-go/kubernetes"

	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
	"github.com/openshift/cluster-workload-access-operator/test/framework/issuerfront"
	"github.com/openshift/cluster-workload-access-operator/test/s3server"
)

const (
	releaseVersion = "4.99.0-stschain"
	operatorImage  = "registry.invalid/openshift/cluster-workload-access-operator:stschain"
	region         = "us-east-1"
	// issuerBucket holds the published issuer; the issuer URL is
	// https://issuerAddress/issuerBucket.
	issuerBucket = "stschain-oidc"
	// stsAudience is the webhook's default token audience and the OIDC
	// provider's client ID.
	stsAudience = "sts.amazonaws.com"
)

// env is the package's one cluster and what runs around it.
var env struct {
	dir      string
	binary   string
	cp       *framework.Cluster
	kube     kubernetes.Interface
	operator operatorclientset.Interface
	running  *framework.Process
	webhook  *framework.WebhookProcess
	s3       *s3server.Server
	front    *issuerfront.Front
	// iam and sts are an admin's clients (root credentials) and an
	// anonymous STS client.
	iam      *iam.Client
	sts      *sts.Client
	s3Client *s3.Client
	// providerARN is the IAM OIDC provider registered for the issuer.
	providerARN string
	// operatorIAM is an IAM client with the operator's own IAM keys (the
	// user of its CredentialsRequest), account the account STS names for
	// them, and infrastructureName the cluster's: what the roles the
	// operator creates are named and found by.
	operatorIAM        *iam.Client
	account            string
	infrastructureName string
}

// issuerURL is the API server's --service-account-issuer and where the
// operator publishes it.
func issuerURL() string { return env.front.URL + "/" + issuerBucket }

// issuerHostPath is the issuer without its scheme, the prefix of IAM's
// condition keys (<host/path>:sub, <host/path>:aud).
func issuerHostPath() string { return issuerAddress + "/" + issuerBucket }

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == podCommand {
		os.Exit(runPod(os.Args[2:]))
	}
	os.Exit(framework.Suite{
		Name:     "stschain",
		Isolated: "this package runs versitygw's STS against an issuer at " + issuerAddress,
		SetUp:    setUp,
		TearDown: tearDown,
	}.Run(m))
}

func setUp(ctx context.Context, binaries framework.Binaries) error {
	var err error
	env.binary = binaries.Operator
	if env.dir, err = os.MkdirTemp("", "stschain-"); err != nil {
		return err
	}
	// S3 with IAM and STS, and the HTTPS front the issuer is served from.
	if env.s3, err = s3server.Start(ctx, s3server.Options{Dir: filepath.Join(env.dir, "s3"), Region: region, IAM: true}); err != nil {
		return err
	}
	if env.front, err = issuerfront.Start(env.dir, issuerAddress, env.s3.Endpoint); err != nil {
		return err
	}
	root := credentials.NewStaticCredentialsProvider(env.s3.AccessKeyID, env.s3.SecretAccessKey, "")
	env.iam = iam.New(iam.Options{Region: region, Credentials: root, BaseEndpoint: aws.String(env.s3.IAMEndpoint)})
	env.sts = sts.New(sts.Options{Region: region, BaseEndpoint: aws.String(env.s3.IAMEndpoint), RetryMaxAttempts: 1})
	env.s3Client = s3.New(s3.Options{Region: region, Credentials: root, BaseEndpoint: aws.String(env.s3.Endpoint), UsePathStyle: true})
	if err := createDataObjects(ctx); err != nil {
		return err
	}

	env.cp, err = framework.StartCluster(ctx, framework.ClusterOptions{
		ReleaseVersion: releaseVersion,
		Image:          operatorImage,
		ControlPlane:   controlplane.Options{ServiceAccountIssuer: issuerURL()},
	})
	if err != nil {
		return err
	}
	env.kube = kubernetes.NewForConfigOrDie(env.cp.Config)
	env.operator = operatorclientset.NewForConfigOrDie(env.cp.Config)
	if err := env.cp.EnablePodIdentityThrough(ctx, env.s3, env.front.URL, issuerBucket); err != nil {
		return err
	}
	// The operator's IAM credentials and roles configuration are in place
	// before it starts, as on a cluster installed with them.
	if err := setUpRoles(ctx); err != nil {
		return err
	}
	if env.running, err = startOperator(); err != nil {
		return err
	}
	if _, err := waitPublished(ctx, firstKeyID(), 2*time.Minute); err != nil {
		return err
	}
	if env.webhook, err = env.cp.StartWebhook(ctx, env.binary, "webhook"); err != nil {
		return err
	}
	if err := waitRoleRequestsChecked(ctx, time.Minute); err != nil {
		return err
	}
	// An admin registers the issuer with IAM (phase 1 of the enhancement),
	// pinning the CA of its HTTPS front.
	provider, err := env.iam.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{
		Url:            aws.String(issuerURL()),
		ClientIDList:   []string{stsAudience},
		ThumbprintList: []string{env.front.Thumbprint},
	})
	if err != nil {
		return fmt.Errorf("registering the issuer as an IAM OIDC provider: %w", err)
	}
	env.providerARN = aws.ToString(provider.OpenIDConnectProviderArn)
	return nil
}

// startOperator runs the operator as its Deployment would, trusting the
// front's CA as it would trust a public one (SSL_CERT_FILE), with
// OpenShift's default leader election timings so that an API server
// restart does not end it.
func startOperator() (*framework.Process, error) {
	operatorEnv, err := env.cp.Payload.OperatorEnv()
	if err != nil {
		return nil, err
	}
	return framework.StartOperator(framework.OperatorOptions{
		Binary:     env.binary,
		Kubeconfig: env.cp.OperatorKubeconfig,
		LogDir:     filepath.Join(env.cp.Dir, "logs"),
		Name:       "operator",
		Env:        append(operatorEnv, "SSL_CERT_FILE="+env.front.CAFile),
		ExtraArgs:  []string{"--leader-election-lease-duration=137s", "--leader-election-renew-deadline=107s", "--leader-election-retry-period=26s"},
	})
}

func tearDown(failed bool) {
	if env.webhook != nil {
		if failed {
			fmt.Fprintln(os.Stderr, env.webhook.Tail(40))
		}
		env.webhook.Stop()
	}
	if env.running != nil {
		env.running.Stop()
		if failed {
			fmt.Fprintln(os.Stderr, env.running.Tail(80))
		}
	}
	if env.cp != nil {
		if failed {
			fmt.Fprintln(os.Stderr, env.cp.Logs(30))
		}
		env.cp.Stop()
	}
	if env.front != nil {
		env.front.Stop()
	}
	if env.s3 != nil {
		if failed {
			fmt.Fprintln(os.Stderr, env.s3.Tail(40))
		}
		env.s3.Stop()
	}
	if env.dir != "" {
		_ = os.RemoveAll(env.dir)
	}
}
