package podidentity

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// roleARN is the role ARN grammar written once more as a regular
// expression, for the parser to be checked against; the path length is
// checked apart.
var roleARN = regexp.MustCompile(`^arn:aws[a-z0-9-]*:iam::[0-9]{12}:role/((?:[A-Za-z0-9_+=,.@-][A-Za-z0-9_+=,.@/-]*/)?)[A-Za-z0-9_+=,.@-]{1,64}$`)

// FuzzPodIdentityAnnotations reads any value as every annotation. Each
// parser accepts exactly its grammar (checked against the standard library
// or a regular expression), what it accepts reads back the same, and a
// refusal, even of a huge value, is a message of bounded length naming the
// annotation and its object.
func FuzzPodIdentityAnnotations(f *testing.F) {
	f.Fuzz(func(t *testing.T, value string) {
		// Role ARN.
		err := parseRoleARN(value)
		match := roleARN.FindStringSubmatch(value)
		want := match != nil && len(match[1])+1 <= maxRolePathLength
		if (err == nil) != want {
			t.Fatalf("parseRoleARN(%q) = %v; the grammar says valid=%v", value, err, want)
		}

		// Audience.
		if parseAudience(value) == nil && (value == "" || strings.TrimSpace(value) != value) {
			t.Fatalf("audience %q accepted", value)
		}

		// sts-regional-endpoints: exactly what strconv.ParseBool reads.
		b, err := parseRegionalSTS(value)
		wantB, wantErr := strconv.ParseBool(value)
		if (err == nil) != (wantErr == nil) || b != wantB {
			t.Fatalf("parseRegionalSTS(%q) = %v, %v; ParseBool says %v, %v", value, b, err, wantB, wantErr)
		}

		// token-expiration: whole seconds from 0 to 2^32.
		seconds, err := parseExpiration(value)
		n, nErr := strconv.ParseInt(value, 10, 64)
		if wantOK := nErr == nil && n >= 0 && n <= MaxTokenExpiration; (err == nil) != wantOK || err == nil && seconds != n {
			t.Fatalf("parseExpiration(%q) = %d, %v", value, seconds, err)
		}
		if err == nil {
			if again, err := parseExpiration(strconv.FormatInt(seconds, 10)); err != nil || again != seconds {
				t.Fatalf("%d does not read back: %d, %v", seconds, again, err)
			}
		}

		// skip-containers: the trimmed entries, each a container name.
		skip, err := parseContainerNames(value)
		if err != nil && skip != nil {
			t.Fatalf("refusal %q came with names %v", err, skip)
		}
		if err == nil && strings.TrimSpace(value) != "" {
			var names []string
			for _, item := range strings.Split(value, ",") {
				name := strings.TrimSpace(item)
				if len(validation.IsDNS1123Label(name)) > 0 || !skip[name] {
					t.Fatalf("%q accepted, with entry %q, as %v", value, name, skip)
				}
				names = append(names, name)
			}
			if again, err := parseContainerNames(strings.Join(names, ",")); err != nil || len(again) != len(skip) {
				t.Fatalf("%q does not read back: %v, %v", strings.Join(names, ","), again, err)
			}
		} else if err == nil && len(skip) != 0 {
			t.Fatalf("blank %q skips %v", value, skip)
		}

		// A value is quoted whole when short, else cut at a rune boundary.
		q := quote(value)
		if len(value) <= maxQuotedValue {
			if unquoted, err := strconv.Unquote(q); err != nil || unquoted != value {
				t.Fatalf("quote(%q) = %s", value, q)
			}
		} else {
			head, _, ok := strings.Cut(q, "... (")
			unquoted, err := strconv.Unquote(head)
			if !ok || err != nil || !strings.HasPrefix(value, unquoted) || len(unquoted) > maxQuotedValue || len(unquoted) < maxQuotedValue-utf8.UTFMax ||
				!strings.HasSuffix(q, "("+strconv.Itoa(len(value))+" bytes in all)") {
				t.Fatalf("quote of a %d-byte value = %s", len(value), q)
			}
		}

		// Every annotation at once, on a pod and its ServiceAccount: the
		// first malformed one is refused, naming it and its object.
		for _, key := range []string{podidentityv1alpha1.RoleARNAnnotation, podidentityv1alpha1.AudienceAnnotation, podidentityv1alpha1.RegionalSTSAnnotation, podidentityv1alpha1.TokenExpirationAnnotation, podidentityv1alpha1.SkipContainersAnnotation, podidentityv1alpha1.AllowContainersAnnotation} {
			onPod := key == podidentityv1alpha1.SkipContainersAnnotation || key == podidentityv1alpha1.AllowContainersAnnotation
			sa := withRole()
			p := pod(nil)
			object := "ServiceAccount shop/frontend"
			if onPod {
				p.Annotations = map[string]string{key: value}
				object = "pod shop/frontend-7d9f8b6c5d-"
			} else {
				sa[key] = value
			}
			result := New(DefaultConfig(), serviceAccounts{ns + "/frontend": sa}).Mutate(context.Background(),
				mutation.RequestFor(admissionv1.Create, ns, "", p, nil))
			// A pod's annotation reaches the mutator through JSON, as the API
			// server sends it, with invalid UTF-8 replaced by U+FFFD.
			seen := value
			if onPod {
				seen = throughJSON(t, value)
			}
			if limit := serviceAccountLimit(key); limit > 0 && len(value) > limit {
				// Too long to be read: refused as such, whatever it holds.
				if d := result.Denied; d == nil || d.Reason != reasonOversizeAnnotation ||
					!strings.HasPrefix(d.Message, fmt.Sprintf("annotation %s on %s is longer than %d bytes", key, object, limit)) {
					t.Fatalf("%d bytes under %s: %+v", len(value), key, d)
				}
				continue
			}
			// An allow-list is read as skip-containers is, except that a
			// blank one, which no reading would make clear, is refused.
			if key == podidentityv1alpha1.AllowContainersAnnotation {
				names, err := parseContainerNames(seen)
				if refused := result.Denied != nil; refused != (err != nil || names == nil) {
					t.Fatalf("allow-containers %q: parsed %v, %v; result %+v", seen, names, err, result)
				}
			}
			if d := result.Denied; d != nil {
				if d.Reason != reasonMalformedAnnotation || !strings.HasPrefix(d.Message, "annotation "+key+" on "+object+": "+quote(seen)+" is malformed: ") ||
					len(d.Message) > 2000 {
					t.Fatalf("refusal of %s=%q: %s: %s", key, value, d.Reason, d.Message)
				}
			}
		}
	})
}

// serviceAccountLimit is the longest value read under key on a
// ServiceAccount, 0 when the key is not read there.
func serviceAccountLimit(key string) int {
	for _, l := range serviceAccountLimits {
		if l.key == key {
			return l.limit
		}
	}
	return 0
}

// throughJSON is value as it reads after a JSON encoding and decoding.
func throughJSON(t *testing.T, value string) string {
	t.Helper()
	raw, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	var out string
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
