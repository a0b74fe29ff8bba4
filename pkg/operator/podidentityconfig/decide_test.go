package podidentityconfig

import (
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
			Publish: true, Bucket: "mycluster-x7k2p-oidc", IssuerURL: "https://mycluster-x7k2p-oidc.s3.eu-west-1.amazonaws.com"},
	}, {
		name:  "China partition",
		infra: infrastructure(configv1.AWSPlatformType, "cn-north-1"),
		want: Decision{Enabled: true, Reason: ReasonPlatformAWS, Message: "the Infrastructure platform is AWS", Region: "cn-north-1",
			Publish: true, Bucket: "mycluster-x7k2p-oidc", IssuerURL: "https://mycluster-x7k2p-oidc.s3.cn-north-1.amazonaws.com.cn"},
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
			Bucket: "mycluster-x7k2p-oidc", PublishMessage: "no region: the Infrastructure has no AWS region and spec.podIdentity.region is empty"},
	}, {
		name:  "an endpoint that is not a URL",
		infra: infrastructure(configv1.AWSPlatformType, "eu-west-1"),
		spec:  operatorv1alpha1.PodIdentitySpec{Issuer: operatorv1alpha1.IssuerPublishingSpec{Endpoint: "http://"}},
		want: Decision{Enabled: true, Reason: ReasonPlatformAWS, Message: "the Infrastructure platform is AWS", Region: "eu-west-1",
			Bucket: "mycluster-x7k2p-oidc", Endpoint: "http://",
			PublishMessage: `spec.podIdentity.issuer.endpoint "http://" is not an http:// or https:// URL without query or fragment`},
	}, {
		name: "no Infrastructure",
		spec: operatorv1alpha1.PodIdentitySpec{Mode: operatorv1alpha1.PodIdentityEnabled},
		want: Decision{Enabled: true, Reason: ReasonForcedOn, Message: "spec.podIdentity.mode is Enabled (platform unknown (no Infrastructure))",
			PublishMessage: "no bucket: the Infrastructure has no infrastructureName and spec.podIdentity.issuer.bucket is empty"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Decide(tc.infra, tc.spec); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
