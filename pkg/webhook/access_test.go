package webhook

import (
	"context"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// The review must carry the pod's namespace, or RoleBindings (for example
// to edit) would not count; the e2e tests show both outcomes on a real
// API server.
func TestSubjectAccessReviewAsksInThePodsNamespace(t *testing.T) {
	client := fake.NewClientset()
	var asked *authorizationv1.SubjectAccessReview
	client.PrependReactor("create", "subjectaccessreviews", func(action clienttesting.Action) (bool, runtime.Object, error) {
		asked = action.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		out := asked.DeepCopy()
		out.Status.Allowed = asked.Spec.ResourceAttributes.Name == "cluster"
		return true, out, nil
	})
	r := SubjectAccessReviewer{Client: client.AuthorizationV1().SubjectAccessReviews()}
	allowed, err := r.MayGetClusterBundle(context.Background(), "shop", "builder", "cluster")
	if err != nil || !allowed {
		t.Fatalf("allowed=%v err=%v", allowed, err)
	}
	spec := asked.Spec
	if spec.User != "system:serviceaccount:shop:builder" ||
		len(spec.Groups) != 3 || spec.Groups[0] != "system:serviceaccounts" || spec.Groups[1] != "system:serviceaccounts:shop" {
		t.Errorf("subject = %s %v", spec.User, spec.Groups)
	}
	a := spec.ResourceAttributes
	if a.Namespace != "shop" || a.Verb != "get" || a.Group != "subscription.openshift.io" || a.Resource != "clusterbundles" || a.Name != "cluster" {
		t.Errorf("attributes = %+v", a)
	}
	if allowed, _ := r.MayGetClusterBundle(context.Background(), "shop", "builder", "other"); allowed {
		t.Error("a denied review must say so")
	}
}
