package clusterbundles

import (
	"context"
	"fmt"
	"slices"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlerefs"
)

// DriverServiceAccount is the identity the Shared Resource CSI driver reads
// a share's source Secret or ConfigMap with, on every mount.
type DriverServiceAccount struct {
	Namespace string
	Name      string
}

// DefaultDriverServiceAccount is the driver as Builds for Red Hat OpenShift
// installs it, the only distribution since OpenShift 4.18 removed the
// TechPreview one (openshift-cluster-csi-drivers/csi-driver-shared-resource-plugin,
// which its operator let read every Secret). Its README asks the admin to
// grant it read access in each source namespace.
var DefaultDriverServiceAccount = DriverServiceAccount{Namespace: "openshift-builds", Name: "csi-driver-shared-resource"}

func (d DriverServiceAccount) String() string { return d.Namespace + "/" + d.Name }

// Validate refuses names no ServiceAccount can have.
func (d DriverServiceAccount) Validate() error {
	if errs := validation.IsDNS1123Label(d.Namespace); len(errs) > 0 {
		return fmt.Errorf("the Shared Resource CSI driver's namespace %q: %s", d.Namespace, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(d.Name); len(errs) > 0 {
		return fmt.Errorf("the Shared Resource CSI driver's service account %q: %s", d.Name, strings.Join(errs, "; "))
	}
	return nil
}

// driver is the Shared Resource CSI driver's identity from Inputs, or the
// default.
func (in Inputs) driver() DriverServiceAccount {
	if in.Driver == (DriverServiceAccount{}) {
		return DefaultDriverServiceAccount
	}
	return in.Driver
}

// driverAccess asks the API server whether the driver may read a source.
type driverAccess struct {
	reviews authorizationv1client.SubjectAccessReviewInterface
	driver  DriverServiceAccount
}

// unreadable returns the refs the driver may not get, in the given order.
// One review per ref: get is what a mount needs (the driver falls back to a
// GET when its namespace informer has nothing), so a denial means pods that
// mount the share stay in ContainerCreating. An API error is returned, not
// taken as a denial: the bundle is retried rather than marked Invalid.
func (d driverAccess) unreadable(ctx context.Context, refs []bundlerefs.Ref) ([]bundlerefs.Ref, error) {
	var out []bundlerefs.Ref
	for _, ref := range refs {
		allowed, err := d.mayGet(ctx, ref)
		if err != nil {
			return nil, fmt.Errorf("checking whether the Shared Resource CSI driver may read %s: %w", ref, err)
		}
		if !allowed {
			out = append(out, ref)
		}
	}
	return out, nil
}

func (d driverAccess) mayGet(ctx context.Context, ref bundlerefs.Ref) (bool, error) {
	resource := "secrets"
	if ref.Kind == bundlerefs.ConfigMap {
		resource = "configmaps"
	}
	// The groups every service account token carries, so that bindings to
	// them count as they do for the driver's real requests.
	review, err := d.reviews.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   fmt.Sprintf("system:serviceaccount:%s:%s", d.driver.Namespace, d.driver.Name),
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + d.driver.Namespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: ref.Namespace,
			Verb:      "get",
			Resource:  resource,
			Name:      ref.Name,
		},
	}}, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return review.Status.Allowed, nil
}

// DriverCannotReadMessage names the driver's service account, what it may
// not read, and what to grant. It asks for list and watch as well as get:
// the driver watches the source namespace to refresh mounted keys.
func DriverCannotReadMessage(driver DriverServiceAccount, refs []bundlerefs.Ref) string {
	names := make([]string, 0, len(refs))
	var namespaces []string
	for _, ref := range refs {
		names = append(names, ref.String())
		if !slices.Contains(namespaces, ref.Namespace) {
			namespaces = append(namespaces, ref.Namespace)
		}
	}
	where := "namespace " + namespaces[0]
	if len(namespaces) > 1 {
		where = "each of the namespaces " + strings.Join(namespaces, ", ")
	}
	return fmt.Sprintf("the Shared Resource CSI driver's service account %s may not get %s, so pods could not mount them: "+
		"grant it get, list and watch on them with a Role and a RoleBinding in %s", driver, strings.Join(names, ", "), where)
}
