package scopes

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
)

// maxNamed is how many namespaces, roles or bindings a condition message
// names before it counts the rest.
const maxNamed = 3

// maxErrorText bounds each API error a condition message quotes: an
// admission webhook's or policy's refusal can be long, and a condition is
// read in a terminal. Errors of RBAC writes name the object, the verb and
// the refused field, never data of the cluster's Secrets.
const maxErrorText = 1024

// named lists up to maxNamed items and counts the rest.
func named(items []string) string { return conditions.Named(items, maxNamed) }

// failureMessage names a few failures, in order, and counts the rest.
func failureMessage(failures map[string]error) string {
	keys := make([]string, 0, len(failures))
	for key := range failures {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	parts := make([]string, 0, maxNamed)
	for _, key := range keys[:min(len(keys), maxNamed)] {
		parts = append(parts, fmt.Sprintf("%s: %s", key, errorText(failures[key])))
	}
	out := strings.Join(parts, "; ")
	if more := len(keys) - maxNamed; more > 0 {
		out += fmt.Sprintf("; and %d more", more)
	}
	return out
}

// errorText is err's text cut to maxErrorText bytes, on a character
// boundary, saying so when cut.
func errorText(err error) string {
	text := err.Error()
	if len(text) <= maxErrorText {
		return text
	}
	// Step back over at most one character's continuation bytes: text that
	// is not UTF-8 at all is still cut near the bound, not emptied.
	cut := maxErrorText
	for back := 1; back < utf8.UTFMax && !utf8.RuneStart(text[cut]); back++ {
		cut--
	}
	return fmt.Sprintf("%s... (cut: %d of %d bytes)", text[:cut], cut, len(text))
}
