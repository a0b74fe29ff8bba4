package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

var (
	serviceMonitors = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
	prometheusRules = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}
)

const (
	// Where OpenShift's Prometheus mounts the service CA bundle, and where
	// library-go's controllercmd looks for a serving pair.
	serviceCAFile       = "/etc/prometheus/configmaps/serving-certs-ca-bundle/service-ca.crt"
	servingCertAnnotate = "service.beta.openshift.io/serving-cert-secret-name"
	controllercmdCerts  = "/var/run/secrets/serving-cert"
)

// The payload's ServiceMonitors and PrometheusRule are accepted by the API
// server exactly as written: strict field validation refuses a field the
// CRDs do not know (which plain apply would silently prune), and what is
// stored is what the manifest says.
func TestMonitoringManifestsAreAcceptedAsWritten(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(env.cp.Config)
	kinds := map[string]int{}
	for _, obj := range env.payload.Objects {
		gvk := obj.GroupVersionKind()
		if gvk.Group != serviceMonitors.Group {
			continue
		}
		kinds[gvk.Kind]++
		gvr := map[string]schema.GroupVersionResource{"ServiceMonitor": serviceMonitors, "PrometheusRule": prometheusRules}[gvk.Kind]
		client := dyn.Resource(gvr).Namespace(obj.GetNamespace())
		data, err := json.Marshal(obj.Object)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := client.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{
			FieldManager: "cluster-version-operator", Force: ptr.To(true), DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict",
		}); err != nil {
			t.Errorf("%s %s/%s with strict field validation: %v", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
		}
		stored, err := client.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s %s/%s was not applied: %v", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
		}
		if !reflect.DeepEqual(stored.Object["spec"], obj.Object["spec"]) {
			t.Errorf("%s %s/%s stored spec differs from the manifest:\n%v\n%v", gvk.Kind, obj.GetNamespace(), obj.GetName(), stored.Object["spec"], obj.Object["spec"])
		}
	}
	if want := map[string]int{"ServiceMonitor": 2, "PrometheusRule": 1}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("monitoring objects in the payload %v, want %v", kinds, want)
	}
}

// scrapeTarget is what Prometheus derives from one ServiceMonitor endpoint.
type scrapeTarget struct {
	monitor     *unstructured.Unstructured
	service     *corev1.Service
	port        corev1.ServicePort
	serverName  string
	caFile      string
	caConfigMap string
	caKey       string
}

// target follows the ServiceMonitor's selector to exactly one Service in its
// namespace and its one endpoint's named port on it.
func target(ctx context.Context, monitor *unstructured.Unstructured) (*scrapeTarget, error) {
	ns := monitor.GetNamespace()
	names, _, _ := unstructured.NestedStringSlice(monitor.Object, "spec", "namespaceSelector", "matchNames")
	if !reflect.DeepEqual(names, []string{ns}) {
		return nil, fmt.Errorf("namespaceSelector %v, want only its own namespace %s", names, ns)
	}
	matchLabels, _, _ := unstructured.NestedStringMap(monitor.Object, "spec", "selector", "matchLabels")
	services, err := env.kube.CoreV1().Services(ns).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(matchLabels).String()})
	if err != nil {
		return nil, err
	}
	if len(services.Items) != 1 {
		return nil, fmt.Errorf("selector %v matches %d Services in %s, want 1", matchLabels, len(services.Items), ns)
	}
	endpoints, _, _ := unstructured.NestedSlice(monitor.Object, "spec", "endpoints")
	if len(endpoints) != 1 {
		return nil, fmt.Errorf("%d endpoints, want 1", len(endpoints))
	}
	ep := endpoints[0].(map[string]any)
	tc := &scrapeTarget{monitor: monitor, service: &services.Items[0]}
	tc.serverName, _, _ = unstructured.NestedString(ep, "tlsConfig", "serverName")
	tc.caFile, _, _ = unstructured.NestedString(ep, "tlsConfig", "caFile")
	tc.caConfigMap, _, _ = unstructured.NestedString(ep, "tlsConfig", "ca", "configMap", "name")
	tc.caKey, _, _ = unstructured.NestedString(ep, "tlsConfig", "ca", "configMap", "key")
	if ep["scheme"] != "https" || ep["bearerTokenFile"] == nil || ep["path"] != "/metrics" {
		return nil, fmt.Errorf("endpoint %v: want https, /metrics and Prometheus' bearer token", ep)
	}
	for _, p := range tc.service.Spec.Ports {
		if p.Name == ep["port"] {
			tc.port = p
			return tc, nil
		}
	}
	return nil, fmt.Errorf("Service %s/%s has no port named %v", ns, tc.service.Name, ep["port"])
}

// Each ServiceMonitor selects a Service whose port leads to a named container
// port of the Deployment behind it, verifies the Service's DNS name, and
// trusts a CA that exists: the webhook's own CA ConfigMap, or the service CA
// whose certificate the operator's Deployment mounts where controllercmd
// reads it.
func TestServiceMonitorsPointAtServingEndpoints(t *testing.T) {
	dumpOnFailure(t)
	expectWebhookAvailable(t)
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(env.cp.Config)
	for _, ns := range []string{operatorNS, operandNS} {
		monitors, err := dyn.Resource(serviceMonitors).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(monitors.Items) != 1 {
			t.Fatalf("%d ServiceMonitors in %s, want 1", len(monitors.Items), ns)
		}
		tc, err := target(ctx, &monitors.Items[0])
		if err != nil {
			t.Fatalf("ServiceMonitor %s/%s: %v", ns, monitors.Items[0].GetName(), err)
		}
		if want := tc.service.Name + "." + ns + ".svc"; tc.serverName != want {
			t.Errorf("ServiceMonitor %s/%s verifies %q, want the Service's name %q", ns, tc.monitor.GetName(), tc.serverName, want)
		}
		deployment := backingDeployment(t, tc.service)
		container := deployment.Spec.Template.Spec.Containers[0]
		if tc.port.TargetPort.Type != intstr.String || !hasContainerPort(container, tc.port.TargetPort.StrVal) {
			t.Errorf("Service %s/%s port %s targets %v, not a named port of Deployment %s", ns, tc.service.Name, tc.port.Name, tc.port.TargetPort, deployment.Name)
		}
		switch {
		case tc.caConfigMap != "":
			cm, err := env.kube.CoreV1().ConfigMaps(ns).Get(ctx, tc.caConfigMap, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("CA ConfigMap of ServiceMonitor %s/%s: %v", ns, tc.monitor.GetName(), err)
			}
			if !x509.NewCertPool().AppendCertsFromPEM([]byte(cm.Data[tc.caKey])) {
				t.Errorf("ConfigMap %s/%s key %q holds no certificate", ns, tc.caConfigMap, tc.caKey)
			}
		case tc.caFile == serviceCAFile:
			secret := tc.service.Annotations[servingCertAnnotate]
			if secret == "" || !mountsSecret(deployment.Spec.Template.Spec, container, secret, controllercmdCerts) {
				t.Errorf("ServiceMonitor %s/%s trusts the service CA, but Service %s asks for serving cert %q and Deployment %s does not mount it at %s",
					ns, tc.monitor.GetName(), tc.service.Name, secret, deployment.Name, controllercmdCerts)
			}
		default:
			t.Errorf("ServiceMonitor %s/%s trusts no CA this test knows: caFile %q", ns, tc.monitor.GetName(), tc.caFile)
		}
	}
}

func backingDeployment(t *testing.T, svc *corev1.Service) *appsv1.Deployment {
	t.Helper()
	var found *appsv1.Deployment
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		deployments, err := env.kube.AppsV1().Deployments(svc.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for i, d := range deployments.Items {
			if labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
				found = &deployments.Items[i]
				return nil
			}
		}
		return fmt.Errorf("no Deployment in %s runs the pods of Service %s (%v)", svc.Namespace, svc.Name, svc.Spec.Selector)
	})
	return found
}

func hasContainerPort(c corev1.Container, name string) bool {
	for _, p := range c.Ports {
		if p.Name == name {
			return true
		}
	}
	return false
}

func mountsSecret(spec corev1.PodSpec, c corev1.Container, secret, path string) bool {
	for _, v := range spec.Volumes {
		if v.Secret == nil || v.Secret.SecretName != secret {
			continue
		}
		for _, m := range c.VolumeMounts {
			if m.Name == v.Name && m.MountPath == path {
				return true
			}
		}
	}
	return false
}

// Prometheus' ServiceAccount may discover the targets in both namespaces
// through the shipped Roles, and nothing more there.
func TestPrometheusMayDiscoverTargets(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	if _, err := framework.PrometheusToken(ctx, env.kube); err != nil {
		t.Fatal(err)
	}
	user := "system:serviceaccount:" + framework.PrometheusNamespace + ":" + framework.PrometheusServiceAccount
	allowed := func(ns, group, resource, verb string) bool {
		sar, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + framework.PrometheusNamespace},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Group: group, Resource: resource, Verb: verb},
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return sar.Status.Allowed
	}
	for _, ns := range []string{operatorNS, operandNS} {
		for _, r := range []struct{ group, resource string }{{"", "services"}, {"", "endpoints"}, {"", "pods"}, {"discovery.k8s.io", "endpointslices"}} {
			for _, verb := range []string{"get", "list", "watch"} {
				if !allowed(ns, r.group, r.resource, verb) {
					t.Errorf("Prometheus may not %s %s in %s", verb, r.resource, ns)
				}
			}
		}
		for _, r := range []struct{ group, resource, verb string }{{"", "secrets", "get"}, {"", "configmaps", "list"}, {"", "pods", "delete"}, {"", "services", "update"}} {
			if allowed(ns, r.group, r.resource, r.verb) {
				t.Errorf("Prometheus may %s %s in %s; it needs only to discover targets", r.verb, r.resource, ns)
			}
		}
	}
}

// The webhook's /metrics answers the way Prometheus scrapes it: at the
// ServiceMonitor's Service port, over TLS verified with the CA and server
// name the ServiceMonitor names, with Prometheus' token.
func TestPrometheusScrapesTheWebhook(t *testing.T) {
	dumpOnFailure(t)
	expectWebhookAvailable(t)
	w := ensureWebhook(t)
	ctx := context.Background()
	monitor, err := dynamic.NewForConfigOrDie(env.cp.Config).Resource(serviceMonitors).Namespace(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tc, err := target(ctx, monitor)
	if err != nil {
		t.Fatal(err)
	}
	// No kube-proxy here: the webhook process serves the Service's ClusterIP.
	address := net.JoinHostPort(tc.service.Spec.ClusterIP, strconv.Itoa(int(tc.port.Port)))
	if address != w.MetricsAddress {
		t.Fatalf("the ServiceMonitor leads to %s, the webhook serves metrics on %s", address, w.MetricsAddress)
	}
	// The admission port serves no metrics: network policy admits
	// Prometheus to the metrics port alone.
	if w.MetricsAddress == w.Address {
		t.Fatalf("metrics are served on the admission port %s", w.Address)
	}
	cm, err := env.kube.CoreV1().ConfigMaps(operandNS).Get(ctx, tc.caConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(cm.Data[tc.caKey]))
	token, err := framework.PrometheusToken(ctx, env.kube)
	if err != nil {
		t.Fatal(err)
	}
	body := scrape(t, address, &tls.Config{RootCAs: pool, ServerName: tc.serverName, MinVersion: tls.VersionTLS12}, token)
	admissionPort := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: tc.serverName, MinVersion: tls.VersionTLS12}}}
	req, err := http.NewRequest(http.MethodGet, "https://"+w.Address+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err := admissionPort.Do(req); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics on the admission port %s: %v %v, want 404", w.Address, resp, err)
	} else {
		resp.Body.Close()
	}
	expiry, ok := seriesValue(body, "workload_access_webhook_serving_certificate_expiration_timestamp_seconds")
	if !ok || time.Unix(int64(expiry), 0).Before(time.Now()) {
		t.Errorf("certificate expiry %v (present %v), want a time in the future", expiry, ok)
	}
	// Created at zero, so the first panic is an increase Prometheus sees.
	if v, ok := seriesValue(body, `workload_access_webhook_panics_recovered_total{source="subscription"}`); !ok || v != 0 {
		t.Errorf(`panics_recovered_total{source="subscription"} = %v (present %v), want 0`, v, ok)
	}
}

// scrape GETs https://address/metrics as Prometheus does and fails the test
// unless it answers 200.
func scrape(t *testing.T, address string, config *tls.Config, token string) string {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: config}}
	req, err := http.NewRequest(http.MethodGet, "https://"+address+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("scraping %s: %v", address, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scraping %s: %d %s", address, resp.StatusCode, body)
	}
	return string(body)
}

// seriesValue finds one series (labels as the exposition writes them, sorted
// by name) in a /metrics body.
func seriesValue(body, series string) (float64, bool) {
	scanner := bufio.NewScanner(strings.NewReader(body))
	scanner.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for scanner.Scan() {
		if rest, ok := strings.CutPrefix(scanner.Text(), series+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return v, err == nil
		}
	}
	return 0, false
}
