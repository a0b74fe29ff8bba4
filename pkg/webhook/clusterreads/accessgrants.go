package clusterreads

import (
	"context"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	scopesclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/grants"
)

// GrantsAuthorizer asks the API server, with a SubjectAccessReview as the
// requester, whether they hold one permission. Answers are not cached:
// these objects are written rarely, and a grant just revoked must count.
type GrantsAuthorizer struct {
	Client authorizationclient.SubjectAccessReviewInterface
}

// Allowed implements grants.Authorizer.
func (a GrantsAuthorizer) Allowed(ctx context.Context, r grants.Requester, namespace string, p grants.Permission) (bool, error) {
	spec := authorizationv1.SubjectAccessReviewSpec{User: r.Name, UID: r.UID, Groups: r.Groups}
	if len(r.Extra) > 0 {
		spec.Extra = map[string]authorizationv1.ExtraValue{}
		for k, v := range r.Extra {
			spec.Extra[k] = v
		}
	}
	if p.NonResourceURL != "" {
		spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: p.NonResourceURL, Verb: p.Verb}
	} else {
		spec.ResourceAttributes = &authorizationv1.ResourceAttributes{
			Namespace: namespace, Verb: p.Verb, Group: p.Group, Resource: p.Resource, Subresource: p.Subresource, Name: p.Name,
		}
	}
	review, err := a.Client.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return review.Status.Allowed, nil
}

// LiveScopeTemplates reads a ScopeTemplate from the API server when a
// ScopeInstance is checked, so a template just widened counts.
type LiveScopeTemplates struct {
	Client scopesclient.ScopeTemplatesGetter
}

// GetScopeTemplate implements grants.Templates.
func (t LiveScopeTemplates) GetScopeTemplate(ctx context.Context, name string) (*scopesv1alpha1.ScopeTemplate, error) {
	template, err := t.Client.ScopeTemplates().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return template, err
}

// LiveScopeInstances lists the ScopeInstances from the API server when a
// ScopeTemplate is checked, so an instance just made counts. A template is
// written rarely; the list is paged.
type LiveScopeInstances struct {
	Client scopesclient.ScopeInstancesGetter
}

// instancesPage is how many ScopeInstances one list call returns.
const instancesPage = 500

// ScopeInstancesNaming implements grants.Instances.
func (l LiveScopeInstances) ScopeInstancesNaming(ctx context.Context, template string) ([]scopesv1alpha1.ScopeInstance, error) {
	var naming []scopesv1alpha1.ScopeInstance
	options := metav1.ListOptions{Limit: instancesPage}
	for {
		list, err := l.Client.ScopeInstances().List(ctx, options)
		if err != nil {
			return nil, err
		}
		for _, instance := range list.Items {
			if instance.Spec.ScopeTemplateName == template {
				naming = append(naming, instance)
			}
		}
		if list.Continue == "" {
			return naming, nil
		}
		options.Continue = list.Continue
	}
}
