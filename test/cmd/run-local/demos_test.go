package main

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

var heredocStart = regexp.MustCompile(`<<'([A-Z]+)'$`)

// Each printed demo's heredocs end where a shell ends them (a line holding
// only the delimiter) and hold the kinds the demo names, with no field the
// API would drop: a reader pastes them as they are.
func TestDemosPasteIntoAShell(t *testing.T) {
	for name, demo := range map[string]struct {
		text  string
		kinds []string
	}{
		"scopes":     {scopesDemo, []string{"ScopeTemplate", "ScopeInstance"}},
		"api access": {apiAccessDemo, []string{"APIAccessPolicy"}},
	} {
		var kinds []string
		lines := strings.Split(demo.text, "\n")
		for i := 0; i < len(lines); i++ {
			m := heredocStart.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			end := i + 1
			for end < len(lines) && lines[end] != m[1] {
				end++
			}
			if end == len(lines) {
				t.Errorf("%s: the heredoc opened at line %d never ends: no line is exactly %q", name, i+1, m[1])
				break
			}
			for _, doc := range strings.Split(strings.Join(lines[i+1:end], "\n"), "\n---\n") {
				kinds = append(kinds, decodeStrict(t, name, doc))
			}
			i = end
		}
		if strings.Join(kinds, ",") != strings.Join(demo.kinds, ",") {
			t.Errorf("%s: heredocs hold %v, want %v", name, kinds, demo.kinds)
		}
	}
}

// decodeStrict decodes one YAML document into its API type, refusing unknown
// fields, and returns its kind.
func decodeStrict(t *testing.T, demo, doc string) string {
	t.Helper()
	var meta struct{ APIVersion, Kind string }
	if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
		t.Errorf("%s: %v in\n%s", demo, err, doc)
		return ""
	}
	var into any
	switch meta.APIVersion + " " + meta.Kind {
	case scopesv1alpha1.SchemeGroupVersion.String() + " ScopeTemplate":
		into = &scopesv1alpha1.ScopeTemplate{}
	case scopesv1alpha1.SchemeGroupVersion.String() + " ScopeInstance":
		into = &scopesv1alpha1.ScopeInstance{}
	case apiaccessv1alpha1.SchemeGroupVersion.String() + " APIAccessPolicy":
		into = &apiaccessv1alpha1.APIAccessPolicy{}
	case podidentityv1alpha1.SchemeGroupVersion.String() + " IAMRoleRequest":
		into = &podidentityv1alpha1.IAMRoleRequest{}
	default:
		t.Errorf("%s: unexpected %s %s in\n%s", demo, meta.APIVersion, meta.Kind, doc)
		return meta.Kind
	}
	if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
		t.Errorf("%s: %s: %v", demo, meta.Kind, err)
	}
	return meta.Kind
}

// The IAMRoleRequest run-local creates is the one it prints, in full, for
// the namespace it creates.
func TestRolesDemoShowsTheRequestItCreates(t *testing.T) {
	if kind := decodeStrict(t, "roles", rolesDemoRequest); kind != "IAMRoleRequest" {
		t.Fatalf("rolesDemoRequest is a %q", kind)
	}
	request := &podidentityv1alpha1.IAMRoleRequest{}
	if err := yaml.UnmarshalStrict([]byte(rolesDemoRequest), request); err != nil {
		t.Fatal(err)
	}
	if request.Spec.Storage.ServiceAccount.Namespace != rolesDemoNamespace {
		t.Errorf("the request names namespace %q; run-local creates %q", request.Spec.Storage.ServiceAccount.Namespace, rolesDemoNamespace)
	}
	for _, providerARN := range []string{"", "arn:aws:iam::000000000000:oidc-provider/127.0.0.1/local-oidc"} {
		text := rolesDemo(rolesDemoInput{iamEndpoint: "http://127.0.0.1:1", region: "us-east-1", bucket: "local-oidc", providerARN: providerARN})
		if !strings.Contains(text, rolesDemoRequest) || !strings.Contains(text, "name: "+request.Name) {
			t.Errorf("the printed demo does not show the request it creates:\n%s", text)
		}
	}
}

// With the network namespace, run-local prints the whole chain's commands;
// without it, why no pod gets credentials, and no commands that would fail.
func TestRolesDemoPrintsTheChainOnlyWhereItWorks(t *testing.T) {
	in := rolesDemoInput{iamEndpoint: "http://127.0.0.1:1", s3Endpoint: "http://127.0.0.1:2", region: "us-east-1", bucket: "local-oidc",
		issuerURL: "https://192.0.2.10/local-oidc", providerARN: "arn:aws:iam::000000000000:oidc-provider/192.0.2.10/local-oidc"}
	text := rolesDemo(in)
	if !strings.Contains(text, "\n"+chainHeading+"\n") || strings.Count(text, "# allowed\n") != 1 || !strings.Contains(text, "/local-oidc/"+demoObjectKey+"; echo   # allowed") {
		t.Errorf("with the namespace, the chain's commands with one allowed read of %s:\n%s", demoObjectKey, text)
	}
	for _, providerARN := range []string{"", in.providerARN} {
		in.providerARN, in.chainErr = providerARN, errors.New("creating a network namespace (as uid 1000, in a user namespace) failed")
		text := rolesDemo(in)
		if strings.Contains(text, chainHeading) || strings.Contains(text, "AssumeRoleWithWebIdentity") {
			t.Errorf("without the namespace, the chain's commands are printed:\n%s", text)
		}
		if !strings.Contains(text, in.chainErr.Error()) {
			t.Errorf("without the namespace, run-local does not say why:\n%s", text)
		}
	}
}
