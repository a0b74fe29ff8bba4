package webhookdeployment

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/crypto"
	"github.com/openshift/library-go/pkg/operator/deploymentcontroller"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// containerName is the webhook container in the bindata Deployment.
const containerName = "webhook"

// TLSProfileHook makes the webhook serve with the cluster's TLS security
// profile (apiservers.config.openshift.io/cluster spec.tlsSecurityProfile),
// the one every OpenShift serving endpoint follows: the minimum version and,
// for TLS 1.2, the cipher suites, as flags. No APIServer object or no profile
// means Intermediate, OpenShift's default.
func TLSProfileHook(apiservers configv1listers.APIServerLister) deploymentcontroller.DeploymentHookFunc {
	return func(_ *operatorv1.OperatorSpec, deployment *appsv1.Deployment) error {
		var profile *configv1.TLSSecurityProfile
		apiserver, err := apiservers.Get("cluster")
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return fmt.Errorf("reading the cluster's TLS security profile: %w", err)
		default:
			profile = apiserver.Spec.TLSSecurityProfile
		}
		args, err := TLSArgs(profile)
		if err != nil {
			return err
		}
		for i := range deployment.Spec.Template.Spec.Containers {
			c := &deployment.Spec.Template.Spec.Containers[i]
			if c.Name == containerName {
				c.Args = append(c.Args, args...)
				return nil
			}
		}
		return fmt.Errorf("the webhook Deployment has no %q container", containerName)
	}
}

// TLSArgs are the webhook flags for a profile.
func TLSArgs(profile *configv1.TLSSecurityProfile) ([]string, error) {
	spec := configv1.TLSProfiles[configv1.TLSProfileIntermediateType]
	if profile != nil {
		switch profile.Type {
		case configv1.TLSProfileCustomType:
			if profile.Custom == nil {
				return nil, fmt.Errorf("the cluster's TLS security profile is Custom but names no ciphers or version")
			}
			spec = &profile.Custom.TLSProfileSpec
		case "":
		default:
			known, ok := configv1.TLSProfiles[profile.Type]
			if !ok {
				return nil, fmt.Errorf("the cluster's TLS security profile %q is unknown", profile.Type)
			}
			spec = known
		}
	}
	minVersion := string(spec.MinTLSVersion)
	if _, err := crypto.TLSVersion(minVersion); err != nil {
		return nil, fmt.Errorf("the cluster's TLS security profile: %w", err)
	}
	args := []string{"--tls-min-version=" + minVersion}
	// Go fixes the TLS 1.3 suites, so only TLS 1.2 ones are passed; OpenSSL
	// names with no Go counterpart drop out.
	var ciphers []string
	for _, name := range crypto.OpenSSLToIANACipherSuites(spec.Ciphers) {
		if tls12Suites[name] {
			ciphers = append(ciphers, name)
		}
	}
	if len(ciphers) > 0 {
		args = append(args, "--tls-cipher-suites="+strings.Join(ciphers, ","))
	}
	return args, nil
}

// tls12Suites are the secure suites Go can negotiate over TLS 1.2.
var tls12Suites = func() map[string]bool {
	suites := map[string]bool{}
	for _, s := range tls.CipherSuites() {
		if slices.Contains(s.SupportedVersions, tls.VersionTLS12) {
			suites[s.Name] = true
		}
	}
	return suites
}()
