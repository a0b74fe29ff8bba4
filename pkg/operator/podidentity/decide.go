package podidentity

// Read decides, from the Infrastructure and WorkloadAccess spec.podIdentity,
// whether AWS pod identity runs and with what region, bucket and issuer URL.
// The webhook Deployment, the webhook configuration, the issuer publisher
// and the status all ask it, so they never disagree.

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	operatorv1alpha1listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
)

// Reasons of the PodIdentityEnabled condition.
const (
	ReasonPlatformAWS = "PlatformAWS"
	ReasonForcedOn    = "EnabledInWorkloadAccess"
	ReasonNotAWS      = "PlatformNotAWS"
	ReasonDisabled    = "DisabledInWorkloadAccess"
)

// Reasons the issuer cannot be published (Decision.PublishReason).
const (
	ReasonIssuerNotConfigured = "IssuerNotConfigured"
	ReasonInvalidBucketName   = "InvalidBucketName"
	// ReasonBucketNotCoveredByCredentials: on AWS S3 the publisher uses the
	// credentials of the shipped CredentialsRequest, which reach only
	// buckets matching CredentialsBucketPattern.
	ReasonBucketNotCoveredByCredentials = "BucketNotCoveredByCredentials"
)

// DefaultBucketNameSuffix follows the infrastructure name in the default
// bucket name. It names this operator: ccoctl and other OpenShift tooling
// name their issuer buckets "<name>-oidc", and the operator's S3
// credentials must not reach those (docs/security.md).
const DefaultBucketNameSuffix = "-workload-access-oidc"

// CredentialsBucketPattern is the bucket names the CredentialsRequest
// workload-access-issuer-s3 in manifests/ grants its S3 actions on
// (resource "arn:*:s3:::*-workload-access-oidc").
const CredentialsBucketPattern = "*" + DefaultBucketNameSuffix

// LegacyBucketNameSuffix ended the default bucket name, and the buckets the
// credentials reached, before the credentials were narrowed to this
// operator's own buckets; kept to explain the change to a cluster whose
// issuer still names such a bucket.
const LegacyBucketNameSuffix = "-oidc"

// Decision is what pod identity runs with.
type Decision struct {
	// Enabled says whether the webhook injects credentials.
	Enabled bool
	// Reason and Message explain Enabled, for the PodIdentityEnabled
	// condition.
	Reason, Message string

	// Region is injected into pods as AWS_REGION and AWS_DEFAULT_REGION and
	// is the bucket's region; it may be empty on a non-AWS platform.
	Region string

	// Publish says whether the issuer can be published: Bucket and IssuerURL
	// are set. When not, PublishReason and PublishMessage say why.
	Publish                       bool
	PublishReason, PublishMessage string
	Bucket                        string
	// Endpoint is the S3 endpoint override, "" for AWS S3.
	Endpoint string
	// IssuerURL is where the discovery document is served:
	// <IssuerURL>/.well-known/openid-configuration.
	IssuerURL string
}

// Decide answers for infra (which may be nil when none exists) and spec.
func Decide(infra *configv1.Infrastructure, spec operatorv1alpha1.PodIdentitySpec) Decision {
	platform := platformOf(infra)
	var d Decision
	switch spec.Mode {
	case operatorv1alpha1.PodIdentityDisabled:
		return Decision{Reason: ReasonDisabled, Message: "spec.podIdentity.mode is Disabled"}
	case operatorv1alpha1.PodIdentityEnabled:
		d = Decision{Enabled: true, Reason: ReasonForcedOn, Message: fmt.Sprintf("spec.podIdentity.mode is Enabled (platform %s)", platform)}
	default:
		if platform != configv1.AWSPlatformType {
			return Decision{Reason: ReasonNotAWS, Message: fmt.Sprintf(
				"the Infrastructure platform is %s; pod identity runs on AWS, or anywhere with spec.podIdentity.mode Enabled", platform)}
		}
		d = Decision{Enabled: true, Reason: ReasonPlatformAWS, Message: "the Infrastructure platform is AWS"}
	}

	d.Region = spec.Region
	if d.Region == "" && infra != nil && infra.Status.PlatformStatus != nil && infra.Status.PlatformStatus.AWS != nil {
		d.Region = infra.Status.PlatformStatus.AWS.Region
	}
	d.Bucket = spec.Issuer.Bucket
	if d.Bucket == "" && infra != nil && infra.Status.InfrastructureName != "" {
		d.Bucket = infra.Status.InfrastructureName + DefaultBucketNameSuffix
	}
	d.Endpoint = spec.Issuer.Endpoint
	bucketSource := fmt.Sprintf("spec.podIdentity.issuer.bucket %q", d.Bucket)
	if spec.Issuer.Bucket == "" {
		bucketSource = fmt.Sprintf("the default bucket name %q (infrastructureName and %q)", d.Bucket, DefaultBucketNameSuffix)
	}
	d.PublishReason = ReasonIssuerNotConfigured
	switch {
	case d.Bucket == "":
		d.PublishMessage = "no bucket: the Infrastructure has no infrastructureName and spec.podIdentity.issuer.bucket is empty"
	case bucketNameProblem(d.Bucket, d.Endpoint == "") != "":
		d.PublishReason = ReasonInvalidBucketName
		d.PublishMessage = fmt.Sprintf("%s is not a usable S3 bucket name: %s", bucketSource, bucketNameProblem(d.Bucket, d.Endpoint == ""))
	case d.Endpoint == "" && !strings.HasSuffix(d.Bucket, DefaultBucketNameSuffix):
		// Refused here rather than by S3's AccessDenied on every call. With
		// an endpoint the admin supplies the credentials, for any bucket.
		d.PublishReason = ReasonBucketNotCoveredByCredentials
		d.PublishMessage = fmt.Sprintf("%s is not covered by the operator's S3 credentials: the CredentialsRequest workload-access-issuer-s3 grants them on buckets named %q only; "+
			"choose a bucket name ending in %q, or, with S3 credentials of your own in that Secret, set spec.podIdentity.issuer.endpoint (for example https://s3.<region>.amazonaws.com)",
			bucketSource, CredentialsBucketPattern, DefaultBucketNameSuffix)
	case d.Endpoint != "":
		u, err := url.Parse(d.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			d.PublishMessage = fmt.Sprintf("spec.podIdentity.issuer.endpoint %q is not an http:// or https:// URL without query or fragment", d.Endpoint)
			break
		}
		d.IssuerURL = strings.TrimSuffix(d.Endpoint, "/") + "/" + d.Bucket
	case d.Region == "":
		d.PublishMessage = "no region: the Infrastructure has no AWS region and spec.podIdentity.region is empty"
	default:
		d.IssuerURL = fmt.Sprintf("https://%s.s3.%s.%s", d.Bucket, d.Region, dnsSuffix(d.Region))
	}
	d.Publish = d.IssuerURL != ""
	if d.Publish {
		d.PublishReason = ""
	}
	return d
}

// Reserved by S3 for its own names (access point aliases, Object Lambda,
// multi-region access points, directory and table buckets).
var (
	reservedBucketPrefixes = []string{"xn--", "sthree-", "amzn-s3-demo-"}
	reservedBucketSuffixes = []string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"}
)

// bucketNameProblem is what S3's bucket naming rules refuse in name, "" if
// nothing. virtualHosted forbids dots too: the issuer on AWS S3 is
// https://<bucket>.s3.<region>.amazonaws.com, and S3's wildcard certificate
// covers one label, so STS could not fetch a dotted bucket's documents.
// The CRD's pattern checks the length and characters of a name set in the
// spec; the default name is derived, and the other rules need more than a
// pattern.
func bucketNameProblem(name string, virtualHosted bool) string {
	if len(name) < 3 || len(name) > 63 {
		return fmt.Sprintf("it has %d characters, S3 allows 3 to 63", len(name))
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '.' && r != '-' {
			return fmt.Sprintf("%q is not allowed: only lowercase letters, digits, dots and hyphens are", r)
		}
	}
	if !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return "it must begin and end with a lowercase letter or a digit"
	}
	if strings.Contains(name, "..") {
		return "it has two adjacent dots"
	}
	if net.ParseIP(name) != nil {
		return "it is formatted as an IP address"
	}
	for _, prefix := range reservedBucketPrefixes {
		if strings.HasPrefix(name, prefix) {
			return fmt.Sprintf("the prefix %q is reserved by S3", prefix)
		}
	}
	for _, suffix := range reservedBucketSuffixes {
		if strings.HasSuffix(name, suffix) {
			return fmt.Sprintf("the suffix %q is reserved by S3", suffix)
		}
	}
	if virtualHosted && strings.Contains(name, ".") {
		return "on AWS S3 the issuer is https://<bucket>.s3.<region>.amazonaws.com, and S3's certificate does not cover a bucket name with dots"
	}
	return ""
}

func isAlnum(b byte) bool {
	return (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9')
}

func platformOf(infra *configv1.Infrastructure) configv1.PlatformType {
	if infra == nil {
		return "unknown (no Infrastructure)"
	}
	if infra.Status.PlatformStatus != nil && infra.Status.PlatformStatus.Type != "" {
		return infra.Status.PlatformStatus.Type
	}
	if infra.Status.Platform != "" {
		return infra.Status.Platform
	}
	return configv1.NonePlatformType
}

// Partition is the AWS partition of region: its name, for ARNs, and its
// DNS suffix, for S3's virtual-hosted bucket URLs. The prefixes follow the
// AWS SDK's partition table; ccoctl takes the suffix from the same table,
// and an issuer URL with the wrong one names a host STS cannot reach.
func Partition(region string) (name, dnsSuffix string) {
	for _, p := range partitions {
		if strings.HasPrefix(region, p.regionPrefix) {
			return p.name, p.dnsSuffix
		}
	}
	return "aws", "amazonaws.com"
}

var partitions = []struct{ regionPrefix, name, dnsSuffix string }{
	{"cn-", "aws-cn", "amazonaws.com.cn"},
	{"us-gov-", "aws-us-gov", "amazonaws.com"},
	{"us-iso-", "aws-iso", "c2s.ic.gov"},
	{"us-isob-", "aws-iso-b", "sc2s.sgov.gov"},
	{"us-isof-", "aws-iso-f", "csp.hci.ic.gov"},
	{"eu-isoe-", "aws-iso-e", "cloud.adc-e.uk"},
	{"eusc-", "aws-eusc", "amazonaws.eu"},
}

// dnsSuffix is S3's domain in the region's partition.
func dnsSuffix(region string) string {
	_, suffix := Partition(region)
	return suffix
}

// Read decides from the listers' Infrastructure "cluster" (absent is
// allowed: not AWS) and WorkloadAccess "cluster".
func Read(infrastructures configv1listers.InfrastructureLister, workloadAccesses operatorv1alpha1listers.WorkloadAccessLister) (Decision, error) {
	infra, err := infrastructures.Get("cluster")
	if apierrors.IsNotFound(err) {
		infra, err = nil, nil
	}
	if err != nil {
		return Decision{}, fmt.Errorf("reading the Infrastructure for pod identity: %w", err)
	}
	wa, err := workloadAccesses.Get(operatorv1alpha1.WorkloadAccessName)
	if err != nil {
		return Decision{}, fmt.Errorf("reading the WorkloadAccess for pod identity: %w", err)
	}
	return Decide(infra, wa.Spec.PodIdentity), nil
}

// RoleRegion is the region IAM roles are made in: the published one, else
// the platform's.
func (d Decision) RoleRegion(wa *operatorv1alpha1.WorkloadAccess) string {
	if wa.Status.PodIdentity.Region != "" {
		return wa.Status.PodIdentity.Region
	}
	return d.Region
}
