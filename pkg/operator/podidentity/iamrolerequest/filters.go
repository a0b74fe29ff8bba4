package iamrolerequest

import (
	"slices"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

// The update filters (informerkit.UpdatesWhen): every sync reads IAM, so
// updates that cannot change a role (the controller's own status writes,
// other controllers' conditions on the WorkloadAccess, informer resyncs;
// DriftInterval does the periodic read-back) wake nothing.

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

// namespaceUpdated: any change of a namespace object, its labels included
// (the shared informer keeps no labels, so any new resourceVersion counts),
// for the requests for a set of namespaces. Resyncs do not.
func namespaceUpdated(oldObj, newObj any) bool {
	o, ok1 := oldObj.(*corev1.Namespace)
	n, ok2 := newObj.(*corev1.Namespace)
	if !ok1 || !ok2 {
		return true
	}
	return o.UID != n.UID || o.ResourceVersion != n.ResourceVersion
}

// podIdentityChanged: what the roles are made from, in the WorkloadAccess:
// spec.podIdentity (mode, endpoints, boundary, default audience) and the
// published issuer, its keys and the region.
func podIdentityChanged(oldObj, newObj any) bool {
	o, ok1 := oldObj.(*operatorv1alpha1.WorkloadAccess)
	n, ok2 := newObj.(*operatorv1alpha1.WorkloadAccess)
	if !ok1 || !ok2 {
		return true
	}
	return o.Generation != n.Generation || o.UID != n.UID ||
		o.Status.PodIdentity.IssuerURL != n.Status.PodIdentity.IssuerURL || o.Status.PodIdentity.Region != n.Status.PodIdentity.Region ||
		!slices.Equal(o.Status.PodIdentity.PublishedKeyIDs, n.Status.PodIdentity.PublishedKeyIDs)
}

// issuerChanged: Authentication/cluster names another issuer for the
// cluster's tokens, which every role's trust follows.
func issuerChanged(oldObj, newObj any) bool {
	o, ok1 := oldObj.(*configv1.Authentication)
	n, ok2 := newObj.(*configv1.Authentication)
	if !ok1 || !ok2 {
		return true
	}
	return n.Name == "cluster" && (o.UID != n.UID || o.Spec.ServiceAccountIssuer != n.Spec.ServiceAccountIssuer)
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
