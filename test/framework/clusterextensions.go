package framework

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/unmanagednotice"
)

// ClusterExtensions is OLM v1's ClusterExtension API, as the operator reads it.
var ClusterExtensions = unmanagednotice.ClusterExtensions

// ServeClusterExtensions registers, FOR TESTS ONLY, a stand-in for OLM v1's
// ClusterExtension API: same name, group, version, kind and scope, and no
// schema beyond metadata. The real CRD ships in
// operator-framework/operator-controller, whose module the module proxy
// refuses, and no served module carries it. The operator reads only what
// the real API guarantees (metadata) and writes only Events, so a stand-in
// without a schema tests all it relies on. It is deleted after t.
func ServeClusterExtensions(t testing.TB, config *rest.Config) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: unmanagednotice.ClusterExtensionCRD},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: ClusterExtensions.Group, Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "ClusterExtension", ListKind: "ClusterExtensionList",
				Plural: ClusterExtensions.Resource, Singular: "clusterextension"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: ClusterExtensions.Version, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
	CreateCRD(t, config, crd)
}

// CreateCRD creates crd, waits until the API server serves it, and deletes
// it after t.
func CreateCRD(t testing.TB, config *rest.Config, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	client := apiextensionsclient.NewForConfigOrDie(config)
	if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.ApiextensionsV1().CustomResourceDefinitions().Delete(context.Background(), crd.Name, metav1.DeleteOptions{})
	})
	served := dynamic.NewForConfigOrDie(config).Resource(schema.GroupVersionResource{Group: crd.Spec.Group,
		Version: crd.Spec.Versions[0].Name, Resource: crd.Spec.Names.Plural})
	Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := served.List(ctx, metav1.ListOptions{Limit: 1})
		return err
	})
}

// CreateClusterExtension creates a ClusterExtension of that name, deleted
// after t, and returns its UID.
func CreateClusterExtension(t testing.TB, config *rest.Config, name string) types.UID {
	t.Helper()
	ext := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": ClusterExtensions.GroupVersion().String(), "kind": "ClusterExtension",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{"namespace": "e2e", "serviceAccount": map[string]any{"name": "installer"},
			"source": map[string]any{"sourceType": "Catalog", "catalog": map[string]any{"packageName": name}}},
	}}
	client := dynamic.NewForConfigOrDie(config).Resource(ClusterExtensions)
	created, err := client.Create(context.Background(), ext, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return created.GetUID()
}

// EventsOn are the Events on the ClusterExtension of that UID (where
// `oc describe clusterextension` finds them), by reason.
func EventsOn(ctx context.Context, kube kubernetes.Interface, uid types.UID) (map[string][]corev1.Event, error) {
	list, err := kube.CoreV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.uid", string(uid)).String()})
	if err != nil {
		return nil, err
	}
	out := map[string][]corev1.Event{}
	for _, e := range list.Items {
		out[e.Reason] = append(out[e.Reason], e)
	}
	return out, nil
}
