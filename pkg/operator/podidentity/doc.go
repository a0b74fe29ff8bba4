// Package podidentity is AWS pod identity, the operator's half: whether it
// runs (Read, and the Decision the admission deployment and the status ask
// for), and below it the controllers that publish the cluster's service
// account issuer to S3 and make the IAM roles IAMRoleRequests ask for. The
// webhook's half, the mutator that injects IAM role credentials into pods,
// is pkg/webhook/podidentity.
//
// This package: the Decision (Read), and WebhookArgs, the flags that turn
// the injection on in the webhook Deployment.
//
// Controllers, one package each:
//   - issuerpublisher: IssuerPublisher, which keeps the issuer documents and
//     the bucket policy current in the S3 bucket;
//   - iamrolerequest: IAMRoleRequest, the IAM role (and the ServiceAccount
//     annotation) each request asks for;
//   - iamroleboundary: IAMRoleBoundary, whether requests wait for a
//     permissions boundary the operator may use;
//   - uncredentialedpods: PodIdentityUncredentialedPods, the running pods
//     that lack the credentials their ServiceAccount grants (an Event on
//     each, a count by namespace), by the webhook mutator's own decision.
//
// What they share:
//   - issuer: the OIDC discovery document and JWKS built from the service
//     account signing keys;
//   - iamrole: an IAMRoleRequest's IAM role: names, documents, drift;
//   - tokenissuer: the issuers the cluster's service account tokens carry,
//     which every role's trust follows;
//   - awscall: the AWS credentials with their scrubbing, and why an AWS
//     call failed (error codes, failures), without URLs or keys.
//
// Other capabilities import this package only, never what lies below it.
package podidentity
