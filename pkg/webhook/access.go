package webhook

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// SubjectAccessReviewer is the server side of the subscription mutator's
// AccessReviewer: mutators reach no client themselves. It asks the API
// server. The review carries the pod's
// namespace so RoleBindings count (for example to edit, into which a
// bundle's ClusterRole aggregates), as the Shared Resource CSI driver's own
// check of `use` does.
type SubjectAccessReviewer struct {
	Client authorizationclient.SubjectAccessReviewInterface
}

// MayGetClusterBundle implements subscription.AccessReviewer.
func (r SubjectAccessReviewer) MayGetClusterBundle(ctx context.Context, namespace, serviceAccount, bundle string) (bool, error) {
	review, err := r.Client.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   fmt.Sprintf("system:serviceaccount:%s:%s", namespace, serviceAccount),
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: namespace,
			Verb:      "get",
			Group:     subscriptionv1alpha1.GroupName,
			Resource:  "clusterbundles",
			Name:      bundle,
		},
	}}, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return review.Status.Allowed, nil
}
