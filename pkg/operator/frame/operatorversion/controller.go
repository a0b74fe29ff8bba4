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

// New returns the controller. informers must cover everything the operands
// read, so that it re-evaluates as soon as they change.
func New(operatorClient v1helpers.OperatorClient, versions status.VersionGetter, desiredVersion string, operands []Operand, informers []factory.Informer, recorder events.Recorder) factory.Controller {
	c := &controller{operatorClient: operatorClient, versions: versions, desired: desiredVersion, operands: operands}
	return factory.New().
		WithInformers(append(informers, operatorClient.Informer())...).
		WithSync(c.sync).
		ResyncEvery(5*time.Minute).
		ToController(ControllerName, recorder.WithComponentSuffix("operator-version"))
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
