// +k8s:deepcopy-gen=package,register
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.operator.v1

// +kubebuilder:validation:Optional
// +groupName=operator.openshift.io
package v1
