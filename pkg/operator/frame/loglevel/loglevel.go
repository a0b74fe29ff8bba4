// Package loglevel applies spec.operatorLogLevel to the running operator, as
// library-go's loglevel controller does, with one difference: TraceAll is klog
// verbosity 7, not 8. From 8 on, client-go logs the body of every request and
// response, and this operator reads Secrets (the entitlement keys bundles
// reference, the issuer publisher's S3 credentials) and posts TokenReviews
// that carry bearer tokens: no log level may print those. The webhook's
// Deployment takes its -v from Of too.
package loglevel

import (
	"context"
	"strconv"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/loglevel"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/klog/v2"
)

// ControllerName is the controller's name in events and logs.
const ControllerName = "LogLevel"

// Max is the highest klog verbosity a log level sets: one below where
// client-go starts logging request and response bodies.
const Max = 7

// Of is the klog verbosity of level: library-go's, capped at Max. An empty or
// unknown level is Normal.
func Of(level operatorv1.LogLevel) int {
	if !loglevel.ValidLogLevel(level) {
		level = operatorv1.Normal
	}
	return min(loglevel.LogLevelToVerbosity(level), Max)
}

type controller struct {
	operatorClient v1helpers.OperatorClient
	// set changes the process's klog verbosity.
	set func(int) error
	// applied is the level last set; "" before the first sync.
	applied operatorv1.LogLevel
}

// New returns the controller that follows spec.operatorLogLevel.
func New(operatorClient v1helpers.OperatorClient, recorder events.Recorder) factory.Controller {
	c := &controller{operatorClient: operatorClient, set: setKlogVerbosity}
	return factory.New().
		WithInformers(operatorClient.Informer()).
		WithSync(c.sync).
		ToController(ControllerName, recorder.WithComponentSuffix("log-level"))
}

func (c *controller) sync(_ context.Context, syncCtx factory.SyncContext) error {
	spec, _, _, err := c.operatorClient.GetOperatorState()
	if err != nil {
		return err
	}
	level := spec.OperatorLogLevel
	if level == "" {
		level = operatorv1.Normal
	}
	if !loglevel.ValidLogLevel(level) {
		if c.applied != operatorv1.Normal {
			syncCtx.Recorder().Warningf("OperatorLogLevelInvalid", "Invalid operatorLogLevel %q, using %q", level, operatorv1.Normal)
		}
		level = operatorv1.Normal
	}
	if level == c.applied {
		return nil
	}
	v := Of(level)
	if err := c.set(v); err != nil {
		return err
	}
	if c.applied == "" {
		syncCtx.Recorder().Eventf("OperatorLogLevelChange", "Operator log level set to %q (klog verbosity %d)", level, v)
	} else {
		syncCtx.Recorder().Eventf("OperatorLogLevelChange", "Operator log level changed from %q to %q (klog verbosity %d)", c.applied, level, v)
	}
	c.applied = level
	return nil
}

// setKlogVerbosity sets klog's global verbosity: Level.Set applies to the
// whole process whichever Level it is called on.
func setKlogVerbosity(v int) error {
	var level klog.Level
	return level.Set(strconv.Itoa(v))
}
