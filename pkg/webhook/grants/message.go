package grants

import (
	"fmt"
	"strings"
)

// denial names what the requester lacks: the first few permissions in the
// object's order, and how many more.
func denial(what string, r Requester, ms []missing) string {
	if len(ms) == 1 {
		return fmt.Sprintf("%s grants %s, which %s does not hold; you can only grant what you hold",
			what, describeMissing(ms[0]), describeRequester(r))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s grants %d permissions %s does not hold: ", what, len(ms), describeRequester(r))
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
	return describePermission(m.n.p) + " " + where
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
