package olmscopes

import (
	"context"
	"fmt"
	"slices"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
)

// FollowsOperatorGroups is the WorkloadAccess condition that says whether
// every generated scope follows its CSV's OperatorGroup: False
// (ReasonScopesKept) while some are kept as they were because their
// namespace has no OperatorGroup, several, or one whose selector OLM has
// not resolved. Its own type, not OLMScopeGeneratorDegraded: the operator
// works as meant, and the admin's OperatorGroup is what to fix; nor
// Progressing: it may last, and the ClusterOperator is not rolling out.
const FollowsOperatorGroups = "OLMScopesFollowOperatorGroups"

// ReasonScopesKept is FollowsOperatorGroups' reason when False.
const ReasonScopesKept = "ScopesKeptOperatorGroupNotWhole"

// maxKeptNamed is how many CSVs the condition names before "and N more".
const maxKeptNamed = 5

// keptCondition is FollowsOperatorGroups for the CSVs whose scope was kept.
func keptCondition(kept []string) conditions.Condition {
	if len(kept) == 0 {
		return applyoperatorv1.OperatorCondition().WithType(FollowsOperatorGroups).WithStatus(operatorv1.ConditionTrue).
			WithReason(conditions.AsExpected).WithMessage("every scope generated from a ClusterServiceVersion follows its OperatorGroup")
	}
	// Sorted: the informer's order changes, and a changed message is a write.
	kept = slices.Sorted(slices.Values(kept))
	return applyoperatorv1.OperatorCondition().WithType(FollowsOperatorGroups).WithStatus(operatorv1.ConditionFalse).
		WithReason(ReasonScopesKept).WithMessage(fmt.Sprintf(
		"the scopes generated from %d ClusterServiceVersion(s) are kept as they were, not following their OperatorGroup: %s. "+
			"They follow it again once their namespace has exactly one OperatorGroup, its targets resolved (Events on each ClusterServiceVersion)",
		len(kept), conditions.Named(kept, maxKeptNamed)))
}

// reportKept applies FollowsOperatorGroups.
func (c *controller) reportKept(ctx context.Context, kept []string) error {
	return conditions.Apply(ctx, c.operator, ControllerName, keptCondition(kept))
}

// keptNames names the claimed objects, for the Event.
func keptNames(templates map[string]*scopesv1alpha1.ScopeTemplate, instances map[string]*scopesv1alpha1.ScopeInstance) string {
	var names []string
	for _, t := range templates {
		names = append(names, "ScopeTemplate "+t.Name)
	}
	for _, i := range instances {
		names = append(names, "ScopeInstance "+i.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
