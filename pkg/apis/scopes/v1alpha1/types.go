package v1alpha1

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ScopeTemplate describes ClusterRoles an operator needs and the subjects
// they are for. The operator creates the ClusterRoles only while at least
// one ScopeInstance names the template, and deletes them when none does.
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=scopetemplates,scope=Cluster,singular=scopetemplate
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="a ScopeTemplate name is at most 63 characters: it is the value of the operators.coreos.com/scope-template label on what the operator generates for it"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ScopeTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec lists the ClusterRoles and their subjects.
	// +required
	Spec ScopeTemplateSpec `json:"spec"`

	// status reports the ClusterRoles the operator manages for the template.
	// +optional
	Status ScopeTemplateStatus `json:"status,omitempty"`
}

// ScopeTemplateSpec lists the template's ClusterRoles.
type ScopeTemplateSpec struct {
	// clusterRoles are the roles to create, each with the subjects a
	// ScopeInstance binds it to.
	// +required
	// +listType=map
	// +listMapKey=generateName
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	ClusterRoles []ClusterRoleTemplate `json:"clusterRoles"`
}

// ClusterRoleTemplate is one ClusterRole of a template and its subjects.
type ClusterRoleTemplate struct {
	// generateName is the prefix of the ClusterRole's name; the operator
	// appends a suffix derived from the template's name, so the name is the
	// same on every sync and two templates never share a role. Anything a
	// ClusterRole's name allows (Kubernetes checks RBAC names as path
	// segments: no "/" or "%"), upper case included, as in the enhancement's
	// fooClusterRole-; but not "system:", which Kubernetes keeps for its own
	// roles and the operator never binds.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=200
	// +kubebuilder:validation:Pattern=`^[^/%]+$`
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('system:')",message="generateName may not start with system:, which Kubernetes keeps for its own roles"
	GenerateName string `json:"generateName"`

	// rules are the ClusterRole's rules.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Rules []rbacv1.PolicyRule `json:"rules"`

	// subjects are the users, groups and service accounts a ScopeInstance
	// binds the role to.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Subjects []Subject `json:"subjects"`
}

// Subject is whom a role is bound to, as in a RoleBinding (the same
// fields as rbacv1.Subject). It is a type of its own so that its name has
// a bounded length: that is what lets the API server check a
// ServiceAccount's name when the template is written, within the CRD's
// validation cost budget, instead of refusing every binding later (the
// rule spells out the DNS-1123 subdomain: format.dns1123Subdomain() is
// estimated at about eight times the cost, over the budget for 16 x 64
// subjects).
//
// +structType=atomic
// +kubebuilder:validation:XValidation:rule="self.kind != 'ServiceAccount' || size(self.name) <= 253 && self.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="a ServiceAccount subject's name must be a valid ServiceAccount name (a DNS-1123 subdomain: lower case letters, digits, '-' and '.', at most 253 characters); the API server refuses any other in a RoleBinding"
type Subject struct {
	// kind is User, Group or ServiceAccount.
	// +required
	// +kubebuilder:validation:Enum=User;Group;ServiceAccount
	Kind string `json:"kind"`

	// apiGroup is rbac.authorization.k8s.io for a User or Group (the
	// default) and empty for a ServiceAccount.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	APIGroup string `json:"apiGroup,omitempty"`

	// name of the user, group or ServiceAccount.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Name string `json:"name"`

	// namespace of a ServiceAccount; empty means the ServiceAccount of that
	// name in each namespace the role is bound in (a cluster-wide binding
	// needs it set). Unused for a User or Group.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
}

// ScopeTemplateStatus is what the operator observed and did for a template.
type ScopeTemplateStatus struct {
	// observedGeneration is the generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions follow the Kubernetes convention.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// clusterRoles are the names of the ClusterRoles the operator manages
	// for the template; empty while no ScopeInstance names it.
	// +optional
	// +listType=atomic
	ClusterRoles []string `json:"clusterRoles,omitempty"`
}

// ScopeTemplateList is a list of ScopeTemplates.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type ScopeTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ScopeTemplate `json:"items"`
}

// ScopeInstance binds a ScopeTemplate's ClusterRoles to the template's
// subjects: with a RoleBinding in each listed namespace and each namespace
// namespaceSelector matches, or with ClusterRoleBindings when neither is
// given.
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=scopeinstances,scope=Cluster,singular=scopeinstance
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="a ScopeInstance name is at most 63 characters: it is the value of the operators.coreos.com/scope-instance label on what the operator generates for it"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Template",type=string,JSONPath=`.spec.scopeTemplateName`
// +kubebuilder:printcolumn:name="Namespaces",type=integer,JSONPath=`.status.namespaceCount`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ScopeInstance struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec names the template and where its roles are bound.
	// +required
	Spec ScopeInstanceSpec `json:"spec"`

	// status reports the bindings and any failure.
	// +optional
	Status ScopeInstanceStatus `json:"status,omitempty"`
}

// ScopeInstanceSpec names a template and the namespaces to bind it in.
type ScopeInstanceSpec struct {
	// scopeTemplateName is the ScopeTemplate whose roles are bound.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	ScopeTemplateName string `json:"scopeTemplateName"`

	// namespaces get a RoleBinding per template role. With neither
	// namespaces nor namespaceSelector, the roles are bound cluster-wide.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespaces []string `json:"namespaces,omitempty"`

	// namespaceSelector adds every namespace whose labels match, including
	// namespaces created or relabelled later. It must select something: an
	// empty selector would match every namespace, and is what a plain map
	// (namespaceSelector: {team: a}) becomes when a client that only warns
	// on unknown fields drops its keys. Every namespace is said by leaving
	// out both namespaces and namespaceSelector (cluster-wide bindings).
	// +optional
	// +kubebuilder:validation:XValidation:rule="(has(self.matchLabels) && size(self.matchLabels) > 0) || (has(self.matchExpressions) && size(self.matchExpressions) > 0)",message="namespaceSelector must select something, in label selector form: matchLabels: {team: a} or matchExpressions: [{key: team, operator: In, values: [a]}]. A plain map such as {team: a} is not a selector: a client that only warns on unknown fields drops its keys and sends {}, which would select every namespace. To bind in every namespace, leave out both namespaces and namespaceSelector"
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
}

// ScopeInstanceStatus is what the operator observed and did for an instance.
type ScopeInstanceStatus struct {
	// observedGeneration is the generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions follow the Kubernetes convention.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// namespaceCount is how many namespaces the instance binds in (0 when
	// it binds cluster-wide).
	// +optional
	NamespaceCount int32 `json:"namespaceCount,omitempty"`

	// checked pins what the spec was bound against: the access-grants
	// check judged the template and namespaces that existed when the spec
	// was written, so one deleted and re-created later (another UID) is not
	// bound until the spec is written again.
	// +optional
	Checked *CheckedScope `json:"checked,omitempty"`
}

// CheckedScope is what one generation of an instance's spec was first
// bound against, by UID.
type CheckedScope struct {
	// generation is the spec's generation these UIDs were pinned for.
	// +required
	Generation int64 `json:"generation"`

	// specWrittenAt is when this generation of the spec was written, as
	// the API server recorded it: the latest of the object's creation and
	// its managed-fields times outside status, but no later than the
	// generation's first sync, when it is read (a client may write
	// managed-fields times). A listed namespace created more than 2 seconds after it
	// is not the one the access-grants check judged (it did not exist
	// then): it is not pinned, and not bound in, until the spec is written
	// again.
	// +optional
	SpecWrittenAt *metav1.Time `json:"specWrittenAt,omitempty"`

	// scopeTemplateUID is the template's UID when the generation was first
	// bound; empty while the template did not exist (the check then asked
	// for bind on every ClusterRole).
	// +optional
	ScopeTemplateUID types.UID `json:"scopeTemplateUID,omitempty"`

	// namespaces are the listed namespaces (spec.namespaces, with or
	// without a namespaceSelector) and their UIDs when first bound in.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=1000
	Namespaces []NamespaceUID `json:"namespaces,omitempty"`
}

// NamespaceUID is a namespace as it was when first bound in.
type NamespaceUID struct {
	// name of the namespace.
	// +required
	Name string `json:"name"`
	// uid of the namespace.
	// +required
	UID types.UID `json:"uid"`
}

// ScopeInstanceList is a list of ScopeInstances.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type ScopeInstanceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ScopeInstance `json:"items"`
}

// Labels on what the operator generates; each value is the owner's name
// (hence the 63-character limit on both kinds' names).
const (
	// ScopeTemplateLabel marks the ClusterRoles of a ScopeTemplate.
	ScopeTemplateLabel = "operators.coreos.com/scope-template"
	// ScopeInstanceLabel marks the RoleBindings and ClusterRoleBindings of a
	// ScopeInstance.
	ScopeInstanceLabel = "operators.coreos.com/scope-instance"
)

// Condition types and reasons. Invalid and Conflict are abnormal when True.
const (
	// ConditionConflict (ScopeTemplate): a ClusterRole the template needs
	// exists and is not controlled by it; it is left untouched.
	ConditionConflict = "Conflict"
	ReasonConflict    = "Conflict"
	ReasonNoConflict  = "NoConflict"

	// ConditionRolesReady (ScopeTemplate): every ClusterRole the template
	// needs exists as the template says. False with ReasonWriteFailed (the
	// message carries the API server's error, cut to a bounded length),
	// ReasonConflict (another owner's role holds a name) or
	// ReasonNoInstances (no instance names it, so it needs none).
	ConditionRolesReady = "RolesReady"
	ReasonRolesWritten  = "RolesWritten"
	ReasonWriteFailed   = "WriteFailed"

	// ConditionInUse (ScopeTemplate): a ScopeInstance names the template, so
	// its ClusterRoles exist.
	ConditionInUse      = "InUse"
	ReasonInstancesName = "ScopeInstancesNameIt"
	ReasonNoInstances   = "NoScopeInstances"

	// ConditionInvalid (ScopeInstance): nothing can be bound.
	ConditionInvalid               = "Invalid"
	ReasonValid                    = "Valid"
	ReasonScopeTemplateNotFound    = "ScopeTemplateNotFound"
	ReasonInvalidNamespaceSelector = "InvalidNamespaceSelector"
	// ReasonScopeTemplateReplaced: the template was deleted and re-created
	// since the spec was checked; write the spec again.
	ReasonScopeTemplateReplaced = "ScopeTemplateReplaced"

	// ConditionBound (ScopeInstance): every role is bound where it should be.
	// False with ReasonConflict when a binding of a name it would write is
	// not controlled by it (left untouched; the operator is not Degraded).
	ConditionBound             = "Bound"
	ReasonAllBound             = "AllBound"
	ReasonNamespacesNotFound   = "NamespacesNotFound"
	ReasonBindingFailed        = "BindingFailed"
	ReasonClusterRolesNotReady = "ClusterRolesNotReady"
	// ReasonNamespacesReplaced: listed namespaces were deleted and
	// re-created since the spec was checked; write the spec again.
	ReasonNamespacesReplaced = "NamespacesReplaced"
)
