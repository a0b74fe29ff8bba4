package clusterbundles

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	sharedresourcev1alpha1 "github.com/openshift/api/sharedresource/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/controllerref"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlerefs"
)

const (
	// BundleLabel on a share or ClusterRole names the ClusterBundle it was
	// generated for; the controller's informers select on it.
	BundleLabel = "subscription.openshift.io/cluster-bundle"
	// AggregateLabelPrefix + role is the label the built-in admin, edit and
	// view ClusterRoles select to aggregate rules.
	AggregateLabelPrefix = "rbac.authorization.k8s.io/aggregate-to-"
	// ClusterRoleSuffix names the generated ClusterRole <bundle>-subscription-bundle.
	ClusterRoleSuffix = "-subscription-bundle"

	KindSharedSecret    = "SharedSecret"
	KindSharedConfigMap = "SharedConfigMap"

	maxNameLength = 253
	hashLength    = 10
)

// ClusterRoleName is the generated ClusterRole of a bundle.
func ClusterRoleName(bundle string) string { return bundle + ClusterRoleSuffix }

// share is one SharedSecret or SharedConfigMap a bundle needs.
type share struct {
	ref  bundlerefs.Ref
	name string
}

func (s share) kind() string {
	if s.ref.Kind == bundlerefs.Secret {
		return KindSharedSecret
	}
	return KindSharedConfigMap
}

// ShareName is <bundle>-entitlement-<namespace>-<name> for a Secret and
// <bundle>-yum-<namespace>-<name> for a ConfigMap: readable, and the same on
// every sync. A name too long for the API ends in a short hash instead.
func ShareName(bundle string, ref bundlerefs.Ref) string {
	name := fmt.Sprintf("%s-%s-%s-%s", bundle, purpose(ref.Kind), ref.Namespace, ref.Name)
	if len(name) <= maxNameLength {
		return name
	}
	return withHash(name, name)
}

func purpose(kind bundlerefs.Kind) string {
	if kind == bundlerefs.Secret {
		return "entitlement"
	}
	return "yum"
}

// withHash keeps as much of name as fits before a hash of input.
func withHash(name, input string) string {
	sum := sha256.Sum256([]byte(input))
	suffix := hex.EncodeToString(sum[:])[:hashLength]
	if limit := maxNameLength - hashLength - 1; len(name) > limit {
		name = name[:limit]
	}
	// A DNS subdomain's parts must end in an alphanumeric.
	return strings.TrimRight(name, "-.") + "-" + suffix
}

// shares names one share per reference. "a-b"/"c" and "a"/"b-c" would read
// the same, so names that collide get a hash of what they point at.
func shares(bundle string, refs []bundlerefs.Ref) []share {
	out := make([]share, 0, len(refs))
	count := map[string]int{}
	for _, ref := range refs {
		name := ShareName(bundle, ref)
		count[name]++
		out = append(out, share{ref: ref, name: name})
	}
	for i := range out {
		if count[out[i].name] > 1 {
			out[i].name = withHash(out[i].name, out[i].ref.Namespace+"/"+out[i].ref.Name)
		}
	}
	return out
}

func ownerReference(bundle *subscriptionv1alpha1.ClusterBundle) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         subscriptionv1alpha1.SchemeGroupVersion.String(),
		Kind:               "ClusterBundle",
		Name:               bundle.Name,
		UID:                bundle.UID,
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}
}

// ownedBy says whether bundle controls obj. An object of the same name made
// by someone else, or for an earlier bundle of the same name, or whose
// controller names the bundle's kind and UID in another group, is not ours
// to change.
func ownedBy(obj metav1.Object, bundle *subscriptionv1alpha1.ClusterBundle) bool {
	return controllerref.ControlledBy(obj, subscriptionv1alpha1.SchemeGroupVersion.WithKind("ClusterBundle").GroupKind(), bundle.UID)
}

// withLabels returns existing's labels with every aggregate-to-* label
// replaced by want's; other labels of existing are kept.
func withLabels(existing, want map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range existing {
		if !strings.HasPrefix(k, AggregateLabelPrefix) {
			out[k] = v
		}
	}
	for k, v := range want {
		out[k] = v
	}
	return out
}

func desiredSharedSecret(bundle *subscriptionv1alpha1.ClusterBundle, s share) *sharedresourcev1alpha1.SharedSecret {
	return &sharedresourcev1alpha1.SharedSecret{
		ObjectMeta: metav1.ObjectMeta{
			Name:            s.name,
			Labels:          map[string]string{BundleLabel: bundle.Name},
			OwnerReferences: []metav1.OwnerReference{ownerReference(bundle)},
		},
		Spec: sharedresourcev1alpha1.SharedSecretSpec{
			SecretRef:   sharedresourcev1alpha1.SharedSecretReference{Namespace: s.ref.Namespace, Name: s.ref.Name},
			Description: fmt.Sprintf("Entitlement %s of ClusterBundle %s", s.ref, bundle.Name),
		},
	}
}

func desiredSharedConfigMap(bundle *subscriptionv1alpha1.ClusterBundle, s share) *sharedresourcev1alpha1.SharedConfigMap {
	return &sharedresourcev1alpha1.SharedConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:            s.name,
			Labels:          map[string]string{BundleLabel: bundle.Name},
			OwnerReferences: []metav1.OwnerReference{ownerReference(bundle)},
		},
		Spec: sharedresourcev1alpha1.SharedConfigMapSpec{
			ConfigMapRef: sharedresourcev1alpha1.SharedConfigMapReference{Namespace: s.ref.Namespace, Name: s.ref.Name},
			Description:  fmt.Sprintf("Yum repositories %s of ClusterBundle %s", s.ref, bundle.Name),
		},
	}
}

// desiredClusterRole lets its holders get the bundle (the webhook checks
// that for the pod's service account) and use its shares (the Shared
// Resource CSI driver checks that before mounting).
// Its aggregation labels are the bundle's own roles, or defaultRoles when it
// names none.
func desiredClusterRole(bundle *subscriptionv1alpha1.ClusterBundle, all []share, defaultRoles []string) *rbacv1.ClusterRole {
	labels := map[string]string{BundleLabel: bundle.Name}
	for _, role := range aggregateTo(bundle.Spec.AggregateToClusterRoles, defaultRoles) {
		labels[AggregateLabelPrefix+role] = "true"
	}
	rules := []rbacv1.PolicyRule{{
		Verbs:         []string{"get"},
		APIGroups:     []string{subscriptionv1alpha1.SchemeGroupVersion.Group},
		Resources:     []string{"clusterbundles"},
		ResourceNames: []string{bundle.Name},
	}}
	var secrets, configMaps []string
	for _, s := range all {
		if s.kind() == KindSharedSecret {
			secrets = append(secrets, s.name)
		} else {
			configMaps = append(configMaps, s.name)
		}
	}
	for _, r := range []struct {
		resource string
		names    []string
	}{{"sharedsecrets", secrets}, {"sharedconfigmaps", configMaps}} {
		if len(r.names) == 0 {
			continue
		}
		sort.Strings(r.names)
		rules = append(rules, rbacv1.PolicyRule{
			Verbs:         []string{"use"},
			APIGroups:     []string{sharedresourcev1alpha1.GroupName},
			Resources:     []string{r.resource},
			ResourceNames: r.names,
		})
	}
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{
			Name:            ClusterRoleName(bundle.Name),
			Labels:          labels,
			OwnerReferences: []metav1.OwnerReference{ownerReference(bundle)},
		},
		Rules: rules,
	}
}

// shareReferences is status.shares: sorted by kind, then name.
func shareReferences(all []share) []subscriptionv1alpha1.ShareReference {
	out := make([]subscriptionv1alpha1.ShareReference, 0, len(all))
	for _, s := range all {
		out = append(out, subscriptionv1alpha1.ShareReference{Kind: s.kind(), Name: s.name})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	return out
}
