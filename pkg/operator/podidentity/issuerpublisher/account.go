package issuerpublisher

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscredentials "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
)

// ReasonCallerIdentityUnknown: STS did not say which account the
// credentials belong to, so the bucket's owner cannot be checked.
const ReasonCallerIdentityUnknown = "CallerIdentityUnknown"

// accountID is what S3 accepts as an expected bucket owner.
var accountID = regexp.MustCompile(`^[0-9]{12}$`)

// callerAccount is the AWS account of the S3 credentials: the owner every
// S3 call expects of the bucket. sts:GetCallerIdentity needs no permission
// and STS is reachable wherever pod identity is of any use (pods exchange
// their tokens there). With an S3-compatible endpoint it is "": such
// servers name bucket owners their own way (versitygw: the account's
// access key), and the admin who runs one controls its bucket names.
// stsEndpoint overrides STS's address, for tests.
func callerAccount(ctx context.Context, conn connection, stsEndpoint string) (string, error) {
	if conn.endpoint != "" {
		return "", nil
	}
	options := sts.Options{
		Region:           signingRegion(conn.region),
		Credentials:      awscredentials.NewStaticCredentialsProvider(conn.accessKeyID, conn.secret, ""),
		RetryMaxAttempts: 2,
		HTTPClient:       awscall.HTTPClient(),
	}
	if stsEndpoint != "" {
		options.BaseEndpoint = aws.String(stsEndpoint)
	}
	out, err := sts.New(options).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return "", err
	}
	if account := aws.ToString(out.Account); !accountID.MatchString(account) {
		return "", fmt.Errorf("STS named account %q, not 12 digits", clean(account, ""))
	}
	return aws.ToString(out.Account), nil
}

// describeCallerAccountError is why the account is unknown, without a
// credential.
func describeCallerAccountError(err error, creds awscall.Credentials) *awscall.Failure {
	const where = "STS GetCallerIdentity (which names the account the issuer bucket must belong to)"
	code, message, answered := awscall.Answer(err)
	if !answered {
		var op *smithy.OperationError
		if errors.As(err, &op) {
			return &awscall.Failure{Reason: ReasonS3Unreachable, Message: creds.Scrub(fmt.Sprintf("%s: STS did not answer: %s", where, awscall.Unanswered(err)))}
		}
		return &awscall.Failure{Reason: ReasonCallerIdentityUnknown, Message: creds.Scrub(fmt.Sprintf("%s: %v", where, err))}
	}
	reason := ReasonCallerIdentityUnknown
	if awscall.CredentialsRefused(code) {
		reason = ReasonInvalidCredentials
	}
	return &awscall.Failure{Reason: reason, Message: creds.Scrub(fmt.Sprintf("%s: %s: %s", where, code, message))}
}
