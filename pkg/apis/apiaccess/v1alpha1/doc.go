// Package v1alpha1 holds the API access policy: a cluster-scoped
// APIAccessPolicy selects CustomResourceDefinitions and decides how users
// get access to their APIs — through the built-in admin, edit and view
// roles (Aggregate), through bindings it creates (Bind), or not at all
// (Unmanaged) — the three modes of OLM v1's user authorization design.
//
// +k8s:deepcopy-gen=package
// +groupName=apiaccess.openshift.io
// +groupGoName=APIAccess
// +kubebuilder:object:generate=true
package v1alpha1
