package subscription

import (
	"slices"
	"strconv"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// appendJSON appends the record as encoding/json encodes a generations
// (TestTheRecordIsEncodedAsEncodingJSONWould), without reflection: each
// admission that injects writes one.
func (g generations) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	if len(g.Bundles) > 0 {
		dst = append(dst, `"bundles":`...)
		dst = appendGenerationMap(dst, g.Bundles)
		dst = append(dst, ',')
	}
	if len(g.ClusterBundles) > 0 {
		dst = append(dst, `"clusterBundles":`...)
		dst = appendGenerationMap(dst, g.ClusterBundles)
		dst = append(dst, ',')
	}
	dst = append(dst, `"volumes":`...)
	if g.Volumes == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, v := range g.Volumes {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = mutation.AppendString(dst, v)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendGenerationMap appends a map by sorted key, as encoding/json does.
func appendGenerationMap(dst []byte, m map[string]int64) []byte {
	var array [8]string
	keys := array[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = mutation.AppendString(dst, k)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, m[k], 10)
	}
	return append(dst, '}')
}
