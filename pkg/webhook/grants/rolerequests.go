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
// one it names, or create it when absent; and its IAM role trusts that
// ServiceAccount in the namespace instance the request pins. So, as for the
// bindings of the other kinds, whoever makes a write that decides whom the
// role trusts must be able to make the ServiceAccount writes themselves:
// patch and create serviceaccounts in its namespace, both asked whether or
// not the ServiceAccount exists (that can change before the operator acts).
// Those writes are the create, and (trustWrite) an update that changes
// spec.storage, sets or changes the confirmation annotation, or removes the
// finalizer while the role may exist, and a delete while the role may
// exist. A change of the statements or labels, the operator's adding its
// finalizer and the removal of a confirmation move no trust and are not
// judged. The operator's own removal of its finalizer, after it deleted the
// role, is judged like any other: it holds both writes cluster-wide.
func (c *Checker) checkRoleRequest(ctx context.Context, req Request) Decision {
	var request *podidentityv1alpha1.IAMRoleRequest
	var write roleWrite
	switch req.Operation {
	case "CREATE":
		r, err := decodeRoleRequest(req.Object)
		if err != nil {
			return Decision{Reason: Invalid, Message: err.Error()}
		}
		request, write = r, roleWrite{doing: "create the request"}
	case "UPDATE":
		r, err := decodeRoleRequest(req.Object)
		if err != nil {
			return Decision{Reason: Invalid, Message: err.Error()}
		}
		request, write = r, roleWrite{doing: "change the request's ServiceAccount"}
		if old, err := decodeRoleRequest(req.OldObject); err == nil {
			// An old object that cannot be read is judged as a create.
			if write = trustWrite(old, r); write.doing == "" {
				return Decision{Allowed: true}
			}
		}
	case "DELETE":
		old, err := decodeRoleRequest(req.OldObject)
		if err != nil {
			return Decision{Reason: Invalid, Message: err.Error()}
		}
		if !mayHoldRole(old) {
			return Decision{Allowed: true}
		}
		request, write = old, roleWrite{doing: "delete the request", why: deletionMoves(old)}
	default:
		return Decision{Allowed: true}
	}
	what := fmt.Sprintf("IAMRoleRequest %q", displayName(&request.ObjectMeta))
	if request.Spec.Storage.ServiceAccounts != nil {
		return c.checkSetRequest(ctx, req, request, what, write)
	}
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
			"could not check whether %s may patch and create serviceaccounts in namespace %q, which %s has the operator write, to %s: %v; it is refused until the check succeeds; retry",
			describeRequester(req.Requester), account.Namespace, what, write.doing, err)}
	}
	if len(denied) == 0 {
		return Decision{Allowed: true, Reviews: len(writes)}
	}
	return Decision{Reason: Escalation, Reviews: len(writes), Message: roleRequestDenial(what, write, req.Requester, account, denied)}
}

// checkSetRequest decides a request for a set of namespaces as a single
// request is decided, in each namespace the set may trust: each listed one,
// or, for a selector, every namespace (the ServiceAccount writes asked
// cluster-wide), since any namespace can be labelled into the set later.
func (c *Checker) checkSetRequest(ctx context.Context, req Request, request *podidentityv1alpha1.IAMRoleRequest, what string, write roleWrite) Decision {
	set := request.Spec.Storage.ServiceAccounts
	namespaces := set.Namespaces
	where := fmt.Sprintf("namespaces %s", strings.Join(set.Namespaces, ", "))
	if set.NamespaceSelector != nil {
		namespaces, where = []string{""}, "all namespaces (its namespaceSelector may match any namespace labelled later)"
	}
	if set.Name == "" || len(namespaces) == 0 {
		return Decision{Reason: Invalid, Message: what + " cannot be checked: spec.storage.serviceAccounts needs a name and a namespaceSelector or namespaces"}
	}
	var writes []question
	for i, ns := range namespaces {
		writes = append(writes,
			question{n: &need{order: 2 * i, p: serviceAccountWrite("patch"), writes: true}, namespace: ns},
			question{n: &need{order: 2*i + 1, p: serviceAccountWrite("create"), writes: true}, namespace: ns})
	}
	denied, err := c.answer(ctx, req.Requester, writes)
	if err != nil {
		return Decision{Reason: CheckFailed, Reviews: len(writes), Message: fmt.Sprintf(
			"could not check whether %s may patch and create serviceaccounts in %s, which %s has the operator write, to %s: %v; it is refused until the check succeeds; retry",
			describeRequester(req.Requester), where, what, write.doing, err)}
	}
	if len(denied) == 0 {
		return Decision{Allowed: true, Reviews: len(writes)}
	}
	slices.SortFunc(denied, func(a, b question) int { return cmp.Compare(a.n.order, b.n.order) })
	var lacks []string
	for _, q := range denied {
		in := "cluster-wide"
		if q.namespace != "" {
			in = "in namespace " + q.namespace
		}
		lacks = append(lacks, q.n.p.Verb+" serviceaccounts "+in)
	}
	why := ""
	if write.why != "" {
		why = "; " + write.why
	}
	return Decision{Reason: Escalation, Reviews: len(writes), Message: fmt.Sprintf(
		"%s links ServiceAccount %s in %s%s: %s may not %s: an IAMRoleRequest has the operator write that ServiceAccount in each namespace it trusts "+
			"(annotate it, or create it when absent), so whoever may %s must be able to; have a cluster admin %s",
		what, set.Name, where, why, describeRequester(req.Requester), strings.Join(lacks, ", "), write.doing, write.doing)}
}

// roleWrite is a write to an IAMRoleRequest that decides whom its role
// trusts: doing names it ("" when it decides nothing), why says, for
// those other than a create, how it moves the trust.
type roleWrite struct {
	doing, why string
}

// trustWrite says which write an update is that decides whom the role
// trusts, in the order the operator would act on them; doing is "" when it
// decides nothing.
func trustWrite(old, updated *podidentityv1alpha1.IAMRoleRequest) roleWrite {
	if !equality.Semantic.DeepEqual(old.Spec.Storage, updated.Spec.Storage) {
		return roleWrite{doing: "change the request's ServiceAccount"}
	}
	confirmed, ok := updated.Annotations[podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation]
	if ok && confirmed != old.Annotations[podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation] {
		return roleWrite{doing: "confirm a namespace", why: fmt.Sprintf(
			"setting %s=%s makes its IAM role trust that ServiceAccount in the namespace of that UID", podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation, confirmed)}
	}
	if slices.Contains(old.Finalizers, podidentityv1alpha1.IAMRoleFinalizer) && !slices.Contains(updated.Finalizers, podidentityv1alpha1.IAMRoleFinalizer) && mayHoldRole(old) {
		return roleWrite{doing: "remove the finalizer", why: fmt.Sprintf(
			"removing the finalizer %s while its IAM role may exist (%s) would leave that role trusting that ServiceAccount with no request to revoke it when the namespace goes",
			podidentityv1alpha1.IAMRoleFinalizer, roleEvidence(old))}
	}
	return roleWrite{}
}

// mayHoldRole says whether a role may exist for the request: it has an
// ARN, or a pinned namespace. The pin is stored before the role is created
// and the ARN only after, and a status write lost in between leaves a role
// with the pin alone; a request never pinned never got a role. After a
// revocation the pin stays: only whoever may write the namespace's
// ServiceAccounts, or an admin, lets the request go then.
func mayHoldRole(request *podidentityv1alpha1.IAMRoleRequest) bool {
	return request.Status.RoleARN != "" || request.Status.NamespaceUID != "" || len(request.Status.Namespaces) > 0
}

// roleEvidence says why the role may exist.
func roleEvidence(request *podidentityv1alpha1.IAMRoleRequest) string {
	if request.Status.RoleARN != "" {
		return "status.roleARN " + request.Status.RoleARN
	}
	if len(request.Status.Namespaces) > 0 {
		return fmt.Sprintf("status.namespaces names %d", len(request.Status.Namespaces))
	}
	return "status.namespaceUID " + request.Status.NamespaceUID
}

// deletionMoves says what deleting a request whose role may exist does to
// the role's trust.
func deletionMoves(request *podidentityv1alpha1.IAMRoleRequest) string {
	if slices.Contains(request.Finalizers, podidentityv1alpha1.IAMRoleFinalizer) {
		return fmt.Sprintf("deleting it while its IAM role may exist (%s) ends that role's trust of that ServiceAccount (the operator deletes the role), a decision for who may write it",
			roleEvidence(request))
	}
	return fmt.Sprintf("deleting it without its finalizer %s while its IAM role may exist (%s) would leave that role trusting that ServiceAccount with no request to revoke it when the namespace goes",
		podidentityv1alpha1.IAMRoleFinalizer, roleEvidence(request))
}

// serviceAccountWrite is one write the operator makes to a request's
// ServiceAccount, asked without a name: create cannot be limited to one.
func serviceAccountWrite(verb string) Permission {
	return Permission{Verb: verb, Resource: "serviceaccounts"}
}

// roleRequestDenial names the write, the verbs the requester lacks and how
// to get them.
func roleRequestDenial(what string, write roleWrite, r Requester, account podidentityv1alpha1.ServiceAccountStorage, denied []question) string {
	slices.SortFunc(denied, func(a, b question) int { return cmp.Compare(a.n.order, b.n.order) })
	verbs := make([]string, 0, len(denied))
	for _, q := range denied {
		verbs = append(verbs, q.n.p.Verb)
	}
	why := ""
	if write.why != "" {
		why = "; " + write.why
	}
	return fmt.Sprintf("%s links ServiceAccount %s/%s%s: %s may not %s serviceaccounts in namespace %q: an IAMRoleRequest has the operator write that ServiceAccount "+
		"(annotate it, or create it when absent), so whoever may %s must be able to; ask an admin of %s for edit there "+
		"(oc adm policy add-role-to-user edit %s -n %s), or have someone who may write its ServiceAccounts %s",
		what, account.Namespace, account.Name, why, describeRequester(r), strings.Join(verbs, " or "), account.Namespace,
		write.doing, account.Namespace, r.Name, account.Namespace, write.doing)
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
