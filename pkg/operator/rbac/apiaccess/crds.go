package apiaccess

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
)

// crdReader is what the controller reads of CRDs.
type crdReader interface {
	Get(name string) (*apiextensionsv1.CustomResourceDefinition, error)
	List(selector labels.Selector) ([]*apiextensionsv1.CustomResourceDefinition, error)
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
