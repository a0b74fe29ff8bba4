// Package operatorversion reports the operator's version on the
// ClusterOperator only once every operand runs what this version wants: the
// CVO reads a reported version as "the upgrade of this component is done".
package operatorversion

import (
	"context"
	"fmt"
	"strings"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/status"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
)

const (
	// ControllerName is the controller's name and its status field manager.
	ControllerName = "OperatorVersion"
	// ConditionType is Progressing while the new version rolls out.
	ConditionType = "OperatorVersionProgressing"
	// OperatorVersionName is the entry in ClusterOperator status.versions.
	OperatorVersionName = "operator"
)

// Operand is something the operator rolls out. AtLevel says whether it is
// what this operator version wants, given the current spec; when it is not,
// the message says what is still missing.
type Operand interface {
	AtLevel(spec *operatorv1.OperatorSpec) (atLevel bool, message string, err error)
}

type controller struct {
	operatorClient v1helpers.OperatorClient
	versions       status.VersionGetter
	desired        string
	operands       []Operand
}

// Inputs are what the controller needs.
type Inputs struct {
	OperatorClient v1helpers.OperatorClient
	Versions       status.VersionGetter
	// DesiredVersion is the payload version reported once every operand
	// is at level.
	DesiredVersion string
	Operands       []Operand
	// Informers must cover everything the operands read, so that it
	// re-evaluates as soon as they change.
	Informers []factory.Informer
	Recorder  events.Recorder
}

// New returns the controller.
func New(in Inputs) factory.Controller {
	c := &controller{operatorClient: in.OperatorClient, versions: in.Versions, desired: in.DesiredVersion, operands: in.Operands}
	return factory.New().
		WithInformers(append(in.Informers, in.OperatorClient.Informer())...).
		WithSync(c.sync).
		ResyncEvery(5*time.Minute).
		ToController(ControllerName, in.Recorder.WithComponentSuffix("operator-version"))
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	spec, _, _, err := c.operatorClient.GetOperatorState()
	if err != nil {
		return err
	}
	// Unmanaged means nobody rolls anything out: claiming a version would lie.
	if spec.ManagementState == operatorv1.Unmanaged {
		return nil
	}

	cond := conditions.Normal(ConditionType, fmt.Sprintf("Version %s is rolled out", c.desired))

	// Versions only move forward within a process: once at level, a later
	// operand hiccup is the operand controllers' Degraded to report.
	if c.versions.GetVersions()[OperatorVersionName] != c.desired {
		var waiting []string
		for _, operand := range c.operands {
			atLevel, message, err := operand.AtLevel(spec)
			if err != nil {
				return err
			}
			if !atLevel {
				waiting = append(waiting, message)
			}
		}
		if len(waiting) > 0 {
			cond = conditions.Abnormal(ConditionType, "RollingOut",
				fmt.Sprintf("Rolling out version %s: %s", c.desired, strings.Join(waiting, "; ")))
		} else {
			c.versions.SetVersion(OperatorVersionName, c.desired)
			syncCtx.Recorder().Eventf("OperatorVersionChanged", "Operator reached version %s", c.desired)
		}
	}
	return conditions.Apply(ctx, c.operatorClient, ControllerName, cond)
}
