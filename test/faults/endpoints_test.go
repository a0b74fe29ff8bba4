package faults

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// What stands in for the kubelet and the EndpointSlice controller.
//
// The webhook replicas are processes on loopback "pod IPs", not pods: no
// kubelet probes them and no endpoint controller publishes them. With
// --enable-aggregator-routing=true, kube-apiserver (1.36) resolves a webhook
// Service through its EndpointSlices (k8s.io/apiserver pkg/util/proxy
// ResolveEndpoint: slices labelled kubernetes.io/service-name=<service>, the
// port named as the Service port, a random endpoint whose Ready condition is
// unset or true), so endpoints writes that one object as the controller
// would, from what a kubelet would report:
//   - a readiness probe of /readyz every periodSeconds of the Deployment's
//     probe, not ready after failureThreshold failures in a row, ready after
//     one success, each probe with the kubelet's default 1 s timeout;
//   - a replica whose process has ended is not ready within 1 s, as the
//     kubelet's PLEG notices a dead container on its 1 s relist;
//   - a deleted "pod" (a replica removed after a rolling restart stopped it)
//     leaves the slice.
//
// One thing is left out on purpose: the EndpointSlice controller also marks
// a pod not ready as soon as its deletion starts, before any probe fails.
// Without that, a replica stopped by a rollout leaves the endpoints only
// when its readiness probe fails: the longer window, the one the webhook's
// --shutdown-delay must cover.
type endpoints struct {
	kube             kubernetes.Interface
	period           time.Duration
	failureThreshold int
	port, metrics    discoveryv1.EndpointPort

	mu        sync.Mutex
	byIP      map[string]*endpoint
	changes   []readinessChange
	writeErrs []error
}

// endpoint is one replica as the kubelet sees it.
type endpoint struct {
	ip       string
	process  *framework.WebhookProcess
	ready    bool
	failures int
	stop     chan struct{}
}

// readinessChange is one Ready flip written to the EndpointSlice.
type readinessChange struct {
	IP    string
	Ready bool
	At    time.Time
	Why   string
}

const sliceName = framework.WebhookName + "-replicas"

// whyExited is the readiness change of a replica whose process ended.
const whyExited = "container exited"

// newEndpoints reads the probe and ports from the webhook Deployment and
// Service, and writes an empty slice.
func newEndpoints(ctx context.Context, kube kubernetes.Interface) (*endpoints, error) {
	var (
		deploy  *appsv1.Deployment
		service *corev1.Service
	)
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		if deploy, err = kube.AppsV1().Deployments(framework.OperandNamespace).Get(ctx, framework.WebhookName, metav1.GetOptions{}); err != nil {
			return false, nil
		}
		service, err = kube.CoreV1().Services(framework.OperandNamespace).Get(ctx, framework.WebhookName, metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("the operator never created the webhook Deployment and Service: %w", err)
	}
	probe := deploy.Spec.Template.Spec.Containers[0].ReadinessProbe
	if probe == nil {
		return nil, fmt.Errorf("the webhook Deployment has no readiness probe")
	}
	e := &endpoints{
		kube:             kube,
		period:           time.Duration(max(probe.PeriodSeconds, 1)) * time.Second,
		failureThreshold: int(max(probe.FailureThreshold, 1)),
		byIP:             map[string]*endpoint{},
	}
	containerPorts := map[string]int32{}
	for _, p := range deploy.Spec.Template.Spec.Containers[0].Ports {
		containerPorts[p.Name] = p.ContainerPort
	}
	for _, p := range service.Spec.Ports {
		target := p.TargetPort.IntVal
		if p.TargetPort.StrVal != "" {
			target = containerPorts[p.TargetPort.StrVal]
		}
		ep := discoveryv1.EndpointPort{Name: ptr.To(p.Name), Port: ptr.To(target), Protocol: ptr.To(corev1.ProtocolTCP)}
		switch p.Name {
		case "https":
			e.port = ep
		case "metrics":
			e.metrics = ep
		}
	}
	if e.port.Port == nil || *e.port.Port == 0 {
		return nil, fmt.Errorf("the webhook Service has no https port with a target: %+v", service.Spec.Ports)
	}
	return e, e.write(ctx)
}

// add starts probing a new replica ("pod") at ip; it is not ready until its
// first successful probe.
func (e *endpoints) add(ip string, w *framework.WebhookProcess) {
	e.mu.Lock()
	ep := &endpoint{ip: ip, process: w, stop: make(chan struct{})}
	e.byIP[ip] = ep
	e.mu.Unlock()
	e.rewrite("added")
	go e.probe(ep)
}

// restarted is the kubelet starting the replica's container again in the
// same pod (same IP) after it died.
func (e *endpoints) restarted(ip string, w *framework.WebhookProcess) {
	e.mu.Lock()
	ep := e.byIP[ip]
	old := ep.stop
	ep.process, ep.failures, ep.stop = w, 0, make(chan struct{})
	e.mu.Unlock()
	close(old)
	go e.probe(ep)
}

// remove is the pod deleted: its endpoint leaves the slice.
func (e *endpoints) remove(ip string) {
	e.mu.Lock()
	ep, ok := e.byIP[ip]
	delete(e.byIP, ip)
	e.mu.Unlock()
	if ok {
		close(ep.stop)
		e.rewrite("removed")
	}
}

// probe is the kubelet's prober for one container, and its PLEG.
func (e *endpoints) probe(ep *endpoint) {
	e.mu.Lock()
	w, stop := ep.process, ep.stop
	e.mu.Unlock()
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{
		// The kubelet does not verify a probe's certificate.
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // as the kubelet probes
		DisableKeepAlives: true,
	}}
	url := "https://" + net.JoinHostPort(ep.ip, strconv.Itoa(int(*e.port.Port))) + "/readyz"
	probe := time.NewTicker(e.period)
	defer probe.Stop()
	pleg := time.NewTicker(time.Second)
	defer pleg.Stop()
	check := func() {
		resp, err := client.Get(url)
		ok := err == nil && resp.StatusCode == http.StatusOK
		if resp != nil {
			resp.Body.Close()
		}
		e.mu.Lock()
		if ok {
			ep.failures = 0
		} else {
			ep.failures++
		}
		ready, failures := ep.ready, ep.failures
		e.mu.Unlock()
		switch {
		case ok && !ready:
			e.changed(ep.ip, true, "readiness probe succeeded")
		case !ok && ready && failures >= e.failureThreshold:
			e.changed(ep.ip, false, fmt.Sprintf("readiness probe failed %d times", failures))
		}
	}
	check()
	for {
		select {
		case <-stop:
			return
		case <-pleg.C:
			if w.Exited() {
				e.changed(ep.ip, false, whyExited)
				<-stop
				return
			}
		case <-probe.C:
			check()
		}
	}
}

// changed records a readiness flip and writes the slice.
func (e *endpoints) changed(ip string, ready bool, why string) {
	e.mu.Lock()
	ep, ok := e.byIP[ip]
	if !ok || ep.ready == ready {
		e.mu.Unlock()
		return
	}
	ep.ready = ready
	e.changes = append(e.changes, readinessChange{IP: ip, Ready: ready, At: time.Now(), Why: why})
	e.mu.Unlock()
	e.rewrite(why)
}

func (e *endpoints) rewrite(why string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.write(ctx); err != nil {
		e.mu.Lock()
		e.writeErrs = append(e.writeErrs, fmt.Errorf("%s: %w", why, err))
		e.mu.Unlock()
	}
}

// write puts the slice as the EndpointSlice controller would have it:
// every endpoint with its conditions, ports named as the Service's.
func (e *endpoints) write(ctx context.Context) error {
	e.mu.Lock()
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name:      sliceName,
			Namespace: framework.OperandNamespace,
			Labels: map[string]string{
				discoveryv1.LabelServiceName: framework.WebhookName,
				discoveryv1.LabelManagedBy:   "faults-test.workload-access.openshift.io",
			},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{e.port},
	}
	if e.metrics.Port != nil {
		slice.Ports = append(slice.Ports, e.metrics)
	}
	ips := make([]string, 0, len(e.byIP))
	for ip := range e.byIP {
		ips = append(ips, ip)
	}
	sort.Strings(ips)
	for _, ip := range ips {
		ready := e.byIP[ip].ready
		slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{ip},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(ready), Serving: ptr.To(ready), Terminating: ptr.To(false)},
		})
	}
	e.mu.Unlock()

	slices := e.kube.DiscoveryV1().EndpointSlices(framework.OperandNamespace)
	current, err := slices.Get(ctx, sliceName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = slices.Create(ctx, slice, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	slice.ResourceVersion = current.ResourceVersion
	_, err = slices.Update(ctx, slice, metav1.UpdateOptions{})
	return err
}

// isReady reports what the slice says of ip.
func (e *endpoints) isReady(ip string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	ep, ok := e.byIP[ip]
	return ok && ep.ready
}

// changesSince lists the readiness flips of ip at or after since.
func (e *endpoints) changesSince(ip string, since time.Time) []readinessChange {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []readinessChange
	for _, c := range e.changes {
		if c.IP == ip && !c.At.Before(since) {
			out = append(out, c)
		}
	}
	return out
}

// errors are the slice writes that failed.
func (e *endpoints) errors() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]error(nil), e.writeErrs...)
}

// stopAll ends every prober.
func (e *endpoints) stopAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ip, ep := range e.byIP {
		close(ep.stop)
		delete(e.byIP, ip)
	}
}
