// Package controlplane starts a real, throwaway Kubernetes control plane on
// loopback for end-to-end tests and local runs: etcd, kube-apiserver and
// kube-controller-manager (so RBAC aggregation, garbage collection and
// namespace deletion really happen), and optionally kube-scheduler with a
// kwok-simulated node so Deployments become Available without a kubelet.
//
// The binaries come from hack/build-controlplane.sh, which builds them from
// the Go module proxy once and caches them by version.
package controlplane

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeControllers are the kube-controller-manager controllers the operator's
// behaviour depends on, by their canonical names.
var kubeControllers = []string{
	"clusterrole-aggregation-controller",
	"garbage-collector-controller",
	"namespace-controller",
	"serviceaccount-controller",
	"serviceaccount-token-controller",
	"root-ca-certificate-publisher-controller",
	"deployment-controller",
	"replicaset-controller",
	"disruption-controller",
}

// auditPolicy logs who did what to which object, never request bodies.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
`

// Options configure Start. The zero value is a usable control plane.
type Options struct {
	// Dir holds PKI, etcd data and logs. Empty means a new temporary
	// directory, removed by Stop.
	Dir string
	// BinDir holds the binaries; empty means $CONTROLPLANE_BIN_DIR, else the
	// output of hack/build-controlplane.sh.
	BinDir string
	// CRDs are YAML files (one CRD each) installed once the API server is
	// ready and before kube-controller-manager starts, so that its garbage
	// collector knows their types from the beginning.
	CRDs []string
	// ServiceCIDR defaults to a loopback range so a test can serve a
	// Service-referenced webhook on its ClusterIP.
	ServiceCIDR string
	// ServiceAccountIssuer defaults to https://kubernetes.default.svc.
	ServiceAccountIssuer string
	// AuditLog records every API request (metadata only) in AuditLogPath,
	// so tests can count what a component wrote.
	AuditLog bool
	// Profiling serves the API server's /debug/pprof to the admin, for
	// benchmarks that need to see where its CPU goes.
	Profiling bool
	// Nodes adds kube-scheduler and kwok with one fake control-plane node, so
	// pods get scheduled and report Running/Ready (no container runs).
	Nodes bool
	// KwokStages are kwok Stage files added to the default ones (pod/fast,
	// node/fast and node/heartbeat); a stage of higher weight that matches a
	// pod takes it from the default's (test/upgrade keeps the webhook's pods
	// for its own stand-in kubelet).
	KwokStages []string
	// EventTTL is how long the API server keeps an Event after its last
	// write (kube-apiserver's --event-ttl); zero keeps its default, 1 h.
	EventTTL time.Duration
	// AggregatorRouting starts kube-apiserver with
	// --enable-aggregator-routing=true: it calls webhook (and aggregated API)
	// Services through their EndpointSlices' ready endpoints, as OpenShift's
	// does, instead of their ClusterIP.
	AggregatorRouting bool
}

// ControlPlane is a running control plane.
type ControlPlane struct {
	// Dir holds pki/, etcd/, logs/ and admin.kubeconfig.
	Dir string
	// BinDir is where the binaries came from.
	BinDir string
	// AdminKubeconfig authenticates as system:masters.
	AdminKubeconfig string
	// Config is AdminKubeconfig as a rest.Config.
	Config *rest.Config
	// APIServerURL is https://127.0.0.1:<port>.
	APIServerURL string
	// ServiceCIDR is the Service ClusterIP range in use.
	ServiceCIDR string
	// AuditLogPath is the API server's audit log (JSON lines), if enabled.
	AuditLogPath string

	pki     *pki
	procs   []*process
	tempDir bool
	// apiArgs is kube-apiserver's command line, for a restart with another
	// signing key (RotateServiceAccountSigningKey).
	apiArgs []string
	// signingKeys counts the service account key pairs written so far.
	signingKeys int
}

// Start brings the control plane up. On error, everything started is stopped.
func Start(ctx context.Context, opts Options) (_ *ControlPlane, err error) {
	cp := &ControlPlane{Dir: opts.Dir, BinDir: opts.BinDir, ServiceCIDR: opts.ServiceCIDR}
	if cp.Dir == "" {
		if cp.Dir, err = os.MkdirTemp("", "workload-access-controlplane-"); err != nil {
			return nil, err
		}
		cp.tempDir = true
	}
	if cp.BinDir == "" {
		started := time.Now()
		if cp.BinDir, err = ResolveBinDir(); err != nil {
			return nil, err
		}
		// A cold build outlasts every caller's deadline: say so, not a health timeout.
		if ctx.Err() != nil {
			return nil, fmt.Errorf("the control plane was built in %s, past the caller's deadline: build it first with `make controlplane`",
				time.Since(started).Round(time.Second))
		}
	}
	if cp.ServiceCIDR == "" {
		cp.ServiceCIDR = "127.10.0.0/24"
	}
	issuer := opts.ServiceAccountIssuer
	if issuer == "" {
		issuer = "https://kubernetes.default.svc"
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, cp.Logs(40))
			cp.Stop()
		}
	}()

	ports, err := freePorts(6)
	if err != nil {
		return nil, err
	}
	etcdPort, etcdPeerPort, apiPort, kcmPort, schedPort, kwokPort := ports[0], ports[1], ports[2], ports[3], ports[4], ports[5]
	cp.APIServerURL = "https://" + hostPort(apiPort)

	if cp.pki, err = cp.writePKI(); err != nil {
		return nil, err
	}
	p := cp.pki.path

	etcd, err := cp.start("etcd", "etcd",
		"--name=test", "--data-dir="+filepath.Join(cp.Dir, "etcd"),
		"--listen-client-urls=http://"+hostPort(etcdPort), "--advertise-client-urls=http://"+hostPort(etcdPort),
		"--listen-peer-urls=http://"+hostPort(etcdPeerPort), "--initial-advertise-peer-urls=http://"+hostPort(etcdPeerPort),
		"--initial-cluster=test=http://"+hostPort(etcdPeerPort),
		"--quota-backend-bytes=4294967296", "--unsafe-no-fsync", "--log-level=warn")
	if err != nil {
		return nil, err
	}
	if err := etcd.waitHealthy(ctx, http.DefaultClient, "http://"+hostPort(etcdPort)+"/health", 30*time.Second); err != nil {
		return nil, err
	}

	apiArgs := []string{
		"--etcd-servers=http://" + hostPort(etcdPort),
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", apiPort),
		"--tls-cert-file=" + p("apiserver.crt"), "--tls-private-key-file=" + p("apiserver.key"),
		"--client-ca-file=" + p("ca.crt"),
		// A request-header CA keeps delegated authentication in the other
		// components (and the operator's metrics server) quiet and working.
		"--requestheader-client-ca-file=" + p("ca.crt"),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--service-account-issuer=" + issuer,
		"--service-account-key-file=" + p("sa.pub"), "--service-account-signing-key-file=" + p("sa.key"),
		"--service-cluster-ip-range=" + cp.ServiceCIDR,
		"--authorization-mode=Node,RBAC",
		// OpenShift's kube-apiserver enables it: setting ownerReferences
		// needs delete on the object, and blockOwnerDeletion update on the
		// owner's finalizers. Without it here, a grant short of that passes
		// every test and fails on a cluster.
		"--enable-admission-plugins=OwnerReferencesPermissionEnforcement",
		fmt.Sprintf("--profiling=%t", opts.Profiling),
	}
	if opts.EventTTL > 0 {
		apiArgs = append(apiArgs, "--event-ttl="+opts.EventTTL.String())
	}
	if opts.AggregatorRouting {
		apiArgs = append(apiArgs, "--enable-aggregator-routing=true")
	}
	if opts.AuditLog {
		policy := filepath.Join(cp.Dir, "audit-policy.yaml")
		if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
			return nil, err
		}
		cp.AuditLogPath = filepath.Join(cp.Dir, "logs", "audit.log")
		apiArgs = append(apiArgs, "--audit-policy-file="+policy, "--audit-log-path="+cp.AuditLogPath,
			"--audit-log-format=json", "--audit-log-mode=blocking", "--audit-log-maxsize=0")
	}
	cp.apiArgs = apiArgs
	if err := cp.startAPIServer(ctx, "kube-apiserver"); err != nil {
		return nil, err
	}

	for name, user := range map[string]string{"admin": "admin", "kcm": "kube-controller-manager", "scheduler": "kube-scheduler"} {
		if err := cp.WriteKubeconfig(filepath.Join(cp.Dir, name+".kubeconfig"), &clientcmdapi.AuthInfo{
			ClientCertificate: p(user + ".crt"), ClientKey: p(user + ".key"),
		}); err != nil {
			return nil, err
		}
	}
	cp.AdminKubeconfig = filepath.Join(cp.Dir, "admin.kubeconfig")
	if cp.Config, err = clientcmd.BuildConfigFromFlags("", cp.AdminKubeconfig); err != nil {
		return nil, err
	}

	if err := InstallCRDs(ctx, cp.Config, opts.CRDs); err != nil {
		return nil, err
	}

	controllers := kubeControllers
	if opts.Nodes {
		// Removes the not-ready taint from the fake node once kwok reports it Ready.
		controllers = append(controllers, "node-lifecycle-controller")
	}
	kcmConfig := filepath.Join(cp.Dir, "kcm.kubeconfig")
	kcm, err := cp.start("kube-controller-manager", "kube-controller-manager",
		"--kubeconfig="+kcmConfig, "--authentication-kubeconfig="+kcmConfig, "--authorization-kubeconfig="+kcmConfig,
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", kcmPort),
		"--leader-elect=false",
		"--use-service-account-credentials=true",
		"--service-account-private-key-file="+p("sa.key"), "--root-ca-file="+p("ca.crt"),
		"--cluster-signing-cert-file="+p("ca.crt"), "--cluster-signing-key-file="+p("ca.key"),
		"--controllers="+strings.Join(controllers, ","))
	if err != nil {
		return nil, err
	}
	if err := kcm.waitHealthy(ctx, insecureClient(), fmt.Sprintf("https://%s/healthz", hostPort(kcmPort)), 60*time.Second); err != nil {
		return nil, err
	}

	if opts.Nodes {
		if err := cp.startNodes(ctx, schedPort, kwokPort, opts.KwokStages); err != nil {
			return nil, err
		}
	}
	return cp, nil
}

// startAPIServer runs kube-apiserver with cp.apiArgs, its log in
// logs/<name>.log, and waits until it is ready.
func (cp *ControlPlane) startAPIServer(ctx context.Context, name string) error {
	apiserver, err := cp.start(name, "kube-apiserver", cp.apiArgs...)
	if err != nil {
		return err
	}
	adminHTTP, err := cp.clientFor("admin")
	if err != nil {
		return err
	}
	return apiserver.waitHealthy(ctx, adminHTTP, cp.APIServerURL+"/readyz", 90*time.Second)
}

// RotateServiceAccountSigningKey writes a new token signing key pair and
// restarts kube-apiserver signing with it, still accepting tokens of every
// earlier key (its --service-account-key-file lists them all), as a cluster
// keeps trusting the old key until the tokens it signed expire. It returns
// the new public key's file. kube-controller-manager keeps the first key,
// which only signs legacy token Secrets.
func (cp *ControlPlane) RotateServiceAccountSigningKey(ctx context.Context) (string, error) {
	cp.signingKeys++
	name := fmt.Sprintf("sa-%d", cp.signingKeys+1)
	if err := cp.pki.serviceAccountKeys(name); err != nil {
		return "", err
	}
	args := make([]string, 0, len(cp.apiArgs)+1)
	for _, arg := range cp.apiArgs {
		if strings.HasPrefix(arg, "--service-account-signing-key-file=") {
			arg = "--service-account-signing-key-file=" + cp.pki.path(name+".key")
		}
		args = append(args, arg)
	}
	cp.apiArgs = append(args, "--service-account-key-file="+cp.pki.path(name+".pub"))
	if err := cp.replaceAPIServer(ctx, "kube-apiserver-"+name); err != nil {
		return "", err
	}
	return cp.pki.path(name + ".pub"), nil
}

// SetServiceAccountIssuers restarts kube-apiserver signing tokens for the
// first issuer and accepting tokens of every one (repeated
// --service-account-issuer flags), as OpenShift's kube-apiserver does for a
// while after the cluster's issuer changes. The API audiences default to
// the issuers, so clients holding tokens of an issuer still listed keep
// working. name names the new log.
func (cp *ControlPlane) SetServiceAccountIssuers(ctx context.Context, name string, issuers ...string) error {
	if len(issuers) == 0 {
		return fmt.Errorf("no issuer")
	}
	args := make([]string, 0, len(cp.apiArgs)+len(issuers))
	for _, arg := range cp.apiArgs {
		if !strings.HasPrefix(arg, "--service-account-issuer=") {
			args = append(args, arg)
		}
	}
	for _, issuer := range issuers {
		args = append(args, "--service-account-issuer="+issuer)
	}
	cp.apiArgs = args
	return cp.replaceAPIServer(ctx, "kube-apiserver-"+name)
}

// RestartAPIServer stops kube-apiserver and starts it again with the same
// command line, as a control-plane node reboot or a static pod revision
// does, and returns once it is ready again. Clients see their watches end
// and their requests refused while it is down. n names the new log,
// logs/kube-apiserver-restart-<n>.log.
func (cp *ControlPlane) RestartAPIServer(ctx context.Context, n int) error {
	return cp.replaceAPIServer(ctx, fmt.Sprintf("kube-apiserver-restart-%d", n))
}

// replaceAPIServer stops the running kube-apiserver and starts one with
// cp.apiArgs in its place, its log in logs/<name>.log.
func (cp *ControlPlane) replaceAPIServer(ctx context.Context, name string) error {
	// The new process takes the old one's place, so Stop keeps its order.
	i := slices.IndexFunc(cp.procs, func(p *process) bool { return strings.HasPrefix(p.name, "kube-apiserver") })
	if i < 0 {
		return fmt.Errorf("kube-apiserver is not running")
	}
	// A few seconds to drain, then SIGKILL: with watches open it would take
	// the whole grace period, and how it shuts down is not what is tested.
	cp.procs[i].stop(5 * time.Second)
	cp.procs = slices.Delete(cp.procs, i, i+1)
	started := len(cp.procs)
	err := cp.startAPIServer(ctx, name)
	if len(cp.procs) > started { // started (even if never ready): back to i
		last := cp.procs[started]
		cp.procs = slices.Insert(cp.procs[:started], i, last)
	}
	return err
}

// start runs a binary from BinDir with its log in Dir/logs.
func (cp *ControlPlane) start(name, binary string, args ...string) (*process, error) {
	proc, err := startProcess(cp.Dir, name, filepath.Join(cp.BinDir, binary), args...)
	if err != nil {
		return nil, err
	}
	cp.procs = append(cp.procs, proc)
	return proc, nil
}

func (cp *ControlPlane) writePKI() (*pki, error) {
	p, err := newPKI(filepath.Join(cp.Dir, "pki"))
	if err != nil {
		return nil, err
	}
	_, serviceNet, err := net.ParseCIDR(cp.ServiceCIDR)
	if err != nil {
		return nil, fmt.Errorf("service CIDR: %w", err)
	}
	firstServiceIP := append(net.IP(nil), serviceNet.IP.To4()...)
	firstServiceIP[3]++
	if err := p.issue("apiserver", "kube-apiserver", nil,
		[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		[]net.IP{net.ParseIP("127.0.0.1"), firstServiceIP}, x509.ExtKeyUsageServerAuth); err != nil {
		return nil, err
	}
	for _, c := range []struct{ file, cn, org string }{
		{"admin", "admin", "system:masters"},
		{"kube-controller-manager", "system:kube-controller-manager", ""},
		{"kube-scheduler", "system:kube-scheduler", ""},
	} {
		var orgs []string
		if c.org != "" {
			orgs = []string{c.org}
		}
		if err := p.issue(c.file, c.cn, orgs, nil, nil, x509.ExtKeyUsageClientAuth); err != nil {
			return nil, err
		}
	}
	// kube-controller-manager's CSR signer needs the CA key in a file.
	keyDER, err := x509.MarshalPKCS8PrivateKey(p.caKey)
	if err != nil {
		return nil, err
	}
	if err := writePEM(p.path("ca.key"), "PRIVATE KEY", keyDER); err != nil {
		return nil, err
	}
	return p, p.serviceAccountKeys("sa")
}

// clientFor is an HTTP client authenticating with the named client cert.
func (cp *ControlPlane) clientFor(user string) (*http.Client, error) {
	cert, err := tls.LoadX509KeyPair(cp.pki.path(user+".crt"), cp.pki.path(user+".key"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cp.pki.caCert)
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}},
	}}, nil
}

// CAFile is the cluster CA, as a kubeconfig's certificate-authority.
func (cp *ControlPlane) CAFile() string { return cp.pki.path("ca.crt") }

// ServiceAccountPublicKeyFile is the public half of the token signing key.
func (cp *ControlPlane) ServiceAccountPublicKeyFile() string { return cp.pki.path("sa.pub") }

// WriteKubeconfig writes a kubeconfig for this cluster with the given user.
func (cp *ControlPlane) WriteKubeconfig(path string, user *clientcmdapi.AuthInfo) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["local"] = &clientcmdapi.Cluster{Server: cp.APIServerURL, CertificateAuthority: cp.pki.path("ca.crt")}
	cfg.AuthInfos["user"] = user
	cfg.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "user"}
	cfg.CurrentContext = "local"
	return clientcmd.WriteToFile(*cfg, path)
}

// Stop terminates the components in reverse start order and, for a
// temporary Dir, removes it.
func (cp *ControlPlane) Stop() {
	for i := len(cp.procs) - 1; i >= 0; i-- {
		cp.procs[i].stop(10 * time.Second)
	}
	cp.procs = nil
	if cp.tempDir && os.Getenv("CONTROLPLANE_KEEP_DIR") == "" {
		_ = os.RemoveAll(cp.Dir)
	}
}

// Logs returns the last lines of every component's log, for a failing test.
func (cp *ControlPlane) Logs(lines int) string {
	var b strings.Builder
	for _, proc := range cp.procs {
		data, err := os.ReadFile(proc.logPath)
		if err != nil {
			continue
		}
		all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(all) > lines {
			all = all[len(all)-lines:]
		}
		fmt.Fprintf(&b, "----- last %d lines of %s -----\n%s\n", len(all), proc.logPath, strings.Join(all, "\n"))
	}
	return b.String()
}

// ResolveBinDir finds the control-plane binaries: $CONTROLPLANE_BIN_DIR, or
// whatever hack/build-controlplane.sh builds (a no-op once cached; a cold build
// takes tens of minutes on 2 cores). Call it before starting any deadline: the
// build has none. `make controlplane` runs the same build, and every make
// target whose tests start a control plane depends on it.
func ResolveBinDir() (string, error) {
	if dir := os.Getenv("CONTROLPLANE_BIN_DIR"); dir != "" {
		return dir, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("bash", filepath.Join(root, "hack", "build-controlplane.sh"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("the control plane is not built and hack/build-controlplane.sh failed (%v: %s); run `make controlplane` to see the whole build",
			err, LastLine(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// LastLine is the last non-empty line of a build's output: the one that says
// why it failed, for an error that stays on one line.
func LastLine(output string) string {
	lines := strings.Split(strings.TrimSpace(output), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// RepoRoot is the operator repository's top directory: the nearest
// directory above the working directory whose go.mod is the operator's.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(data), "module github.com/openshift/cluster-workload-access-operator\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not inside the cluster-workload-access-operator repository")
		}
		dir = parent
	}
}
