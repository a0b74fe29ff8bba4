package subscription

import (
	"encoding/json"
	"testing"
)

func TestTheRecordIsEncodedAsEncodingJSONWould(t *testing.T) {
	many := map[string]int64{}
	for _, name := range []string{"z", "a", "m", "b-2", "b-10", "é", "x<y>&", "\u2028", "q\"", "k\\", "\xff", "0", "A", "zz"} {
		many[name] = int64(len(many)) - 3
	}
	for _, g := range []generations{
		{},
		{Volumes: []string{}},
		{Bundles: map[string]int64{"rhel": 1}, Volumes: []string{"subscription-entitlements"}},
		{ClusterBundles: map[string]int64{"rhel-cluster": 9_223_372_036_854_775_807}, Volumes: []string{"subscription-ent-abc", "a<b>"}},
		{Bundles: many, ClusterBundles: many, Volumes: []string{"\t", ""}},
		{Bundles: map[string]int64{}, ClusterBundles: map[string]int64{}},
	} {
		want, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.appendJSON(nil); string(got) != string(want) {
			t.Errorf("appendJSON = %s, want %s", got, want)
		}
	}
}
