// Package importrules holds the import rules that keep the code base in one
// shape, and the test that enforces them on every package of the module
// (test files included, followed through every package of the module):
//
//   - A controller package (pkg/operator/<name>, unless listed in Shared)
//     imports no other controller package: controllers talk to each other
//     through the API and share only the small packages in Shared.
//   - Nothing under pkg/webhook imports pkg/operator: the webhook and the
//     operator share pkg/apis, the generated clients and nothing else.
//   - A mutator (a package under pkg/webhook other than the server's own)
//     imports no API client and no network: what it needs from the cluster
//     arrives through an interface the server hands it.
package importrules

// Shared are the packages under pkg/operator that are not controllers:
// names, helpers and skeletons any controller may import. A package added
// here must import no controller.
var Shared = map[string]string{
	"operatorclient":    "the operator's names and its library-go operator client",
	"conditions":        "how controllers write their conditions",
	"managementstate":   "how controllers read and act on spec.managementState",
	"topology":          "the control-plane topology",
	"webhooktrust":      "the caBundle of the webhook configurations, mutating and validating",
	"bundlereconcile":   "the loop every bundle controller runs",
	"bundlerefs":        "reading the key names a bundle references",
	"referencewatch":    "waking bundle controllers when what their bundles reference changes",
	"relatedobjects":    "what must-gather collects",
	"objectevents":      "Events recorded on the objects they are about",
	"podidentityconfig": "whether AWS pod identity runs, and with what region, bucket and issuer",
	"rbacsubjects":      "binding subjects with the API server's defaults",
}

// ServerPackages are the webhook's own packages under pkg/webhook, which
// may hold clients; every other package there is a mutator.
var ServerPackages = []string{"pkg/webhook", "pkg/webhook/mutation"}

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
