// Package frame is the operator's own frame: what every capability runs
// inside, and what the operator reports about itself. Nothing here imports a
// capability (subscription, podidentity, rbac, admission).
//
// Controllers, one package each:
//   - staticresources: StaticResources, the operand's fixed manifests, and
//     their availability;
//   - operatorversion: OperatorVersion, the version reported once at level;
//   - managementstate: ManagementState, refusing what it cannot do;
//   - loglevel: LogLevel, spec.operatorLogLevel applied to the process
//     (its mapping, capped below client-go's body logging, is shared with
//     the webhook's Deployment).
//
// What every controller shares:
//   - operatorclient: the operator's names and its library-go operator client;
//   - managementsync: what Managed, Unmanaged and Removed mean for a controller;
//   - conditions: how controllers write their conditions;
//   - informerkit: how a controller builds, starts and filters its
//     informers and maps their events to queue keys, and the transform of
//     the Namespace cache the starter shares;
//   - reconcileloop: the loop the controllers of this operator's own
//     resources run (Bundle, ClusterBundle, ScopeTemplate, ScopeInstance,
//     APIAccessPolicy);
//   - objectevents: Events on the objects they are about;
//   - controllerref: whether an object's controller is a given owner (group,
//     kind and UID), the proof of ownership every generator trusts;
//   - relatedobjects: what must-gather collects;
//   - topology: whether the control plane runs a single replica.
//
// This package holds no code.
package frame
