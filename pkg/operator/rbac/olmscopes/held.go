package olmscopes

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
)

// maxQuestions bounds the SubjectAccessReviews one check of a CSV's scope
// may cost (holds: one per scope written, one more for re-created
// namespaces): each single
// permission where the scope would newly bind it is one review, and a CSV
// past the bound is refused with its own reason, not asked in part.
// A fixed bound, named in docs/scopes.md.
const maxQuestions = 2000

// tooManyQuestions is a CSV whose permissions, where they would be bound,
// expand past maxQuestions.
type tooManyQuestions struct{ where int }

func (e *tooManyQuestions) Error() string {
	in := "cluster-wide"
	if e.where > 0 {
		in = fmt.Sprintf("in %d namespaces", e.where)
	}
	return fmt.Sprintf("its permissions, asked %s where the scope would bind them, expand to more than %d single permissions, each one SubjectAccessReview", in, maxQuestions)
}

// question is one permission asked of a ServiceAccount, in a namespace or
// cluster-wide ("").
type question struct {
	serviceAccount, namespace string
	attributes                authorizationv1.ResourceAttributes
	nonResource               *authorizationv1.NonResourceAttributes
}

// questions expands entries into single permissions, each asked in every
// namespace (none: cluster-wide). Non-resource URLs are cluster-wide.
func questions(entries []permission, namespaces []string) ([]question, error) {
	where := namespaces
	if len(where) == 0 {
		where = []string{""}
	}
	var out []question
	add := func(q question) error {
		if len(out) >= maxQuestions {
			return &tooManyQuestions{where: len(namespaces)}
		}
		out = append(out, q)
		return nil
	}
	for _, e := range entries {
		for _, r := range e.Rules {
			for _, url := range r.NonResourceURLs {
				for _, verb := range r.Verbs {
					if err := add(question{serviceAccount: e.ServiceAccountName, nonResource: &authorizationv1.NonResourceAttributes{Path: url, Verb: verb}}); err != nil {
						return nil, err
					}
				}
			}
			names := r.ResourceNames
			if len(names) == 0 {
				names = []string{""}
			}
			for _, group := range r.APIGroups {
				for _, resource := range r.Resources {
					resource, sub, _ := strings.Cut(resource, "/")
					for _, verb := range r.Verbs {
						for _, name := range names {
							for _, ns := range where {
								if err := add(question{serviceAccount: e.ServiceAccountName, namespace: ns, attributes: authorizationv1.ResourceAttributes{
									Namespace: ns, Verb: verb, Group: group, Resource: resource, Subresource: sub, Name: name}}); err != nil {
									return nil, err
								}
							}
						}
					}
				}
			}
		}
	}
	return out, nil
}

// held says what the CSV's ServiceAccounts (in namespace) lack of entries
// in namespaces (none: cluster-wide), as "" when they hold all of it; a
// *tooManyQuestions error when checking would take more than maxQuestions
// reviews.
//
// Each review names the ServiceAccount's user and no groups, so only what
// is bound to it by name counts (OLM's RBAC binds it so). A ServiceAccount
// also belongs to system:serviceaccounts, system:serviceaccounts:<ns> and
// system:authenticated; a grant to those is everyone's, and re-expressing
// it as a binding to one ServiceAccount would outlive it.
func (c *controller) held(ctx context.Context, namespace string, entries []permission, namespaces []string) (string, error) {
	qs, err := questions(entries, namespaces)
	if err != nil {
		return "", err
	}
	for _, q := range qs {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: serviceaccount.MakeUsername(namespace, q.serviceAccount),
		}}
		if q.nonResource != nil {
			review.Spec.NonResourceAttributes = q.nonResource
		} else {
			attributes := q.attributes
			review.Spec.ResourceAttributes = &attributes
		}
		answer, err := c.reviews.SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return "", err
		}
		if !answer.Status.Allowed {
			return fmt.Sprintf("ServiceAccount %s/%s is not bound by name to %s", namespace, q.serviceAccount, describe(q)), nil
		}
	}
	return "", nil
}

func describe(q question) string {
	if q.nonResource != nil {
		return fmt.Sprintf("%s %s", q.nonResource.Verb, q.nonResource.Path)
	}
	a := q.attributes
	what := a.Resource
	if a.Subresource != "" {
		what += "/" + a.Subresource
	}
	if a.Group != "" {
		what += "." + a.Group
	}
	if a.Name != "" {
		what += " " + a.Name
	}
	where := "cluster-wide"
	if a.Namespace != "" {
		where = "in namespace " + a.Namespace
	}
	return fmt.Sprintf("%s %s %s", a.Verb, what, where)
}
