package podidentity

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
)

// FuzzContainerLists admits a pod with any containers (names
// comma-separated, init containers apart) under any allow-containers and
// skip-containers. A malformed or blank allow-list, or a malformed skip
// list, is refused naming its annotation; a name in both lists is refused
// naming both annotations and such names (the first five, sorted, and how
// many more), in a message of bounded length; otherwise exactly the
// containers allowed (every one, without an allow-list) and not skipped get
// the credentials, the others are left as they were, and the patched pod
// admitted again is not patched.
func FuzzContainerLists(f *testing.F) {
	f.Add("migrate", "web,proxy", "web,migrate", "proxy", true, true)
	f.Add("", "web,proxy", " web ,web", "", true, false)
	f.Add("", "web", "web", "web", true, true)
	f.Add("", "web", " ", "", true, false)
	f.Add("", "web,proxy", "debugger", "", true, false)
	f.Add("", "web", "a,b,c,d,e,f,g", "g,f,e,d,c,b,a", true, true)
	f.Fuzz(func(t *testing.T, initNames, names, allow, skip string, hasAllow, hasSkip bool) {
		// Pods have a few containers; thousands only slow the patch down.
		if strings.Count(initNames, ",")+strings.Count(names, ",") > 30 {
			return
		}
		p := &corev1.Pod{}
		p.GenerateName, p.Namespace, p.Spec.ServiceAccountName = "frontend-", ns, "frontend"
		if initNames != "" {
			for _, n := range strings.Split(initNames, ",") {
				p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: n})
			}
		}
		for _, n := range strings.Split(names, ",") {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: n})
		}
		p.Annotations = map[string]string{}
		if hasAllow {
			p.Annotations[podidentityv1alpha1.AllowContainersAnnotation] = allow
		}
		if hasSkip {
			p.Annotations[podidentityv1alpha1.SkipContainersAnnotation] = skip
		}
		// The annotations as the mutator reads them, after JSON.
		encoded, pod := mutationtest.Reencode(t, p)
		allow, skip = pod.Annotations[podidentityv1alpha1.AllowContainersAnnotation], pod.Annotations[podidentityv1alpha1.SkipContainersAnnotation]

		m := New(DefaultConfig(), serviceAccounts{ns + "/frontend": withRole()})
		req := mutation.RequestFor(admissionv1.Create, ns, "", pod, nil)
		result := m.Mutate(context.Background(), req)

		skipped, skipErr := parseContainerNames(skip)
		allowed, allowErr := parseContainerNames(allow)
		var both []string
		for name := range allowed {
			if skipped[name] {
				both = append(both, name)
			}
		}
		d := result.Denied
		switch {
		case hasSkip && skipErr != nil:
			if d == nil || d.Reason != reasonMalformedAnnotation || !strings.HasPrefix(d.Message, "annotation "+podidentityv1alpha1.SkipContainersAnnotation+" on pod ") {
				t.Fatalf("skip-containers %q (%v) not refused as malformed: %+v", skip, skipErr, result)
			}
			return
		case hasAllow && (allowErr != nil || allowed == nil):
			if d == nil || d.Reason != reasonMalformedAnnotation || !strings.HasPrefix(d.Message, "annotation "+podidentityv1alpha1.AllowContainersAnnotation+" on pod ") {
				t.Fatalf("allow-containers %q (%v) not refused as malformed: %+v", allow, allowErr, result)
			}
			return
		case hasAllow && hasSkip && len(both) > 0:
			if d == nil || d.Reason != reasonConflict || !strings.Contains(d.Message, podidentityv1alpha1.AllowContainersAnnotation) ||
				!strings.Contains(d.Message, podidentityv1alpha1.SkipContainersAnnotation) {
				t.Fatalf("%v both allowed and skipped, not refused naming both annotations: %+v", both, result)
			}
			slices.Sort(both)
			for _, name := range both[:min(len(both), maxQuotedNames)] {
				if !strings.Contains(d.Message, strconv.Quote(name)) {
					t.Fatalf("refusal does not name container %q: %s", name, d.Message)
				}
			}
			if len(both) > maxQuotedNames && !strings.Contains(d.Message, fmt.Sprintf(" and %d more ", len(both)-maxQuotedNames)) {
				t.Fatalf("refusal does not say how many more: %s", d.Message)
			}
			if len(d.Message) > 2000 {
				t.Fatalf("a %d-byte refusal", len(d.Message))
			}
			return
		case d != nil:
			t.Fatalf("refused %s: %s", d.Reason, d.Message)
		}

		ops, err := json.Marshal(result.Patch)
		if err != nil {
			t.Fatal(err)
		}
		patched := mutationtest.ApplyJSONPatch(t, encoded, ops)
		gets := func(name string) bool { return (!hasAllow || allowed[name]) && !skipped[name] }
		left := map[string]bool{}
		for _, c := range slices.Concat(pod.Spec.InitContainers, pod.Spec.Containers) {
			if !gets(c.Name) {
				left[c.Name] = true
			}
		}
		keepsTheUsersOwn(t, pod, patched, left)
		for _, c := range slices.Concat(patched.Spec.InitContainers, patched.Spec.Containers) {
			got := slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == envRoleARN })
			mounted := slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == VolumeName })
			if got != gets(c.Name) || mounted != gets(c.Name) {
				t.Fatalf("container %q: credentials %v, token mounted %v; allow-list %q (set %v), skip list %q", c.Name, got, mounted, allow, hasAllow, skip)
			}
		}
		mutationtest.Readmit(t, m, req, patched, ops)
	})
}
