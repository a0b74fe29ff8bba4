package olmscopes

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseCSV: whatever a ClusterServiceVersion holds (whoever may write
// one chooses its permissions), parseCSV never panics, and what it accepts
// plans into ScopeTemplates the API accepts: at most 16 roles of at most 64
// rules, each for a ServiceAccount of the CSV's namespace, under names of
// at most 63 characters.
func FuzzParseCSV(f *testing.F) {
	f.Add(`{"metadata":{"name":"etcd.v0.9.4","namespace":"ops","uid":"u1"},"spec":{"replaces":"etcd.v0.9.2","install":{"strategy":"deployment","spec":{"permissions":[{"serviceAccountName":"etcd","rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}],"clusterPermissions":[{"serviceAccountName":"etcd","rules":[{"nonResourceURLs":["/metrics"],"verbs":["get"]}]}]}}}}`, "a,b")
	f.Add(`{"metadata":{"name":"x","namespace":"n","uid":"u"},"spec":{"install":{"spec":{"permissions":[{"serviceAccountName":"Bad Name","rules":[]}]}}}}`, "")
	f.Add(`{"metadata":{"name":"x","namespace":"n","uid":"u"},"spec":{"install":{"spec":{"permissions":[{"serviceAccountName":"a","rules":[{"verbs":["*"],"resources":["*"]}]}]}}}}`, "n")
	f.Add(`{"metadata":{"name":"`+strings.Repeat("long", 40)+`","namespace":"`+strings.Repeat("n", 63)+`","uid":"u"},"spec":{"install":{"spec":{"clusterPermissions":[{"serviceAccountName":"a","rules":[{"apiGroups":["*"],"resources":["*"],"verbs":["*"]}]}]}}}}`, "")
	f.Fuzz(func(t *testing.T, raw, targets string) {
		var obj map[string]any
		if err := json.Unmarshal([]byte(raw), &obj); err != nil {
			return
		}
		c, err := parseCSV(obj)
		if err != nil {
			return
		}
		var ts []string
		if targets != "" {
			ts = strings.Split(targets, ",")
		}
		groups := map[string][]operatorGroup{c.Namespace: {{Name: "g", Namespace: c.Namespace, Targets: ts, AllNamespaces: len(ts) == 0}}}
		d := plan(c, groups, config{bindAll: true})
		for _, p := range d.pairs {
			if len(p.name) > maxNameLength {
				t.Fatalf("name %q is longer than %d", p.name, maxNameLength)
			}
			if n := len(p.template.ClusterRoles); n == 0 || n > maxRolesPerTemplate {
				t.Fatalf("%d roles", n)
			}
			for _, r := range p.template.ClusterRoles {
				if len(r.Rules) == 0 || len(r.Rules) > maxRulesPerRole {
					t.Fatalf("%d rules", len(r.Rules))
				}
				if len(r.Subjects) != 1 || r.Subjects[0].Namespace != c.Namespace {
					t.Fatalf("subjects %+v", r.Subjects)
				}
			}
			if _, err := questions(p.entries, p.namespaces); err != nil && !strings.Contains(err.Error(), "more than") {
				t.Fatal(err)
			}
		}
	})
}
