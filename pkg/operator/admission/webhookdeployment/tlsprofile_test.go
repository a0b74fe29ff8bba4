package webhookdeployment

import (
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestTLSArgsFollowTheProfile(t *testing.T) {
	for _, c := range []struct {
		name    string
		profile *configv1.TLSSecurityProfile
		want    string
		wantErr string
	}{
		{name: "none is Intermediate", want: "--tls-min-version=VersionTLS12 --tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"},
		{name: "Modern", profile: &configv1.TLSSecurityProfile{Type: configv1.TLSProfileModernType}, want: "--tls-min-version=VersionTLS13"},
		{name: "Custom", profile: &configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType, Custom: &configv1.CustomTLSProfile{TLSProfileSpec: configv1.TLSProfileSpec{
			MinTLSVersion: configv1.VersionTLS12, Ciphers: []string{"ECDHE-RSA-AES256-GCM-SHA384"},
		}}}, want: "--tls-min-version=VersionTLS12 --tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"},
		{name: "Custom without a spec", profile: &configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType}, wantErr: "Custom but names no ciphers"},
		{name: "unknown", profile: &configv1.TLSSecurityProfile{Type: "Paranoid"}, wantErr: `"Paranoid" is unknown`},
	} {
		t.Run(c.name, func(t *testing.T) {
			args, err := TLSArgs(c.profile)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(args, " "); got != c.want {
				t.Errorf("args\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestTLSProfileHookSetsTheWebhookFlags(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	lister := configv1listers.NewAPIServerLister(indexer)
	hook := TLSProfileHook(lister)

	deployment := render(t, &operatorv1.OperatorSpec{}, "img")
	before := len(deployment.Spec.Template.Spec.Containers[0].Args)
	if err := hook(&operatorv1.OperatorSpec{}, deployment); err != nil {
		t.Fatalf("without an APIServer object: %v", err)
	}
	args := deployment.Spec.Template.Spec.Containers[0].Args[before:]
	if len(args) != 2 || args[0] != "--tls-min-version=VersionTLS12" {
		t.Errorf("without an APIServer object: %v, want Intermediate", args)
	}

	_ = indexer.Add(&configv1.APIServer{ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec: configv1.APIServerSpec{TLSSecurityProfile: &configv1.TLSSecurityProfile{Type: configv1.TLSProfileModernType}}})
	deployment = render(t, &operatorv1.OperatorSpec{}, "img")
	if err := hook(&operatorv1.OperatorSpec{}, deployment); err != nil {
		t.Fatal(err)
	}
	if args := deployment.Spec.Template.Spec.Containers[0].Args[before:]; strings.Join(args, " ") != "--tls-min-version=VersionTLS13" {
		t.Errorf("Modern: %v", args)
	}
}
