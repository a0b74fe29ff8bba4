package iamrolerequest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamrole"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/tokenissuer"
)

// environment is what every role of the cluster is made with.
type environment struct {
	infrastructureName string
	region, partition  string
	// issuerURL is the published issuer, "" while none is.
	issuerURL       string
	defaultAudience string
	boundary        string
	// trustLimit is the most characters a trust policy may have.
	trustLimit int
	creds      awscall.Credentials
	conn       connection
}

// environment reads the cluster's side: whether pod identity runs, the
// infrastructure name, the WorkloadAccess's settings and the credentials.
// toCreate also checks the boundary, before the credentials: an admin's
// day 1 begins with it, and deleting a role needs none.
func (c *controller) environment(toCreate bool) (environment, *awscall.Failure) {
	infra, err := c.infrastructures.Get("cluster")
	if apierrors.IsNotFound(err) {
		infra, err = nil, nil
	}
	if err != nil {
		return environment{}, &awscall.Failure{Reason: podidentityv1alpha1.ReasonIAMError, Message: "reading Infrastructure cluster: " + err.Error(), Retry: true}
	}
	wa, err := c.workloadAccesses.Get(operatorclient.ConfigName)
	if err != nil {
		return environment{}, &awscall.Failure{Reason: podidentityv1alpha1.ReasonPlatformNotSupported, Message: fmt.Sprintf("reading WorkloadAccess %s: %v", operatorclient.ConfigName, err), Retry: true}
	}
	d := podidentity.Decide(infra, wa.Spec.PodIdentity)
	if !d.Enabled {
		return environment{}, &awscall.Failure{Reason: podidentityv1alpha1.ReasonPlatformNotSupported, Message: fmt.Sprintf(
			"pod identity is off (%s): IAM roles are made on AWS, or anywhere with the WorkloadAccess's spec.podIdentity.mode Enabled", d.Message)}
	}
	if infra == nil || infra.Status.InfrastructureName == "" {
		return environment{}, &awscall.Failure{Reason: podidentityv1alpha1.ReasonPlatformNotSupported,
			Message: "the Infrastructure has no status.infrastructureName, which names and tags every role"}
	}
	env := environment{
		infrastructureName: infra.Status.InfrastructureName,
		issuerURL:          wa.Status.PodIdentity.IssuerURL,
		defaultAudience:    wa.Spec.PodIdentity.DefaultAudience,
		boundary:           wa.Spec.PodIdentity.Roles.PermissionsBoundary,
		region:             d.RoleRegion(wa),
	}
	env.partition = iamrole.Partition(env.region)
	env.trustLimit = int(wa.Spec.PodIdentity.Roles.TrustPolicySizeLimit)
	if env.trustLimit == 0 {
		env.trustLimit = iamrole.DefaultTrustPolicySize
	}
	env.conn.iamEndpoint = wa.Spec.PodIdentity.Roles.IAMEndpoint
	if toCreate {
		if f := env.boundaryProblem(""); f != nil {
			return environment{}, f
		}
	}
	creds, f := c.readCredentials()
	if f != nil {
		return environment{}, f
	}
	env.creds = creds
	env.conn = connection{region: env.region, iamEndpoint: wa.Spec.PodIdentity.Roles.IAMEndpoint, stsEndpoint: wa.Spec.PodIdentity.Roles.STSEndpoint,
		accessKeyID: creds.AccessKeyID, secretSum: secretSum(creds.SecretAccessKey), secret: creds.SecretAccessKey}
	return env, nil
}

// boundaryProblem refuses, before any IAM call, a boundary AWS IAM would
// refuse under the operator's grant: none, or one outside
// policy/workload-access/, the region's partition or, once known, the
// account. An iamEndpoint names an IAM-compatible service, which the
// shipped grant does not cover and which may have no boundaries at all
// (versitygw has none): there the boundary is sent when set, and the
// service's own grant decides.
func (env environment) boundaryProblem(account string) *awscall.Failure {
	if env.conn.iamEndpoint != "" {
		return nil
	}
	if p := iamrole.CheckBoundary(env.boundary, env.partition, account); p != nil {
		return &awscall.Failure{Reason: p.Reason, Message: p.Message + "; nothing was sent to IAM"}
	}
	return nil
}

// role is what provision knows of the request's role, whether or not it
// failed: its name and policy once the infrastructure name is known, its
// ARN once IAM has it.
type role struct {
	name, policy, arn string
	// message describes a provisioned role.
	message string
	// trust is who the role trusts, once IAM was asked; audience is the
	// token audience it admits.
	trust    chosenTrust
	audience string
	// account and partition name the providers; publishedIssuer is the
	// operator's, "" while none is.
	account, partition, publishedIssuer string
	// trustNotMoved: the role still trusts other issuers than those the
	// tokens carry, and the call that would move it failed.
	trustNotMoved bool
	// fill is, for a set of namespaces, the trust policy made and how many
	// namespaces it holds, within trustLimit characters.
	fill       iamrole.TrustFill
	trustLimit int
}

// trustee is whom a role trusts: one ServiceAccount (namespace set), or one
// ServiceAccount name in the namespaces of a set, in the order judged, as
// many as fit the trust policy.
type trustee struct {
	namespace, name string
	set             []string
	// audienceAnnotation is the ServiceAccount's eks.amazonaws.com/audience
	// (a single request's; a set's role admits the cluster's default).
	audienceAnnotation string
}

func singleTrustee(ref podidentityv1alpha1.ServiceAccountStorage, sa *corev1.ServiceAccount) trustee {
	t := trustee{namespace: ref.Namespace, name: ref.Name}
	if sa != nil {
		t.audienceAnnotation = sa.Annotations[podidentityv1alpha1.AudienceAnnotation]
	}
	return t
}

// provision makes IAM hold the role the request asks for, and writes only
// what differs, for whom the role trusts. A set whose first namespace does
// not fit the trust policy's size is TrustPolicyFull, and nothing is written.
func (c *controller) provision(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest, who trustee) (role, *awscall.Failure) {
	env, f := c.environment(true)
	if f != nil {
		return role{}, f
	}
	r := role{name: iamrole.RoleName(env.infrastructureName, request.Name), policy: iamrole.PolicyName}
	policy, err := iamrole.PolicyDocument(request.Spec.ProviderSpec.StatementEntries)
	if err != nil {
		return r, &awscall.Failure{Reason: podidentityv1alpha1.ReasonInvalidPolicy, Message: fmt.Sprintf("spec.providerSpec.statementEntries: %v; nothing was written to IAM", err)}
	}
	tokens, f := c.tokenIssuers(ctx)
	if f != nil {
		return r, f
	}
	if !tokenissuer.Public(tokens.Current) && env.issuerURL == "" {
		// No issuer a role could trust: nothing to ask IAM.
		return r, notRegistered(env, "", tokens)
	}
	client, account, f := c.connect(ctx, env.conn, env.creds)
	if f != nil {
		return r, f
	}
	if f := env.boundaryProblem(account); f != nil {
		return r, f
	}
	r.audience, r.account, r.partition, r.publishedIssuer = iamrole.Audience(who.audienceAnnotation, env.defaultAudience), account, env.partition, env.issuerURL
	trust, f := c.chooseTrust(ctx, client, env, account, tokens)
	if f != nil {
		return r, f
	}
	trustPolicy := iamrole.TrustPolicy(trust.policyProviders(), who.namespace, who.name, r.audience)
	trusted := iamrole.Subject(who.namespace, who.name)
	if who.set != nil {
		r.fill, r.trustLimit = iamrole.FillTrustPolicy(trust.policyProviders(), who.set, who.name, r.audience, env.trustLimit), env.trustLimit
		if r.fill.Fitted == 0 {
			return r, &awscall.Failure{Reason: podidentityv1alpha1.ReasonTrustPolicyFull, Message: fmt.Sprintf(
				"not even namespace %s fits a trust policy of %d characters (WorkloadAccess cluster spec.podIdentity.roles.trustPolicySizeLimit, IAM's quota, 2,048 unless raised); nothing was written to IAM",
				who.set[0], env.trustLimit)}
		}
		trustPolicy = r.fill.Policy
		trusted = fmt.Sprintf("ServiceAccount %s in %d namespaces (%s)", who.name, r.fill.Fitted, strings.Join(who.set[:r.fill.Fitted], ", "))
	}
	wanted := iamrole.Wanted{
		Trust:    trustPolicy,
		Policy:   policy,
		Boundary: env.boundary,
		Tags: iamrole.Tags(iamrole.Owner{InfrastructureName: env.infrastructureName, RequestName: request.Name, RequestUID: string(request.UID),
			Namespace: who.namespace, ServiceAccount: who.name}),
	}
	describeRole := func(arn string) string {
		message := fmt.Sprintf("IAM role %s trusts %s (audience %s) from %s, with inline policy %s", arn, trusted, r.audience, trust.describe(), iamrole.PolicyName)
		if env.boundary != "" {
			message += " and permissions boundary " + env.boundary
		}
		return message
	}

	got, err := client.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(r.name)})
	switch {
	case isNoSuchEntity(err) || mayBeAbsent(err):
		arn, f := c.create(ctx, client, request, env, r.name, wanted)
		if f != nil {
			return r, f
		}
		r.arn = arn
	case err != nil:
		return r, describe("iam:GetRole", "role "+r.name, err, env.creds)
	default:
		if f := ownership(got.Role, request); f != nil {
			return r, f // not ours: its ARN is no business of this request
		}
		r.arn = aws.ToString(got.Role.Arn)
		if f := c.repair(ctx, client, request, env, got.Role, wanted); f != nil {
			held, _ := iamrole.DecodeDocument(aws.ToString(got.Role.AssumeRolePolicyDocument))
			r.trustNotMoved = !slices.Equal(iamrole.TrustedProviders(held), iamrole.TrustedProviders(wanted.Trust))
			return r, f
		}
	}
	r.message = describeRole(r.arn)
	r.trust = trust
	return r, nil
}

// create creates the role and its policy.
func (c *controller) create(ctx context.Context, client iamAPI, request *podidentityv1alpha1.IAMRoleRequest, env environment, name string, wanted iamrole.Wanted) (string, *awscall.Failure) {
	input := &iam.CreateRoleInput{
		RoleName:                 aws.String(name),
		Path:                     aws.String(iamrole.RolePath(env.infrastructureName)),
		AssumeRolePolicyDocument: aws.String(wanted.Trust),
		Description:              aws.String(fmt.Sprintf("OpenShift workload access: IAMRoleRequest %s of cluster %s", request.Name, env.infrastructureName)),
	}
	input.Tags = iamTags(wanted.Tags)
	if wanted.Boundary != "" {
		input.PermissionsBoundary = aws.String(wanted.Boundary)
	}
	out, err := client.CreateRole(ctx, input)
	if awscall.ErrorCode(err) == "EntityAlreadyExists" {
		// GetRole was refused: the role exists outside the path the
		// operator may read, so it is not one the operator made.
		return "", &awscall.Failure{Reason: podidentityv1alpha1.ReasonRoleNameTaken, Message: fmt.Sprintf(
			"an IAM role named %s exists outside %s, where the operator may not read it (or its credentials lack iam:GetRole): the operator never changes or deletes a role it cannot prove is this request's; "+
				"delete or rename that role in IAM, or give this request another name", name, iamrole.RolePath(env.infrastructureName))}
	}
	if err != nil {
		return "", describe("iam:CreateRole", "role "+name, err, env.creds)
	}
	arn := aws.ToString(out.Role.Arn)
	c.events.Eventf(request, corev1.EventTypeNormal, "RoleCreated", "Created IAM role %s", arn)
	if _, err := client.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(iamrole.PolicyName), PolicyDocument: aws.String(wanted.Policy)}); err != nil {
		return arn, describe("iam:PutRolePolicy", "role "+name, err, env.creds)
	}
	return arn, nil
}

// repair restores what changed in IAM, on a role proven ours by its tag
// (the caller checks ownership first).
func (c *controller) repair(ctx context.Context, client iamAPI, request *podidentityv1alpha1.IAMRoleRequest, env environment, held *iamtypes.Role, wanted iamrole.Wanted) *awscall.Failure {
	name := aws.ToString(held.RoleName)
	h := iamrole.Held{Trust: aws.ToString(held.AssumeRolePolicyDocument), Tags: heldTags(held)}
	if held.PermissionsBoundary != nil {
		h.Boundary = aws.ToString(held.PermissionsBoundary.PermissionsBoundaryArn)
	}
	policy, err := client.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(iamrole.PolicyName)})
	switch {
	case isNoSuchEntity(err):
	case err != nil:
		return describe("iam:GetRolePolicy", "role "+name, err, env.creds)
	default:
		h.Policy, h.PolicyFound = aws.ToString(policy.PolicyDocument), true
	}
	drift := iamrole.Compare(wanted, h)
	arn := aws.ToString(held.Arn)
	// The boundary first: the grant allows the other writes only on a role
	// whose boundary is under policy/workload-access/.
	if drift.Boundary {
		if _, err := client.PutRolePermissionsBoundary(ctx, &iam.PutRolePermissionsBoundaryInput{RoleName: aws.String(name), PermissionsBoundary: aws.String(wanted.Boundary)}); err != nil {
			return describe("iam:PutRolePermissionsBoundary", "role "+name, err, env.creds)
		}
		c.events.Eventf(request, corev1.EventTypeNormal, "RoleRepaired", "Set the permissions boundary of IAM role %s to %s", arn, wanted.Boundary)
	}
	// Tags next: a role made before the operator tagged the ServiceAccount,
	// or whose tags were changed in IAM, gets them back. TagRole needs no
	// boundary; resource policies may grant by these tags.
	if drift.Tags {
		missing := iamrole.TagsToWrite(wanted.Tags, h.Tags)
		if _, err := client.TagRole(ctx, &iam.TagRoleInput{RoleName: aws.String(name), Tags: iamTags(missing)}); err != nil {
			return describe("iam:TagRole", "role "+name, err, env.creds)
		}
		keys := make([]string, 0, len(missing))
		for _, t := range missing {
			keys = append(keys, t.Key+"="+t.Value)
		}
		c.events.Eventf(request, corev1.EventTypeNormal, "RoleRepaired", "Set the tags %s of IAM role %s", strings.Join(keys, ", "), arn)
	}
	if drift.Trust {
		heldTrust, _ := iamrole.DecodeDocument(h.Trust)
		if _, err := client.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String(name), PolicyDocument: aws.String(wanted.Trust)}); err != nil {
			return c.narrowTrust(ctx, client, request, env, name, arn, heldTrust, wanted.Trust, err)
		}
		if from, to := iamrole.TrustedProviders(heldTrust), iamrole.TrustedProviders(wanted.Trust); !slices.Equal(from, to) {
			c.events.Eventf(request, corev1.EventTypeNormal, "RoleTrustMoved", "The trust policy of IAM role %s now names the OIDC providers %s, of the issuers the cluster's tokens carry (it named %s)",
				arn, strings.Join(to, ", "), strings.Join(from, ", "))
		} else {
			c.events.Eventf(request, corev1.EventTypeNormal, "RoleRepaired", "Restored the trust policy of IAM role %s, which had been changed in IAM", arn)
		}
	}
	if drift.Policy {
		if _, err := client.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(iamrole.PolicyName), PolicyDocument: aws.String(wanted.Policy)}); err != nil {
			return describe("iam:PutRolePolicy", "role "+name, err, env.creds)
		}
		what := "Restored the inline policy %s of IAM role %s, which had been changed or deleted in IAM"
		if request.Status.ObservedGeneration != request.Generation {
			what = "Wrote the inline policy %s of IAM role %s from the request's statements"
		}
		c.events.Eventf(request, corev1.EventTypeNormal, "RoleRepaired", what, iamrole.PolicyName, arn)
	}
	return nil
}

// narrowTrust, after IAM refused the wanted trust policy (refused), takes
// out of the role's trust policy what the request no longer trusts, alone:
// what IAM refused may be only what the update added (a policy over IAM's
// real quota, below the size limit the operator was given), and a
// namespace that left a set must not stay trusted until the rest is fixed.
// It returns the failure of the refused update, saying what was done.
func (c *controller) narrowTrust(ctx context.Context, client iamAPI, request *podidentityv1alpha1.IAMRoleRequest, env environment, name, arn, heldTrust, wantedTrust string, err error) *awscall.Failure {
	refused := describe("iam:UpdateAssumeRolePolicy", "role "+name, err, env.creds)
	if awscall.ErrorCode(err) == "LimitExceeded" && request.Spec.Storage.ServiceAccounts != nil {
		refused.Message += fmt.Sprintf("; the trust policy has %d characters: IAM's quota \"Role trust policy length\" may be below the WorkloadAccess cluster's spec.podIdentity.roles.trustPolicySizeLimit (%d): raise the quota in AWS Service Quotas, or lower the limit to it",
			iamrole.TrustPolicySize(wantedTrust), env.trustLimit)
	}
	narrowed, ok := iamrole.NarrowedTrust(heldTrust, wantedTrust)
	if !ok {
		return refused
	}
	if _, err := client.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String(name), PolicyDocument: aws.String(narrowed)}); err != nil {
		refused.Message += "; taking out of the trust policy only what the request no longer trusts failed too, so the role still trusts it: " +
			describe("iam:UpdateAssumeRolePolicy", "role "+name, err, env.creds).Message
		return refused
	}
	c.events.Eventf(request, corev1.EventTypeWarning, "RoleTrustNarrowed",
		"IAM refused the trust policy of IAM role %s the request wants; the operator took out of it what the request no longer trusts, alone, and retries the rest", arn)
	refused.Message += "; what the request no longer trusts was taken out of the trust policy alone, which IAM accepted: the role trusts no one it should not, but not yet everyone it should"
	return refused
}

func iamTags(tags []iamrole.Tag) []iamtypes.Tag {
	out := make([]iamtypes.Tag, 0, len(tags))
	for _, t := range tags {
		out = append(out, iamtypes.Tag{Key: aws.String(t.Key), Value: aws.String(t.Value)})
	}
	return out
}

func heldTags(held *iamtypes.Role) []iamrole.Tag {
	tags := make([]iamrole.Tag, 0, len(held.Tags))
	for _, t := range held.Tags {
		tags = append(tags, iamrole.Tag{Key: aws.ToString(t.Key), Value: aws.ToString(t.Value)})
	}
	return tags
}

// ownership refuses a role whose uid tag is not the request's: never
// adopted, changed or deleted.
func ownership(held *iamtypes.Role, request *podidentityv1alpha1.IAMRoleRequest) *awscall.Failure {
	tags := heldTags(held)
	found := ""
	for _, t := range tags {
		if t.Key == iamrole.TagRequestUID {
			found = t.Value
		}
	}
	if iamrole.OwnedBy(tags, string(request.UID)) {
		return nil
	}
	whose := "has no tag " + iamrole.TagRequestUID
	if found != "" {
		whose = fmt.Sprintf("is tagged %s=%s, another request's", iamrole.TagRequestUID, found)
	}
	return &awscall.Failure{Reason: podidentityv1alpha1.ReasonRoleNameTaken, Message: fmt.Sprintf(
		"IAM role %s exists and %s: the operator never changes or deletes a role it cannot prove is this request's; delete or rename that role in IAM, or give this request another name",
		aws.ToString(held.Arn), whose)}
}

// mayBeAbsent says whether GetRole's error can mean the role does not
// exist. IAM authorizes GetRole against the role's ARN, path included, which
// it can resolve only for a role that exists: a grant limited to
// role/workload-access/* is refused (AccessDenied, not NoSuchEntity) for a
// role that does not exist, as versitygw models it. CreateRole, authorized
// against the path it is given, then tells the two apart.
func mayBeAbsent(err error) bool {
	return awscall.ErrorCode(err) == "AccessDenied"
}
