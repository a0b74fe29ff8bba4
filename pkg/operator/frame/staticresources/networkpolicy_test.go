package staticresources

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-workload-access-operator/bindata"
)

// The sources a port admits, as namespaceSelector labels. The local
// control plane enforces no NetworkPolicy, so what is checked here is that
// the policies select the pods the Deployments run and name the ports they
// serve: a renamed label, a moved port or a new port without a policy fails.
var (
	// The kube-apiserver (and the kubelet's probes) on the host network.
	fromHostNetwork = map[string]string{"policy-group.network.openshift.io/host-network": ""}
	// The cluster's Prometheus.
	fromMonitoring = map[string]string{"kubernetes.io/metadata.name": "openshift-monitoring"}
)

func TestNetworkPoliciesAdmitOnlyTheirCallers(t *testing.T) {
	operatorManifests := readManifests(t, "../../../../manifests/0000_50_workload-access_05_deployment.yaml",
		"../../../../manifests/0000_50_workload-access_05_networkpolicies.yaml")
	var operandDocs []string
	for _, file := range append([]string{"operand/webhook-deployment.yaml"}, NetworkPolicyFiles...) {
		operandDocs = append(operandDocs, string(bindata.MustAsset(file)))
	}
	for _, c := range []struct {
		name string
		docs []string
		// want is, per container port name, the sources it admits.
		want map[string][]map[string]string
	}{
		{"webhook", operandDocs, map[string][]map[string]string{"https": {fromHostNetwork}, "metrics": {fromMonitoring}}},
		{"operator", operatorManifests, map[string][]map[string]string{"metrics": {fromMonitoring}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			deployment, policies := decode(t, c.docs)
			for _, err := range checkPolicies(deployment, policies, c.want) {
				t.Error(err)
			}
		})
	}
}

// The operand namespace's policies are applied, and restored, by the static
// resource controller.
func TestNetworkPoliciesAreStaticResources(t *testing.T) {
	for _, file := range NetworkPolicyFiles {
		if !slices.Contains(Files, file) {
			t.Errorf("%s is not applied: add it to Files", file)
		}
	}
}

// checkPolicies lists what is wrong with policies as the ingress rules of
// deployment's namespace.
func checkPolicies(deployment *appsv1.Deployment, policies []*networkingv1.NetworkPolicy, want map[string][]map[string]string) []error {
	var errs []error
	podLabels := labels.Set(deployment.Spec.Template.Labels)
	var denyAll, selecting []*networkingv1.NetworkPolicy
	for _, p := range policies {
		if p.Namespace != deployment.Namespace {
			errs = append(errs, fmt.Errorf("policy %s is in namespace %q, the pods in %q", p.Name, p.Namespace, deployment.Namespace))
		}
		// Egress stays open: both call the API server (docs/security.md).
		if !reflect.DeepEqual(p.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}) {
			errs = append(errs, fmt.Errorf("policy %s has policyTypes %v, want [Ingress]", p.Name, p.Spec.PolicyTypes))
		}
		if len(p.Spec.PodSelector.MatchLabels) == 0 && len(p.Spec.PodSelector.MatchExpressions) == 0 {
			if len(p.Spec.Ingress) > 0 {
				errs = append(errs, fmt.Errorf("policy %s selects every pod and admits something", p.Name))
			}
			denyAll = append(denyAll, p)
			continue
		}
		selector, err := metav1.LabelSelectorAsSelector(&p.Spec.PodSelector)
		if err != nil {
			errs = append(errs, fmt.Errorf("policy %s: %w", p.Name, err))
			continue
		}
		if !selector.Matches(podLabels) {
			errs = append(errs, fmt.Errorf("policy %s selects %v, which the Deployment's pods (labels %v) do not match", p.Name, selector, podLabels))
			continue
		}
		if !reflect.DeepEqual(p.Spec.PodSelector.MatchLabels, deployment.Spec.Selector.MatchLabels) {
			errs = append(errs, fmt.Errorf("policy %s selects %v, the Deployment %v", p.Name, p.Spec.PodSelector.MatchLabels, deployment.Spec.Selector.MatchLabels))
		}
		selecting = append(selecting, p)
	}
	if len(denyAll) != 1 {
		errs = append(errs, fmt.Errorf("%d default-deny policies in %s, want 1", len(denyAll), deployment.Namespace))
	}
	if len(selecting) != 1 {
		return append(errs, fmt.Errorf("%d policies select the Deployment's pods, want 1", len(selecting)))
	}

	got := map[string][]map[string]string{}
	for i, rule := range selecting[0].Spec.Ingress {
		if len(rule.From) == 0 || len(rule.Ports) == 0 {
			errs = append(errs, fmt.Errorf("rule %d admits every source or every port", i))
			continue
		}
		for _, peer := range rule.From {
			if peer.NamespaceSelector == nil || peer.PodSelector != nil || peer.IPBlock != nil || len(peer.NamespaceSelector.MatchExpressions) > 0 {
				errs = append(errs, fmt.Errorf("rule %d: a source is not one namespaceSelector by labels: %+v", i, peer))
				continue
			}
			for _, port := range rule.Ports {
				name, err := containerPort(deployment, port)
				if err != nil {
					errs = append(errs, fmt.Errorf("rule %d: %w", i, err))
					continue
				}
				got[name] = append(got[name], peer.NamespaceSelector.MatchLabels)
			}
		}
	}
	for _, container := range deployment.Spec.Template.Spec.Containers {
		for _, port := range container.Ports {
			if _, ok := want[port.Name]; !ok {
				errs = append(errs, fmt.Errorf("container port %q (%d) has no expected callers here: say who may reach it", port.Name, port.ContainerPort))
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		errs = append(errs, fmt.Errorf("ports admit %v, want %v", got, want))
	}
	return errs
}

// containerPort names the Deployment's container port a policy port is.
func containerPort(deployment *appsv1.Deployment, port networkingv1.NetworkPolicyPort) (string, error) {
	if port.Port == nil || port.EndPort != nil || port.Protocol == nil {
		return "", fmt.Errorf("a port must be one port with its protocol: %+v", port)
	}
	for _, container := range deployment.Spec.Template.Spec.Containers {
		for _, p := range container.Ports {
			protocol := p.Protocol
			if protocol == "" {
				protocol = "TCP"
			}
			if protocol != *port.Protocol {
				continue
			}
			if port.Port.IntValue() == int(p.ContainerPort) || (port.Port.StrVal != "" && port.Port.StrVal == p.Name) {
				return p.Name, nil
			}
		}
	}
	return "", fmt.Errorf("port %s/%s is not a container port of the Deployment", *port.Protocol, port.Port)
}

func readManifests(t *testing.T, files ...string) []string {
	t.Helper()
	var docs []string
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, strings.Split(string(data), "\n---\n")...)
	}
	return docs
}

// decode returns the one Deployment and the NetworkPolicies in docs.
func decode(t *testing.T, docs []string) (*appsv1.Deployment, []*networkingv1.NetworkPolicy) {
	t.Helper()
	var deployment *appsv1.Deployment
	var policies []*networkingv1.NetworkPolicy
	for _, doc := range docs {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		switch meta.Kind {
		case "Deployment":
			deployment = &appsv1.Deployment{}
			if err := yaml.UnmarshalStrict([]byte(doc), deployment); err != nil {
				t.Fatal(err)
			}
		case "NetworkPolicy":
			policy := &networkingv1.NetworkPolicy{}
			if err := yaml.UnmarshalStrict([]byte(doc), policy); err != nil {
				t.Fatal(err)
			}
			policies = append(policies, policy)
		default:
			t.Fatalf("unexpected %q in the manifests under test", meta.Kind)
		}
	}
	if deployment == nil {
		t.Fatal("no Deployment")
	}
	return deployment, policies
}
