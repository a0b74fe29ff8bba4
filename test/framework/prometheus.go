package framework

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// The identity OpenShift's in-cluster Prometheus scrapes with: a
// ServiceAccount allowed to get the non-resource URL /metrics. The cluster
// monitoring operator ships it on a real cluster; the tests create it.
const (
	PrometheusNamespace      = "openshift-monitoring"
	PrometheusServiceAccount = "prometheus-k8s"
	prometheusClusterRole    = "e2e-prometheus-k8s-metrics"
)

// PrometheusToken returns a token of the Prometheus ServiceAccount, creating
// the account and its /metrics permission first when needed.
func PrometheusToken(ctx context.Context, kube kubernetes.Interface) (string, error) {
	create := func(err error) error {
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	if err := create(func() error {
		_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: PrometheusNamespace}}, metav1.CreateOptions{})
		return err
	}()); err != nil {
		return "", err
	}
	if err := create(func() error {
		_, err := kube.CoreV1().ServiceAccounts(PrometheusNamespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: PrometheusServiceAccount}}, metav1.CreateOptions{})
		return err
	}()); err != nil {
		return "", err
	}
	if err := create(func() error {
		_, err := kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: prometheusClusterRole},
			Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
		}, metav1.CreateOptions{})
		return err
	}()); err != nil {
		return "", err
	}
	if err := create(func() error {
		_, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: prometheusClusterRole},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: prometheusClusterRole},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: PrometheusNamespace, Name: PrometheusServiceAccount}},
		}, metav1.CreateOptions{})
		return err
	}()); err != nil {
		return "", err
	}
	token, err := kube.CoreV1().ServiceAccounts(PrometheusNamespace).CreateToken(ctx, PrometheusServiceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64((24 * time.Hour).Seconds()))}},
		metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for %s/%s: %w", PrometheusNamespace, PrometheusServiceAccount, err)
	}
	return token.Status.Token, nil
}
