package iamrole

import (
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

func TestRoleName(t *testing.T) {
	long := strings.Repeat("r", 63)
	for _, tc := range []struct {
		name, infra, request, want string
	}{
		{"short", "sjenning-abcde", "openshift-image-registry", "sjenning-abcde-openshift-image-registry"},
		{"exactly 64", strings.Repeat("i", 20), strings.Repeat("r", 43), strings.Repeat("i", 20) + "-" + strings.Repeat("r", 43)},
		// 65 characters: the first 55, "-", 8 hex digits of sha256 of all 65.
		{"65 is cut", strings.Repeat("i", 20), strings.Repeat("r", 44), strings.Repeat("i", 20) + "-" + strings.Repeat("r", 34) + "-3ca7b077"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RoleName(tc.infra, tc.request)
			if got != tc.want {
				t.Errorf("RoleName = %q, want %q", got, tc.want)
			}
			if len(got) > MaxRoleNameLength {
				t.Errorf("RoleName has %d characters, IAM allows %d", len(got), MaxRoleNameLength)
			}
		})
	}
	a, b := RoleName("cluster-x7k2p", long), RoleName("cluster-x7k2p", long[:62]+"s")
	if len(a) != MaxRoleNameLength || len(b) != MaxRoleNameLength {
		t.Errorf("long names not cut to %d: %d, %d", MaxRoleNameLength, len(a), len(b))
	}
	if a == b {
		t.Errorf("two requests sharing their first 55 characters got one role name %q", a)
	}
	if RoleName("cluster-x7k2p", long) != a {
		t.Error("RoleName is not stable")
	}
}

// The hash in a cut name is pinned: changing it would orphan every role made
// by an earlier version.
func TestRoleNameHashIsPinned(t *testing.T) {
	got := RoleName("mycluster-a1b2c", "a-request-name-that-is-long-enough-to-be-cut-by-iam")
	if want := "mycluster-a1b2c-a-request-name-that-is-long-enough-to-b-"; !strings.HasPrefix(got, want) || len(got) != 64 {
		t.Fatalf("RoleName = %q", got)
	}
	if got != "mycluster-a1b2c-a-request-name-that-is-long-enough-to-b-acc16706" {
		t.Errorf("RoleName = %q: the hash changed", got)
	}
}

func TestPartitionAndARNs(t *testing.T) {
	for region, want := range map[string]string{"us-east-1": "aws", "": "aws", "cn-north-1": "aws-cn", "us-gov-west-1": "aws-us-gov", "eu-west-3": "aws"} {
		if got := Partition(region); got != want {
			t.Errorf("Partition(%q) = %q, want %q", region, got, want)
		}
	}
	if got, want := RoleARN("aws-cn", "111122223333", "c1", "c1-r"), "arn:aws-cn:iam::111122223333:role/workload-access/c1/c1-r"; got != want {
		t.Errorf("RoleARN = %q, want %q", got, want)
	}
	hp, err := IssuerHostPath("https://c1-workload-access-oidc.s3.us-east-1.amazonaws.com/")
	if err != nil || hp != "c1-workload-access-oidc.s3.us-east-1.amazonaws.com" {
		t.Errorf("IssuerHostPath = %q, %v", hp, err)
	}
	hp, err = IssuerHostPath("https://192.0.2.10/bucket")
	if err != nil || hp != "192.0.2.10/bucket" {
		t.Errorf("IssuerHostPath = %q, %v", hp, err)
	}
	for _, bad := range []string{"http://x/y", "https://", "https://x/y?z", "x", "https://u@x/"} {
		if _, err := IssuerHostPath(bad); err == nil {
			t.Errorf("IssuerHostPath(%q) accepted", bad)
		}
	}
	if got, want := ProviderARN("aws", "111122223333", "h/p"), "arn:aws:iam::111122223333:oidc-provider/h/p"; got != want {
		t.Errorf("ProviderARN = %q", got)
	}
}

func TestAudience(t *testing.T) {
	for _, tc := range []struct{ annotation, cluster, want string }{
		{"", "", "sts.amazonaws.com"},
		{"", "vault", "vault"},
		{"mine", "vault", "mine"},
		{" mine", "vault", "vault"}, // the webhook ignores it too
	} {
		if got := Audience(tc.annotation, tc.cluster); got != tc.want {
			t.Errorf("Audience(%q, %q) = %q, want %q", tc.annotation, tc.cluster, got, tc.want)
		}
	}
}

func TestOwnedBy(t *testing.T) {
	tags := Tags(Owner{InfrastructureName: "c1", RequestName: "r", RequestUID: "uid-1", Namespace: "ns", ServiceAccount: "sa"})
	if !OwnedBy(tags, "uid-1") || OwnedBy(tags, "uid-2") || OwnedBy(tags, "") || OwnedBy(nil, "uid-1") {
		t.Error("OwnedBy does not follow the uid tag")
	}
	if OwnedBy([]Tag{{TagRequest, "r"}, {ClusterTagKey("c1"), "owned"}}, "uid-1") {
		t.Error("a role tagged with the request's name but not its uid counts as owned")
	}
}

// The tags name the cluster, the namespace and the ServiceAccount under the
// operator's prefix, and the longest values the API admits are tags IAM
// accepts (keys of 128 characters, values of 256, of its characters).
func TestTags(t *testing.T) {
	got := map[string]string{}
	for _, tag := range Tags(Owner{InfrastructureName: "c1-x7k2p", RequestName: "r", RequestUID: "uid-1", Namespace: "apps", ServiceAccount: "reader"}) {
		got[tag.Key] = tag.Value
	}
	want := map[string]string{
		"openshift.io/workload-access/request-uid":    "uid-1",
		"openshift.io/workload-access/request":        "r",
		"kubernetes.io/cluster/c1-x7k2p":              "owned",
		"openshift.io/workload-access/cluster":        "c1-x7k2p",
		"openshift.io/workload-access/namespace":      "apps",
		"openshift.io/workload-access/serviceaccount": "reader",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tags = %v, want %v", got, want)
	}

	iamTag := regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)
	longest := Owner{
		// The installer's infrastructure name: 21 characters of the
		// cluster name, "-" and 5 random ones.
		InfrastructureName: strings.Repeat("c", 21) + "-x7k2p",
		RequestName:        strings.Repeat("r", 63),
		RequestUID:         "0b4c7f9e-6d0a-4f55-9f3e-7f1a2b3c4d5e",
		Namespace:          strings.Repeat("n", 63),
		ServiceAccount:     strings.Repeat(strings.Repeat("s", 62)+".", 4) + "s",
	}
	if len(longest.ServiceAccount) != 253 {
		t.Fatalf("the longest ServiceAccount name has %d characters", len(longest.ServiceAccount))
	}
	for _, tag := range Tags(longest) {
		if len(tag.Key) > 128 || tag.Key == "" || !iamTag.MatchString(tag.Key) || strings.HasPrefix(strings.ToLower(tag.Key), "aws:") {
			t.Errorf("tag key %q is not one IAM accepts", tag.Key)
		}
		if len(tag.Value) > 256 || !iamTag.MatchString(tag.Value) {
			t.Errorf("tag %s: value %q is not one IAM accepts", tag.Key, tag.Value)
		}
	}
}

// TagsToWrite names the wanted tags a role lacks or holds with another
// value, and nothing for a role that has them all, whatever else it has.
func TestTagsToWrite(t *testing.T) {
	wanted := []Tag{{TagRequestUID, "u"}, {TagNamespace, "apps"}, {TagServiceAccount, "reader"}}
	for _, tc := range []struct {
		name string
		held []Tag
		want []Tag
	}{
		{"all there, and more", []Tag{{"owner", "me"}, {TagServiceAccount, "reader"}, {TagNamespace, "apps"}, {TagRequestUID, "u"}}, nil},
		{"made before the tags", []Tag{{TagRequestUID, "u"}}, []Tag{{TagNamespace, "apps"}, {TagServiceAccount, "reader"}}},
		{"changed in IAM", []Tag{{TagRequestUID, "u"}, {TagNamespace, "other"}, {TagServiceAccount, "reader"}}, []Tag{{TagNamespace, "apps"}}},
		{"a key in another case", []Tag{{TagRequestUID, "u"}, {strings.ToUpper(TagNamespace), "apps"}, {TagServiceAccount, "reader"}}, nil},
		{"none", nil, wanted},
	} {
		if got := TagsToWrite(wanted, tc.held); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: TagsToWrite = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The seed's example, translated: one statement, its effect, actions and
// resource, in the order IAM shows them.
func TestPolicyDocument(t *testing.T) {
	got, err := PolicyDocument([]podidentityv1alpha1.StatementEntry{{Effect: "Allow", Action: []string{"s3:*"}, Resource: "*"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:*"],"Resource":"*"}]}`; got != want {
		t.Errorf("PolicyDocument =\n%s\nwant\n%s", got, want)
	}
	got, err = PolicyDocument([]podidentityv1alpha1.StatementEntry{
		{Effect: "Allow", Action: []string{"s3:GetObject", "s3:ListBucket"}, Resource: "arn:aws:s3:::b/*",
			PolicyCondition: map[string]map[string][]string{"StringEquals": {"aws:SourceVpc": {"vpc-1"}}}},
		{Effect: "Deny", Action: []string{"s3:DeleteObject"}, Resource: "arn:aws:s3:::b/<x>"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:ListBucket"],"Resource":"arn:aws:s3:::b/*","Condition":{"StringEquals":{"aws:SourceVpc":["vpc-1"]}}},` +
		`{"Effect":"Deny","Action":["s3:DeleteObject"],"Resource":"arn:aws:s3:::b/<x>"}]}`
	if got != want {
		t.Errorf("PolicyDocument =\n%s\nwant\n%s", got, want)
	}
	if _, err := PolicyDocument(nil); err == nil {
		t.Error("an empty policy was accepted")
	}
}

func TestPolicyDocumentSizeLimit(t *testing.T) {
	entry := func(resourceLen int) []podidentityv1alpha1.StatementEntry {
		return []podidentityv1alpha1.StatementEntry{{Effect: "Allow", Action: []string{"s3:*"}, Resource: strings.Repeat("a", resourceLen)}}
	}
	base, err := PolicyDocument(entry(1))
	if err != nil {
		t.Fatal(err)
	}
	room := MaxPolicySize - len(base) + 1
	if _, err := PolicyDocument(entry(room)); err != nil {
		t.Errorf("a policy of exactly %d characters was refused: %v", MaxPolicySize, err)
	}
	_, err = PolicyDocument(entry(room + 1))
	if !errors.Is(err, ErrPolicyTooLarge) || !strings.Contains(err.Error(), "10241") {
		t.Errorf("a policy of %d characters: %v, want ErrPolicyTooLarge naming the size", MaxPolicySize+1, err)
	}
	// Whitespace does not count, as IAM counts.
	spaced := entry(room - 10)
	spaced[0].Resource += strings.Repeat(" ", 50)
	if _, err := PolicyDocument(spaced); err != nil {
		t.Errorf("whitespace was counted: %v", err)
	}
}

func TestTrustPolicy(t *testing.T) {
	got := TrustPolicy([]Provider{{ARN: "arn:aws:iam::111122223333:oidc-provider/h/p", HostPath: "h/p"}}, "ns", "sa", "sts.amazonaws.com")
	want := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::111122223333:oidc-provider/h/p"},` +
		`"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"h/p:aud":["sts.amazonaws.com"],"h/p:sub":["system:serviceaccount:ns:sa"]}}}]}`
	if got != want {
		t.Errorf("TrustPolicy =\n%s\nwant\n%s", got, want)
	}
}

func TestATrustPolicyNamesEveryProviderTheTokensMayCome(t *testing.T) {
	providers := []Provider{
		{ARN: "arn:aws:iam::1:oidc-provider/new.example/p", HostPath: "new.example/p"},
		{ARN: "arn:aws:iam::1:oidc-provider/old.example", HostPath: "old.example"},
	}
	trust := TrustPolicy(providers, "ns", "sa", "sts.amazonaws.com")
	want := `{"Version":"2012-10-17","Statement":[` +
		`{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::1:oidc-provider/new.example/p"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"new.example/p:aud":["sts.amazonaws.com"],"new.example/p:sub":["system:serviceaccount:ns:sa"]}}},` +
		`{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::1:oidc-provider/old.example"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"old.example:aud":["sts.amazonaws.com"],"old.example:sub":["system:serviceaccount:ns:sa"]}}}]}`
	if trust != want {
		t.Errorf("TrustPolicy =\n%s\nwant\n%s", trust, want)
	}
	got := TrustedProviders(trust)
	if len(got) != 2 || got[0] != providers[0].ARN || got[1] != providers[1].ARN {
		t.Errorf("TrustedProviders = %q", got)
	}
	if got := TrustedProviders(`{"Statement":[{"Principal":{"Federated":["a","b"]}}]}`); len(got) != 2 {
		t.Errorf("a list of Federated principals: %q", got)
	}
	if got := TrustedProviders("not json"); got != nil {
		t.Errorf("not a document: %q", got)
	}
}

func TestDecodeDocument(t *testing.T) {
	doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:Get+Object","Resource":"a b%"}]}`
	encoded := url.PathEscape(doc) // IAM: RFC 3986, "+" stays a plus
	for _, raw := range []string{encoded, doc, strings.ReplaceAll(encoded, "%7B", "%7b")} {
		got, err := DecodeDocument(raw)
		if err != nil || got != doc {
			t.Errorf("DecodeDocument(%q) = %q, %v", raw, got, err)
		}
	}
	if _, err := DecodeDocument("%zz"); err == nil {
		t.Error("a broken escape was accepted")
	}
	if _, err := DecodeDocument("not%20json"); err == nil {
		t.Error("a document that is not JSON was accepted")
	}
}

func TestSameDocument(t *testing.T) {
	ours := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"*"}]}`
	for _, tc := range []struct {
		name, other string
		same        bool
	}{
		{"identical", ours, true},
		{"reformatted and reordered", `{ "Statement": { "Resource": ["*"], "Action": ["s3:PutObject", "s3:GetObject"], "Effect": "Allow" }, "Version": "2012-10-17" }`, true},
		{"an action dropped", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`, false},
		{"effect changed", strings.Replace(ours, "Allow", "Deny", 1), false},
		{"a statement added", strings.Replace(ours, "}]}", `},{"Effect":"Allow","Action":"iam:*","Resource":"*"}]}`, 1), false},
		{"not JSON", "{", false},
		{"trailing data", ours + "{}", false},
	} {
		if got := SameDocument(ours, tc.other); got != tc.same {
			t.Errorf("%s: SameDocument = %v, want %v", tc.name, got, tc.same)
		}
	}
}

func TestCompare(t *testing.T) {
	wanted := Wanted{
		Trust:  TrustPolicy([]Provider{{ARN: "arn:aws:iam::1:oidc-provider/h", HostPath: "h"}}, "ns", "sa", "a"),
		Policy: `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:*"],"Resource":"*"}]}`,
	}
	held := Held{Trust: url.PathEscape(wanted.Trust), Policy: url.PathEscape(wanted.Policy), PolicyFound: true}
	if d := Compare(wanted, held); !d.None() {
		t.Errorf("no drift expected, got %+v", d)
	}
	otherTrust := held
	otherTrust.Trust = url.PathEscape(TrustPolicy([]Provider{{ARN: "arn:aws:iam::1:oidc-provider/h", HostPath: "h"}}, "ns", "other", "a"))
	if d := Compare(wanted, otherTrust); d != (Drift{Trust: true}) {
		t.Errorf("trust for another ServiceAccount: %+v", d)
	}
	noPolicy := held
	noPolicy.PolicyFound, noPolicy.Policy = false, ""
	if d := Compare(wanted, noPolicy); d != (Drift{Policy: true}) {
		t.Errorf("policy deleted: %+v", d)
	}
	garbled := held
	garbled.Policy = "%zz"
	if d := Compare(wanted, garbled); d != (Drift{Policy: true}) {
		t.Errorf("undecodable policy: %+v", d)
	}
	boundary := wanted
	boundary.Boundary = "arn:aws:iam::1:policy/workload-access/b"
	if d := Compare(boundary, held); d != (Drift{Boundary: true}) {
		t.Errorf("boundary missing: %+v", d)
	}
	held.Boundary = "arn:aws:iam::1:policy/other"
	if d := Compare(wanted, held); !d.None() {
		t.Errorf("a boundary nobody asked for must be left alone, got %+v", d)
	}
	if d := Compare(boundary, held); d != (Drift{Boundary: true}) {
		t.Errorf("another boundary: %+v", d)
	}
	tagged := wanted
	tagged.Tags = []Tag{{TagNamespace, "ns"}}
	if d := Compare(tagged, held); d != (Drift{Tags: true}) {
		t.Errorf("tag missing: %+v", d)
	}
	held.Tags = []Tag{{TagNamespace, "ns"}}
	if d := Compare(tagged, held); !d.None() {
		t.Errorf("tags held: %+v", d)
	}
}

// json.Valid and our decoder agree on what a document is.
func TestTrustPolicyIsJSON(t *testing.T) {
	if !json.Valid([]byte(TrustPolicy([]Provider{{ARN: `a"b`, HostPath: `h"`}}, "n", "s", "<aud>"))) {
		t.Error("TrustPolicy does not escape")
	}
}
