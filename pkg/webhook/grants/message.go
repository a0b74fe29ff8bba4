package grants

import (
	"fmt"
	"slices"
	"strings"
)

// denial names what the requester lacks: the first few permissions in the
// object's order, and how many more.
func denial(what string, r Requester, ms []missing) string {
	if len(ms) == 1 && ms[0].n.writes {
		return fmt.Sprintf("%s has bindings written: that needs %s, which %s does not hold; you can only grant what you hold, where you may create bindings",
			what, describeMissing(ms[0]), describeRequester(r))
	}
	if len(ms) == 1 {
		return fmt.Sprintf("%s grants %s, which %s does not hold; you can only grant what you hold",
			what, describeMissing(ms[0]), describeRequester(r))
	}
	verb := "grants"
	if slices.ContainsFunc(ms, func(m missing) bool { return m.n.writes }) {
		verb = "grants or needs"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %d permissions %s does not hold: ", what, verb, len(ms), describeRequester(r))
	for i, m := range ms[:min(len(ms), maxNamed)] {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(describeMissing(m))
	}
	if len(ms) > maxNamed {
		fmt.Fprintf(&b, "; and %d more", len(ms)-maxNamed)
	}
	b.WriteString("; you can only grant what you hold")
	return b.String()
}

func describeMissing(m missing) string {
	where := "cluster-wide"
	if m.namespace != "" {
		where = fmt.Sprintf("in namespace %q", m.namespace)
	}
	s := describePermission(m.n.p) + " " + where
	if m.n.writes {
		s += " (to create the bindings)"
	}
	return s
}

func describePermission(p Permission) string {
	if p.NonResourceURL != "" {
		return fmt.Sprintf("verb %q on non-resource URL %q", p.Verb, p.NonResourceURL)
	}
	resource := p.Resource
	if p.Subresource != "" {
		resource += "/" + p.Subresource
	}
	s := fmt.Sprintf("verb %q on %q", p.Verb, resource)
	if p.Name != "" {
		s += fmt.Sprintf(" named %q", p.Name)
	}
	return s + fmt.Sprintf(" (group %q)", p.Group)
}

func describeRequester(r Requester) string {
	return fmt.Sprintf("user %q", r.Name)
}
