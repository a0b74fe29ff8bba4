package iamrolerequest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamrole"
)

// A request for a set of namespaces (spec.storage.serviceAccounts) trusts
// one ServiceAccount name in each namespace judged trusted:
//   - by selector: a namespace that matches it now. The selector may use only
//     labels under podidentity's trust prefix (the CRD refuses others), which
//     the ValidatingAdmissionPolicy workload-access-namespace-trust-labels
//     lets only whoever may "label" namespacetrustlabels set, change or
//     remove: matching is itself the judgement of someone authorized.
//   - by list: a namespace that existed no later than the request, or whose
//     UID an admin confirmed (the confirmation annotation, UIDs separated by
//     commas), as a single request's namespace.
//
// Each is pinned by UID in status.namespaces when first judged; another
// instance of the same name is judged anew (and goes to the end of the
// order). The trust policy holds the oldest-judged that fit its size.

// setVerdict is what the namespaces mean for a set request's role.
type setVerdict struct {
	// trusted are the namespaces judged trusted, oldest-judged first.
	trusted []podidentityv1alpha1.TrustedNamespace
	// waiting names the listed namespaces not trusted, and why.
	waiting []string
}

// trustSelector is the set's selector as a labels.Selector. It refuses
// what the CRD refuses (an empty selector, a key outside the trust prefix,
// an operator other than In and Exists), so that no selector can match a
// namespace without a trust label whatever reached the API.
func trustSelector(s *podidentityv1alpha1.NamespaceTrustSelector) (labels.Selector, error) {
	if s == nil || len(s.MatchLabels)+len(s.MatchExpressions) == 0 {
		return nil, errors.New("an empty namespaceSelector would match every namespace")
	}
	ls := &metav1.LabelSelector{MatchLabels: s.MatchLabels}
	for key := range s.MatchLabels {
		if !strings.HasPrefix(key, podidentityv1alpha1.NamespaceTrustLabelPrefix) {
			return nil, fmt.Errorf("label key %q is not under %s", key, podidentityv1alpha1.NamespaceTrustLabelPrefix)
		}
	}
	for _, e := range s.MatchExpressions {
		if !strings.HasPrefix(e.Key, podidentityv1alpha1.NamespaceTrustLabelPrefix) {
			return nil, fmt.Errorf("label key %q is not under %s", e.Key, podidentityv1alpha1.NamespaceTrustLabelPrefix)
		}
		op := metav1.LabelSelectorOperator(e.Operator)
		if op != metav1.LabelSelectorOpIn && op != metav1.LabelSelectorOpExists {
			return nil, fmt.Errorf("operator %q of key %q: only In and Exists require the label", e.Operator, e.Key)
		}
		ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{Key: e.Key, Operator: op, Values: e.Values})
	}
	return metav1.LabelSelectorAsSelector(ls)
}

// confirmedUIDs are the UIDs of the confirmation annotation, separated by
// commas, spaces around each ignored.
func confirmedUIDs(annotation string) map[string]bool {
	out := map[string]bool{}
	for _, uid := range strings.Split(annotation, ",") {
		if uid = strings.TrimSpace(uid); uid != "" {
			out[uid] = true
		}
	}
	return out
}

// judgeSet decides, from the request and the namespaces listed now (those
// the selector matched, or those of the list that exist), which the role may
// trust, at now. A namespace being deleted is not trusted.
func judgeSet(request *podidentityv1alpha1.IAMRoleRequest, found []corev1.Namespace, selector labels.Selector, now metav1.Time) setVerdict {
	set := request.Spec.Storage.ServiceAccounts
	pinned := map[string]podidentityv1alpha1.TrustedNamespace{}
	for _, p := range request.Status.Namespaces {
		pinned[p.Name] = p
	}
	var v setVerdict
	trust := func(ns *corev1.Namespace) {
		p, ok := pinned[ns.Name]
		if !ok || p.UID != string(ns.UID) {
			p = podidentityv1alpha1.TrustedNamespace{Name: ns.Name, UID: string(ns.UID), JudgedAt: now}
		}
		v.trusted = append(v.trusted, p)
	}
	byName := map[string]*corev1.Namespace{}
	for i := range found {
		byName[found[i].Name] = &found[i]
	}
	if set.NamespaceSelector != nil {
		for i := range found {
			ns := &found[i]
			if ns.DeletionTimestamp == nil && ns.UID != "" && selector != nil && selector.Matches(labels.Set(ns.Labels)) {
				trust(ns)
			}
		}
	} else {
		confirmed := confirmedUIDs(request.Annotations[podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation])
		for _, name := range set.Namespaces {
			ns := byName[name]
			switch {
			case ns == nil:
				v.waiting = append(v.waiting, name+" does not exist")
			case ns.DeletionTimestamp != nil:
				v.waiting = append(v.waiting, name+" is being deleted")
			case pinned[name].UID == string(ns.UID) || confirmed[string(ns.UID)] || !ns.CreationTimestamp.After(request.CreationTimestamp.Time):
				trust(ns)
			default:
				v.waiting = append(v.waiting, fmt.Sprintf("%s (UID %s) was created after the request and no admin confirmed it", name, ns.UID))
			}
		}
	}
	slices.SortStableFunc(v.trusted, func(a, b podidentityv1alpha1.TrustedNamespace) int {
		if c := a.JudgedAt.Compare(b.JudgedAt.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return v
}

// setNamespaces lists the namespaces of the set live: those the selector
// matches, or each listed one by name.
func (c *controller) setNamespaces(ctx context.Context, set *podidentityv1alpha1.ServiceAccountSetStorage, selector labels.Selector) ([]corev1.Namespace, error) {
	if set.NamespaceSelector != nil {
		list, err := c.namespaces.Namespaces().List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	}
	var found []corev1.Namespace
	for _, name := range set.Namespaces {
		ns, err := c.namespaceNamed(ctx, name)
		if err != nil {
			return nil, err
		}
		if ns != nil {
			found = append(found, *ns)
		}
	}
	return found, nil
}

// reconcileSet makes the role trust the set's namespaces that fit, links
// their ServiceAccounts, unlinks those that left, and reports it.
func (c *controller) reconcileSet(ctx context.Context, syncCtx factory.SyncContext, request *podidentityv1alpha1.IAMRoleRequest) error {
	set := request.Spec.Storage.ServiceAccounts
	status := request.Status.DeepCopy()
	status.ObservedGeneration = request.Generation
	status.NamespaceUID = ""

	selector, err := trustSelector(set.NamespaceSelector)
	if set.NamespaceSelector == nil {
		selector, err = labels.Everything(), nil
	}
	if err != nil {
		message := "spec.storage.serviceAccounts.namespaceSelector: " + err.Error() + "; no namespace is trusted"
		return c.withholdSet(ctx, syncCtx, request, status, nil, message)
	}
	found, err := c.setNamespaces(ctx, set, selector)
	if err != nil {
		return fmt.Errorf("listing the namespaces of the set: %w", err)
	}
	// Whole seconds, as status stores them: a time finer than that would
	// order two namespaces one way now and by name after the round trip.
	v := judgeSet(request, found, selector, metav1.NewTime(c.now().Truncate(time.Second)))
	waiting := ""
	if len(v.waiting) > 0 {
		waiting = "; not trusted: " + strings.Join(v.waiting, ", ") + ". Only if such a namespace is one this role is meant for, confirm it: " + confirmSetCommand(request)
	}
	if len(v.trusted) == 0 {
		return c.withholdSet(ctx, syncCtx, request, status, v.waiting, "no namespace of the set is trusted"+waiting)
	}

	// The pins first, keeping what the trust policy held, so that no role
	// trusts a namespace the status does not name. A namespace that left the
	// set stays (leftovers) until its ServiceAccount is unlinked: whether or
	// not the trust policy held it, its unlink may have failed before.
	previous := request.Status.Namespaces
	judged := withInTrust(v.trusted, previous)
	var leftovers []podidentityv1alpha1.TrustedNamespace
	for _, p := range previous {
		if !slices.ContainsFunc(judged, func(n podidentityv1alpha1.TrustedNamespace) bool { return n.Name == p.Name }) {
			leftovers = append(leftovers, p)
		}
	}
	status.Namespaces = append(slices.Clone(judged), leftovers...)
	if err := c.writeStatus(ctx, request, status); err != nil {
		return err
	}
	status = request.Status.DeepCopy()

	names := make([]string, 0, len(v.trusted))
	for _, ns := range v.trusted {
		names = append(names, ns.Name)
	}
	role, f := c.provision(ctx, request, trustee{name: set.Name, set: names})
	if role.name != "" {
		status.ProviderStatus = &podidentityv1alpha1.AWSProviderStatus{
			APIVersion: "cloudcredential.openshift.io/v1", Kind: "AWSProviderStatus", User: role.name, Policy: role.policy}
	}
	if role.arn != "" {
		status.RoleARN = role.arn
	}
	if f != nil && f.Reason == podidentityv1alpha1.ReasonTrustPolicyFull {
		// Not one namespace fits: no role trusts any.
		return c.withholdSet(ctx, syncCtx, request, status, v.waiting, f.Message+waiting)
	}
	provisioned := metav1.Condition{Type: podidentityv1alpha1.ConditionProvisioned, Status: metav1.ConditionTrue,
		Reason: podidentityv1alpha1.ReasonProvisioned, Message: role.message}
	if f != nil {
		provisioned.Status, provisioned.Reason, provisioned.Message = metav1.ConditionFalse, f.Reason, f.Message
	}
	setCondition(status, request.Generation, provisioned)
	accepted := c.tokensAccepted(ctx, role)
	if f != nil && f.Retry {
		if previous := meta.FindStatusCondition(request.Status.Conditions, podidentityv1alpha1.ConditionTokensAccepted); previous != nil {
			accepted = *previous
		}
	}
	setCondition(status, request.Generation, accepted)

	if f != nil {
		// What the trust policy holds is unknown: the link and the
		// namespaces' condition stay as they were.
		if err := c.writeStatus(ctx, request, status); err != nil {
			return err
		}
		if f.Retry {
			return f
		}
		syncCtx.Queue().AddAfter(request.Name, waitingRecheck)
		return nil
	}

	fitted := role.fill.Fitted
	for i := range judged {
		judged[i].InTrustPolicy = i < fitted
	}
	setCondition(status, request.Generation, namespacesTrusted(judged, role.fill.Size, issuersCrowding(role, set.Name, names), c.trustLimitMessage(), waiting))

	// Links for the namespaces the trust policy holds; unlinks for those it
	// does not (tried at every sync: a read when there is nothing to undo),
	// and for those that left the set, which stay in the status until done.
	linked, linkErr := c.linkSet(ctx, request, set.Name, judged[:fitted], role.arn, role.audience)
	setCondition(status, request.Generation, linked)
	var stillLinked []podidentityv1alpha1.TrustedNamespace
	for _, p := range append(slices.Clone(judged[fitted:]), leftovers...) {
		err := c.unlinkAccount(ctx, request, podidentityv1alpha1.ServiceAccountStorage{Namespace: p.Name, Name: set.Name})
		if err == nil {
			continue
		}
		if linkErr == nil {
			linkErr = err
		}
		if slices.Contains(leftovers, p) {
			stillLinked = append(stillLinked, p)
		}
	}
	status.Namespaces = append(judged, stillLinked...)
	if err := c.writeStatus(ctx, request, status); err != nil {
		return err
	}
	if linkErr != nil {
		return linkErr
	}
	if len(v.waiting) > 0 || waitsOnIssuer(accepted) {
		syncCtx.Queue().AddAfter(request.Name, waitingRecheck)
	}
	if until := role.trust.tokens.PreviousUntil; !until.IsZero() {
		syncCtx.Queue().AddAfter(request.Name, until.Sub(c.now())+time.Second)
	}
	return nil
}

// issuersCrowding is how many issuers the trust policy names when, with the
// current issuer's alone, more namespaces would fit (an issuer move is why
// some are left out); else 1.
func issuersCrowding(r role, name string, names []string) int {
	n := len(r.trust.providers)
	if n < 2 || r.trust.current == nil {
		return 1
	}
	alone := iamrole.FillTrustPolicy([]iamrole.Provider{r.trust.current.Provider}, names, name, r.audience, r.trustLimit)
	if alone.Fitted <= r.fill.Fitted {
		return 1
	}
	return n
}

// withInTrust copies, onto the namespaces judged now, whether the trust
// policy held each (same name and UID) before.
func withInTrust(judged, previous []podidentityv1alpha1.TrustedNamespace) []podidentityv1alpha1.TrustedNamespace {
	out := slices.Clone(judged)
	for i := range out {
		out[i].InTrustPolicy = slices.ContainsFunc(previous, func(p podidentityv1alpha1.TrustedNamespace) bool {
			return p.Name == out[i].Name && p.UID == out[i].UID && p.InTrustPolicy
		})
	}
	return out
}

// trustLimitMessage says where the trust policy's size limit comes from.
func (c *controller) trustLimitMessage() string {
	return "WorkloadAccess cluster spec.podIdentity.roles.trustPolicySizeLimit: IAM's quota on a role's trust policy, 2,048 characters unless raised, 4,096 at most"
}

// namespacesTrusted says how many of the judged namespaces the trust policy
// holds, names those left out and, while the policy names more than one
// issuer (the cluster's issuer moves), why fewer fit than after the move.
func namespacesTrusted(namespaces []podidentityv1alpha1.TrustedNamespace, size, issuers int, limit, waiting string) metav1.Condition {
	var in, out []string
	for _, ns := range namespaces {
		if ns.InTrustPolicy {
			in = append(in, ns.Name)
		} else {
			out = append(out, ns.Name)
		}
	}
	c := metav1.Condition{Type: podidentityv1alpha1.ConditionNamespacesTrusted, Status: metav1.ConditionTrue, Reason: podidentityv1alpha1.ReasonAllNamespacesTrusted,
		Message: fmt.Sprintf("the trust policy (%d characters) holds all %d namespaces judged trusted: %s%s", size, len(in), someNames(in), waiting)}
	switch {
	case len(out) > 0:
		c.Status, c.Reason = metav1.ConditionFalse, podidentityv1alpha1.ReasonTrustPolicyFull
		moving := ""
		if issuers > 1 {
			moving = fmt.Sprintf(" (while the cluster's issuer moves, the trust policy names every namespace once for each of %d issuers: those left out come back when the move ends)", issuers)
		}
		c.Message = fmt.Sprintf("%d of %d namespaces fit the trust policy (%d characters; the limit is %s)%s, the oldest judged: %s; left out: %s%s",
			len(in), len(namespaces), size, limit, moving, someNames(in), someNames(out), waiting)
	case waiting != "":
		c.Status, c.Reason = metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceNotConfirmed
	}
	return c
}

// conditionNames is how many namespaces a condition names: a selector may
// match thousands, and a condition's message holds at most 32,768
// characters (status.namespaces lists them all).
const conditionNames = 50

// someNames joins the first conditionNames names, and counts the rest.
func someNames(names []string) string {
	if len(names) <= conditionNames {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more (status.namespaces lists them all)", strings.Join(names[:conditionNames], ", "), len(names)-conditionNames)
}

// linkSet links the ServiceAccount in each namespace the trust policy
// holds, as a single request links its one. The condition is True when all
// are linked and none asks for another token audience than the role admits
// (one role, one audience); else it names each that is not, or does.
func (c *controller) linkSet(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest, name string, namespaces []podidentityv1alpha1.TrustedNamespace, arn, audience string) (metav1.Condition, error) {
	var problems []string
	var firstErr error
	reason := podidentityv1alpha1.ReasonLinked
	for _, ns := range namespaces {
		ref := podidentityv1alpha1.ServiceAccountStorage{Namespace: ns.Name, Name: name}
		sa, err := c.serviceAccounts.ServiceAccounts(ns.Name).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			sa, err = nil, nil
		}
		var linked metav1.Condition
		if err == nil {
			linked, err = c.link(ctx, request, ref, sa, arn, ns.UID)
		} else {
			linked = metav1.Condition{Status: metav1.ConditionFalse, Reason: podidentityv1alpha1.ReasonWaitingForRole, Message: fmt.Sprintf("reading ServiceAccount %s/%s: %v", ns.Name, name, err)}
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if own := audienceOf(sa); linked.Status == metav1.ConditionTrue && own != "" && own != audience {
			linked = metav1.Condition{Status: metav1.ConditionFalse, Reason: podidentityv1alpha1.ReasonAudienceMismatch, Message: fmt.Sprintf(
				"ServiceAccount %s/%s carries %s=%.100q, but the set's role admits tokens of audience %s only, so STS refuses its pods' tokens: remove the annotation, or set it to %s",
				ns.Name, name, podidentityv1alpha1.AudienceAnnotation, own, audience, audience)}
		}
		if linked.Status != metav1.ConditionTrue {
			if reason == podidentityv1alpha1.ReasonLinked {
				reason = linked.Reason
			}
			problems = append(problems, linked.Message)
		}
	}
	condition := metav1.Condition{Type: podidentityv1alpha1.ConditionServiceAccountLinked, Status: metav1.ConditionTrue, Reason: reason,
		Message: fmt.Sprintf("ServiceAccount %s carries %s=%s in the %d namespaces the trust policy holds", name, podidentityv1alpha1.RoleARNAnnotation, arn, len(namespaces))}
	// Each message may carry up to some hundreds of characters of a
	// ServiceAccount's annotations; a condition's message holds 32,768.
	const named = 20
	if len(problems) > named {
		problems = append(problems[:named], fmt.Sprintf("and %d more ServiceAccounts not linked or asking another audience", len(problems)-named))
	}
	if len(problems) > 0 {
		condition.Status, condition.Message = metav1.ConditionFalse, strings.Join(problems, "; ")
	}
	return condition, firstErr
}

// audienceOf is the token audience a ServiceAccount asks for, "" for none
// (or no ServiceAccount: the operator creates it without).
func audienceOf(sa *corev1.ServiceAccount) string {
	if sa == nil {
		return ""
	}
	return sa.Annotations[podidentityv1alpha1.AudienceAnnotation]
}

// withholdSet reports a set request of which no namespace is trusted (or
// fits): it deletes a role the request may hold, unlinks every
// ServiceAccount it linked, and says why.
func (c *controller) withholdSet(ctx context.Context, syncCtx factory.SyncContext, request *podidentityv1alpha1.IAMRoleRequest, status *podidentityv1alpha1.IAMRoleRequestStatus, waiting []string, message string) error {
	var deleted string
	if status.RoleARN != "" || len(request.Status.Namespaces) > 0 {
		d, fail := c.revoke(ctx, request)
		if fail != nil {
			setCondition(status, request.Generation, metav1.Condition{Type: podidentityv1alpha1.ConditionProvisioned, Status: metav1.ConditionFalse, Reason: fail.Reason,
				Message: message + ". Deleting the role failed, and is retried: " + fail.Message})
			if err := c.writeStatus(ctx, request, status); err != nil {
				return err
			}
			return unrevoked(request, fail)
		}
		deleted, status.RoleARN = d, ""
	}
	if err := c.unlink(ctx, request); err != nil {
		return err
	}
	status.Namespaces = nil
	for _, conditionType := range []string{podidentityv1alpha1.ConditionProvisioned, podidentityv1alpha1.ConditionServiceAccountLinked, podidentityv1alpha1.ConditionNamespacesTrusted} {
		setCondition(status, request.Generation, metav1.Condition{Type: conditionType, Status: metav1.ConditionFalse, Reason: podidentityv1alpha1.ReasonNoNamespaceTrusted, Message: message})
	}
	setCondition(status, request.Generation, metav1.Condition{Type: podidentityv1alpha1.ConditionTokensAccepted, Status: metav1.ConditionFalse,
		Reason: podidentityv1alpha1.ReasonRoleNotProvisioned, Message: "there is no role: " + message})
	if deleted != "" {
		c.events.Eventf(request, corev1.EventTypeWarning, podidentityv1alpha1.ReasonNoNamespaceTrusted, "Deleted IAM role %s: %s", deleted, message)
	}
	if err := c.writeStatus(ctx, request, status); err != nil {
		return err
	}
	syncCtx.Queue().AddAfter(request.Name, waitingRecheck)
	return nil
}

// confirmSetCommand is the admin's command that confirms, for a list, the
// namespaces of the list as they are when they run it.
func confirmSetCommand(request *podidentityv1alpha1.IAMRoleRequest) string {
	return fmt.Sprintf("`oc annotate --overwrite iamrolerequest %s %s=<uid>,<uid>` with each namespace's `oc get namespace <name> -o jsonpath='{.metadata.uid}'`",
		request.Name, podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation)
}

// setRequests are the requests for a set of namespaces: any namespace that
// comes, goes or changes labels may enter or leave a set.
func (c *controller) setRequests(runtime.Object) []string {
	all, err := c.requests.List(labels.Everything())
	if err != nil {
		return nil
	}
	var keys []string
	for _, r := range all {
		if r.Spec.Storage.ServiceAccounts != nil {
			keys = append(keys, r.Name)
		}
	}
	return keys
}
