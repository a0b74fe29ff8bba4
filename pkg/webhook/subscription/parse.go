package subscription

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// request is what a pod's annotations ask of the injection. Planning reads
// nothing else of them.
type request struct {
	// bundles and clusterBundles are the names the pod asks for.
	bundles, clusterBundles []string
	// bundleFilter and clusterFilter choose among always-inject bundles.
	bundleFilter, clusterFilter filter
	// automatic is whether always-inject bundles reach the pod at all.
	automatic bool
	// recorded is whether the pod carries an earlier injection's record (a
	// copy of an injected pod's spec, or a reinvocation); own is which of
	// its volumes that record says the injection added.
	recorded bool
	own      ownership
	// warnings explain annotations ignored.
	warnings []string
}

// asks reports whether the pod asked for any bundle by annotation: a pod
// that did not is never refused.
func (r *request) asks() bool { return len(r.bundles) > 0 || len(r.clusterBundles) > 0 }

// parseRequest reads the inject, filter and record annotations, refusing a
// pod that asks for bundles in words that do not parse.
func parseRequest(namespace string, annotations map[string]string) (request, *denial) {
	var r request
	var d *denial
	if r.bundles, d = r.requestedNames(annotations, subscriptionv1alpha1.InjectBundleAnnotation); d != nil {
		return r, d
	}
	if r.clusterBundles, d = r.requestedNames(annotations, subscriptionv1alpha1.InjectClusterBundleAnnotation); d != nil {
		return r, d
	}
	var bundleErr, clusterErr error
	r.bundleFilter, bundleErr = parseFilter(annotations, subscriptionv1alpha1.AllowBundlesAnnotation, subscriptionv1alpha1.DenyBundlesAnnotation)
	r.clusterFilter, clusterErr = parseFilter(annotations, subscriptionv1alpha1.AllowClusterBundlesAnnotation, subscriptionv1alpha1.DenyClusterBundlesAnnotation)
	// A malformed filter refuses a pod that asked for bundles, as any
	// malformed request does. A pod that asked for nothing is admitted, but
	// without any automatic injection: which bundles it meant to refuse is
	// not known.
	r.automatic = bundleErr == nil && clusterErr == nil && !platformPod(namespace, annotations)
	for _, err := range []error{bundleErr, clusterErr} {
		switch {
		case err == nil:
		case r.asks():
			return r, deny(reasonMalformedAnnotation, "%v", err)
		default:
			r.warnings = append(r.warnings, fmt.Sprintf("%v; the pod asks for no bundle, so it was admitted without automatic subscription injection", err))
		}
	}
	_, r.recorded = annotations[subscriptionv1alpha1.BundleGenerationsAnnotation]
	r.own = ownershipOf(annotations, subscriptionv1alpha1.BundleGenerationsAnnotation)
	return r, nil
}

// requestedNames parses an inject annotation. A value that is empty or
// only spaces asks for nothing: Helm charts render unset values that way.
// It is ignored, with a warning, everywhere: here, in the webhook
// configuration and in the injection-required policy.
func (r *request) requestedNames(annotations map[string]string, key string) ([]string, *denial) {
	v, ok := annotations[key]
	if !ok {
		return nil, nil
	}
	if !mutation.Asks(annotations, key) {
		r.warnings = append(r.warnings, fmt.Sprintf("annotation %s is empty, so it asks for no bundle; it was ignored", key))
		return nil, nil
	}
	names, _, err := nameList(key, v, false)
	if err != nil {
		return nil, deny(reasonMalformedAnnotation, "%v", err)
	}
	return names, nil
}

// asksForBundles reports whether the pod asks for a bundle by annotation.
func asksForBundles(annotations map[string]string) bool {
	return mutation.Asks(annotations, subscriptionv1alpha1.InjectBundleAnnotation) || mutation.Asks(annotations, subscriptionv1alpha1.InjectClusterBundleAnnotation)
}

// nameList parses a comma-separated annotation value of object names.
// Spaces around names are tolerated; empty entries and invalid names are
// not, because a typo would otherwise silently inject less than asked.
// allowWildcard accepts "*" alone (allow/deny lists only).
func nameList(annotation, value string, allowWildcard bool) (names []string, wildcard bool, err error) {
	if allowWildcard && strings.TrimSpace(value) == "*" {
		return nil, true, nil
	}
	seen := map[string]bool{}
	for i, item := range strings.Split(value, ",") {
		name := strings.TrimSpace(item)
		switch {
		case name == "":
			return nil, false, fmt.Errorf("annotation %s: %q is malformed: entry %d is empty; expected a comma-separated list of names", annotation, value, i+1)
		case name == "*":
			return nil, false, fmt.Errorf("annotation %s: %q is malformed: \"*\" is only allowed alone, in allow/deny annotations", annotation, value)
		}
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			return nil, false, fmt.Errorf("annotation %s: %q is malformed: %q is not a valid bundle name: %s", annotation, value, name, strings.Join(errs, "; "))
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names, false, nil
}

// filter is a pod's allow/deny choice over always-inject bundles.
type filter struct {
	allowAll, denyAll bool
	allow, deny       map[string]bool
}

func parseFilter(annotations map[string]string, allowKey, denyKey string) (filter, error) {
	f := filter{allowAll: true}
	if v, ok := annotations[allowKey]; ok {
		names, all, err := nameList(allowKey, v, true)
		if err != nil {
			return f, err
		}
		f.allowAll, f.allow = all, set(names)
	}
	if v, ok := annotations[denyKey]; ok {
		names, all, err := nameList(denyKey, v, true)
		if err != nil {
			return f, err
		}
		f.denyAll, f.deny = all, set(names)
	}
	return f, nil
}

// admits reports whether an always-inject bundle passes the pod's filter:
// allowed (all when no allow list) and not denied.
func (f filter) admits(name string) bool {
	if f.denyAll || f.deny[name] {
		return false
	}
	return f.allowAll || f.allow[name]
}

func set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// platformPod reports whether a pod is the platform's, which automatic
// injection never reaches: static (mirror) pods, and pods in openshift,
// openshift-* and kube-* namespaces. Such a pod still gets what it asks
// for. The fail-open webhook's matchConditions skip the same pods while
// nothing else needs them (pkg/operator/admission/webhookcabundle).
func platformPod(namespace string, annotations map[string]string) bool {
	if _, mirror := annotations[mutation.MirrorPodAnnotation]; mirror {
		return true
	}
	return namespace == "openshift" || strings.HasPrefix(namespace, "openshift-") || strings.HasPrefix(namespace, "kube-")
}

// ownership is which of a pod's volumes an earlier injection added, as its
// bundle-generations record says. Only those, and their mounts, are ever
// replaced or given to debug containers: anything else is the user's,
// whatever its name.
type ownership struct {
	// legacy is a record written before records named their volumes: it
	// owns every volume with a name the injection gives.
	legacy bool
	names  []string
}

// ownershipOf reads the pod's record. No record, or one that does not
// parse (it was not written by the webhook), owns nothing.
func ownershipOf(annotations map[string]string, key string) ownership {
	raw, ok := annotations[key]
	if !ok {
		return ownership{}
	}
	var record struct {
		Volumes []string `json:"volumes"`
	}
	if json.Unmarshal([]byte(raw), &record) != nil {
		return ownership{}
	}
	if record.Volumes == nil {
		return ownership{legacy: true}
	}
	return ownership{names: record.Volumes}
}

// owns reports whether the volume is the injection's. Only names the
// injection gives count, so a record edited by hand cannot make the
// webhook drop a user's volume.
func (o ownership) owns(name string) bool {
	return isInjectedVolume(name) && (o.legacy || slices.Contains(o.names, name))
}
