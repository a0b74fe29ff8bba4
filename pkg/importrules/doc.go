// Package importrules holds the import rules that keep the code base in one
// shape, and the test that enforces them on every package of the module
// (test files included, followed through every package of the module):
//
//   - Every package under pkg/operator, but the starter itself, lies in one
//     area: a capability (Capabilities) or the operator's frame (Frame). A
//     new area is a decision: add it here and to docs/architecture.md.
//   - The frame imports no capability: it is what capabilities run inside.
//   - A capability imports another only through that capability's root
//     package (pkg/operator/<capability>), its contract, never what lies
//     below it.
//   - A controller package (pkg/operator/<area>/<name>, unless listed in
//     Shared) imports no other controller package: controllers talk to each
//     other through the API and share only the packages in Shared.
//   - Nothing under pkg/webhook imports pkg/operator: the webhook and the
//     operator share pkg/apis and the generated clients. The operator may
//     import a mutator (pure, below) to ask what the webhook decides, as
//     the uncredentialed pods controller asks pod identity's.
//   - A mutator (a package under pkg/webhook other than the server's own)
//     imports no API client and no network: what it needs from the cluster
//     arrives through an interface the server hands it.
package importrules

// Capabilities are the areas of pkg/operator that each give workloads or
// users one kind of access, mirroring pkg/webhook's mutators and checks.
var Capabilities = map[string]string{
	"subscription": "Bundles and ClusterBundles: entitlements and yum repositories for pods",
	"podidentity":  "AWS pod identity: whether it runs, the published service account issuer and IAM roles from IAMRoleRequests",
	"rbac":         "ScopeTemplates, ScopeInstances and APIAccessPolicies",
	"admission":    "the admission webhook's Deployment, certificates and configurations",
}

// Frame is the area of pkg/operator that every capability runs inside.
const Frame = "frame"

// Shared are the packages under pkg/operator (named from there) that are
// not controllers: names, helpers and skeletons the controllers of their
// area, or of any area for the frame's, may import. A package added here
// must import no controller.
var Shared = map[string]string{
	"frame/operatorclient":        "the operator's names and its library-go operator client",
	"frame/conditions":            "how controllers write their conditions",
	"frame/managementsync":        "how controllers read and act on spec.managementState",
	"frame/topology":              "the control-plane topology",
	"frame/reconcileloop":         "the loop the controllers of the operator's own resources run",
	"frame/relatedobjects":        "what must-gather collects",
	"frame/objectevents":          "Events recorded on the objects they are about",
	"frame/controllerref":         "whether an object's controller is a given owner: API group, kind and UID",
	"frame/loglevel":              "the klog verbosity of a log level, below client-go's body logging (and its controller)",
	"frame/informerkit":           "how a controller builds, starts, filters and keys its informers, and their transforms",
	"admission/webhooktrust":      "the caBundle of the webhook configurations, mutating and validating",
	"subscription/bundlestatus":   "a bundle's Invalid condition, its Events and retries",
	"subscription/bundlerefs":     "reading the key names a bundle references",
	"subscription/referencewatch": "waking bundle controllers when what their bundles reference changes",
	"podidentity/issuer":          "the OIDC discovery document and JWKS",
	"podidentity/iamrole":         "the IAM role of an IAMRoleRequest: names, documents, drift",
	"podidentity/tokenissuer":     "the issuers the cluster's service account tokens carry",
	"podidentity/awscall":         "the AWS credentials with their scrubbing, and why an AWS call failed (error codes, failures), without URLs or keys",
	"rbac/rbacsubjects":           "binding subjects with the API server's defaults",
	"rbac/crdaccess":              "the CRD informer, a policy's CRD selection and its bindings' names",
	"rbac/specwritten":            "whether a namespace existed when an object's spec was written",
}

// ServerPackages are the webhook's own packages under pkg/webhook, which
// may hold clients: the server, the mutators' contract and the cluster
// reads the server's command hands the mutators and the access grants check
// (clusterreads); every other package there is a mutator.
var ServerPackages = []string{"pkg/webhook", "pkg/webhook/mutation", "pkg/webhook/clusterreads"}

// ClientImports are imports a mutator must not make, directly or through a
// package of this module: API clients and the network.
var ClientImports = []string{
	"k8s.io/client-go/kubernetes",
	"k8s.io/client-go/rest",
	"k8s.io/client-go/dynamic",
	"github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset",
	"net/http",
	"net",
}
