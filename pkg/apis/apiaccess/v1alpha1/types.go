package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Labels of the OLM v1 contract: what a ClusterExtension installs carries
// its owner's kind and name.
const (
	OLMOwnerKindLabel = "olm.operatorframework.io/owner-kind"
	OLMOwnerNameLabel = "olm.operatorframework.io/owner-name"
	// OLMOwnerKindClusterExtension is the owner kind of a ClusterExtension.
	OLMOwnerKindClusterExtension = "ClusterExtension"
)

// AccessMode is how users get access to the selected CRDs' APIs.
// +kubebuilder:validation:Enum=Aggregate;Bind;Unmanaged
type AccessMode string

const (
	// ModeAggregate generates the per-CRD roles with the aggregation labels
	// of the built-in admin, edit and view roles: whoever holds those in a
	// namespace gets the CRD's resources there (OLM v0's behaviour).
	ModeAggregate AccessMode = "Aggregate"
	// ModeBind generates the per-CRD roles without aggregation labels and
	// binds them to the subjects of spec.bindings.
	ModeBind AccessMode = "Bind"
	// ModeUnmanaged generates nothing: access is the admin's to grant by hand.
	ModeUnmanaged AccessMode = "Unmanaged"
)

// AccessRole is one of the generated per-CRD roles a binding grants.
// +kubebuilder:validation:Enum=Admin;Edit;View
type AccessRole string

const (
	RoleAdmin AccessRole = "Admin"
	RoleEdit  AccessRole = "Edit"
	RoleView  AccessRole = "View"
)

// APIAccessPolicy selects CustomResourceDefinitions and manages who may use
// their APIs. For each selected CRD with kind K and group G the operator
// generates the ClusterRoles K.G-admin, K.G-edit, K.G-view and
// K.G-view-crdview (unless the CRD's bundle already provides them), and in
// Bind mode the bindings of spec.bindings. Everything it generates is
// removed when the policy, the CRD or the mode goes away.
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=apiaccesspolicies,scope=Cluster,singular=apiaccesspolicy
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="an APIAccessPolicy name is at most 63 characters: it is the value of the apiaccess.openshift.io/policy label on what the operator generates for it"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Mode",type=string,JSONPath=`.spec.mode`
// +kubebuilder:printcolumn:name="CRDs",type=integer,JSONPath=`.status.crdCount`
// +kubebuilder:printcolumn:name="Conflict",type=string,JSONPath=`.status.conditions[?(@.type=="Conflict")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.spec.mode == 'Bind' || !has(self.spec.bindings)",message="bindings are only allowed in Bind mode"
type APIAccessPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec selects the CRDs and the mode.
	// +required
	Spec APIAccessPolicySpec `json:"spec"`

	// status lists what the operator manages for the policy.
	// +optional
	Status APIAccessPolicyStatus `json:"status,omitempty"`
}

// APIAccessPolicySpec selects CRDs and how their APIs are granted.
type APIAccessPolicySpec struct {
	// crds selects the CustomResourceDefinitions the policy covers.
	// +required
	CRDs CRDSelection `json:"crds"`

	// mode is Aggregate, Bind or Unmanaged.
	// +required
	Mode AccessMode `json:"mode"`

	// bindings grant the generated roles to subjects (Bind mode only).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Bindings []AccessBinding `json:"bindings,omitempty"`
}

// CRDSelection selects CRDs in exactly one way.
//
// +kubebuilder:validation:XValidation:rule="[has(self.clusterExtension), has(self.selector), has(self.names)].filter(x, x).size() == 1",message="select CRDs in exactly one way: clusterExtension, selector or names"
type CRDSelection struct {
	// clusterExtension selects the CRDs an OLM v1 ClusterExtension of this
	// name installed (labels olm.operatorframework.io/owner-kind=ClusterExtension
	// and olm.operatorframework.io/owner-name=<name>).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	ClusterExtension string `json:"clusterExtension,omitempty"`

	// selector selects CRDs by label. It must select something: an empty
	// selector would match every CRD in the cluster, the platform's own
	// included, and is what a plain map (selector: {team: a}) becomes when
	// a client that only warns on unknown fields drops its keys.
	// +optional
	// +kubebuilder:validation:XValidation:rule="(has(self.matchLabels) && size(self.matchLabels) > 0) || (has(self.matchExpressions) && size(self.matchExpressions) > 0)",message="selector must select something, in label selector form: matchLabels: {team: a} or matchExpressions: [{key: team, operator: In, values: [a]}]. A plain map such as {team: a} is not a selector: a client that only warns on unknown fields drops its keys and sends {}, which would select every CRD in the cluster"
	Selector *metav1.LabelSelector `json:"selector,omitempty"`

	// names are CRD names (<plural>.<group>).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=512
	// +kubebuilder:validation:items:MaxLength=253
	Names []string `json:"names,omitempty"`
}

// AccessBinding grants one generated role of every selected CRD to subjects,
// in the listed namespaces or, without namespaces, cluster-wide.
//
// +kubebuilder:validation:XValidation:rule="(has(self.namespaces) && size(self.namespaces) > 0 && self.role != 'View') || self.subjects.all(s, s.kind != 'ServiceAccount' || (has(s.namespace) && size(s.namespace) > 0))",message="a ServiceAccount subject needs its namespace in a binding without namespaces (a ClusterRoleBinding) and in a View binding (its crdview ClusterRoleBinding is cluster-wide): the API server refuses a ClusterRoleBinding to a ServiceAccount without one"
type AccessBinding struct {
	// role is Admin, Edit or View.
	// +required
	Role AccessRole `json:"role"`

	// subjects are the users, groups and service accounts granted the role.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Subjects []Subject `json:"subjects"`

	// namespaces get RoleBindings; without them, ClusterRoleBindings grant
	// the role in every namespace.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespaces []string `json:"namespaces,omitempty"`
}

// Subject is whom a generated role is bound to, as in a RoleBinding (the
// fields of rbacv1.Subject, in its order, so that one converts to the
// other). It is a type of its own, as ScopeTemplate's is, so that the API
// server refuses a subject it would refuse in a binding when the policy is
// written, within the CRD's validation cost budget (bounded lengths),
// instead of the operator's write of the binding failing later.
//
// +structType=atomic
// +kubebuilder:validation:XValidation:rule="self.kind != 'ServiceAccount' || size(self.name) <= 253 && self.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="a ServiceAccount subject's name must be a valid ServiceAccount name (a DNS-1123 subdomain: lower case letters, digits, '-' and '.', at most 253 characters); the API server refuses any other in a binding"
// +kubebuilder:validation:XValidation:rule="self.kind == 'ServiceAccount' ? (!has(self.apiGroup) || size(self.apiGroup) == 0) : (!has(self.apiGroup) || self.apiGroup == 'rbac.authorization.k8s.io')",message="apiGroup is rbac.authorization.k8s.io (or empty) for a User or Group and empty for a ServiceAccount; the API server refuses any other in a binding"
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

	// name of the user, group or ServiceAccount. At most 512 characters
	// (ScopeTemplate allows 1024): a policy holds up to 32 x 64 subjects,
	// twice a template's, and the ServiceAccount name check must stay
	// within the CRD's validation cost budget.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Name string `json:"name"`

	// namespace of a ServiceAccount; empty means the ServiceAccount of that
	// name in each namespace of a RoleBinding, which only an Admin or Edit
	// binding with namespaces has: a ClusterRoleBinding needs it set. Unused
	// for a User or Group.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
}

// APIAccessPolicyStatus is what the operator observed and manages.
type APIAccessPolicyStatus struct {
	// observedGeneration is the generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions follow the Kubernetes convention.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// crdCount is how many CRDs the policy selects.
	// +optional
	CRDCount int32 `json:"crdCount,omitempty"`

	// managedObjects are the roles and bindings the operator manages for the
	// policy.
	// +optional
	// +listType=atomic
	ManagedObjects []ManagedObject `json:"managedObjects,omitempty"`

	// checked pins the namespaces of Bind-mode RoleBindings by UID: the
	// access-grants check judged the namespaces that existed when the spec
	// was written, so one deleted and re-created later is not bound in
	// until the spec is written again.
	// +optional
	Checked *CheckedNamespaces `json:"checked,omitempty"`

	// awaitingBundleRoles are generated ClusterRoles of a ClusterExtension's
	// CRDs that someone else deleted, as an admin does to make room for an
	// upgrade that brings the bundle's own role of that name: the policy
	// leaves each name to the bundle for a while before creating it again.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=5000
	AwaitingBundleRoles []AwaitedRole `json:"awaitingBundleRoles,omitempty"`
}

// AwaitedRole is a generated role's name left to a bundle's own role.
type AwaitedRole struct {
	// name of the ClusterRole.
	// +required
	Name string `json:"name"`
	// since is when the policy found its generated role gone.
	// +required
	Since metav1.Time `json:"since"`
}

// CheckedNamespaces are the namespaces one generation of a policy's spec
// first bound in, by UID.
type CheckedNamespaces struct {
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

	// namespaces are the bindings' namespaces and their UIDs when first
	// bound in.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=5000
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

// ManagedObject names a role or binding the operator manages.
type ManagedObject struct {
	// kind is ClusterRole, ClusterRoleBinding or RoleBinding.
	Kind string `json:"kind"`
	// namespace of a RoleBinding.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// name of the object.
	Name string `json:"name"`
}

// APIAccessPolicyList is a list of APIAccessPolicies.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type APIAccessPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []APIAccessPolicy `json:"items"`
}

// PolicyLabel is on every role and binding the operator generates for a
// policy; its value is the policy's name.
const PolicyLabel = "apiaccess.openshift.io/policy"

// Condition types of an APIAccessPolicy.
const (
	// ConditionRBACManaged is True when the operator grants access to the
	// selected CRDs (Aggregate, Bind) and False, reason Unmanaged, when
	// that is left to the admin.
	ConditionRBACManaged = "RBACManaged"
	// ConditionConflict is True when an object the policy would create
	// exists and is not the policy's; the message names it.
	ConditionConflict = "Conflict"
	// ConditionInvalid is True when the spec cannot be acted on (a
	// selector that does not parse); nothing is generated.
	ConditionInvalid = "Invalid"
	// ConditionNotAggregated is True in Aggregate mode when a role the
	// CRD's bundle provides lacks its aggregation label: the operator uses
	// it but does not edit what is not its own.
	ConditionNotAggregated = "NotAggregated"
)

// Condition reasons of an APIAccessPolicy.
const (
	ReasonUnmanaged       = "Unmanaged"
	ReasonManaged         = "Managed"
	ReasonNotOurs         = "NotOurs"
	ReasonNoConflict      = "NoConflict"
	ReasonInvalidSelector = "InvalidSelector"
	ReasonValid           = "Valid"
	ReasonMissingLabel    = "BundleRoleLacksAggregationLabel"
	ReasonAggregated      = "Aggregated"
	// ReasonNamespacesReplaced (RBACManaged False): binding namespaces were
	// deleted and re-created since the spec was checked; write it again.
	ReasonNamespacesReplaced = "NamespacesReplaced"
	// ReasonWriteFailed (RBACManaged False): the API server refused to
	// write some of the policy's roles or bindings (the message names each
	// and quotes the error); the others are written, and the sync retries.
	ReasonWriteFailed = "WriteFailed"
)
