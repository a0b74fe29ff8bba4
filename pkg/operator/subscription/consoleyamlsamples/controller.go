// Package consoleyamlsamples publishes the web console's example ClusterBundle
// and Bundle (ConsoleYAMLSamples from bindata) and deletes them under
// Removed. The console is an optional capability: without the
// ConsoleYAMLSample API there is nothing to do and nothing is wrong.
package consoleyamlsamples

import (
	"context"
	"time"

	consolev1 "github.com/openshift/api/console/v1"
	consoleclient "github.com/openshift/client-go/console/clientset/versioned/typed/console/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-workload-access-operator/bindata"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
)

// ControllerName owns the ConsoleYAMLSamplesDegraded condition.
const ControllerName = "ConsoleYAMLSamples"

// Files are the samples in bindata.
var Files = []string{
	"consolesamples/cluster-bundle-example.yaml",
	"consolesamples/namespaced-bundle-example.yaml",
}

// Samples decodes Files.
func Samples() ([]*consolev1.ConsoleYAMLSample, error) {
	out := make([]*consolev1.ConsoleYAMLSample, 0, len(Files))
	for _, file := range Files {
		sample := &consolev1.ConsoleYAMLSample{}
		if err := yaml.UnmarshalStrict(bindata.MustAsset(file), sample); err != nil {
			return nil, err
		}
		out = append(out, sample)
	}
	return out, nil
}

type controller struct {
	client         consoleclient.ConsoleYAMLSamplesGetter
	operatorClient v1helpers.OperatorClient
	samples        []*consolev1.ConsoleYAMLSample
}

// Inputs are what the controller needs.
type Inputs struct {
	Client         consoleclient.ConsoleYAMLSamplesGetter
	OperatorClient v1helpers.OperatorClient
	Recorder       events.Recorder
}

// New returns the controller. It watches no ConsoleYAMLSample informer:
// one would never sync on a cluster without the console, so a deleted or
// edited sample is restored on the next resync instead.
func New(in Inputs) (factory.Controller, error) {
	samples, err := Samples()
	if err != nil {
		return nil, err
	}
	c := &controller{client: in.Client, operatorClient: in.OperatorClient, samples: samples}
	return factory.New().
		WithInformers(in.OperatorClient.Informer()).
		WithSync(c.sync).
		WithSyncDegradedOnError(in.OperatorClient).
		ResyncEvery(10*time.Minute).
		ToController(ControllerName, in.Recorder.WithComponentSuffix("console-samples")), nil
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	return managementsync.Syncs{Managed: c.apply, Removed: c.remove}.Sync(c.operatorClient)(ctx, syncCtx)
}

func (c *controller) apply(ctx context.Context, syncCtx factory.SyncContext) error {
	recorder := syncCtx.Recorder()
	samples := c.client.ConsoleYAMLSamples()
	for _, desired := range c.samples {
		existing, err := samples.Get(ctx, desired.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = samples.Create(ctx, desired, metav1.CreateOptions{})
			if apierrors.IsNotFound(err) {
				// The GET said NotFound for the object, the create for the
				// resource: the console capability is disabled.
				klog.V(2).Infof("ConsoleYAMLSamples are not served: not publishing %s", desired.Name)
				return nil
			}
			if err != nil {
				return err
			}
			recorder.Eventf("ConsoleYAMLSampleCreated", "Created ConsoleYAMLSample %s", desired.Name)
			continue
		}
		if err != nil {
			return err
		}
		labels := withLabels(existing.Labels, desired.Labels)
		if equality.Semantic.DeepEqual(existing.Spec, desired.Spec) && equality.Semantic.DeepEqual(existing.Labels, labels) {
			continue
		}
		updated := existing.DeepCopy()
		updated.Spec = desired.Spec
		updated.Labels = labels
		if _, err := samples.Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
			return err
		}
		recorder.Eventf("ConsoleYAMLSampleUpdated", "Updated ConsoleYAMLSample %s", desired.Name)
	}
	return nil
}

func (c *controller) remove(ctx context.Context, syncCtx factory.SyncContext) error {
	recorder := syncCtx.Recorder()
	for _, sample := range c.samples {
		err := c.client.ConsoleYAMLSamples().Delete(ctx, sample.Name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		recorder.Eventf("ConsoleYAMLSampleDeleted", "Deleted ConsoleYAMLSample %s: the operator is Removed", sample.Name)
	}
	return nil
}

// withLabels is existing's labels with desired's added: others' labels stay.
func withLabels(existing, desired map[string]string) map[string]string {
	if len(desired) == 0 {
		return existing
	}
	out := map[string]string{}
	for k, v := range existing {
		out[k] = v
	}
	for k, v := range desired {
		out[k] = v
	}
	return out
}
