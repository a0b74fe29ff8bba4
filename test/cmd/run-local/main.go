// Command run-local brings up the test control plane on loopback, applies
// the operator's CVO payload to it, starts an S3-compatible server for the
// service account issuer, turns pod identity on against it, and runs the
// operator against the cluster as its own ServiceAccount and the webhook on
// its Service's address, until interrupted. `make run-local` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuerpublisher"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
	"github.com/openshift/cluster-workload-access-operator/test/s3server"
)

const (
	// demoRoleARN is what the printed example annotates a ServiceAccount with.
	demoRoleARN = "arn:aws:iam::123456789012:role/demo"
)

type options struct {
	binary, dir, s3Binary, bucket string
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == gatewayCommand {
		os.Exit(runGateway(os.Args[2:]))
	}
	var o options
	flag.StringVar(&o.binary, "operator-binary", "_output/bin/cluster-workload-access-operator", "operator binary to run")
	flag.StringVar(&o.dir, "dir", "_output/local", "where the control plane and the S3 server keep their PKI, data and logs")
	flag.StringVar(&o.s3Binary, "s3server-binary", "", "versitygw binary; empty means $"+s3server.BinaryEnv+", else what hack/build-s3server.sh builds")
	flag.StringVar(&o.bucket, "bucket", "local-oidc", "S3 bucket the operator publishes the service account issuer to")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "run-local:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	binary, dir := o.binary, o.dir
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	binary, err := filepath.Abs(binary)
	if err != nil {
		return err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	_ = os.RemoveAll(dir) // a fresh cluster each run

	// The servers' binaries before the deadline: a cold build has none
	// (make run-local builds them first).
	if o.s3Binary == "" {
		if o.s3Binary, err = s3server.ResolveBinary(); err != nil {
			return err
		}
	}
	binDir, err := controlplane.ResolveBinDir()
	if err != nil {
		return err
	}
	startCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	// The S3 server first, with its IAM and STS service for phase 2: the
	// API server's issuer is the URL the operator publishes the discovery
	// document at, <endpoint>/<bucket>.
	issuer, err := startIssuerSide(startCtx, dir, o.s3Binary)
	if err != nil {
		return err
	}
	defer issuer.stop()
	s3 := issuer.s3
	issuerEndpoint, curlFlags := issuer.endpoint, issuer.curlFlags
	issuerURL := issuerEndpoint + "/" + o.bucket
	if err := putDemoObject(startCtx, s3, o.bucket); err != nil {
		return err
	}

	cluster, err := framework.StartCluster(startCtx, framework.ClusterOptions{
		ReleaseVersion: "0.0.1-local",
		Image:          "registry.invalid/cluster-workload-access-operator:local",
		ControlPlane:   controlplane.Options{Dir: dir, BinDir: binDir, ServiceAccountIssuer: issuerURL},
	})
	if err != nil {
		return err
	}
	defer cluster.Stop()
	if err := cluster.EnablePodIdentityThrough(startCtx, s3, issuerEndpoint, o.bucket); err != nil {
		return err
	}
	if err := enableRoles(startCtx, cluster, s3); err != nil {
		return err
	}
	operatorEnv, err := cluster.Payload.OperatorEnv()
	if err != nil {
		return err
	}
	operatorEnv = append(operatorEnv, issuer.operatorEnv...)
	operator, err := framework.StartOperator(framework.OperatorOptions{
		Binary: binary, Kubeconfig: cluster.OperatorKubeconfig, LogDir: filepath.Join(dir, "logs"), Name: "operator", Env: operatorEnv,
	})
	if err != nil {
		return err
	}
	defer operator.Stop()
	providerARN := ""
	if issuer.thumbprint != "" {
		if providerARN, err = registerIssuer(startCtx, s3, issuerURL, issuer.thumbprint); err != nil {
			return err
		}
	}
	webhook, err := cluster.StartWebhook(startCtx, binary, "webhook")
	if err != nil {
		return err
	}
	defer webhook.Stop()
	if err := createDemoRequest(startCtx, cluster); err != nil {
		return err
	}

	fmt.Printf(`
The local cluster is up. The operator runs against it as its ServiceAccount,
and the webhook serves the API server on %s with the certificate the
operator issued.

  export KUBECONFIG=%s
  kubectl get clusteroperator %s -o yaml
  kubectl get workloadaccess cluster -o yaml     # per-controller conditions
  kubectl get all,sa,role,rolebinding,secret,configmap,pdb -n %s
  kubectl get mutatingwebhookconfiguration %s -o yaml
  kubectl run demo --image=registry.invalid/demo --restart=Never   # admitted by the webhook
  kubectl get bundles -A; kubectl get clusterbundles   # subscription injection: docs/subscriptions.md

%s
Operator log: %s
Webhook log:  %s
Component logs: %s
`, webhook.Address, cluster.AdminKubeconfig,
		framework.ClusterOperatorName, framework.OperandNamespace, framework.WebhookName, scopesDemo,
		operator.LogPath, webhook.LogPath, filepath.Join(dir, "logs"))

	fmt.Print("\n" + apiAccessDemo)

	fmt.Printf(`
Pod identity is Enabled. The operator publishes the service account issuer
to the local S3 server (versitygw):
  endpoint:  %s (region %s)
  bucket credentials (its root account): Secret %s/%s
  log:       %s
  issuer:    %s (the API server's, in Authentication cluster)%s
Once published, anyone can read the discovery document and keys without
credentials, as AWS STS does:

  kubectl get workloadaccess cluster -o jsonpath='{.status.podIdentity}{"\n"}'   # issuer URL, key IDs
  curl %s%s/.well-known/openid-configuration
  curl %s%s/keys.json

A ServiceAccount with a role gets AWS web identity credentials in its pods
(AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE, AWS_REGION and a projected token
for audience sts.amazonaws.com; kwok runs no containers, so read the pod's spec):

  kubectl create serviceaccount demo-aws
  kubectl annotate serviceaccount demo-aws eks.amazonaws.com/role-arn=%s
  kubectl run demo-aws --image=registry.invalid/demo --restart=Never --overrides='{"spec":{"serviceAccountName":"demo-aws"}}'
  kubectl get pod demo-aws -o yaml

`, s3.Endpoint, s3.Region, framework.OperatorNamespace, issuerpublisher.CredentialsSecret, s3.LogPath,
		issuerURL, issuer.route, curlFlags, issuerURL, curlFlags, issuerURL, demoRoleARN)

	fmt.Print("\n" + rolesDemo(rolesDemoInput{
		kubeconfig: cluster.AdminKubeconfig, iamEndpoint: s3.IAMEndpoint, s3Endpoint: s3.Endpoint, region: s3.Region,
		bucket: o.bucket, issuerURL: issuerURL, providerARN: providerARN, frontErr: issuer.frontErr, chainErr: issuer.chainErr,
	}))
	fmt.Print("\nPress Ctrl-C to stop everything.\n")

	select {
	case <-ctx.Done():
		return nil
	case <-operator.Done():
		return fmt.Errorf("the operator exited:\n%s", operator.Tail(40))
	case <-webhook.Done():
		return fmt.Errorf("the webhook exited:\n%s", webhook.Tail(40))
	case <-issuer.done:
		return fmt.Errorf("%w: %s", errGatewayExited, issuer.gateway.Tail())
	}
}
