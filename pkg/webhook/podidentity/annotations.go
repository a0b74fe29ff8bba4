package podidentity

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The parsers below return a reason (what is wrong with the value, and what
// is accepted) without naming the annotation or its object: the caller
// knows which object it read, and builds the message.

// Limits of an IAM role's name and path (IAM's own), and the longest
// annotation value a message quotes in full.
const (
	maxRoleNameLength = 64
	maxRolePathLength = 512
	maxQuotedValue    = 128
)

const roleARNExpected = "expected arn:<partition>:iam::<12-digit account ID>:role/[<path>/]<name>, " +
	"the name up to 64 letters, digits and _+=,.@- characters, for example arn:aws:iam::111122223333:role/s3-reader"

// parseRoleARN checks an IAM role ARN, as STS accepts it in
// AssumeRoleWithWebIdentity.
func parseRoleARN(value string) error {
	rest, ok := strings.CutPrefix(value, "arn:")
	if !ok {
		return errors.New("it does not start with arn:; " + roleARNExpected)
	}
	partition, rest, ok := strings.Cut(rest, ":")
	if !ok || !validPartition(partition) {
		return fmt.Errorf("partition %s is not an AWS partition (aws, aws-cn, aws-us-gov, ...); %s", quote(partition), roleARNExpected)
	}
	rest, ok = strings.CutPrefix(rest, "iam::")
	if !ok {
		return errors.New("it is not an IAM ARN (the service must be iam and the region empty: arn:<partition>:iam::...); " + roleARNExpected)
	}
	account, rest, ok := strings.Cut(rest, ":")
	if !ok || len(account) != 12 || strings.Trim(account, "0123456789") != "" {
		return fmt.Errorf("account ID %s is not 12 digits; %s", quote(account), roleARNExpected)
	}
	rolePath, ok := strings.CutPrefix(rest, "role/")
	if !ok {
		return errors.New("it does not name a role (the resource must start with role/); " + roleARNExpected)
	}
	for _, r := range rolePath {
		if !roleCharacter(r) {
			return fmt.Errorf("the role %s contains %q, which IAM does not allow; %s", quote(rolePath), r, roleARNExpected)
		}
	}
	slash := strings.LastIndexByte(rolePath, '/')
	name := rolePath[slash+1:]
	switch {
	case name == "":
		return errors.New("the role name is empty; " + roleARNExpected)
	case len(name) > maxRoleNameLength:
		return fmt.Errorf("the role name is %d characters long, more than IAM's %d; %s", len(name), maxRoleNameLength, roleARNExpected)
	case strings.HasPrefix(rolePath, "/"):
		return errors.New("the role path starts with an empty segment (role//...); " + roleARNExpected)
	case slash+2 > maxRolePathLength: // the path as IAM writes it: "/" + rolePath[:slash+1]
		return fmt.Errorf("the role path is longer than IAM's %d characters; %s", maxRolePathLength, roleARNExpected)
	}
	return nil
}

// validPartition accepts every AWS partition name: aws, aws-cn,
// aws-us-gov, aws-iso, aws-iso-b and those to come.
func validPartition(p string) bool {
	rest, ok := strings.CutPrefix(p, "aws")
	return ok && strings.Trim(rest, "abcdefghijklmnopqrstuvwxyz0123456789-") == ""
}

func roleCharacter(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_+=,.@-/", r)
}

// parseAudience checks a token audience. An empty one would make the
// kubelet request a token for the Kubernetes API server instead.
func parseAudience(value string) error {
	if strings.TrimSpace(value) == "" {
		return errors.New("it is empty; expected the audience STS expects, such as sts.amazonaws.com " +
			"(an empty audience would give the pod a token for the Kubernetes API server)")
	}
	if strings.TrimSpace(value) != value {
		return errors.New("it has leading or trailing spaces; expected the audience STS expects, such as sts.amazonaws.com")
	}
	return nil
}

// parseRegionalSTS reads sts-regional-endpoints the way upstream does
// (strconv.ParseBool), but refuses what it would ignore.
func parseRegionalSTS(value string) (bool, error) {
	b, err := strconv.ParseBool(value)
	if err != nil {
		return false, errors.New(`it is not a boolean; expected "true" or "false"`)
	}
	return b, nil
}

const expirationExpected = "expected a whole number of seconds up to 4294967296; values under 600 are raised to 600"

// parseExpiration reads a token lifetime in seconds. Values under
// MinTokenExpiration are accepted (the caller raises them, as upstream);
// negative ones, and ones longer than Kubernetes issues, are not.
func parseExpiration(value string) (int64, error) {
	seconds, err := strconv.ParseInt(value, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && strings.HasPrefix(value, "-"):
		return 0, errors.New("it is negative; " + expirationExpected)
	case errors.Is(err, strconv.ErrRange):
		return 0, errors.New("it is longer than the 2^32 seconds Kubernetes allows for a token; " + expirationExpected)
	case err != nil:
		return 0, errors.New("it is not a whole number of seconds; " + expirationExpected)
	case seconds < 0:
		return 0, errors.New("it is negative; " + expirationExpected)
	case seconds > MaxTokenExpiration:
		return 0, errors.New("it is longer than the 2^32 seconds Kubernetes allows for a token; " + expirationExpected)
	}
	return seconds, nil
}

// parseContainerNames reads a comma-separated list of container names, the
// value of skip-containers and of allow-containers. Spaces around names are
// trimmed, a name listed twice counts once, and a value of spaces alone is
// no list (nil), as if the annotation were absent; an empty entry or an
// invalid name is refused, since a typo would otherwise put credentials in,
// or keep them from, a container the author did not mean. Names of
// containers the pod does not have are the caller's to judge.
func parseContainerNames(value string) (map[string]bool, error) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	names := map[string]bool{}
	for i, item := range strings.Split(value, ",") {
		name := strings.TrimSpace(item)
		if name == "" {
			return nil, fmt.Errorf("entry %d is empty; expected a comma-separated list of container names, such as \"istio-proxy,log-shipper\"", i+1)
		}
		if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
			return nil, fmt.Errorf("entry %d, %s, is not a container name (%s); expected a comma-separated list of container names, such as \"istio-proxy,log-shipper\"",
				i+1, quote(name), strings.Join(errs, "; "))
		}
		names[name] = true
	}
	return names, nil
}

// quote quotes a value for a message, cut short when it is long: messages
// stay readable whatever an annotation holds.
func quote(value string) string {
	if len(value) <= maxQuotedValue {
		return strconv.Quote(value)
	}
	// Back off to the start of a rune, at most a rune's length: in invalid
	// UTF-8 there may be none.
	cut := maxQuotedValue
	for i := 1; i < utf8.UTFMax && !utf8.RuneStart(value[cut]); i++ {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes in all)", strconv.Quote(value[:cut]), len(value))
}
