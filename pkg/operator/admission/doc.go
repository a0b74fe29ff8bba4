// Package admission is how the operator runs the admission webhook that the
// other capabilities' mutators and checks live in (pkg/webhook): its
// Deployment, its serving certificate, its two webhook configurations with
// the CA synced in, and whether it can be called.
//
// Controllers, one package each:
//   - webhookdeployment: WebhookDeployment, the webhook's Deployment (replicas
//     from the topology, TLS profile, pod identity's flags);
//   - webhookcertrotation: WebhookCertRotation, the signer, serving-CA
//     ConfigMap and serving certificate;
//   - webhookcabundle: WebhookCABundle, the MutatingWebhookConfiguration for
//     pods with the serving CA in it;
//   - accessgrantswebhook: AccessGrantsWebhook, the ValidatingWebhookConfiguration
//     of the access-grants check;
//   - webhookavailability: WebhookAvailability, WebhookAvailable and whether
//     the webhook runs this operator's version.
//
// What they share:
//   - webhooktrust: putting the serving CA into both configurations and
//     telling whether one trusts it.
//
// Admission reads pod identity's decision (pkg/operator/podidentity) to know
// which webhooks and flags pod identity needs; it imports no other
// capability. This package holds no code.
package admission
