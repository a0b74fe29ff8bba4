package grants

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

// IAMRoleRequests is the resource of IAMRoleRequests, as the admission
// request names it.
const IAMRoleRequests = "iamrolerequests"

// isRoleRequest says whether req is for an IAMRoleRequest.
func isRoleRequest(req Request) bool {
	return req.Group == podidentityv1alpha1.GroupName && req.Resource == IAMRoleRequests
}

// checkRoleRequest decides an IAMRoleRequest. It grants no RBAC, but it
// has the operator write a ServiceAccount with its own rights: annotate the
// one it names, or create it when absent. So, as for the bindings of the
// other kinds, its requester must be able to make those writes themselves:
// patch and create serviceaccounts in its namespace, both asked whether or
// not the ServiceAccount exists (that can change before the operator
// acts). On UPDATE only a change of spec.storage is checked: a change of
// the statements, labels or finalizers writes nothing else, so the
// operator's own finalizer updates are never judged against it.
func (c *Checker) checkRoleRequest(ctx context.Context, req Request) Decision {
	request, err := decodeRoleRequest(req.Object)
	if err != nil {
		return Decision{Reason: Invalid, Message: err.Error()}
	}
	if req.Operation == "UPDATE" && len(req.OldObject) > 0 {
		if old, err := decodeRoleRequest(req.OldObject); err == nil && equality.Semantic.DeepEqual(old.Spec.Storage, request.Spec.Storage) {
			return Decision{Allowed: true}
		}
	}
	what := fmt.Sprintf("IAMRoleRequest %q", displayName(&request.ObjectMeta))
	account := request.Spec.Storage.ServiceAccount
	if account.Namespace == "" || account.Name == "" {
		return Decision{Reason: Invalid, Message: what + " cannot be checked: spec.storage.serviceAccount needs a namespace and a name"}
	}
	writes := []question{
		{n: &need{order: 0, p: serviceAccountWrite("patch"), writes: true}, namespace: account.Namespace},
		{n: &need{order: 1, p: serviceAccountWrite("create"), writes: true}, namespace: account.Namespace},
	}
	denied, err := c.answer(ctx, req.Requester, writes)
	if err != nil {
		return Decision{Reason: CheckFailed, Reviews: len(writes), Message: fmt.Sprintf(
			"could not check whether %s may patch and create serviceaccounts in namespace %q, which %s has the operator write: %v; it is refused until the check succeeds; retry",
			describeRequester(req.Requester), account.Namespace, what, err)}
	}
	if len(denied) == 0 {
		return Decision{Allowed: true, Reviews: len(writes)}
	}
	return Decision{Reason: Escalation, Reviews: len(writes), Message: roleRequestDenial(what, req.Requester, account, denied)}
}

// serviceAccountWrite is one write the operator makes to a request's
// ServiceAccount, asked without a name: create cannot be limited to one.
func serviceAccountWrite(verb string) Permission {
	return Permission{Verb: verb, Resource: "serviceaccounts"}
}

// roleRequestDenial names the verbs the requester lacks and how to get them.
func roleRequestDenial(what string, r Requester, account podidentityv1alpha1.ServiceAccountStorage, denied []question) string {
	slices.SortFunc(denied, func(a, b question) int { return cmp.Compare(a.n.order, b.n.order) })
	verbs := make([]string, 0, len(denied))
	for _, q := range denied {
		verbs = append(verbs, q.n.p.Verb)
	}
	return fmt.Sprintf("%s links ServiceAccount %s/%s: %s may not %s serviceaccounts in namespace %q: an IAMRoleRequest has the operator write that ServiceAccount "+
		"(annotate it, or create it when absent), so its requester must be able to; ask an admin of %s for edit there "+
		"(oc adm policy add-role-to-user edit %s -n %s), or have someone who may write its ServiceAccounts create the request",
		what, account.Namespace, account.Name, describeRequester(r), strings.Join(verbs, " or "), account.Namespace,
		account.Namespace, r.Name, account.Namespace)
}

func decodeRoleRequest(raw []byte) (*podidentityv1alpha1.IAMRoleRequest, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("the request carries no %s", IAMRoleRequests)
	}
	var request podidentityv1alpha1.IAMRoleRequest
	if err := json.Unmarshal(raw, &request); err != nil {
		return nil, fmt.Errorf("decoding the %s: %w", IAMRoleRequests, err)
	}
	return &request, nil
}
