package upgrade

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
	"github.com/openshift/cluster-workload-access-operator/test/framework/netns"
)

// The webhook Deployment's pods run here as a kubelet and the EndpointSlice
// controller would run them. kube-controller-manager's Deployment
// controller rolls them as the operator's Deployment says (maxSurge 0,
// maxUnavailable 1), kube-scheduler places them (required anti-affinity
// over the three control-plane nodes), and kwok leaves them to this file
// (testdata/kwok-webhook-pods.yaml):
//   - a pod bound to a node gets a "pod IP" and the real webhook of its
//     image's release, run as framework.StartWebhookWith runs one (the
//     Deployment's args, its own drain);
//   - its container's readiness probe (every periodSeconds from the pod's
//     start, /readyz over HTTPS, the kubelet's default 1 s timeout) marks it
//     Ready once the process answers, and only then is it listed, in an
//     EndpointSlice of its own, which the API server calls through
//     (--enable-aggregator-routing);
//   - a pod whose deletion started is unlisted (the EndpointSlice
//     controller drops a terminating pod's readiness) and its process gets
//     SIGTERM at the same moment (the kubelet) and drains as its release
//     says; once the process has exited the pod is deleted, as the kubelet
//     does, and only then is its node free for another webhook pod.
//
// Pod IPs are TEST-NET-1 addresses on the loopback of the package's network
// namespace (netns.Rerun in main_test.go): EndpointSlices refuse loopback
// addresses.
const (
	podIPPrefix = "192.0.2."
	// firstPodIP: 192.0.2.101 on (netns.IssuerAddress, 192.0.2.10, is the
	// namespace's too, unused here).
	firstPodIP = 100
	// webhookPodSelector selects the webhook Deployment's pods
	// (bindata/operand/webhook-deployment.yaml).
	webhookPodSelector = "app=" + framework.WebhookName
	// probeTimeout is the kubelet's default timeoutSeconds.
	probeTimeout = time.Second
)

// webhookPods runs the webhook Deployment's pods.
type webhookPods struct {
	// binaries maps a container image to the release binary it stands for.
	binaries map[string]string
	ctx      context.Context
	cancel   context.CancelFunc
	probes   *http.Client

	mu    sync.Mutex
	pods  []*webhookPod
	byUID map[types.UID]*webhookPod
	errs  []error
}

// webhookPod is one pod and its process.
type webhookPod struct {
	name, image, ip, binary string
	probePeriod             time.Duration
	// started is closed once the process has started, or failed to.
	started chan struct{}
	// exited is closed once the process of a terminating pod has ended.
	exited chan struct{}

	// mu orders listing and unlisting, and guards what follows.
	mu          sync.Mutex
	process     *framework.WebhookProcess
	terminating bool
	listed      bool
	seen, ready time.Time
	sigterm     time.Time
	exitedAt    time.Time
}

// startWebhookPods starts following the webhook Deployment's pods;
// binaries maps each release's image to its binary.
func startWebhookPods(binaries map[string]string) (*webhookPods, error) {
	ctx, cancel := context.WithCancel(context.Background())
	w := &webhookPods{
		binaries: binaries, ctx: ctx, cancel: cancel, byUID: map[types.UID]*webhookPod{},
		probes: &http.Client{Timeout: probeTimeout, Transport: &http.Transport{
			// The kubelet does not verify a probe's certificate.
			TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // as the kubelet probes
			DisableKeepAlives: true,
		}},
	}
	factory := informers.NewSharedInformerFactoryWithOptions(env.kube, 0, informers.WithNamespace(framework.OperandNamespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = webhookPodSelector }))
	informer := factory.Core().V1().Pods().Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.observe(obj) },
		UpdateFunc: func(_, obj any) { w.observe(obj) },
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			if pod, ok := obj.(*corev1.Pod); ok {
				if p := w.get(pod.UID); p != nil {
					w.terminate(p)
				}
			}
		},
	}); err != nil {
		cancel()
		return nil, err
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		cancel()
		return nil, fmt.Errorf("the webhook pods' informer never synced")
	}
	return w, nil
}

func (w *webhookPods) get(uid types.UID) *webhookPod {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.byUID[uid]
}

// observe starts a pod once it is bound to a node, and terminates it once
// its deletion has started.
func (w *webhookPods) observe(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName == "" || len(pod.Spec.Containers) != 1 {
		return
	}
	w.mu.Lock()
	p := w.byUID[pod.UID]
	if p == nil && pod.DeletionTimestamp == nil {
		image := pod.Spec.Containers[0].Image
		p = &webhookPod{
			name: pod.Name, image: image, binary: w.binaries[image],
			ip:          fmt.Sprintf("%s%d", podIPPrefix, firstPodIP+1+len(w.pods)),
			probePeriod: 10 * time.Second, // the API's default periodSeconds
			started:     make(chan struct{}), exited: make(chan struct{}), seen: time.Now(),
		}
		if probe := pod.Spec.Containers[0].ReadinessProbe; probe != nil && probe.PeriodSeconds > 0 {
			p.probePeriod = time.Duration(probe.PeriodSeconds) * time.Second
		}
		w.byUID[pod.UID] = p
		w.pods = append(w.pods, p)
		go w.run(p)
	}
	w.mu.Unlock()
	if p != nil && pod.DeletionTimestamp != nil {
		w.terminate(p)
	}
}

// run starts p's process and probes it until it is ready, then marks the
// pod Ready and lists it.
func (w *webhookPods) run(p *webhookPod) {
	go func() {
		defer close(p.started)
		if p.binary == "" {
			w.fail(fmt.Errorf("pod %s runs image %s, which is no release of this test", p.name, p.image))
			return
		}
		if err := netns.AddAddress(p.ip); err != nil {
			w.fail(err)
			return
		}
		process, err := env.cp.StartWebhookWith(w.ctx, p.binary, "webhook-"+p.name, framework.WebhookOptions{PodIP: p.ip, DeploymentShutdown: true})
		if err != nil {
			w.fail(fmt.Errorf("pod %s: %w", p.name, err))
			return
		}
		p.mu.Lock()
		p.process = process
		p.mu.Unlock()
	}()
	// The kubelet's prober starts with the pod: a first probe at once (the
	// container is not up yet), then one every period.
	probe := time.NewTicker(p.probePeriod)
	defer probe.Stop()
	for !w.probe(p) {
		select {
		case <-w.ctx.Done():
			return
		case <-p.exited:
			return
		case <-probe.C:
		}
	}
	p.mu.Lock()
	p.ready = time.Now()
	p.mu.Unlock()
	if err := w.markReady(p); err != nil {
		w.fail(fmt.Errorf("marking pod %s Ready: %w", p.name, err))
		return
	}
	p.mu.Lock()
	var err error
	if !p.terminating {
		err = list(w.ctx, p.name, p.process)
		p.listed = err == nil
	}
	p.mu.Unlock()
	if err != nil {
		w.fail(fmt.Errorf("listing pod %s: %w", p.name, err))
	}
}

// probe is one readiness probe of p's process.
func (w *webhookPods) probe(p *webhookPod) bool {
	p.mu.Lock()
	process, terminating := p.process, p.terminating
	p.mu.Unlock()
	if process == nil || terminating || process.Exited() {
		return false
	}
	resp, err := w.probes.Get("https://" + process.Address + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// markReady writes what the kubelet writes once the readiness probe
// succeeds: the pod's IP, its container ready, the pod Ready.
func (w *webhookPods) markReady(p *webhookPod) error {
	pods := env.kube.CoreV1().Pods(framework.OperandNamespace)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pod, err := pods.Get(w.ctx, p.name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.Now()
		pod.Status.PodIP, pod.Status.PodIPs = p.ip, []corev1.PodIP{{IP: p.ip}}
		for i := range pod.Status.ContainerStatuses {
			pod.Status.ContainerStatuses[i].Ready = true
		}
		for _, condition := range []corev1.PodConditionType{corev1.PodReady, corev1.ContainersReady} {
			set := false
			for i, c := range pod.Status.Conditions {
				if c.Type == condition {
					pod.Status.Conditions[i].Status, pod.Status.Conditions[i].LastTransitionTime = corev1.ConditionTrue, now
					set = true
				}
			}
			if !set {
				pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: condition, Status: corev1.ConditionTrue, LastTransitionTime: now})
			}
		}
		_, err = pods.UpdateStatus(w.ctx, pod, metav1.UpdateOptions{})
		return err
	})
}

// terminate is the pod's deletion seen by the EndpointSlice controller
// (unlisted) and by the kubelet (SIGTERM, the drain, then the pod deleted)
// at once.
func (w *webhookPods) terminate(p *webhookPod) {
	p.mu.Lock()
	if p.terminating {
		p.mu.Unlock()
		return
	}
	p.terminating, p.sigterm = true, time.Now()
	p.mu.Unlock()
	go func() {
		p.mu.Lock()
		var err error
		if p.listed {
			err = unlist(p.name)
			p.listed = false
		}
		p.mu.Unlock()
		if err != nil {
			w.fail(fmt.Errorf("unlisting pod %s: %w", p.name, err))
		}
	}()
	go func() {
		<-p.started
		p.mu.Lock()
		process := p.process
		p.mu.Unlock()
		if process != nil {
			process.Stop()
		}
		p.mu.Lock()
		p.exitedAt = time.Now()
		p.mu.Unlock()
		close(p.exited)
		err := env.kube.CoreV1().Pods(framework.OperandNamespace).Delete(w.ctx, p.name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))})
		if err != nil && !apierrors.IsNotFound(err) && w.ctx.Err() == nil {
			w.fail(fmt.Errorf("deleting pod %s after its process exited: %w", p.name, err))
		}
	}()
}

func (w *webhookPods) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.errs = append(w.errs, err)
}

// errors are what went wrong running the pods so far.
func (w *webhookPods) errors() []error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]error(nil), w.errs...)
}

// waitDrained waits until every terminating pod's process has exited.
func (w *webhookPods) waitDrained(ctx context.Context) error {
	w.mu.Lock()
	pods := append([]*webhookPod(nil), w.pods...)
	w.mu.Unlock()
	for _, p := range pods {
		p.mu.Lock()
		terminating := p.terminating
		p.mu.Unlock()
		if !terminating {
			continue
		}
		select {
		case <-p.exited:
		case <-ctx.Done():
			return fmt.Errorf("pod %s has not exited %s after SIGTERM", p.name, time.Since(p.sigterm).Round(time.Millisecond))
		}
	}
	return nil
}

// podTimes is what happened to one pod; a zero time has not happened.
type podTimes struct {
	name, image string
	// started is when the pod was bound to a node, ready when its probe
	// first passed.
	started, ready time.Time
	// sigterm is when its deletion started, exited when its process ended.
	sigterm, exited time.Time
}

// since are the pods started at or after t (started), and those whose
// deletion started then (terminated).
func (w *webhookPods) since(t time.Time) (started, terminated []podTimes) {
	w.mu.Lock()
	pods := append([]*webhookPod(nil), w.pods...)
	w.mu.Unlock()
	for _, p := range pods {
		p.mu.Lock()
		times := podTimes{name: p.name, image: p.image, started: p.seen, ready: p.ready, sigterm: p.sigterm, exited: p.exitedAt}
		p.mu.Unlock()
		if !times.started.Before(t) {
			started = append(started, times)
		}
		if !times.sigterm.IsZero() && !times.sigterm.Before(t) {
			terminated = append(terminated, times)
		}
	}
	return started, terminated
}

// listed counts the pods of image listed in the endpoints now.
func (w *webhookPods) listed(image string) int32 {
	w.mu.Lock()
	pods := append([]*webhookPod(nil), w.pods...)
	w.mu.Unlock()
	var n int32
	for _, p := range pods {
		p.mu.Lock()
		if p.listed && p.image == image {
			n++
		}
		p.mu.Unlock()
	}
	return n
}

// processes are the webhook processes that have not been stopped.
func (w *webhookPods) processes() []*framework.WebhookProcess {
	w.mu.Lock()
	pods := append([]*webhookPod(nil), w.pods...)
	w.mu.Unlock()
	var out []*framework.WebhookProcess
	for _, p := range pods {
		p.mu.Lock()
		if p.process != nil && !p.terminating {
			out = append(out, p.process)
		}
		p.mu.Unlock()
	}
	return out
}

// stopAll ends the pods at the end of the package: killed, as nothing is
// left to drain for, rather than 15 s each.
func (w *webhookPods) stopAll(failed bool) {
	w.cancel()
	w.mu.Lock()
	pods := append([]*webhookPod(nil), w.pods...)
	w.mu.Unlock()
	for _, p := range pods {
		<-p.started
		p.mu.Lock()
		process := p.process
		p.mu.Unlock()
		if process == nil {
			continue
		}
		if failed {
			fmt.Fprintln(os.Stderr, process.Tail(20))
		}
		process.Kill()
		process.Stop()
	}
}

// list writes the pod's EndpointSlice: the API server may call its process
// from now on.
func list(ctx context.Context, name string, w *framework.WebhookProcess) error {
	host, port, err := splitPort(w.Address)
	if err != nil {
		return err
	}
	_, metrics, err := splitPort(w.MetricsAddress)
	if err != nil {
		return err
	}
	_, err = env.kube.DiscoveryV1().EndpointSlices(framework.OperandNamespace).Create(ctx, &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				discoveryv1.LabelServiceName: framework.WebhookName,
				discoveryv1.LabelManagedBy:   "test.upgrade.workload-access.openshift.io",
			},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{
			{Name: ptr.To("https"), Port: ptr.To(port)},
			{Name: ptr.To("metrics"), Port: ptr.To(metrics)},
		},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{host}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
	}, metav1.CreateOptions{})
	return err
}

// unlist deletes the pod's EndpointSlice.
func unlist(name string) error {
	err := env.kube.DiscoveryV1().EndpointSlices(framework.OperandNamespace).Delete(context.Background(), name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func splitPort(address string) (string, int32, error) {
	i := strings.LastIndex(address, ":")
	if i < 0 {
		return "", 0, fmt.Errorf("no port in %q", address)
	}
	var port int32
	if _, err := fmt.Sscan(address[i+1:], &port); err != nil {
		return "", 0, fmt.Errorf("port of %q: %w", address, err)
	}
	return address[:i], port, nil
}
