// Package v1alpha1 holds phase 2 of AWS pod identity: a cluster-scoped
// IAMRoleRequest asks for an IAM role whose trust policy admits exactly one
// ServiceAccount's tokens, and for that ServiceAccount to carry the role's
// ARN. It is the aws-pod-identity enhancement's CredentialsRequest with
// spec.storage.serviceAccount, on this project's own API group: the
// cloud-credential operator owns CredentialsRequest and this operator never
// changes it. docs/aws-roles.md maps the enhancement's example field by field.
//
// +k8s:deepcopy-gen=package
// +groupName=podidentity.openshift.io
// +groupGoName=PodIdentity
// +kubebuilder:object:generate=true
package v1alpha1
