package subscription

import (
	"encoding/json"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
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

func TestSameMountsIsSameWithoutReflection(t *testing.T) {
	if n := reflect.TypeFor[corev1.VolumeMount]().NumField(); n != 7 {
		t.Fatalf("corev1.VolumeMount has %d fields, sameMounts compares 7: compare the new ones", n)
	}
	rro, rro2 := corev1.RecursiveReadOnlyEnabled, corev1.RecursiveReadOnlyEnabled
	prop, prop2 := corev1.MountPropagationHostToContainer, corev1.MountPropagationBidirectional
	base := corev1.VolumeMount{Name: "a", ReadOnly: true, MountPath: "/a", SubPath: "s", SubPathExpr: "e", RecursiveReadOnly: &rro, MountPropagation: &prop}
	variants := []corev1.VolumeMount{base}
	for _, change := range []func(*corev1.VolumeMount){
		func(m *corev1.VolumeMount) { m.Name = "b" },
		func(m *corev1.VolumeMount) { m.ReadOnly = false },
		func(m *corev1.VolumeMount) { m.MountPath = "/b" },
		func(m *corev1.VolumeMount) { m.SubPath = "" },
		func(m *corev1.VolumeMount) { m.SubPathExpr = "" },
		func(m *corev1.VolumeMount) { m.RecursiveReadOnly = nil },
		func(m *corev1.VolumeMount) { m.RecursiveReadOnly = &rro2 }, // another pointer, the same value
		func(m *corev1.VolumeMount) { m.MountPropagation = &prop2 },
		func(m *corev1.VolumeMount) { m.MountPropagation = nil },
	} {
		m := base
		change(&m)
		variants = append(variants, m)
	}
	lists := [][]corev1.VolumeMount{nil, {}}
	for _, v := range variants {
		lists = append(lists, []corev1.VolumeMount{v}, []corev1.VolumeMount{base, v})
	}
	for _, a := range lists {
		for _, b := range lists {
			if got, want := sameMounts(a, b), same(a, b); got != want {
				t.Errorf("sameMounts(%v, %v) = %v, same says %v", a, b, got, want)
			}
		}
	}
}
