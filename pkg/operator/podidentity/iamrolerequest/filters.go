package iamrolerequest

import (
	"slices"

	"github.com/openshift/library-go/pkg/controller/factory"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

// updatesWhen is an informer that hands the factory's handler every add and
// delete, and the updates changed says matter. Every sync reads IAM, so
// updates that cannot change a role (the controller's own status writes,
// other controllers' conditions on the WorkloadAccess, informer resyncs;
// DriftInterval does the periodic read-back) wake nothing.
type updatesWhen struct {
	factory.Informer
	changed func(oldObj, newObj any) bool
}

func (i *updatesWhen) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return i.Informer.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: handler.OnAdd,
		UpdateFunc: func(oldObj, newObj any) {
			if i.changed(oldObj, newObj) {
				handler.OnUpdate(oldObj, newObj)
			}
		},
		DeleteFunc: handler.OnDelete,
	})
}

// requestChanged: the spec (generation), a deletion, the finalizers, an
// admin's confirmation of a namespace, or a recreated object. Not the status.
func requestChanged(oldObj, newObj any) bool {
	o, ok1 := oldObj.(*podidentityv1alpha1.IAMRoleRequest)
	n, ok2 := newObj.(*podidentityv1alpha1.IAMRoleRequest)
	if !ok1 || !ok2 {
		return true
	}
	confirmed := podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation
	return o.Generation != n.Generation || o.UID != n.UID ||
		(o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil) || !slices.Equal(o.Finalizers, n.Finalizers) ||
		o.Annotations[confirmed] != n.Annotations[confirmed]
}

// namespaceChanged: a namespace that starts terminating, or another object
// of the name (adds and deletes always wake). Labels and resyncs do not.
func namespaceChanged(oldObj, newObj any) bool {
	o, ok1 := oldObj.(*corev1.Namespace)
	n, ok2 := newObj.(*corev1.Namespace)
	if !ok1 || !ok2 {
		return true
	}
	return o.UID != n.UID || (o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil)
}

// slimNamespace keeps what namespaceChanged reads, and the name the requests
// are found by; the cluster's namespaces are cached, but not their labels,
// annotations or managed fields.
func slimNamespace(obj any) (any, error) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return obj, nil // a tombstone: only its key is read
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns.Name, UID: ns.UID, ResourceVersion: ns.ResourceVersion,
		CreationTimestamp: ns.CreationTimestamp, DeletionTimestamp: ns.DeletionTimestamp}}, nil
}

// podIdentityChanged: what the roles are made from, in the WorkloadAccess:
// spec.podIdentity (mode, endpoints, boundary, default audience) and the
// published issuer and region.
func podIdentityChanged(oldObj, newObj any) bool {
	o, ok1 := oldObj.(*operatorv1alpha1.WorkloadAccess)
	n, ok2 := newObj.(*operatorv1alpha1.WorkloadAccess)
	if !ok1 || !ok2 {
		return true
	}
	return o.Generation != n.Generation || o.UID != n.UID ||
		o.Status.PodIdentity.IssuerURL != n.Status.PodIdentity.IssuerURL || o.Status.PodIdentity.Region != n.Status.PodIdentity.Region
}

// credentialsChanged: another Secret object, or its keys. An informer
// resync hands the same object again and reads no IAM.
func credentialsChanged(oldObj, newObj any) bool {
	o, ok1 := oldObj.(*corev1.Secret)
	n, ok2 := newObj.(*corev1.Secret)
	if !ok1 || !ok2 {
		return true
	}
	return o.UID != n.UID || o.ResourceVersion != n.ResourceVersion
}
