// Package s3server runs a real S3-compatible server, Versity S3 Gateway
// (versitygw, pinned in test/tools/versitygw), on 127.0.0.1 for the e2e tests
// and `make run-local`. It checks SigV4 signatures and honours bucket
// policies for anonymous requests, as AWS does, and keeps its data as plain
// files with user extended attributes in a directory that survives restarts.
package s3server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
)

// BinaryEnv names the environment variable that points at a prebuilt
// versitygw binary (the Makefile sets it from `make s3server`).
const BinaryEnv = "S3SERVER_BINARY"

// DefaultRegion is the region the server signs and checks requests in.
const DefaultRegion = "us-east-1"

// Options say how to run the server. Only Dir is required.
type Options struct {
	// Dir holds the data directory (Dir/data) and the log (Dir/versitygw.log).
	// It must be on a filesystem with user extended attributes.
	Dir string
	// Binary is the versitygw binary; empty means ResolveBinary().
	Binary string
	// AccessKeyID and SecretAccessKey are the root account's credentials;
	// empty means random ones.
	AccessKeyID, SecretAccessKey string
	// Region defaults to DefaultRegion.
	Region string
	// IAM runs versitygw's IAM and STS service as a second process (Dir/iam,
	// on its own loopback port) and points the gateway at it over a unix
	// socket, so roles and their sessions authorize S3 requests as on AWS.
	IAM bool
}

// Server is one versitygw process and the port and data it keeps across
// Stop and Start.
type Server struct {
	// Endpoint is http://127.0.0.1:PORT, for path-style requests.
	Endpoint string
	// Address is 127.0.0.1:PORT.
	Address                      string
	AccessKeyID, SecretAccessKey string
	Region                       string
	// DataDir holds one directory per bucket, one file per object.
	DataDir string
	LogPath string
	// IAMEndpoint is http://127.0.0.1:PORT of the IAM and STS service (Query
	// protocol, signed with the root credentials; AssumeRoleWithWebIdentity
	// is anonymous), with Options.IAM; empty otherwise.
	IAMEndpoint string

	binary string
	// iamDir holds the IAM service's data (iamDir/data) and its socket.
	iamDir string
	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	// iamCmd and iamExited are the IAM process, started before the gateway
	// and stopped after it.
	iamCmd    *exec.Cmd
	iamExited chan struct{}
	starts    int
}

// ResolveBinary finds versitygw: $S3SERVER_BINARY, or whatever
// hack/build-s3server.sh builds (a no-op once cached; a cold build takes about
// 40 s on an idle 2-core machine, minutes while other builds run: figures in
// docs/performance.md). Call it before starting any deadline: the build has
// none. `make s3server` runs the same build, and every make target whose tests
// start versitygw depends on it.
func ResolveBinary() (string, error) {
	if bin := os.Getenv(BinaryEnv); bin != "" {
		return filepath.Abs(bin)
	}
	root, err := controlplane.RepoRoot()
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("bash", filepath.Join(root, "hack", "build-s3server.sh"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("versitygw is not built and hack/build-s3server.sh failed (%v: %s); run `make s3server` to see the whole build",
			err, controlplane.LastLine(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// Start runs versitygw with the posix backend on a free loopback port and
// waits until its health endpoint answers.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.Dir == "" {
		return nil, errors.New("s3server: Options.Dir is required")
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	s := &Server{
		AccessKeyID:     opts.AccessKeyID,
		SecretAccessKey: opts.SecretAccessKey,
		Region:          opts.Region,
		DataDir:         filepath.Join(dir, "data"),
		LogPath:         filepath.Join(dir, "versitygw.log"),
		binary:          opts.Binary,
	}
	if s.binary == "" {
		started := time.Now()
		if s.binary, err = ResolveBinary(); err != nil {
			return nil, err
		}
		// A cold build outlasts most callers' deadlines: say so, not a health timeout.
		if ctx.Err() != nil {
			return nil, fmt.Errorf("versitygw was built in %s, past the caller's deadline: build it first with `make s3server`",
				time.Since(started).Round(time.Second))
		}
	}
	if s.AccessKeyID == "" {
		s.AccessKeyID = "AKIA" + strings.ToUpper(randomHex(8))
	}
	if s.SecretAccessKey == "" {
		s.SecretAccessKey = randomHex(20)
	}
	if s.Region == "" {
		s.Region = DefaultRegion
	}
	if err := os.MkdirAll(s.DataDir, 0o700); err != nil {
		return nil, err
	}
	if err := CheckXattrs(s.DataDir); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.Address = l.Addr().String()
	l.Close()
	s.Endpoint = "http://" + s.Address
	if opts.IAM {
		s.iamDir = filepath.Join(dir, "iam")
		if err := os.MkdirAll(filepath.Join(s.iamDir, "data"), 0o700); err != nil {
			return nil, err
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		s.IAMEndpoint = "http://" + l.Addr().String()
		l.Close()
	}
	if err := s.Start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// StartT starts a server with its data in a temporary directory of the test,
// prints its log if the test fails, and stops it when the test ends.
func StartT(t testing.TB) *Server {
	t.Helper()
	binary, err := ResolveBinary() // before the deadline: a cold build has none
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, Options{Dir: t.TempDir(), Binary: binary})
	if err != nil {
		t.Fatalf("starting the S3 server: %v", err)
	}
	// Registered after TempDir's cleanup, so it runs before the directory goes.
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(s.Tail(60))
		}
		s.Stop()
	})
	return s
}

// CheckXattrs fails, saying why, when dir's filesystem cannot hold the user
// extended attributes the posix backend keeps its metadata in (ETag, content
// type, bucket policy).
func CheckXattrs(dir string) error {
	probe := filepath.Join(dir, ".xattr-probe")
	if err := os.WriteFile(probe, nil, 0o600); err != nil {
		return err
	}
	defer os.Remove(probe)
	if err := syscall.Setxattr(probe, "user.s3server-probe", []byte("1"), 0); err != nil {
		return fmt.Errorf("the S3 server keeps object and bucket metadata in user extended attributes, "+
			"but the filesystem of %s does not accept them (%w); point TMPDIR (tests) or --dir (run-local) "+
			"at ext4, xfs or btrfs, or a tmpfs on Linux 6.6 or later", dir, err)
	}
	return nil
}

// Start runs the server again on the same port, data and credentials after
// Stop, and waits until it is healthy.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil && !s.exitedLocked() {
		return fmt.Errorf("s3server: already running on %s", s.Address)
	}
	// Another process may have taken the port while the server was down.
	l, err := net.Listen("tcp", s.Address)
	if err != nil {
		return fmt.Errorf("s3server: port %s is no longer free: %w", s.Address, err)
	}
	l.Close()

	logFile, err := os.OpenFile(s.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close() // each process holds its own descriptor
	s.starts++
	fmt.Fprintf(logFile, "===== s3server start %d at %s: %s on %s =====\n",
		s.starts, time.Now().Format(time.RFC3339), s.binary, s.Address)
	var gatewayIAM []string
	if s.iamDir != "" {
		socket := filepath.Join(s.iamDir, "iam.sock")
		_ = os.Remove(socket) // left by a killed process, it would keep the service from listening
		s.iamCmd, s.iamExited, err = s.launch(logFile,
			"--port", strings.TrimPrefix(s.IAMEndpoint, "http://"),
			"--region", s.Region,
			"--health", "/health",
			"iam", "--dir", filepath.Join(s.iamDir, "data"), "--private-ports", socket)
		if err != nil {
			return err
		}
		if err := waitHealthy(ctx, s.IAMEndpoint, s.iamCmd, s.iamExited, s.LogPath, 30*time.Second); err != nil {
			s.stopLocked()
			return fmt.Errorf("the IAM service: %w\n%s", err, s.Tail(30))
		}
		gatewayIAM = []string{"--iam-standalone-endpoint", socket}
	}
	args := append([]string{
		"--port", s.Address,
		"--region", s.Region,
		"--health", "/health"},
		gatewayIAM...)
	s.cmd, s.exited, err = s.launch(logFile, append(args, "posix", s.DataDir)...)
	if err != nil {
		s.stopLocked()
		return err
	}
	if err := waitHealthy(ctx, s.Endpoint, s.cmd, s.exited, s.LogPath, 30*time.Second); err != nil {
		s.stopLocked()
		return fmt.Errorf("%w\n%s", err, s.Tail(30))
	}
	return nil
}

// launch starts one versitygw process with the root credentials, its output
// appended to logFile; exited is closed when it has ended.
func (s *Server) launch(logFile *os.File, args ...string) (*exec.Cmd, chan struct{}, error) {
	cmd := exec.Command(s.binary, args...)
	// The credentials go through the environment, not the command line.
	cmd.Env = append(os.Environ(),
		"ROOT_ACCESS_KEY_ID="+s.AccessKeyID,
		"ROOT_SECRET_ACCESS_KEY="+s.SecretAccessKey)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Die with the test or run-local: no server left holding the port.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting %s: %w", s.binary, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait() // the exit status is in cmd.ProcessState
		close(exited)
	}()
	return cmd, exited, nil
}

func (s *Server) exitedLocked() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

func waitHealthy(ctx context.Context, endpoint string, cmd *exec.Cmd, exited <-chan struct{}, logPath string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if last = healthy(ctx, endpoint); last == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("versitygw exited before becoming healthy (%v); see %s", cmd.ProcessState, logPath)
		case <-ctx.Done():
			return fmt.Errorf("versitygw not healthy on %s: %v; see %s", endpoint, last, logPath)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Healthy asks the server's health endpoint once.
func (s *Server) Healthy(ctx context.Context) error { return healthy(ctx, s.Endpoint) }

func healthy(ctx context.Context, endpoint string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/health", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s/health: HTTP %d", endpoint, resp.StatusCode)
	}
	return nil
}

// Stop terminates the server by its PID (SIGTERM, then SIGKILL after 10 s)
// and waits for it to exit. The port, data and credentials stay for Start.
// Stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
}

func (s *Server) stopLocked() {
	// The gateway first: it asks the IAM service about every request.
	s.stopProcessLocked(s.cmd, s.exited)
	s.stopProcessLocked(s.iamCmd, s.iamExited)
}

func (s *Server) stopProcessLocked(cmd *exec.Cmd, exited chan struct{}) {
	if cmd == nil {
		return
	}
	select {
	case <-exited:
		return
	default:
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	s.mu.Unlock()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
	s.mu.Lock()
}

// Running reports whether the server process is alive.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd != nil && !s.exitedLocked()
}

// PID is the current server process's id, or 0 before the first Start.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Tail is the last n lines of the server's log, for failure messages.
func (s *Server) Tail(n int) string {
	data, _ := os.ReadFile(s.LogPath)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return fmt.Sprintf("----- last %d lines of %s -----\n%s", len(lines), s.LogPath, strings.Join(lines, "\n"))
}

// Response is what an anonymous GET returned.
type Response struct {
	Status      int
	Body        []byte
	ContentType string
}

func (r Response) String() string {
	body := string(r.Body)
	if len(body) > 512 {
		body = body[:512] + "..."
	}
	return fmt.Sprintf("HTTP %d (Content-Type %q): %s", r.Status, r.ContentType, body)
}

// AnonymousGet fetches bucket/key from this server without credentials, as
// an OIDC client discovering the issuer would.
func (s *Server) AnonymousGet(ctx context.Context, bucket, key string) (Response, error) {
	return AnonymousGet(ctx, s.Endpoint, bucket, key)
}

// AnonymousGet fetches endpoint/bucket/key (path style) without signing the
// request. An error means no HTTP answer at all; any HTTP status is returned
// in the Response.
func AnonymousGet(ctx context.Context, endpoint, bucket, key string) (Response, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return Response{}, err
	}
	u = u.JoinPath(bucket, key)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Response{}, err
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{}, fmt.Errorf("GET %s: reading the body: %w", u, err)
	}
	return Response{Status: resp.StatusCode, Body: body, ContentType: resp.Header.Get("Content-Type")}, nil
}

// Port is the server's TCP port.
func (s *Server) Port() int {
	_, port, _ := net.SplitHostPort(s.Address)
	p, _ := strconv.Atoi(port)
	return p
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
