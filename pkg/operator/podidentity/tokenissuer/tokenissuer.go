// Package tokenissuer says which issuers the cluster's service account
// tokens carry in their iss claim: the one kube-apiserver signs for now
// (Authentication/cluster spec.serviceAccountIssuer), and those before it
// whose tokens kube-apiserver still accepts (the kube-apiserver operator
// lists them in KubeAPIServer/cluster status.serviceAccountIssuers, each
// with the time it stops: 24 hours after the change). An IAM role's trust
// must follow them, whoever publishes them: ccoctl on an STS-mode cluster,
// this operator on a mint-mode one after the day-2 change.
package tokenissuer

import (
	"slices"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamrole"
)

// KubernetesDefault is the issuer kube-apiserver signs for when
// Authentication/cluster names none: a name inside the cluster, which AWS
// STS cannot fetch keys from.
const KubernetesDefault = "https://kubernetes.default.svc"

// Issuers are the issuers tokens presented now may carry.
type Issuers struct {
	// Current is what new tokens carry.
	Current string
	// CurrentSet says Authentication/cluster names Current; false when it
	// is KubernetesDefault because nothing is set.
	CurrentSet bool
	// Previous are earlier issuers whose tokens are still accepted, in
	// the order the kube-apiserver operator lists them.
	Previous []string
	// PreviousUntil is when the first of Previous stops being accepted;
	// zero without Previous.
	PreviousUntil time.Time
}

// Read returns the issuers at now. auth and kas may be nil (absent).
func Read(auth *configv1.Authentication, kas *operatorv1.KubeAPIServer, now time.Time) Issuers {
	is := Issuers{Current: KubernetesDefault}
	if auth != nil && auth.Spec.ServiceAccountIssuer != "" {
		is.Current, is.CurrentSet = auth.Spec.ServiceAccountIssuer, true
	}
	if kas == nil {
		return is
	}
	for _, previous := range kas.Status.ServiceAccountIssuers {
		// An entry without an expiration is the current one, as the
		// kube-apiserver operator last saw it; an expired one is no longer
		// accepted.
		if previous.Name == "" || previous.ExpirationTime == nil || !previous.ExpirationTime.Time.After(now) ||
			previous.Name == is.Current || slices.Contains(is.Previous, previous.Name) {
			continue
		}
		is.Previous = append(is.Previous, previous.Name)
		if is.PreviousUntil.IsZero() || previous.ExpirationTime.Time.Before(is.PreviousUntil) {
			is.PreviousUntil = previous.ExpirationTime.Time
		}
	}
	return is
}

// All is Current, then Previous.
func (is Issuers) All() []string { return append([]string{is.Current}, is.Previous...) }

// Public says whether AWS STS can fetch the keys of issuer: an https:// URL
// IAM can register, and not the in-cluster default.
func Public(issuer string) bool {
	if issuer == KubernetesDefault || issuer == KubernetesDefault+"/" {
		return false
	}
	_, err := iamrole.IssuerHostPath(issuer)
	return err == nil
}
