package informerkit

import (
	"context"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
)

// Resync is the safety-net relist of every informer of the operator.
const Resync = 10 * time.Minute

// StartOnRun returns controller, which starts its own informers (each
// start, a SharedInformerFactory's Start for example) when it runs;
// library-go's controller then waits for them to sync before its first sync.
func StartOnRun(controller factory.Controller, start ...func(stop <-chan struct{})) factory.Controller {
	return startingInformers{Controller: controller, start: start}
}

type startingInformers struct {
	factory.Controller
	start []func(stop <-chan struct{})
}

func (s startingInformers) Run(ctx context.Context, workers int) {
	for _, start := range s.start {
		start(ctx.Done())
	}
	s.Controller.Run(ctx, workers)
}
