package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Annotations and label of the pod identity injection contract, under
// amazon-eks-pod-identity-webhook's names so existing manifests keep
// working. The webhook reads them; the IAMRoleRequest controller writes
// RoleARNAnnotation and reads AudienceAnnotation for the trust policy.
const (
	// AnnotationPrefix begins each of them.
	AnnotationPrefix = "eks.amazonaws.com/"

	// RoleARNAnnotation, on a ServiceAccount, names the IAM role its pods
	// assume.
	RoleARNAnnotation = AnnotationPrefix + "role-arn"
	// AudienceAnnotation, on a ServiceAccount, is the audience of the
	// injected token, and so the trust policy's :aud.
	AudienceAnnotation = AnnotationPrefix + "audience"
	// RegionalSTSAnnotation, on a ServiceAccount, a boolean, says whether
	// the SDKs call STS's regional endpoint (AWS_STS_REGIONAL_ENDPOINTS).
	RegionalSTSAnnotation = AnnotationPrefix + "sts-regional-endpoints"
	// TokenExpirationAnnotation, on a ServiceAccount or a pod (the pod's
	// wins), is the token's lifetime in seconds.
	TokenExpirationAnnotation = AnnotationPrefix + "token-expiration"
	// SkipContainersAnnotation, on a pod, lists, comma-separated, the
	// containers that get no credentials.
	SkipContainersAnnotation = AnnotationPrefix + "skip-containers"
	// SkipLabel on a pod, with any value, keeps pod identity away from it,
	// as the objectSelector of upstream's webhook configuration does.
	SkipLabel = AnnotationPrefix + "skip-pod-identity-webhook"
)

// AllowContainersAnnotation, on a pod, lists, comma-separated, the only
// containers (init and debug containers included) that get credentials;
// the others get none. This project's own, beside upstream's
// SkipContainersAnnotation, which it must not contradict: a container named
// in both is refused.
const AllowContainersAnnotation = "podidentity.openshift.io/allow-containers"

// IAMRoleRequest asks the operator for an IAM role that exactly one
// ServiceAccount's pods may assume through AWS pod identity. The operator
// creates the role "<infrastructureName>-<metadata.name>" (cut to IAM's 64
// characters with a stable hash when longer) under the path
// /workload-access/<infrastructureName>/, tagged with this request's UID;
// gives it spec.providerSpec.statementEntries as its inline policy and a trust
// policy admitting only system:serviceaccount:<namespace>:<name> from the
// cluster's OIDC provider; and annotates the ServiceAccount with
// eks.amazonaws.com/role-arn, creating it when absent. Deleting the request
// deletes the role and removes the annotation the operator added.
//
// The role trusts one namespace instance, pinned by UID in
// status.namespaceUID: the namespace that existed when the request was made,
// or one an admin confirmed later with the annotation
// podidentity.openshift.io/confirmed-namespace-uid. Until the pin nothing is
// made; when the pinned namespace is deleted or replaced, the role is deleted.
//
// Creating IAM roles is as powerful as the operator's IAM credentials, so
// only cluster administrators hold this resource: it is cluster-scoped and
// aggregated to no built-in role.
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=iamrolerequests,scope=Cluster,singular=iamrolerequest
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="an IAMRoleRequest name is at most 63 characters: it names the IAM role after the cluster's infrastructureName"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Role",type=string,JSONPath=`.status.providerStatus.user`
// +kubebuilder:printcolumn:name="ServiceAccount",type=string,JSONPath=`.status.serviceAccount`
// +kubebuilder:printcolumn:name="Provisioned",type=string,JSONPath=`.status.conditions[?(@.type=="Provisioned")].status`
// +kubebuilder:printcolumn:name="Linked",type=string,JSONPath=`.status.conditions[?(@.type=="ServiceAccountLinked")].status`
// +kubebuilder:printcolumn:name="TokensAccepted",type=string,JSONPath=`.status.conditions[?(@.type=="TokensAccepted")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type IAMRoleRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec IAMRoleRequestSpec `json:"spec"`
	// +optional
	Status IAMRoleRequestStatus `json:"status,omitempty"`
}

// IAMRoleRequestSpec is the enhancement's CredentialsRequestSpec with the
// storage union's ServiceAccount member, the only one this operator serves.
type IAMRoleRequestSpec struct {
	// storage names the ServiceAccount the role is linked to.
	// +required
	Storage Storage `json:"storage"`

	// providerSpec holds the role's permissions, as in the cloud-credential
	// operator's AWSProviderSpec.
	// +required
	ProviderSpec AWSProviderSpec `json:"providerSpec"`
}

// StorageType is the kind of resource credentials are linked to.
type StorageType string

const (
	// StorageTypeServiceAccount links an IAM role to a ServiceAccount.
	StorageTypeServiceAccount StorageType = "ServiceAccount"
	// StorageTypeSecret is the cloud-credential operator's: credentials of an
	// IAM user in a Secret. This API refuses it.
	StorageTypeSecret StorageType = "Secret"
)

// Storage is the enhancement's storage union. Omitted, type means
// ServiceAccount (in the enhancement it means Secret, which stays the
// cloud-credential operator's CredentialsRequest).
//
// The enhancement's Secret form (type Secret, storage.secret) is in the
// schema only to be refused with the message that points to the
// cloud-credential operator: unknown, it would be refused by strict field
// validation, or pruned before any rule could say so.
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type == 'ServiceAccount'",message="an IAMRoleRequest links a role to a ServiceAccount only: storage.type Secret (IAM user keys in a Secret) is the cloud-credential operator's CredentialsRequest"
// +kubebuilder:validation:XValidation:rule="!has(self.secret)",message="storage.secret is the cloud-credential operator's CredentialsRequest (IAM user keys in a Secret); an IAMRoleRequest names a ServiceAccount in storage.serviceAccount"
// +kubebuilder:validation:XValidation:rule="has(self.serviceAccount) || has(self.serviceAccounts) || has(self.secret) || (has(self.type) && self.type != 'ServiceAccount')",message="storage.serviceAccount is required: the namespace and name of the ServiceAccount whose pods may assume the role (or storage.serviceAccounts: one ServiceAccount name in a set of namespaces)"
// +kubebuilder:validation:XValidation:rule="!(has(self.serviceAccount) && has(self.serviceAccounts))",message="storage.serviceAccount and storage.serviceAccounts exclude each other: a request is for one ServiceAccount, or for one ServiceAccount name in a set of namespaces"
// +kubebuilder:validation:XValidation:rule="has(self.serviceAccounts) == has(oldSelf.serviceAccounts)",message="storage cannot switch between serviceAccount and serviceAccounts: the role's trust policy names them; create another IAMRoleRequest"
type Storage struct {
	// type is ServiceAccount, the only type this API serves.
	// +optional
	Type StorageType `json:"type,omitempty"`

	// serviceAccount is the ServiceAccount whose pods may assume the role.
	// Required (a rule of Storage says so, after the type).
	// +optional
	ServiceAccount ServiceAccountStorage `json:"serviceAccount,omitzero"`

	// serviceAccounts is one ServiceAccount name in a set of namespaces,
	// chosen by a label selector over labels only the holders of a right may
	// set, or listed by name. Exclusive with serviceAccount.
	// +optional
	ServiceAccounts *ServiceAccountSetStorage `json:"serviceAccounts,omitempty"`

	// secret is the enhancement's Secret storage, always refused: it is the
	// cloud-credential operator's CredentialsRequest.
	// +optional
	Secret *SecretStorage `json:"secret,omitempty"`
}

// SecretStorage is the enhancement's Secret member, accepted by the schema
// only to be refused with a useful message.
type SecretStorage struct {
	// namespace of the Secret.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
	// name of the Secret.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`
}

// ServiceAccountStorage names the ServiceAccount a role is linked to.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="storage.serviceAccount cannot change: the role's trust policy names it; create another IAMRoleRequest"
type ServiceAccountStorage struct {
	// namespace of the ServiceAccount.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace"`

	// name of the ServiceAccount.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`
}

// NamespaceTrustLabelPrefix begins every label key a set request's
// namespaceSelector may use. The ValidatingAdmissionPolicy
// workload-access-namespace-trust-labels refuses creating a namespace with
// such a label, and adding, changing or removing one, unless the requester
// may "label" the pseudo-resource NamespaceTrustLabelsResource of this API
// group (cluster admins, and whom an admin binds the ClusterRole
// workload-access-namespace-trust-labeler): a namespace's creator cannot
// put its namespace into a role's trust.
const NamespaceTrustLabelPrefix = "trust.podidentity.openshift.io/"

// NamespaceTrustLabelsResource and NamespaceTrustLabelVerb are what the
// policy asks the authorizer about a namespace's trust labels.
const (
	NamespaceTrustLabelsResource = "namespacetrustlabels"
	NamespaceTrustLabelVerb      = "label"
)

// ServiceAccountSetStorage names one ServiceAccount name in a set of
// namespaces: those whose labels match namespaceSelector, or those listed in
// namespaces. The role's trust policy holds one exact subject per namespace
// trusted, as many as fit IAM's trust policy size (status.namespaces and the
// NamespacesTrusted condition say which). Immutable, as serviceAccount: the
// set moves with the namespaces' labels, which only the holders of a right
// may set.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="storage.serviceAccounts cannot change: the role's trust policy is made from it; label namespaces to move them in or out, or create another IAMRoleRequest"
// +kubebuilder:validation:XValidation:rule="has(self.namespaceSelector) != has(self.namespaces)",message="storage.serviceAccounts needs exactly one of namespaceSelector and namespaces"
// +kubebuilder:validation:XValidation:rule="!has(self.namespaceSelector) || (has(self.namespaceSelector.matchLabels) && size(self.namespaceSelector.matchLabels) > 0) || (has(self.namespaceSelector.matchExpressions) && size(self.namespaceSelector.matchExpressions) > 0)",message="storage.serviceAccounts.namespaceSelector must not be empty: an empty selector matches every namespace"
// +kubebuilder:validation:XValidation:rule="!has(self.namespaceSelector) || !has(self.namespaceSelector.matchLabels) || self.namespaceSelector.matchLabels.all(k, k.startsWith('trust.podidentity.openshift.io/'))",message="storage.serviceAccounts.namespaceSelector may use only label keys under trust.podidentity.openshift.io/, which only whoever may label namespacetrustlabels (podidentity.openshift.io) can set on a namespace; any other label a namespace's creator may set"
// +kubebuilder:validation:XValidation:rule="!has(self.namespaceSelector) || !has(self.namespaceSelector.matchExpressions) || self.namespaceSelector.matchExpressions.all(e, e.key.startsWith('trust.podidentity.openshift.io/') && (e.operator == 'In' || e.operator == 'Exists'))",message="storage.serviceAccounts.namespaceSelector.matchExpressions may use only label keys under trust.podidentity.openshift.io/ and the operators In and Exists: NotIn and DoesNotExist match namespaces without the label, which anyone may create"
type ServiceAccountSetStorage struct {
	// name of the ServiceAccount in each namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// namespaceSelector chooses the namespaces by labels under
	// trust.podidentity.openshift.io/ (matchLabels, or matchExpressions
	// with In or Exists). A namespace is trusted while it matches.
	// +optional
	NamespaceSelector *NamespaceTrustSelector `json:"namespaceSelector,omitempty"`

	// namespaces lists the namespaces by name. Each is trusted as a single
	// request's namespace is: when it existed no later than the request, or
	// when an admin confirmed its UID in the annotation
	// podidentity.openshift.io/confirmed-namespace-uid (UIDs separated by
	// commas).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +listType=set
	Namespaces []string `json:"namespaces,omitempty"`
}

// NamespaceTrustSelector is a label selector (as metav1.LabelSelector) of
// bounded size, so that its rules stay within the API server's CEL cost
// budget, and with only the operators that need the label present.
type NamespaceTrustSelector struct {
	// matchLabels: each key must be a label of the namespace, with that value.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
	// matchExpressions: each must hold of the namespace's labels.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	MatchExpressions []NamespaceTrustRequirement `json:"matchExpressions,omitempty"`
}

// NamespaceTrustRequirement is one requirement of a NamespaceTrustSelector.
type NamespaceTrustRequirement struct {
	// key is the label key, under trust.podidentity.openshift.io/.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	Key string `json:"key"`
	// operator is In (the label has one of values) or Exists.
	// +required
	// +kubebuilder:validation:Enum=In;Exists
	Operator string `json:"operator"`
	// values, for In.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=63
	// +listType=atomic
	Values []string `json:"values,omitempty"`
}

// AWSProviderSpec is the cloud-credential operator's AWSProviderSpec: the
// role's inline policy, one statement per entry.
type AWSProviderSpec struct {
	// apiVersion may be given as in a CredentialsRequest's providerSpec.
	// +optional
	// +kubebuilder:validation:Enum="";cloudcredential.openshift.io/v1
	APIVersion string `json:"apiVersion,omitempty"`

	// kind may be given as in a CredentialsRequest's providerSpec.
	// +optional
	// +kubebuilder:validation:Enum="";AWSProviderSpec
	Kind string `json:"kind,omitempty"`

	// statementEntries are the statements of the role's policy. IAM limits
	// a role's inline policies to 10,240 characters; a larger policy is
	// refused in the Provisioned condition.
	// +required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	StatementEntries []StatementEntry `json:"statementEntries"`
}

// StatementEntry is one statement of an IAM policy.
type StatementEntry struct {
	// effect is Allow or Deny.
	// +required
	// +kubebuilder:validation:Enum=Allow;Deny
	Effect string `json:"effect"`

	// action lists the IAM actions, such as s3:GetObject or s3:*.
	// +required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MaxLength=128
	// +kubebuilder:validation:items:Pattern=`^(\*|[a-zA-Z0-9-]+:[a-zA-Z0-9*?]+)$`
	// +listType=atomic
	Action []string `json:"action"`

	// resource is the ARN (or "*") the statement applies to.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	Resource string `json:"resource"`

	// policyCondition is the statement's IAM condition, named as in the
	// cloud-credential operator's StatementEntry: operator, then key, then
	// the values. Values are a list: a single value is a one-item list, and a
	// bare string is refused rather than dropped.
	// +optional
	PolicyCondition map[string]map[string][]string `json:"policyCondition,omitempty"`
}

// ConfirmedNamespaceUIDAnnotation, on an IAMRoleRequest, confirms that the
// namespace of that UID is the one its role may trust: a namespace created
// after the request, or in place of the one its role trusted. Setting or
// changing it moves the role's trust, so the access-grants check admits it
// only from whoever may also patch and create ServiceAccounts in that
// namespace, as a create; a namespace's creator cannot set it.
const ConfirmedNamespaceUIDAnnotation = "podidentity.openshift.io/confirmed-namespace-uid"

// IAMRoleFinalizer holds an IAMRoleRequest until the operator has deleted
// its role. Removing it, or deleting the request, while the role may exist
// decides what becomes of the role's trust: the access-grants check admits
// either only from whoever may patch and create ServiceAccounts in the
// request's namespace, as a create.
const IAMRoleFinalizer = "podidentity.openshift.io/iam-role"

// LinkedByAnnotation, on a ServiceAccount, is the UID of the IAMRoleRequest
// that wrote its RoleARNAnnotation: only that request changes or removes
// it.
const LinkedByAnnotation = "podidentity.openshift.io/linked-by"

// Condition types of an IAMRoleRequest.
const (
	// ConditionProvisioned is True when the role, its trust policy and its
	// inline policy in IAM are what the request asks for.
	ConditionProvisioned = "Provisioned"
	// ConditionServiceAccountLinked is True when the ServiceAccount carries
	// the role's ARN in eks.amazonaws.com/role-arn.
	ConditionServiceAccountLinked = "ServiceAccountLinked"
	// ConditionNamespacesTrusted, on a request for a set of namespaces, is
	// True when the role's trust policy holds every namespace of the set;
	// False names those left out and why (too many for the trust policy's
	// size, or a listed namespace not confirmed).
	ConditionNamespacesTrusted = "NamespacesTrusted"
	// ConditionTokensAccepted is True when AWS STS will accept the pod's
	// token for the role: the issuer the cluster's tokens carry is the one
	// the role trusts, IAM has its OIDC provider with the token's audience,
	// and the issuer's JWKS holds the keys the cluster signs tokens with.
	ConditionTokensAccepted = "TokensAccepted"
)

// Reasons of the TokensAccepted condition.
const (
	ReasonTokensAccepted = "TokensAccepted"
	// ReasonRoleNotProvisioned: no role to assume yet (see Provisioned).
	ReasonRoleNotProvisioned = "RoleNotProvisioned"
	// ReasonClusterIssuerNotPublic: the tokens carry an issuer AWS STS cannot
	// fetch keys from (Authentication/cluster spec.serviceAccountIssuer is
	// empty, or not an https:// URL).
	ReasonClusterIssuerNotPublic = "ClusterIssuerNotPublic"
	// ReasonAudienceNotRegistered: the issuer's IAM OIDC provider does not
	// list the audience the webhook projects into the token.
	ReasonAudienceNotRegistered = "AudienceNotRegistered"
	// ReasonSigningKeysNotPublished: the issuer's JWKS lacks a key the
	// cluster signs tokens with.
	ReasonSigningKeysNotPublished = "SigningKeysNotPublished"
	// ReasonSigningKeysUnknown: the cluster's signing keys could not be read.
	ReasonSigningKeysUnknown = "SigningKeysUnknown"
	// ReasonIssuerUnreachable: the issuer's discovery document or JWKS
	// could not be read, or is not valid.
	ReasonIssuerUnreachable = "IssuerUnreachable"
	// ReasonOIDCProviderNotRegistered (above) also makes it False.
)

// Reasons of the Provisioned condition.
const (
	ReasonProvisioned = "Provisioned"
	// ReasonPlatformNotSupported: not AWS, or pod identity is disabled.
	ReasonPlatformNotSupported = "PlatformNotSupported"
	// ReasonIssuerNotPublished: the cluster's OIDC issuer is not published yet.
	ReasonIssuerNotPublished = "IssuerNotPublished"
	// ReasonCredentialsMissing: the operator's IAM credentials Secret is absent.
	ReasonCredentialsMissing = "CredentialsMissing"
	// ReasonOIDCProviderNotRegistered: IAM has no OIDC provider for the issuer.
	ReasonOIDCProviderNotRegistered = "OIDCProviderNotRegistered"
	// ReasonAccessDenied: IAM refused the operator's call.
	ReasonAccessDenied = "AccessDenied"
	// ReasonThrottled: IAM throttled the operator; it retries with backoff.
	ReasonThrottled = "Throttled"
	// ReasonRoleNameTaken: a role of that name exists and is not this request's.
	ReasonRoleNameTaken = "RoleNameTaken"
	// ReasonInvalidPolicy: the statements do not make a policy IAM accepts.
	ReasonInvalidPolicy = "InvalidPolicy"
	// ReasonIAMError: any other IAM failure; the message names its code.
	ReasonIAMError = "IAMError"
	// ReasonPermissionsBoundaryNotSet: on AWS IAM, the WorkloadAccess names
	// no permissions boundary, without which the operator creates no role.
	ReasonPermissionsBoundaryNotSet = "PermissionsBoundaryNotSet"
	// ReasonPermissionsBoundaryNotAllowed: the boundary named is not one the
	// operator's grant lets it use (path, partition or account).
	ReasonPermissionsBoundaryNotAllowed = "PermissionsBoundaryNotAllowed"
)

// Reasons of the ServiceAccountLinked condition.
const (
	ReasonLinked = "Linked"
	// ReasonWaitingForRole: the role does not exist yet.
	ReasonWaitingForRole = "WaitingForRole"
	// ReasonConflict: the ServiceAccount already names another role; it is
	// never overwritten.
	ReasonConflict = "Conflict"
	// ReasonNamespaceMissing: the ServiceAccount's namespace does not exist
	// or is being deleted (also a reason of Provisioned: no role is made for
	// a namespace that does not exist yet).
	ReasonNamespaceMissing = "NamespaceMissing"
	// ReasonAudienceMismatch: a ServiceAccount of a set carries an
	// eks.amazonaws.com/audience other than the one the set's role admits,
	// so STS refuses its pods' tokens.
	ReasonAudienceMismatch = "AudienceMismatch"
)

// Reasons of the NamespacesTrusted condition.
const (
	// ReasonAllNamespacesTrusted: the trust policy holds every namespace of
	// the set.
	ReasonAllNamespacesTrusted = "AllNamespacesTrusted"
	// ReasonTrustPolicyFull: the trust policy holds the oldest-judged
	// namespaces that fit its size limit; the message names the others.
	ReasonTrustPolicyFull = "TrustPolicyFull"
	// ReasonNoNamespaceTrusted: no namespace of the set is trusted (none
	// matches, or none fits): no role exists.
	ReasonNoNamespaceTrusted = "NoNamespaceTrusted"
	// ReasonNamespaceNotConfirmed (below) also makes it False, for a listed
	// namespace created after the request.
)

// Reasons of both conditions about the namespace the role trusts.
const (
	// ReasonNamespaceNotConfirmed: the namespace was created after the
	// request and no admin confirmed it: no role, no ServiceAccount.
	ReasonNamespaceNotConfirmed = "NamespaceNotConfirmed"
	// ReasonNamespaceDeleted: the namespace the role trusted is gone or
	// being deleted: the role was deleted.
	ReasonNamespaceDeleted = "NamespaceDeleted"
	// ReasonNamespaceReplaced: a namespace of that name exists, but not the
	// one the role trusted: the role was deleted.
	ReasonNamespaceReplaced = "NamespaceReplaced"
)

// IAMRoleRequestStatus reports the role and its link.
type IAMRoleRequestStatus struct {
	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// providerStatus is the enhancement's AWSProviderStatus: user holds the
	// role's name, policy the name of its inline policy.
	// +optional
	ProviderStatus *AWSProviderStatus `json:"providerStatus,omitempty"`

	// roleARN is the ARN written into the ServiceAccount's
	// eks.amazonaws.com/role-arn annotation.
	// +optional
	RoleARN string `json:"roleARN,omitempty"`

	// serviceAccount is "<namespace>/<name>" of the linked ServiceAccount.
	// +optional
	ServiceAccount string `json:"serviceAccount,omitempty"`

	// namespaceUID is the UID of the namespace the role may trust, pinned
	// when the operator first saw it existing and no younger than the
	// request, or when an admin confirmed it with the annotation
	// podidentity.openshift.io/confirmed-namespace-uid. Until it is set no
	// role is made; a namespace of another UID, or none, revokes the role.
	// +optional
	NamespaceUID string `json:"namespaceUID,omitempty"`

	// namespaces, on a request for a set of namespaces, are those judged
	// trusted, pinned by UID, in the order judged: the trust policy holds
	// the first that fit (inTrustPolicy). A namespace of the same name with
	// another UID is judged anew.
	// +optional
	// +listType=map
	// +listMapKey=name
	Namespaces []TrustedNamespace `json:"namespaces,omitempty"`

	// conditions are Provisioned and ServiceAccountLinked.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// TrustedNamespace is one namespace of a set request judged trusted.
type TrustedNamespace struct {
	// name of the namespace.
	Name string `json:"name"`
	// uid of the namespace instance judged.
	UID string `json:"uid"`
	// judgedAt is when the operator first judged this instance trusted:
	// the oldest fill the trust policy first.
	JudgedAt metav1.Time `json:"judgedAt"`
	// inTrustPolicy says whether the role's trust policy holds it (and its
	// ServiceAccount is linked); false when it did not fit.
	// +optional
	InTrustPolicy bool `json:"inTrustPolicy,omitempty"`
}

// AWSProviderStatus is the cloud-credential operator's AWSProviderStatus,
// with user overloaded to hold the IAM role's name as the enhancement says.
type AWSProviderStatus struct {
	// apiVersion is cloudcredential.openshift.io/v1.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// kind is AWSProviderStatus.
	// +optional
	Kind string `json:"kind,omitempty"`
	// user is the name of the IAM role.
	User string `json:"user"`
	// policy is the name of the role's inline policy.
	Policy string `json:"policy"`
}

// IAMRoleRequestList is a list of IAMRoleRequest.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type IAMRoleRequestList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []IAMRoleRequest `json:"items"`
}
