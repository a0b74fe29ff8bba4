package subscription

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

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
