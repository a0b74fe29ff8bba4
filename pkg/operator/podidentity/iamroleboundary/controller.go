// Package iamroleboundary reports IAMRoleBoundaryDegraded on the operator:
// whether IAMRoleRequests wait for a permissions boundary the operator may
// use on AWS IAM. The iamrolerequest controller refuses to make a role
// without one; this tells the admin once, on the ClusterOperator.
package iamroleboundary

import (
	"context"
	"fmt"
	"slices"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	configv1informers "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	operatorv1alpha1informers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/operator/v1alpha1"
	podidentityinformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/podidentity/v1alpha1"
	operatorv1alpha1listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	podidentitylisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamrole"
)

// ControllerName owns IAMRoleBoundaryDegraded: True while
// IAMRoleRequests wait for a permissions boundary the operator may use on
// AWS IAM, so that an admin who looks at the ClusterOperator, not at each
// request, finds what to do. Degraded, as the cloud credential operator
// reports credentials it cannot provision: users asked for roles, and none
// is made until an admin acts. Nobody waiting, nothing to report.
const ControllerName = "IAMRoleBoundary"

// boundaryShownRequests is how many waiting requests the message names.
const boundaryShownRequests = 3

type controller struct {
	requests         podidentitylisters.IAMRoleRequestLister
	workloadAccesses operatorv1alpha1listers.WorkloadAccessLister
	infrastructures  configv1listers.InfrastructureLister
	operatorClient   v1helpers.OperatorClient
}

// Inputs are what the controller needs.
type Inputs struct {
	Requests         podidentityinformers.IAMRoleRequestInformer
	WorkloadAccesses operatorv1alpha1informers.WorkloadAccessInformer
	Config           configv1informers.Interface
	OperatorClient   v1helpers.OperatorClient
	Recorder         events.Recorder
}

// New returns the controller; its one key coalesces every
// change of a request, the WorkloadAccess or the Infrastructure.
func New(in Inputs) factory.Controller {
	c := &controller{requests: in.Requests.Lister(), workloadAccesses: in.WorkloadAccesses.Lister(),
		infrastructures: in.Config.Infrastructures().Lister(), operatorClient: in.OperatorClient}
	return factory.New().
		WithInformers(in.Requests.Informer(), in.WorkloadAccesses.Informer(), in.Config.Infrastructures().Informer(), in.OperatorClient.Informer()).
		WithSync(c.sync).
		ToController(ControllerName, in.Recorder.WithComponentSuffix("iam-role-boundary"))
}

func (c *controller) sync(ctx context.Context, _ factory.SyncContext) error {
	state, err := managementsync.Get(c.operatorClient)
	if err != nil {
		return err
	}
	if state != operatorv1.Managed {
		return nil // nothing is made or refused: the last report stands
	}
	condition, err := c.condition()
	if err != nil {
		return err
	}
	return conditions.Apply(ctx, c.operatorClient, ControllerName, condition)
}

func (c *controller) condition() (conditions.Condition, error) {
	conditionType := ControllerName + operatorv1.OperatorStatusTypeDegraded
	problem, err := c.problem()
	if err != nil || problem == nil {
		return conditions.Normal(conditionType, ""), err
	}
	all, err := c.requests.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var waiting []string
	for _, r := range all {
		if r.DeletionTimestamp == nil {
			waiting = append(waiting, r.Name)
		}
	}
	if len(waiting) == 0 {
		return conditions.Normal(conditionType, ""), nil
	}
	// Sorted: the lister's order changes, and a changed message is a write.
	slices.Sort(waiting)
	return conditions.Abnormal(conditionType, problem.Reason, namedRequests(waiting)+" without a role: "+problem.Message), nil
}

// problem is the boundary's, nil when roles can be made with it or the
// operator does not call AWS IAM.
func (c *controller) problem() (*iamrole.BoundaryProblem, error) {
	infra, err := c.infrastructures.Get("cluster")
	if apierrors.IsNotFound(err) {
		infra, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	wa, err := c.workloadAccesses.Get(operatorclient.ConfigName)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	d := podidentity.Decide(infra, wa.Spec.PodIdentity)
	if !d.Enabled || wa.Spec.PodIdentity.Roles.IAMEndpoint != "" {
		return nil, nil
	}
	return iamrole.CheckBoundary(wa.Spec.PodIdentity.Roles.PermissionsBoundary, iamrole.Partition(d.RoleRegion(wa)), ""), nil
}

// namedRequests is "IAMRoleRequest a", or "3 IAMRoleRequests (a, b, c)",
// or "5 IAMRoleRequests (a, b, c and 2 more)".
func namedRequests(names []string) string {
	if len(names) == 1 {
		return "IAMRoleRequest " + names[0]
	}
	shown := names
	more := ""
	if len(names) > boundaryShownRequests {
		shown, more = names[:boundaryShownRequests], fmt.Sprintf(" and %d more", len(names)-boundaryShownRequests)
	}
	return fmt.Sprintf("%d IAMRoleRequests (%s%s)", len(names), strings.Join(shown, ", "), more)
}
