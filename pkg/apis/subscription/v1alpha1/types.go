package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels and annotations of the subscription injection contract. Pods carry
// the annotations; bundles carry the always-inject label.
const (
	// AlwaysInjectLabel set to "true" on a bundle injects it into every pod
	// in scope (the bundle's namespace, or the cluster) that does not opt out.
	AlwaysInjectLabel = "subscription.openshift.io/always-inject"

	// InjectBundleAnnotation lists, comma-separated, the Bundles of the
	// pod's namespace to inject.
	InjectBundleAnnotation = "subscription.openshift.io/inject-bundle"
	// InjectClusterBundleAnnotation lists, comma-separated, the
	// ClusterBundles to inject.
	InjectClusterBundleAnnotation = "subscription.openshift.io/inject-cluster-bundle"
	// AllowBundlesAnnotation restricts always-inject Bundles to those listed ("*": all).
	AllowBundlesAnnotation = "subscription.openshift.io/allow-bundles"
	// DenyBundlesAnnotation excludes always-inject Bundles ("*": all).
	DenyBundlesAnnotation = "subscription.openshift.io/deny-bundles"
	// AllowClusterBundlesAnnotation restricts always-inject ClusterBundles to those listed ("*": all).
	AllowClusterBundlesAnnotation = "subscription.openshift.io/allow-cluster-bundles"
	// DenyClusterBundlesAnnotation excludes always-inject ClusterBundles ("*": all).
	DenyClusterBundlesAnnotation = "subscription.openshift.io/deny-cluster-bundles"
	// BundleGenerationsAnnotation records, as JSON, the generation of every
	// bundle injected into the pod.
	BundleGenerationsAnnotation = "subscription.openshift.io/bundle-generations"

	// ConditionInvalid is True when a bundle cannot be injected; its message
	// names what is wrong. Abnormal-true: False is the healthy state.
	ConditionInvalid = "Invalid"
)

// Reasons of the Invalid condition.
const (
	ReasonValid              = "Valid"
	ReasonMissingReference   = "MissingReference"
	ReasonCrossNamespace     = "CrossNamespaceReference"
	ReasonDuplicateReference = "DuplicateReference"
	ReasonOverlappingKeys    = "OverlappingKeys"
	ReasonConflict           = "Conflict"
	// ReasonSharedResourceUnavailable: the Shared Resource CSI driver's API
	// (SharedSecret, SharedConfigMap) is not installed, so no ClusterBundle
	// can be shared.
	ReasonSharedResourceUnavailable = "SharedResourceUnavailable"
	// ReasonDriverCannotRead: the Shared Resource CSI driver's service
	// account may not get a Secret or ConfigMap a ClusterBundle names, so
	// pods mounting its shares would never start.
	ReasonDriverCannotRead = "DriverCannotRead"
)

// Bundle names Secrets with entitlement keys and ConfigMaps with yum
// repository files, in the Bundle's own namespace, that pods of that
// namespace inject with the subscription.openshift.io/inject-bundle
// annotation (or automatically, with the always-inject label).
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=bundles,scope=Namespaced,singular=bundle
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Invalid",type=string,JSONPath=`.status.conditions[?(@.type=="Invalid")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Invalid")].reason`
// +kubebuilder:printcolumn:name="Always-Inject",type=string,JSONPath=`.metadata.labels.subscription\.openshift\.io/always-inject`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Bundle struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec names the Secrets and ConfigMaps to inject.
	// +required
	Spec BundleSpec `json:"spec"`

	// status reports whether the bundle can be injected and what it holds.
	// +optional
	Status BundleStatus `json:"status,omitempty"`
}

// BundleSpec names the Secrets and ConfigMaps of a namespaced Bundle. They
// must live in the Bundle's namespace: pods mount them through projected
// volumes, which cannot read other namespaces.
//
// +kubebuilder:validation:XValidation:rule="has(self.entitlements) || has(self.yumRepositories)",message="a bundle needs at least one entitlement or yum repository"
type BundleSpec struct {
	// entitlements are Secrets whose keys are entitlement certificates and
	// keys; each key becomes a file in /run/secrets/etc-pki-entitlement.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Entitlements []LocalReference `json:"entitlements,omitempty"`

	// yumRepositories are ConfigMaps whose keys are yum .repo files; each
	// key becomes a file in /run/secrets.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	YumRepositories []LocalReference `json:"yumRepositories,omitempty"`
}

// LocalReference names a Secret or ConfigMap of the Bundle's namespace.
type LocalReference struct {
	// name of the Secret or ConfigMap.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// namespace may be omitted; when set it must be the Bundle's namespace.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
}

// BundleStatus is what the operator observed of a Bundle. The webhook
// decides from it alone: it never reads Secrets.
type BundleStatus struct {
	// observedGeneration is the generation this status describes. The
	// webhook refuses bundles whose status is older than their spec.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Invalid (abnormal-true) says whether pods can inject the bundle.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// entitlements are the referenced Secrets with their key names.
	// +optional
	// +listType=atomic
	Entitlements []ResolvedReference `json:"entitlements,omitempty"`

	// yumRepositories are the referenced ConfigMaps with their key names.
	// +optional
	// +listType=atomic
	YumRepositories []ResolvedReference `json:"yumRepositories,omitempty"`
}

// ResolvedReference is a referenced Secret or ConfigMap as the operator last
// read it: its key names (never its values), and for a ClusterBundle the
// share that exposes it to pods.
type ResolvedReference struct {
	// name of the Secret or ConfigMap.
	Name string `json:"name"`
	// namespace of the Secret or ConfigMap.
	Namespace string `json:"namespace"`
	// keys are the sorted key names of the object's data and binaryData:
	// the file names pods see.
	// +optional
	// +listType=atomic
	Keys []string `json:"keys,omitempty"`
	// share is the SharedSecret or SharedConfigMap that exposes the object
	// to pods (ClusterBundles only).
	// +optional
	Share string `json:"share,omitempty"`
}

// BundleList is a list of Bundles.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type BundleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Bundle `json:"items"`
}

// ClusterBundle names Secrets and ConfigMaps of any namespace that pods of
// every namespace inject, through the Shared Resource CSI driver, with the
// subscription.openshift.io/inject-cluster-bundle annotation (or
// automatically, with the always-inject label). A pod's service account
// must be allowed to get the ClusterBundle: the operator generates the
// ClusterRole <name>-subscription-bundle and aggregates it into
// spec.aggregateToClusterRoles.
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusterbundles,scope=Cluster,singular=clusterbundle
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Invalid",type=string,JSONPath=`.status.conditions[?(@.type=="Invalid")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Invalid")].reason`
// +kubebuilder:printcolumn:name="ClusterRole",type=string,JSONPath=`.status.clusterRole`
// +kubebuilder:printcolumn:name="Always-Inject",type=string,JSONPath=`.metadata.labels.subscription\.openshift\.io/always-inject`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="a ClusterBundle name is at most 63 characters: it is the value of the subscription.openshift.io/cluster-bundle label on the shares and ClusterRole generated for it"
type ClusterBundle struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec names the Secrets and ConfigMaps to share and the roles to aggregate into.
	// +required
	Spec ClusterBundleSpec `json:"spec"`

	// status reports whether the bundle can be injected and what the operator created for it.
	// +optional
	Status ClusterBundleStatus `json:"status,omitempty"`
}

// ClusterBundleSpec names the Secrets and ConfigMaps of a ClusterBundle.
//
// +kubebuilder:validation:XValidation:rule="has(self.entitlements) || has(self.yumRepositories)",message="a bundle needs at least one entitlement or yum repository"
type ClusterBundleSpec struct {
	// aggregateToClusterRoles are ClusterRoles (for example admin, edit)
	// whose holders may inject this bundle: the generated ClusterRole carries
	// the label rbac.authorization.k8s.io/aggregate-to-<role>: "true" for
	// each, which the built-in admin, edit and view roles select.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=50
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	AggregateToClusterRoles []string `json:"aggregateToClusterRoles,omitempty"`

	// entitlements are Secrets whose keys are entitlement certificates and
	// keys; each key becomes a file in /run/secrets/etc-pki-entitlement.
	// +optional
	// +listType=map
	// +listMapKey=namespace
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Entitlements []ClusterReference `json:"entitlements,omitempty"`

	// yumRepositories are ConfigMaps whose keys are yum .repo files; each
	// key becomes a file in /run/secrets.
	// +optional
	// +listType=map
	// +listMapKey=namespace
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	YumRepositories []ClusterReference `json:"yumRepositories,omitempty"`
}

// ClusterReference names a Secret or ConfigMap in any namespace.
type ClusterReference struct {
	// name of the Secret or ConfigMap.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// namespace of the Secret or ConfigMap.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace"`
}

// ClusterBundleStatus is what the operator observed of and created for a
// ClusterBundle.
type ClusterBundleStatus struct {
	// observedGeneration is the generation this status describes. The
	// webhook refuses bundles whose status is older than their spec.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Invalid (abnormal-true) says whether pods can inject the bundle.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// clusterRole is the generated ClusterRole that lets a service account
	// get this bundle and use its shares.
	// +optional
	ClusterRole string `json:"clusterRole,omitempty"`

	// shares are the SharedSecrets and SharedConfigMaps created for this bundle.
	// +optional
	// +listType=atomic
	Shares []ShareReference `json:"shares,omitempty"`

	// entitlements are the referenced Secrets with their key names and shares.
	// +optional
	// +listType=atomic
	Entitlements []ResolvedReference `json:"entitlements,omitempty"`

	// yumRepositories are the referenced ConfigMaps with their key names and shares.
	// +optional
	// +listType=atomic
	YumRepositories []ResolvedReference `json:"yumRepositories,omitempty"`
}

// ShareReference names a cluster-scoped share.
type ShareReference struct {
	// kind is SharedSecret or SharedConfigMap.
	Kind string `json:"kind"`
	// name of the share.
	Name string `json:"name"`
}

// ClusterBundleList is a list of ClusterBundles.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type ClusterBundleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ClusterBundle `json:"items"`
}
