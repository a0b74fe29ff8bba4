// Package framework is what the e2e tests share: applying the CVO payload the
// way the cluster-version operator would, running the real operator binary,
// and waiting for what a user would see.
package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// Payload placeholders the release tooling replaces, and what tests use.
const (
	payloadVersion = "0.0.1-snapshot"
	payloadImage   = "quay.io/openshift/origin-cluster-workload-access-operator:latest"
)

// Payload is the operator's CVO manifests, with the placeholders replaced
// as `oc adm release new` would.
type Payload struct {
	// ReleaseVersion replaced the version placeholder.
	ReleaseVersion string
	// Image replaced the operator image placeholder; the operator hands it
	// on to the webhook Deployment.
	Image   string
	Objects []*unstructured.Unstructured
	// ClusterOperator is the manifest's ClusterOperator: its status lists
	// the versions the CVO waits for and the static relatedObjects.
	ClusterOperator *configv1.ClusterOperator
}

// capabilityAnnotation names the cluster capability a manifest belongs to.
const capabilityAnnotation = "capability.openshift.io/name"

// absentCapabilities are the capabilities the test cluster does not have:
// no cloud credential operator runs there, so nothing serves
// CredentialsRequests (the tests create the Secret it would write).
var absentCapabilities = map[string]bool{"CloudCredential": true}

// LoadPayload reads manifests/ in file-name order.
func LoadPayload(dir, releaseVersion, image string) (*Payload, error) {
	files, err := filepath.Glob(filepath.Join(dir, "0000_*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	replacer := strings.NewReplacer(payloadVersion, releaseVersion, payloadImage, image)
	payload := &Payload{ReleaseVersion: releaseVersion, Image: image}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(replacer.Replace(string(data)))), 4096)
		for {
			obj := &unstructured.Unstructured{}
			if err := decoder.Decode(&obj.Object); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			if obj.GetAnnotations()["include.release.openshift.io/self-managed-high-availability"] != "true" {
				return nil, fmt.Errorf("%s: %s %s lacks the self-managed-high-availability profile annotation, so the CVO would drop it", file, obj.GetKind(), obj.GetName())
			}
			if obj.GetKind() == "ClusterOperator" {
				data, err := yaml.Marshal(obj.Object)
				if err != nil {
					return nil, err
				}
				payload.ClusterOperator = &configv1.ClusterOperator{}
				if err := yaml.UnmarshalStrict(data, payload.ClusterOperator); err != nil {
					return nil, fmt.Errorf("%s: %w", file, err)
				}
			}
			payload.Objects = append(payload.Objects, obj)
		}
	}
	return payload, nil
}

// OperatorEnv is the literal environment of the operator container in the
// payload's Deployment (RELEASE_VERSION, OPERATOR_IMAGE, OPERATOR_NAME...):
// a test process runs with what the pod would get.
func (p *Payload) OperatorEnv() ([]string, error) {
	for _, obj := range p.Objects {
		if obj.GetKind() != "Deployment" || obj.GetName() != OperatorName {
			continue
		}
		containers, _, err := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
		if err != nil || len(containers) == 0 {
			return nil, fmt.Errorf("the operator Deployment has no containers: %v", err)
		}
		envs, _, err := unstructured.NestedSlice(containers[0].(map[string]any), "env")
		if err != nil {
			return nil, err
		}
		var out []string
		for _, e := range envs {
			env := e.(map[string]any)
			if value, ok := env["value"].(string); ok {
				out = append(out, fmt.Sprintf("%s=%s", env["name"], value))
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("the payload has no operator Deployment")
}

// CRDFiles are the payload's CustomResourceDefinition manifests.
func CRDFiles(dir string) ([]string, error) {
	return filepath.Glob(filepath.Join(dir, "0000_*.crd.yaml"))
}

// Apply creates or updates every object as the CVO does: server-side apply,
// create-only objects left alone once they exist, and the ClusterOperator
// pre-created with its relatedObjects but no versions (the operator reports
// those). CRDs are skipped: the control plane installs them before
// kube-controller-manager starts.
// Manifests of a capability the test cluster lacks are skipped, as the CVO
// skips those of disabled capabilities.
func (p *Payload) Apply(ctx context.Context, config *rest.Config) error {
	return p.apply(ctx, config, false)
}

// Upgrade applies every manifest, CRDs included, in file order, as the CVO
// applies a new release's payload to a running cluster: each CRD is
// server-side applied and Established before the next manifest.
func (p *Payload) Upgrade(ctx context.Context, config *rest.Config) error {
	return p.apply(ctx, config, true)
}

func (p *Payload) apply(ctx context.Context, config *rest.Config, crds bool) error {
	// Not client-go's default of 5 requests a second: at that rate the
	// payload takes 6 s to apply, the test's own throttling.
	config = rest.CopyConfig(config)
	config.QPS, config.Burst = 100, 100
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	disco, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))
	for _, obj := range p.Objects {
		if absentCapabilities[obj.GetAnnotations()[capabilityAnnotation]] {
			continue
		}
		switch obj.GetKind() {
		case "CustomResourceDefinition":
			if crds {
				if err := applyCRD(ctx, config, obj); err != nil {
					return err
				}
			}
			continue
		case "ClusterOperator":
			if err := p.precreateClusterOperator(ctx, config); err != nil {
				return err
			}
			continue
		}
		gvk := obj.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("%s %s: %w", gvk, obj.GetName(), err)
		}
		client := dyn.Resource(mapping.Resource).Namespace(obj.GetNamespace())
		if obj.GetAnnotations()["release.openshift.io/create-only"] == "true" {
			if _, err := client.Create(ctx, obj, metav1.CreateOptions{FieldManager: "cluster-version-operator"}); err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating %s %s: %w", gvk.Kind, obj.GetName(), err)
			}
			continue
		}
		if _, err := client.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "cluster-version-operator", Force: true}); err != nil {
			return fmt.Errorf("applying %s %s/%s: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
		}
	}
	return nil
}

func (p *Payload) precreateClusterOperator(ctx context.Context, config *rest.Config) error {
	client, err := configclient.NewForConfig(config)
	if err != nil {
		return err
	}
	co, err := client.ConfigV1().ClusterOperators().Create(ctx, &configv1.ClusterOperator{
		ObjectMeta: metav1.ObjectMeta{Name: p.ClusterOperator.Name, Annotations: p.ClusterOperator.Annotations},
	}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	if err != nil {
		return err
	}
	co.Status.RelatedObjects = p.ClusterOperator.Status.RelatedObjects
	_, err = client.ConfigV1().ClusterOperators().UpdateStatus(ctx, co, metav1.UpdateOptions{})
	return err
}

// applyCRD server-side applies one CRD as the CVO and waits until the API
// server serves it.
func applyCRD(ctx context.Context, config *rest.Config, obj *unstructured.Unstructured) error {
	client, err := apiextensionsclient.NewForConfig(config)
	if err != nil {
		return err
	}
	data, err := obj.MarshalJSON()
	if err != nil {
		return err
	}
	if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Patch(ctx, obj.GetName(), types.ApplyPatchType, data,
		metav1.PatchOptions{FieldManager: "cluster-version-operator", Force: ptr.To(true)}); err != nil {
		return fmt.Errorf("applying CustomResourceDefinition %s: %w", obj.GetName(), err)
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		crd, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, obj.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue &&
				(crd.Status.ObservedGeneration == 0 || crd.Status.ObservedGeneration >= crd.Generation) {
				return true, nil
			}
		}
		return false, nil
	})
}
