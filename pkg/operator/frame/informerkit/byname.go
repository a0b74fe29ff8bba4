package informerkit

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
)

// ByName is an informer factory whose informers list and watch only the
// objects called name, in namespace ("" for cluster-scoped kinds). The API
// server authorizes such a list or watch against RBAC's resourceNames when
// the field selector asks for exactly one name, so a controller caches one
// object its role names, and nothing else of its kind.
func ByName(kube kubernetes.Interface, namespace, name string) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(kube, Resync, informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(options *metav1.ListOptions) {
			options.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		}))
}
