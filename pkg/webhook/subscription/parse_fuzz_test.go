package subscription

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// FuzzNameList parses any annotation value. It never panics; what it
// accepts is exactly the value's entries, each a valid name, first
// occurrence kept, and reads back the same; what it refuses names the
// annotation and accepts nothing.
func FuzzNameList(f *testing.F) {
	const annotation = v1alpha1.InjectBundleAnnotation
	f.Fuzz(func(t *testing.T, value string, allowWildcard bool) {
		names, wildcard, err := nameList(annotation, value, allowWildcard)
		if err != nil {
			if names != nil || wildcard || !strings.HasPrefix(err.Error(), "annotation "+annotation+": ") {
				t.Fatalf("refusal %q came with names %q, wildcard %v", err, names, wildcard)
			}
			return
		}
		if wildcard {
			if !allowWildcard || strings.TrimSpace(value) != "*" || names != nil {
				t.Fatalf("wildcard from %q (allowed %v), names %q", value, allowWildcard, names)
			}
			return
		}
		var entries []string
		for _, item := range strings.Split(value, ",") {
			if entry := strings.TrimSpace(item); !slices.Contains(entries, entry) {
				entries = append(entries, entry)
			}
		}
		if !slices.Equal(names, entries) {
			t.Fatalf("%q parsed to %q, want its entries %q", value, names, entries)
		}
		for _, name := range names {
			if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 || name == "*" {
				t.Fatalf("accepted %q from %q: %v", name, value, errs)
			}
		}
		again, _, err := nameList(annotation, strings.Join(names, ","), allowWildcard)
		if err != nil || !slices.Equal(again, names) {
			t.Fatalf("%q does not read back: %q, %v", strings.Join(names, ","), again, err)
		}
	})
}

// FuzzFilter parses any allow/deny pair and checks the decision for one
// bundle against the lists parsed on their own: denied wins, then allowed
// (everything when there is no allow list or it is "*").
func FuzzFilter(f *testing.F) {
	allowKey, denyKey := v1alpha1.AllowBundlesAnnotation, v1alpha1.DenyBundlesAnnotation
	f.Fuzz(func(t *testing.T, allow, deny string, hasAllow, hasDeny bool, bundle string) {
		annotations := map[string]string{}
		if hasAllow {
			annotations[allowKey] = allow
		}
		if hasDeny {
			annotations[denyKey] = deny
		}
		filter, err := parseFilter(annotations, allowKey, denyKey)
		allowNames, allowAll, allowErr := nameList(allowKey, allow, true)
		denyNames, denyAll, denyErr := nameList(denyKey, deny, true)
		wantErr := (hasAllow && allowErr != nil) || (hasDeny && denyErr != nil)
		if (err != nil) != wantErr {
			t.Fatalf("parseFilter error %v; allow list error %v, deny list error %v", err, allowErr, denyErr)
		}
		if err != nil {
			return
		}
		allowed := !hasAllow || allowAll || slices.Contains(allowNames, bundle)
		denied := hasDeny && (denyAll || slices.Contains(denyNames, bundle))
		if got := filter.admits(bundle); got != (allowed && !denied) {
			t.Fatalf("admits(%q) = %v with %v", bundle, got, annotations)
		}
	})
}
