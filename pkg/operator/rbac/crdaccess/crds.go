// Package crdaccess is what the APIAccessPolicy controller and the
// unmanaged notice both need to know of CRDs and policies: the CRD informer
// (every CRD, stripped to what selection and roles read), which CRDs a
// policy selects, what a generated role needs of a CRD, and the names of a
// policy's bindings.
package crdaccess

import (
	"context"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// NewCRDInformer watches every CRD, keeping of each only what StripCRD
// keeps: a cluster may have hundreds, with schemas of megabytes.
func NewCRDInformer(client apiextensionsclient.Interface, resync time.Duration) cache.SharedIndexInformer {
	crds := client.ApiextensionsV1().CustomResourceDefinitions()
	informer := cache.NewSharedIndexInformer(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
			return crds.List(ctx, options)
		},
		WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
			return crds.Watch(ctx, options)
		},
	}, &apiextensionsv1.CustomResourceDefinition{}, resync, cache.Indexers{})
	_ = informer.SetTransform(StripCRD) // fails only once started
	return informer
}

// StripCRD keeps of a CRD its name, labels, UID, resourceVersion, group,
// kind and plural: what selection and the generated roles read.
func StripCRD(obj any) (any, error) {
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return obj, nil
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{
			Name: crd.Name, Labels: crd.Labels, UID: crd.UID, ResourceVersion: crd.ResourceVersion,
			DeletionTimestamp: crd.DeletionTimestamp,
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: crd.Spec.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: crd.Spec.Names.Kind, Plural: crd.Spec.Names.Plural},
		},
		// Which of two CRDs of one kind the API server serves.
		Status: apiextensionsv1.CustomResourceDefinitionStatus{
			AcceptedNames: apiextensionsv1.CustomResourceDefinitionNames{Kind: crd.Status.AcceptedNames.Kind},
		},
	}, nil
}
