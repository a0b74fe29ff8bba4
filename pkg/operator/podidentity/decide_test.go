package podidentity

import (
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
)

func infrastructure(platform configv1.PlatformType, region string) *configv1.Infrastructure {
	infra := &configv1.Infrastructure{Status: configv1.InfrastructureStatus{
		InfrastructureName: "mycluster-x7k2p",
		PlatformStatus:     &configv1.PlatformStatus{Type: platform},
	}}
	if platform == configv1.AWSPlatformType {
		infra.Status.PlatformStatus.AWS = &configv1.AWSPlatformStatus{Region: region}
	}
	return infra
}

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name  string
		infra *configv1.Infrastructure
		spec  operatorv1alpha1.PodIdentitySpec
		want  Decision
	}{{
		name:  "AWS by default",
		infra: infrastructure(configv1.AWSPlatformType, "eu-west-1"),
		want: Decision{Enabled: true, Reason: ReasonPlatformAWS, Message: "the Infrastructure platform is AWS", Region: "eu-west-1",
			Publish: true, Bucket: "mycluster-x7k2p-workload-access-oidc", IssuerURL: "https://mycluster-x7k2p-workload-access-oidc.s3.eu-west-1.amazonaws.com"},
	}, {
		name:  "China partition",
		infra: infrastructure(configv1.AWSPlatformType, "cn-north-1"),
		want: Decision{Enabled: true, Reason: ReasonPlatformAWS, Message: "the Infrastructure platform is AWS", Region: "cn-north-1",
			Publish: true, Bucket: "mycluster-x7k2p-workload-access-oidc", IssuerURL: "https://mycluster-x7k2p-workload-access-oidc.s3.cn-north-1.amazonaws.com.cn"},
	}, {
		name:  "not AWS",
		infra: infrastructure(configv1.NonePlatformType, ""),
		want: Decision{Reason: ReasonNotAWS,
			Message: "the Infrastructure platform is None; pod identity runs on AWS, or anywhere with spec.podIdentity.mode Enabled"},
	}, {
		name:  "disabled on AWS",
		infra: infrastructure(configv1.AWSPlatformType, "eu-west-1"),
		spec:  operatorv1alpha1.PodIdentitySpec{Mode: operatorv1alpha1.PodIdentityDisabled},
		want:  Decision{Reason: ReasonDisabled, Message: "spec.podIdentity.mode is Disabled"},
	}, {
		name:  "forced on with an S3-compatible endpoint and overrides",
		infra: infrastructure(configv1.NonePlatformType, ""),
		spec: operatorv1alpha1.PodIdentitySpec{Mode: operatorv1alpha1.PodIdentityEnabled, Region: "us-east-1",
			Issuer: operatorv1alpha1.IssuerPublishingSpec{Bucket: "issuer", Endpoint: "http://127.0.0.1:7070/"}},
		want: Decision{Enabled: true, Reason: ReasonForcedOn, Message: "spec.podIdentity.mode is Enabled (platform None)", Region: "us-east-1",
			Publish: true, Bucket: "issuer", Endpoint: "http://127.0.0.1:7070/", IssuerURL: "http://127.0.0.1:7070/issuer"},
	}, {
		name:  "forced on without region or endpoint cannot publish",
		infra: infrastructure(configv1.NonePlatformType, ""),
		spec:  operatorv1alpha1.PodIdentitySpec{Mode: operatorv1alpha1.PodIdentityEnabled},
		want: Decision{Enabled: true, Reason: ReasonForcedOn, Message: "spec.podIdentity.mode is Enabled (platform None)",
			Bucket: "mycluster-x7k2p-workload-access-oidc", PublishReason: ReasonIssuerNotConfigured, PublishMessage: "no region: the Infrastructure has no AWS region and spec.podIdentity.region is empty"},
	}, {
		name:  "an endpoint that is not a URL",
		infra: infrastructure(configv1.AWSPlatformType, "eu-west-1"),
		spec:  operatorv1alpha1.PodIdentitySpec{Issuer: operatorv1alpha1.IssuerPublishingSpec{Endpoint: "http://"}},
		want: Decision{Enabled: true, Reason: ReasonPlatformAWS, Message: "the Infrastructure platform is AWS", Region: "eu-west-1",
			Bucket: "mycluster-x7k2p-workload-access-oidc", Endpoint: "http://", PublishReason: ReasonIssuerNotConfigured,
			PublishMessage: `spec.podIdentity.issuer.endpoint "http://" is not an http:// or https:// URL without query or fragment`},
	}, {
		name: "no Infrastructure",
		spec: operatorv1alpha1.PodIdentitySpec{Mode: operatorv1alpha1.PodIdentityEnabled},
		want: Decision{Enabled: true, Reason: ReasonForcedOn, Message: "spec.podIdentity.mode is Enabled (platform unknown (no Infrastructure))",
			PublishReason: ReasonIssuerNotConfigured, PublishMessage: "no bucket: the Infrastructure has no infrastructureName and spec.podIdentity.issuer.bucket is empty"},
	}, {
		name:  "a bucket of our own on AWS, covered by the credentials",
		infra: infrastructure(configv1.AWSPlatformType, "eu-west-1"),
		spec:  operatorv1alpha1.PodIdentitySpec{Issuer: operatorv1alpha1.IssuerPublishingSpec{Bucket: "prod-issuer-workload-access-oidc"}},
		want: Decision{Enabled: true, Reason: ReasonPlatformAWS, Message: "the Infrastructure platform is AWS", Region: "eu-west-1",
			Publish: true, Bucket: "prod-issuer-workload-access-oidc", IssuerURL: "https://prod-issuer-workload-access-oidc.s3.eu-west-1.amazonaws.com"},
	}, {
		name:  "a bucket on AWS the credentials do not reach",
		infra: infrastructure(configv1.AWSPlatformType, "eu-west-1"),
		spec:  operatorv1alpha1.PodIdentitySpec{Issuer: operatorv1alpha1.IssuerPublishingSpec{Bucket: "prod-issuer"}},
		want: Decision{Enabled: true, Reason: ReasonPlatformAWS, Message: "the Infrastructure platform is AWS", Region: "eu-west-1",
			Bucket: "prod-issuer", PublishReason: ReasonBucketNotCoveredByCredentials,
			PublishMessage: `spec.podIdentity.issuer.bucket "prod-issuer" is not covered by the operator's S3 credentials: ` +
				`the CredentialsRequest workload-access-issuer-s3 grants them on buckets named "*-workload-access-oidc" only; choose a bucket name ending in "-workload-access-oidc", ` +
				`or, with S3 credentials of your own in that Secret, set spec.podIdentity.issuer.endpoint (for example https://s3.<region>.amazonaws.com)`},
	}, {
		// ccoctl and other OpenShift tooling name issuer buckets so: the
		// operator's credentials no longer reach them.
		name:  "a bucket named as ccoctl names the cluster's own issuer bucket",
		infra: infrastructure(configv1.AWSPlatformType, "eu-west-1"),
		spec:  operatorv1alpha1.PodIdentitySpec{Issuer: operatorv1alpha1.IssuerPublishingSpec{Bucket: "mycluster-x7k2p-oidc"}},
		want: Decision{Enabled: true, Reason: ReasonPlatformAWS, Message: "the Infrastructure platform is AWS", Region: "eu-west-1",
			Bucket: "mycluster-x7k2p-oidc", PublishReason: ReasonBucketNotCoveredByCredentials,
			PublishMessage: `spec.podIdentity.issuer.bucket "mycluster-x7k2p-oidc" is not covered by the operator's S3 credentials: ` +
				`the CredentialsRequest workload-access-issuer-s3 grants them on buckets named "*-workload-access-oidc" only; choose a bucket name ending in "-workload-access-oidc", ` +
				`or, with S3 credentials of your own in that Secret, set spec.podIdentity.issuer.endpoint (for example https://s3.<region>.amazonaws.com)`},
	}, {
		name:  "any valid bucket with an endpoint, dots included",
		infra: infrastructure(configv1.AWSPlatformType, "eu-west-1"),
		spec:  operatorv1alpha1.PodIdentitySpec{Issuer: operatorv1alpha1.IssuerPublishingSpec{Bucket: "issuer.example", Endpoint: "https://s3.eu-west-1.amazonaws.com"}},
		want: Decision{Enabled: true, Reason: ReasonPlatformAWS, Message: "the Infrastructure platform is AWS", Region: "eu-west-1",
			Publish: true, Bucket: "issuer.example", Endpoint: "https://s3.eu-west-1.amazonaws.com", IssuerURL: "https://s3.eu-west-1.amazonaws.com/issuer.example"},
	}, {
		name:  "a default bucket name too long for S3",
		infra: &configv1.Infrastructure{Status: configv1.InfrastructureStatus{InfrastructureName: strings.Repeat("a", 60), PlatformStatus: &configv1.PlatformStatus{Type: configv1.AWSPlatformType, AWS: &configv1.AWSPlatformStatus{Region: "eu-west-1"}}}},
		want: Decision{Enabled: true, Reason: ReasonPlatformAWS, Message: "the Infrastructure platform is AWS", Region: "eu-west-1",
			Bucket: strings.Repeat("a", 60) + "-workload-access-oidc", PublishReason: ReasonInvalidBucketName,
			PublishMessage: `the default bucket name "` + strings.Repeat("a", 60) + `-workload-access-oidc" (infrastructureName and "-workload-access-oidc") is not a usable S3 bucket name: it has 81 characters, S3 allows 3 to 63`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Decide(tc.infra, tc.spec); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestBucketNamesFollowS3Rules(t *testing.T) {
	for _, tc := range []struct {
		bucket, endpoint string
		problem          string // "" when accepted
	}{
		{bucket: "abc-workload-access-oidc"},
		{bucket: "0123-workload-access-oidc"},
		{bucket: strings.Repeat("a", 42) + "-workload-access-oidc"},
		{bucket: "ab", endpoint: "http://s3.local", problem: "it has 2 characters, S3 allows 3 to 63"},
		{bucket: strings.Repeat("a", 43) + "-workload-access-oidc", problem: "it has 64 characters"},
		{bucket: "My-oidc", problem: `'M' is not allowed`},
		{bucket: "my_bucket-oidc", problem: `'_' is not allowed`},
		{bucket: "oidc-", endpoint: "http://s3.local", problem: "must begin and end with a lowercase letter or a digit"},
		{bucket: ".x-oidc", problem: "must begin and end"},
		{bucket: "a..b", endpoint: "http://s3.local", problem: "two adjacent dots"},
		{bucket: "192.168.5.4", endpoint: "http://s3.local", problem: "formatted as an IP address"},
		{bucket: "xn--bcher-oidc", problem: `the prefix "xn--" is reserved`},
		{bucket: "sthree-oidc", problem: `the prefix "sthree-" is reserved`},
		{bucket: "issuer-s3alias", endpoint: "http://s3.local", problem: `the suffix "-s3alias" is reserved`},
		{bucket: "issuer--x-s3", endpoint: "http://s3.local", problem: `the suffix "--x-s3" is reserved`},
		{bucket: "my.cluster-oidc", problem: "certificate does not cover a bucket name with dots"},
		{bucket: "my.cluster-oidc", endpoint: "http://s3.local"},
	} {
		t.Run(tc.bucket+" "+tc.endpoint, func(t *testing.T) {
			d := Decide(infrastructure(configv1.AWSPlatformType, "eu-west-1"),
				operatorv1alpha1.PodIdentitySpec{Issuer: operatorv1alpha1.IssuerPublishingSpec{Bucket: tc.bucket, Endpoint: tc.endpoint}})
			if tc.problem == "" {
				if !d.Publish {
					t.Errorf("refused: %s: %s", d.PublishReason, d.PublishMessage)
				}
				return
			}
			if d.Publish || d.PublishReason != ReasonInvalidBucketName || !strings.Contains(d.PublishMessage, tc.problem) ||
				!strings.Contains(d.PublishMessage, `spec.podIdentity.issuer.bucket "`+tc.bucket+`" is not a usable S3 bucket name`) {
				t.Errorf("publish %v, %s: %q, want %s saying %q", d.Publish, d.PublishReason, d.PublishMessage, ReasonInvalidBucketName, tc.problem)
			}
		})
	}
}

// The issuer URL on AWS S3 is virtual-hosted, as ccoctl writes it: the
// bucket's host under S3's domain in the region's partition. Every
// partition of the AWS SDK's table; a wrong suffix names a host STS cannot
// reach.
func TestIssuerURLInEveryPartition(t *testing.T) {
	for _, tc := range []struct{ region, partition, host string }{
		{"us-east-1", "aws", "s3.us-east-1.amazonaws.com"},
		{"eu-west-1", "aws", "s3.eu-west-1.amazonaws.com"},
		{"cn-northwest-1", "aws-cn", "s3.cn-northwest-1.amazonaws.com.cn"},
		{"us-gov-west-1", "aws-us-gov", "s3.us-gov-west-1.amazonaws.com"},
		{"us-iso-east-1", "aws-iso", "s3.us-iso-east-1.c2s.ic.gov"},
		{"us-isob-east-1", "aws-iso-b", "s3.us-isob-east-1.sc2s.sgov.gov"},
		{"us-isof-south-1", "aws-iso-f", "s3.us-isof-south-1.csp.hci.ic.gov"},
		{"eu-isoe-west-1", "aws-iso-e", "s3.eu-isoe-west-1.cloud.adc-e.uk"},
		{"eusc-de-east-1", "aws-eusc", "s3.eusc-de-east-1.amazonaws.eu"},
	} {
		d := Decide(infrastructure(configv1.AWSPlatformType, tc.region), operatorv1alpha1.PodIdentitySpec{})
		if want := "https://mycluster-x7k2p-workload-access-oidc." + tc.host; d.IssuerURL != want {
			t.Errorf("%s: issuer %q, want %q", tc.region, d.IssuerURL, want)
		}
		if name, _ := Partition(tc.region); name != tc.partition {
			t.Errorf("%s: partition %q, want %q", tc.region, name, tc.partition)
		}
	}
}
