package main

// Phase 2 of pod identity on the local cluster (docs/aws-roles.md): the
// operator's IAMRoleRequest controller pointed at versitygw's IAM and STS,
// with the credentials Secret the CredentialsRequest workload-access-iam
// would provision, and the issuer registered as an IAM OIDC provider when
// IAM accepts its URL.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // an IAM OIDC provider's thumbprint is SHA-1 by definition
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
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
	// issuerAddress is where the HTTPS front serves the issuer when it
	// may listen on port 443: versitygw's IAM registers OIDC providers only
	// for https:// URLs without a port.
	issuerAddress = "127.0.0.1"
)

// httpsFront serves s3 at https://127.0.0.1 (port 443) with a certificate of
// its own CA, keeping each request's Host so that the operator's signed
// uploads still verify at the gateway. The operator trusts the CA through
// SSL_CERT_FILE, as it would trust a public one.
type httpsFront struct {
	URL    string
	CAFile string
	// Thumbprint is the CA certificate's SHA-1 (hex), which an IAM OIDC
	// provider pins.
	Thumbprint string
	server     *http.Server
}

// startHTTPSFront listens on 127.0.0.1:443, which needs root or
// CAP_NET_BIND_SERVICE (or net.ipv4.ip_unprivileged_port_start <= 443);
// the error says so.
func startHTTPSFront(dir, target string) (*httpsFront, error) {
	targetURL, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", net.JoinHostPort(issuerAddress, "443"))
	if err != nil {
		return nil, fmt.Errorf("listening on %s:443 for the issuer's HTTPS front (needs root or CAP_NET_BIND_SERVICE): %w", issuerAddress, err)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		l.Close()
		return nil, err
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "run-local-issuer-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, caKey.Public(), caKey)
	if err != nil {
		l.Close()
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		l.Close()
		return nil, err
	}
	serverKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		l.Close()
		return nil, err
	}
	serverDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: issuerAddress},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP(issuerAddress)},
	}, ca, serverKey.Public(), caKey)
	if err != nil {
		l.Close()
		return nil, err
	}
	f := &httpsFront{URL: "https://" + issuerAddress, CAFile: filepath.Join(dir, "issuer-ca.crt")}
	if err := os.WriteFile(f.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		l.Close()
		return nil, err
	}
	sum := sha1.Sum(caDER) //nolint:gosec // see the import
	f.Thumbprint = hex.EncodeToString(sum[:])
	f.server = &http.Server{
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{{
			Certificate: [][]byte{serverDER, caDER}, PrivateKey: serverKey,
		}}},
		Handler: &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(targetURL)
			r.Out.Host = r.In.Host
		}},
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		if err := f.server.ServeTLS(l, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(os.Stderr, "run-local: the issuer's HTTPS front stopped: %v\n", err)
		}
	}()
	return f, nil
}

func (f *httpsFront) Stop() { _ = f.server.Close() }

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
// rolesDemoRequest, as an admin would apply it.
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
	if _, err := operator.PodIdentityV1alpha1().IAMRoleRequests().Create(ctx, request, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating IAMRoleRequest %s: %w", request.Name, err)
	}
	return nil
}
