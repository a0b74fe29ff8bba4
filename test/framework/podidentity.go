package framework

import (
	"context"
	"fmt"
	"os"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuerpublisher"
	"github.com/openshift/cluster-workload-access-operator/test/s3server"
)

// EnablePodIdentity leaves the cluster as an AWS cluster set up for STS
// would be, publishing its issuer to bucket on s3 (path style, so the
// issuer URL is <endpoint>/<bucket>; the control plane must have been
// started with it as ServiceAccountIssuer):
//   - the S3 credentials Secret the CredentialsRequest would provision;
//   - the kube-apiserver operator's ConfigMap of trusted service account
//     keys, here the control plane's one key;
//   - Authentication/cluster naming the issuer;
//   - WorkloadAccess spec.podIdentity Enabled with that bucket and endpoint.
func (c *Cluster) EnablePodIdentity(ctx context.Context, s3 *s3server.Server, bucket string) error {
	return c.EnablePodIdentityThrough(ctx, s3, s3.Endpoint, bucket)
}

// EnablePodIdentityThrough is EnablePodIdentity with the operator reaching
// s3 at endpoint (a TLS front, say), so the issuer URL is <endpoint>/<bucket>.
func (c *Cluster) EnablePodIdentityThrough(ctx context.Context, s3 *s3server.Server, endpoint, bucket string) error {
	kube, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	_, err = kube.CoreV1().Secrets(OperatorNamespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: issuerpublisher.CredentialsSecret},
		Data: map[string][]byte{
			awscall.AccessKeyIDKey:     []byte(s3.AccessKeyID),
			awscall.SecretAccessKeyKey: []byte(s3.SecretAccessKey),
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating the S3 credentials Secret: %w", err)
	}

	key, err := os.ReadFile(c.ServiceAccountPublicKeyFile())
	if err != nil {
		return err
	}
	_, err = kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: issuerpublisher.SigningCertsNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	_, err = kube.CoreV1().ConfigMaps(issuerpublisher.SigningCertsNamespace).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: issuerpublisher.SigningCertsConfigMap},
		Data:       map[string]string{"service-account-001.pub": string(key)},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating the signing keys ConfigMap: %w", err)
	}

	issuerURL := endpoint + "/" + bucket
	config, err := configclient.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	_, err = config.ConfigV1().Authentications().Create(ctx, &configv1.Authentication{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec:       configv1.AuthenticationSpec{ServiceAccountIssuer: issuerURL},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating Authentication cluster: %w", err)
	}

	operator, err := operatorclientset.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	wa, err := operator.OperatorV1alpha1().WorkloadAccesses().Get(ctx, operatorv1alpha1.WorkloadAccessName, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading WorkloadAccess cluster (applied from manifests/): %w", err)
	}
	wa.Spec.PodIdentity = operatorv1alpha1.PodIdentitySpec{
		Mode:   operatorv1alpha1.PodIdentityEnabled,
		Region: s3.Region,
		Issuer: operatorv1alpha1.IssuerPublishingSpec{Bucket: bucket, Endpoint: endpoint},
	}
	if _, err := operator.OperatorV1alpha1().WorkloadAccesses().Update(ctx, wa, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("setting WorkloadAccess cluster spec.podIdentity: %w", err)
	}
	return nil
}
