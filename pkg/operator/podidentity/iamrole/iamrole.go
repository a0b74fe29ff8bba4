// Package iamrole decides, without calling anything, what the IAM role of an
// IAMRoleRequest is: its name, path, tags, trust policy and inline policy,
// and whether what IAM holds is that. The iamrolerequest controller does the
// calls; this package is what its tests and fuzz targets pin down.
package iamrole

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity"
)

const (
	// PolicyName is the role's one inline policy (status.providerStatus.policy).
	PolicyName = "workload-access"
	// TagRequestUID proves a role belongs to a request: its value is the
	// request's metadata.uid. A role without it is never adopted.
	TagRequestUID = "openshift.io/workload-access/request-uid"
	// TagRequest names the request, for people reading IAM; it proves nothing.
	TagRequest = "openshift.io/workload-access/request"
	// TagCluster, TagNamespace and TagServiceAccount name whose role it is:
	// the cluster's infrastructure name and the ServiceAccount the trust
	// policy admits. A session of the role carries them as
	// aws:PrincipalTag/<key>, for resource policies to grant by
	// (docs/aws-roles.md, "Access by namespace").
	TagCluster        = "openshift.io/workload-access/cluster"
	TagNamespace      = "openshift.io/workload-access/namespace"
	TagServiceAccount = "openshift.io/workload-access/serviceaccount"
	// DefaultAudience is the token audience when neither the ServiceAccount
	// nor the WorkloadAccess names one, as the webhook injects.
	DefaultAudience = "sts.amazonaws.com"
	// MaxRoleNameLength is IAM's limit on role names.
	MaxRoleNameLength = 64
	// MaxPolicySize is IAM's limit on a role's inline policies, counted
	// without whitespace.
	MaxPolicySize = 10240
	// PathPrefix begins every role path; the operator's IAM grant covers
	// roles under it only (arn:*:iam::*:role/workload-access/*).
	PathPrefix = "/workload-access/"
)

// hashedPrefix is how much of a long name is kept before "-" and the hash.
const hashedPrefix = MaxRoleNameLength - 1 - 8

// RoleName is "<infrastructureName>-<request name>". A longer name than IAM
// allows keeps its first 55 characters, then "-" and the first 8 hex digits
// of the SHA-256 of the whole name: stable across syncs and operator
// versions, and different for requests that share the first 55.
func RoleName(infrastructureName, requestName string) string {
	full := infrastructureName + "-" + requestName
	if len(full) <= MaxRoleNameLength {
		return full
	}
	sum := sha256.Sum256([]byte(full))
	return full[:hashedPrefix] + "-" + hex.EncodeToString(sum[:])[:8]
}

// RolePath is "/workload-access/<infrastructureName>/": it names this
// operator and this cluster, so two clusters in one account never meet.
func RolePath(infrastructureName string) string {
	return PathPrefix + infrastructureName + "/"
}

// ClusterTagKey is the tag OpenShift puts on what a cluster owns.
func ClusterTagKey(infrastructureName string) string {
	return "kubernetes.io/cluster/" + infrastructureName
}

// Tag is one IAM tag.
type Tag struct{ Key, Value string }

// Owner is what a role's tags say of it.
type Owner struct {
	InfrastructureName, RequestName, RequestUID string
	// Namespace and ServiceAccount are the ServiceAccount the role trusts
	// (spec.storage.serviceAccount, which cannot change).
	Namespace, ServiceAccount string
}

// Tags are the tags a role is created with and kept at. Every value fits
// IAM's limits (256 characters of letters, digits, spaces and _.:/=+-@):
// the API admits namespaces of 63 and ServiceAccount names of 253
// characters of a-z, 0-9, "-" and ".", and OpenShift's infrastructure
// names are shorter and of the same characters.
//
// A role for a set of namespaces (Namespace empty) has no namespace tag: one
// value cannot name the set, and a resource policy granting by namespace
// then grants it nothing.
func Tags(o Owner) []Tag {
	tags := []Tag{
		{TagRequestUID, o.RequestUID},
		{ClusterTagKey(o.InfrastructureName), "owned"},
		{TagRequest, o.RequestName},
		{TagCluster, o.InfrastructureName},
	}
	if o.Namespace != "" {
		tags = append(tags, Tag{TagNamespace, o.Namespace})
	}
	return append(tags, Tag{TagServiceAccount, o.ServiceAccount})
}

// OwnedBy says whether tags prove the role belongs to the request of uid.
func OwnedBy(tags []Tag, uid string) bool {
	for _, t := range tags {
		if t.Key == TagRequestUID {
			return uid != "" && t.Value == uid
		}
	}
	return false
}

// Partition is the AWS partition of region, for ARNs.
func Partition(region string) string {
	name, _ := podidentity.Partition(region)
	return name
}

// RoleARN is the ARN IAM gives the role.
func RoleARN(partition, account, infrastructureName, roleName string) string {
	return fmt.Sprintf("arn:%s:iam::%s:role%s%s", partition, account, RolePath(infrastructureName), roleName)
}

// IssuerHostPath is the issuer URL without "https://" and a trailing "/":
// how IAM names the OIDC provider and prefixes its condition keys.
func IssuerHostPath(issuerURL string) (string, error) {
	u, err := url.Parse(issuerURL)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("the issuer %q is not an https:// URL without query, fragment or user", issuerURL)
	}
	return strings.TrimSuffix(u.Host+u.EscapedPath(), "/"), nil
}

// ProviderARN is the IAM OIDC provider of the issuer at hostPath.
func ProviderARN(partition, account, hostPath string) string {
	return fmt.Sprintf("arn:%s:iam::%s:oidc-provider/%s", partition, account, hostPath)
}

// Audience is the token audience the trust policy admits: the
// ServiceAccount's eks.amazonaws.com/audience, else the cluster default,
// else sts.amazonaws.com, as the webhook chooses the token's audience (it
// ignores an annotation that is empty or has surrounding spaces).
func Audience(serviceAccountAnnotation, clusterDefault string) string {
	if a := serviceAccountAnnotation; a != "" && a == strings.TrimSpace(a) {
		return a
	}
	if clusterDefault != "" {
		return clusterDefault
	}
	return DefaultAudience
}
