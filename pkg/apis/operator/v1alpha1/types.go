package v1alpha1

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WorkloadAccessName is the only name a WorkloadAccess may have: the operator
// reads exactly one configuration.
const WorkloadAccessName = "cluster"

// WorkloadAccess configures cluster-workload-access-operator. The operator
// reports the health of each of its controllers in status.conditions, and
// the ClusterOperator "workload-access" summarises them.
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=workloadaccesses,scope=Cluster,singular=workloadaccess
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Management",type=string,JSONPath=`.spec.managementState`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == 'cluster'",message="workloadaccess is a singleton: metadata.name must be 'cluster'"
type WorkloadAccess struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the desired configuration.
	// +required
	Spec WorkloadAccessSpec `json:"spec"`

	// status holds what the operator observed and did.
	// +optional
	Status WorkloadAccessStatus `json:"status,omitempty"`
}

// WorkloadAccessSpec is the desired configuration of the operator.
// managementState, logLevel and operatorLogLevel are honoured; Managed,
// Unmanaged and Removed are the supported management states.
type WorkloadAccessSpec struct {
	operatorv1.OperatorSpec `json:",inline"`

	// podIdentity configures AWS IAM roles for ServiceAccounts: the webhook
	// injects web identity credentials into pods whose ServiceAccount carries
	// eks.amazonaws.com/role-arn, and the operator publishes the cluster's
	// service account issuer (OIDC discovery document and keys) to S3 so AWS
	// STS can verify the tokens.
	// +optional
	PodIdentity PodIdentitySpec `json:"podIdentity,omitempty"`

	// subscriptions configures subscription injection cluster-wide.
	// +optional
	Subscriptions SubscriptionsSpec `json:"subscriptions,omitempty"`

	// olmScopes has the operator generate, for operators installed the OLM
	// v0 way, a ScopeTemplate from each ClusterServiceVersion's permissions
	// and a ScopeInstance from its OperatorGroup's target namespaces, so an
	// admin can see, and narrow, the scope each operator runs with
	// (docs/scopes.md). Off by default: it changes who owns an operator's
	// RBAC.
	// +optional
	OLMScopes OLMScopesSpec `json:"olmScopes,omitempty"`
}

// OLMScopesMode says whose ClusterServiceVersions get generated scopes.
// +kubebuilder:validation:Enum="";Disabled;Namespaces;Cluster
type OLMScopesMode string

const (
	// OLMScopesDisabled (the default, also meant by "") generates nothing,
	// and deletes what was generated.
	OLMScopesDisabled OLMScopesMode = "Disabled"
	// OLMScopesNamespaces generates for the ClusterServiceVersions in the
	// namespaces listed in olmScopes.namespaces.
	OLMScopesNamespaces OLMScopesMode = "Namespaces"
	// OLMScopesCluster generates for the ClusterServiceVersions of every
	// namespace.
	OLMScopesCluster OLMScopesMode = "Cluster"
)

// OLMAllNamespacesMode says what a ClusterServiceVersion whose
// OperatorGroup targets all namespaces gets.
// +kubebuilder:validation:Enum="";Skip;BindClusterWide
type OLMAllNamespacesMode string

const (
	// OLMAllNamespacesSkip (the default, also meant by ""): nothing is
	// generated, and an Event on the ClusterServiceVersion says so.
	OLMAllNamespacesSkip OLMAllNamespacesMode = "Skip"
	// OLMAllNamespacesBindClusterWide: its namespaced permissions are bound
	// cluster-wide, as OLM itself binds them for such a group.
	OLMAllNamespacesBindClusterWide OLMAllNamespacesMode = "BindClusterWide"
)

// OLMScopesSpec is the opt-in to generated scopes for OLM v0 operators.
type OLMScopesSpec struct {
	// mode is Disabled (the default), Namespaces (the ClusterServiceVersions
	// of the namespaces listed) or Cluster (those of every namespace).
	// +optional
	Mode OLMScopesMode `json:"mode,omitempty"`

	// namespaces whose ClusterServiceVersions get generated scopes, with
	// mode Namespaces (ignored with any other mode, so that setting mode
	// alone turns the generator off or on cluster-wide).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespaces []string `json:"namespaces,omitempty"`

	// allNamespacesOperatorGroups is what a ClusterServiceVersion in an
	// OperatorGroup that targets all namespaces gets: Skip (the default:
	// nothing, and an Event on it says so) or BindClusterWide (its
	// namespaced permissions bound in every namespace, with
	// ClusterRoleBindings).
	// +optional
	AllNamespacesOperatorGroups OLMAllNamespacesMode `json:"allNamespacesOperatorGroups,omitempty"`
}

// SubscriptionsSpec configures subscription injection cluster-wide.
type SubscriptionsSpec struct {
	// defaultAggregateToClusterRoles are the ClusterRoles (for example edit)
	// whose holders may inject a ClusterBundle that names none in its own
	// spec.aggregateToClusterRoles: its generated ClusterRole carries the
	// aggregate-to-<role> label of each. A ClusterBundle that names roles
	// gets exactly those. Empty (the default): a ClusterBundle that names
	// none is aggregated nowhere, and only those bound to its ClusterRole
	// may inject it.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=50
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	DefaultAggregateToClusterRoles []string `json:"defaultAggregateToClusterRoles,omitempty"`
}

// PodIdentityMode says when pod identity runs.
// +kubebuilder:validation:Enum="";Auto;Enabled;Disabled
type PodIdentityMode string

const (
	// PodIdentityAuto (the default, also meant by "") enables pod identity
	// when the Infrastructure platform is AWS.
	PodIdentityAuto PodIdentityMode = "Auto"
	// PodIdentityEnabled enables it on any platform, for example with an
	// S3-compatible endpoint.
	PodIdentityEnabled PodIdentityMode = "Enabled"
	// PodIdentityDisabled turns it off everywhere.
	PodIdentityDisabled PodIdentityMode = "Disabled"
)

// PodIdentitySpec configures AWS pod identity.
type PodIdentitySpec struct {
	// mode is Auto (pod identity on AWS only; the default), Enabled or
	// Disabled.
	// +optional
	Mode PodIdentityMode `json:"mode,omitempty"`

	// region is the AWS region given to pods (AWS_REGION and
	// AWS_DEFAULT_REGION) and where the issuer bucket lives. Empty uses the
	// Infrastructure's AWS region.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^([a-z]{2,4}(-[a-z]+)+-[0-9]+)?$`
	Region string `json:"region,omitempty"`

	// issuer configures where the OIDC discovery document and keys are
	// published.
	// +optional
	Issuer IssuerPublishingSpec `json:"issuer,omitempty"`

	// defaultAudience is the audience of the token injected into a pod whose
	// ServiceAccount has no eks.amazonaws.com/audience annotation. It must be
	// an audience of the IAM OIDC provider. Omitted keeps the webhook's
	// default, sts.amazonaws.com. The webhook follows a change without a
	// restart; pods created before keep their token's audience.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self == self.trim()",message="defaultAudience must not have leading or trailing spaces"
	DefaultAudience string `json:"defaultAudience,omitempty"`

	// defaultTokenExpirationSeconds is the lifetime of the injected token
	// unless the ServiceAccount's or the pod's eks.amazonaws.com/token-expiration
	// annotation sets one: 600 (the shortest token Kubernetes issues) to
	// 4294967296. The kubelet refreshes the token at 80% of it. Omitted keeps
	// the webhook's default, 86400.
	// +optional
	// +kubebuilder:validation:Minimum=600
	// +kubebuilder:validation:Maximum=4294967296
	DefaultTokenExpirationSeconds int64 `json:"defaultTokenExpirationSeconds,omitempty"`

	// defaultSTSEndpoints says which AWS STS endpoint pods' SDKs call unless
	// the ServiceAccount's eks.amazonaws.com/sts-regional-endpoints annotation
	// says: Regional sets AWS_STS_REGIONAL_ENDPOINTS=regional (the STS
	// endpoint of the pod's region); SDKDefault sets nothing, leaving the
	// SDK's own default (the global endpoint in older SDKs). Omitted keeps
	// the webhook's default, SDKDefault.
	// +optional
	DefaultSTSEndpoints STSEndpoints `json:"defaultSTSEndpoints,omitempty"`

	// roles configures phase 2: the IAM roles the operator creates for
	// IAMRoleRequests (podidentity.openshift.io).
	// +optional
	Roles IAMRolesSpec `json:"roles,omitempty"`
}

// IAMRolesSpec configures how IAMRoleRequests become IAM roles.
type IAMRolesSpec struct {
	// iamEndpoint overrides the IAM endpoint, for IAM-compatible services
	// (http:// or https://). Empty uses AWS IAM of the region's partition.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self == '' || self.startsWith('https://') || self.startsWith('http://')",message="iamEndpoint must be an http:// or https:// URL"
	IAMEndpoint string `json:"iamEndpoint,omitempty"`

	// stsEndpoint overrides the STS endpoint the operator asks for its own
	// account (GetCallerIdentity), which names the OIDC provider in every
	// trust policy. Empty uses the region's AWS STS endpoint.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self == '' || self.startsWith('https://') || self.startsWith('http://')",message="stsEndpoint must be an http:// or https:// URL"
	STSEndpoint string `json:"stsEndpoint,omitempty"`

	// permissionsBoundary is the ARN of a managed IAM policy every role the
	// operator creates carries as its permissions boundary: no statement of
	// an IAMRoleRequest grants more than it allows. Required on AWS IAM
	// (iamEndpoint empty): the operator's CredentialsRequest lets it create
	// roles only with a boundary under the policy path /workload-access/ of
	// the role's own account and partition, so until one is set no role is
	// made (each IAMRoleRequest says PermissionsBoundaryNotSet, and so does
	// the IAMRoleBoundaryDegraded condition). With iamEndpoint, it is sent
	// when set. See docs/aws-roles.md.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^(arn:aws[a-z-]*:iam::[0-9]{12}:policy/.+)?$`
	PermissionsBoundary string `json:"permissionsBoundary,omitempty"`

	// trustPolicySizeLimit is the most characters (whitespace not counted)
	// a role's trust policy may have: IAM's quota "role trust policy
	// length", 2,048 by default and raisable to 4,096 through AWS Service
	// Quotas. The trust policy of an IAMRoleRequest for a set of namespaces
	// holds as many of them as fit, oldest-judged first, and the request's
	// NamespacesTrusted condition names those left out. 0 means 2048. Set it
	// to the account's quota after raising it; a lower value only leaves
	// more namespaces out.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=4096
	TrustPolicySizeLimit int32 `json:"trustPolicySizeLimit,omitempty"`
}

// STSEndpoints says which AWS STS endpoint pods' SDKs call.
// +kubebuilder:validation:Enum="";Regional;SDKDefault
type STSEndpoints string

const (
	// STSEndpointsRegional sets AWS_STS_REGIONAL_ENDPOINTS=regional.
	STSEndpointsRegional STSEndpoints = "Regional"
	// STSEndpointsSDKDefault leaves AWS_STS_REGIONAL_ENDPOINTS unset.
	STSEndpointsSDKDefault STSEndpoints = "SDKDefault"
)

// IssuerPublishingSpec says where the service account issuer is published.
type IssuerPublishingSpec struct {
	// bucket is the S3 bucket holding the two documents. Empty uses
	// "<infrastructureName>-workload-access-oidc". Without an endpoint (AWS
	// S3) the name must end in "-workload-access-oidc", the buckets the
	// operator's CredentialsRequest grants access to, and have no dots (the issuer URL is
	// https://<bucket>.s3.<region>.amazonaws.com); the operator refuses
	// other names in its IssuerPublisherDegraded condition.
	// +optional
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9][a-z0-9.-]*[a-z0-9]$`
	Bucket string `json:"bucket,omitempty"`

	// endpoint overrides the S3 endpoint, for S3-compatible storage
	// (http:// or https://, path-style addressing). The issuer URL is then
	// <endpoint>/<bucket>. Empty uses AWS S3 in the region, and the issuer
	// URL is https://<bucket>.s3.<region>.amazonaws.com.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self == '' || self.startsWith('https://') || self.startsWith('http://')",message="endpoint must be an http:// or https:// URL"
	Endpoint string `json:"endpoint,omitempty"`
}

// WorkloadAccessStatus reports the operator's controllers' conditions and the
// generations of the resources it manages.
type WorkloadAccessStatus struct {
	operatorv1.OperatorStatus `json:",inline"`

	// podIdentity reports what pod identity runs with.
	// +optional
	PodIdentity PodIdentityStatus `json:"podIdentity,omitempty"`
}

// PodIdentityStatus is what the operator decided for pod identity. Why it
// is on or off is in the PodIdentityEnabled condition.
type PodIdentityStatus struct {
	// region is the AWS region injected into pods, if any.
	// +optional
	Region string `json:"region,omitempty"`

	// issuerURL is the service account issuer published to S3. It must equal
	// Authentication/cluster spec.serviceAccountIssuer for AWS STS to accept
	// the cluster's tokens.
	// +optional
	IssuerURL string `json:"issuerURL,omitempty"`

	// publishedKeyIDs are the key IDs in the published JWKS, sorted.
	// +optional
	// +listType=atomic
	PublishedKeyIDs []string `json:"publishedKeyIDs,omitempty"`
}

// WorkloadAccessList is a list of WorkloadAccess.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type WorkloadAccessList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []WorkloadAccess `json:"items"`
}
