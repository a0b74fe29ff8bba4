// Package podidentity is AWS pod identity, the operator's half: whether it
// runs (Read, and the Decision the admission deployment and the status ask
// for), and below it the controller and documents that publish the cluster's
// service account issuer to S3. The webhook's half, the mutator that injects
// IAM role credentials into pods, is pkg/webhook/podidentity.
//
// What lives where:
//   - this package: the Decision (Read), and WebhookArgs, the flags that turn
//     the injection on in the webhook Deployment;
//   - issuer: the OIDC discovery document and JWKS built from the service
//     account signing keys;
//   - issuerpublisher: the IssuerPublisher controller, which keeps both
//     documents and the bucket policy current in the S3 bucket.
//
// Other capabilities import this package only, never the two below it.
package podidentity
