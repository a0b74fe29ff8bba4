// Package podidentityconfig decides, from the Infrastructure and
// WorkloadAccess spec.podIdentity, whether AWS pod identity runs and with
// what region, bucket and issuer URL. The webhook Deployment, the webhook
// configuration, the issuer publisher and the status all ask it, so they
// never disagree.
package podidentityconfig

import (
	"fmt"
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

// DefaultBucketNameSuffix follows the infrastructure name in the default
// bucket name, as ccoctl's documentation and CCO's old controller name it.
const DefaultBucketNameSuffix = "-oidc"

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
	// are set. When not, PublishMessage says why.
	Publish        bool
	PublishMessage string
	Bucket         string
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
	switch {
	case d.Bucket == "":
		d.PublishMessage = "no bucket: the Infrastructure has no infrastructureName and spec.podIdentity.issuer.bucket is empty"
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
	return d
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

// dnsSuffix is S3's domain in the region's partition.
func dnsSuffix(region string) string {
	if strings.HasPrefix(region, "cn-") {
		return "amazonaws.com.cn"
	}
	return "amazonaws.com"
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
