package apiaccess

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// crdReader is what the controller reads of CRDs.
type crdReader interface {
	Get(name string) (*apiextensionsv1.CustomResourceDefinition, error)
	List(selector labels.Selector) ([]*apiextensionsv1.CustomResourceDefinition, error)
}

// NewCRDInformer watches every CRD, keeping of each only what StripCRD
// keeps: a cluster may have hundreds, with schemas of megabytes.
func NewCRDInformer(client apiextensionsclient.Interface) cache.SharedIndexInformer {
	crds := client.ApiextensionsV1().CustomResourceDefinitions()
	informer := cache.NewSharedIndexInformer(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
			return crds.List(ctx, options)
		},
		WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
			return crds.Watch(ctx, options)
		},
	}, &apiextensionsv1.CustomResourceDefinition{}, informerResync, cache.Indexers{})
	_ = informer.SetTransform(StripCRD) // fails only once started
	return informer
}

// crdLister reads CRDs from the informer's store.
type crdLister struct{ indexer cache.Indexer }

func (l crdLister) Get(name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	obj, exists, err := l.indexer.GetByKey(name)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, apierrors.NewNotFound(apiextensionsv1.Resource("customresourcedefinitions"), name)
	}
	return obj.(*apiextensionsv1.CustomResourceDefinition), nil
}

func (l crdLister) List(selector labels.Selector) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	err := cache.ListAll(l.indexer, selector, func(obj any) {
		out = append(out, obj.(*apiextensionsv1.CustomResourceDefinition))
	})
	return out, err
}
