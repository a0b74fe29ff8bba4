// Package subscription is subscription injection, the operator's half:
// Bundles and ClusterBundles (subscription.openshift.io/v1alpha1) validated,
// their key names recorded in status, and what a ClusterBundle needs to be
// mounted (SharedSecrets, SharedConfigMaps, a ClusterRole) created and kept.
// The webhook's half, the mutator that mounts entitlement keys and yum
// repository files into pods that ask, is pkg/webhook/subscription.
//
// Controllers, one package each:
//   - bundles: the Bundle controller;
//   - clusterbundles: the ClusterBundle controller or, while the Shared
//     Resource API is not served, a stand-in that marks every ClusterBundle
//     Invalid and ClusterBundleAPIWatch, which restarts the operator once
//     the API appears;
//   - consoleyamlsamples: ConsoleYAMLSamples, the console's example bundles;
//   - bundlemetrics: Invalid bundles on the operator's /metrics (a collector,
//     no controller).
//
// What they share:
//   - bundlestatus: the Invalid condition, its Events and retries;
//   - bundlerefs: the key names of what a bundle references;
//   - referencewatch: wakes bundles when what they reference changes.
//
// This package holds no code: nothing outside subscription imports below it.
package subscription
