package tokenissuer

import (
	"slices"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestReadTheIssuersTokensMayCarry(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: now.Add(d)} }
	auth := &configv1.Authentication{Spec: configv1.AuthenticationSpec{ServiceAccountIssuer: "https://new.example/b"}}
	kas := &operatorv1.KubeAPIServer{Status: operatorv1.KubeAPIServerStatus{ServiceAccountIssuers: []operatorv1.ServiceAccountIssuerStatus{
		{Name: "https://new.example/b"},
		{Name: "https://old.example/b", ExpirationTime: at(time.Hour)},
		{Name: "https://older.example/b", ExpirationTime: at(-time.Second)},
		{Name: "https://old.example/b", ExpirationTime: at(2 * time.Hour)},
		{Name: "https://new.example/b", ExpirationTime: at(time.Hour)},
		{Name: "", ExpirationTime: at(time.Hour)},
	}}}
	got := Read(auth, kas, now)
	if got.Current != "https://new.example/b" || !got.CurrentSet || !slices.Equal(got.Previous, []string{"https://old.example/b"}) || !got.PreviousUntil.Equal(now.Add(time.Hour)) {
		t.Errorf("Read = %+v", got)
	}
	if all := got.All(); !slices.Equal(all, []string{"https://new.example/b", "https://old.example/b"}) {
		t.Errorf("All = %q", all)
	}
	if got := Read(nil, nil, now); got.Current != KubernetesDefault || got.CurrentSet || got.Previous != nil {
		t.Errorf("nothing set: %+v", got)
	}
	if got := Read(&configv1.Authentication{}, nil, now); got.Current != KubernetesDefault || got.CurrentSet {
		t.Errorf("an empty issuer: %+v", got)
	}
}

func TestPublic(t *testing.T) {
	for issuer, want := range map[string]bool{
		"https://bucket.s3.us-east-1.amazonaws.com": true,
		"https://d1.cloudfront.net/path":            true,
		KubernetesDefault:                           false,
		KubernetesDefault + "/":                     false,
		"http://bucket.example":                     false,
		"":                                          false,
	} {
		if got := Public(issuer); got != want {
			t.Errorf("Public(%q) = %v, want %v", issuer, got, want)
		}
	}
}
