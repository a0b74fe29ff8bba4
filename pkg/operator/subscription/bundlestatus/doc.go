// Package bundlestatus is what the Bundle and ClusterBundle controllers
// share about a bundle's own status: the Invalid condition (SetValid,
// MarkInvalid), the Events of its transitions (RecordTransition), and when
// to look again at a bundle that stays Invalid (MissingRetry, InvalidRetry).
package bundlestatus
