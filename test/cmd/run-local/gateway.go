package main

// The whole chain of pod identity needs versitygw's STS to fetch the
// issuer's keys, which it does only over HTTPS on port 443 from a public
// address. run-local therefore runs versitygw (S3, IAM and STS) and the
// issuer's HTTPS front in a child process in a network namespace of its own
// (test/framework/netns), where the issuer is https://192.0.2.10/<bucket>.
// Everything else stays on this machine's loopback and reaches the child
// through three listeners run-local opens here and hands to it: S3, IAM and
// STS, and an HTTPS proxy that connects only to the issuer's front.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/openshift/cluster-workload-access-operator/test/framework/issuerfront"
	"github.com/openshift/cluster-workload-access-operator/test/framework/netns"
	"github.com/openshift/cluster-workload-access-operator/test/s3server"
)

// gatewayCommand, as run-local's first argument, makes it the child.
const gatewayCommand = "gateway-in-network-namespace"

// The child's inherited listeners, in ExtraFiles order (descriptors 3, 4, 5).
const (
	s3Listener = iota
	iamListener
	proxyListener
	listeners
)

// gatewayInfo is what the child reports on stdout once everything serves.
type gatewayInfo struct {
	AccessKeyID, SecretAccessKey, Region string
	LogPath, DataDir                     string
	// CAFile and Thumbprint are the front's CA, as issuerfront.Front has them.
	CAFile, Thumbprint string
}

// gateway is the running child, as this machine reaches it.
type gateway struct {
	// S3 holds the server's endpoints on this machine's loopback and its
	// root credentials; Start and Stop are the child's, not to be called here.
	S3 *s3server.Server
	// ProxyURL is an HTTP proxy that CONNECTs only to the issuer's front.
	ProxyURL string
	// IssuerEndpoint is https://<netns.IssuerAddress>, the front.
	IssuerEndpoint     string
	CAFile, Thumbprint string

	cmd    *exec.Cmd
	exited chan struct{}
	stderr *bytes.Buffer
}

// startGateway starts the child with the versitygw binary s3Binary and its
// data under dir, and waits until it serves. An error says why the machine
// does not allow it or what failed.
func startGateway(ctx context.Context, dir, s3Binary string) (*gateway, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var addresses []string
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close() // the child holds its own copies
		}
	}()
	for range listeners {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		f, err := l.(*net.TCPListener).File()
		l.Close()
		if err != nil {
			return nil, err
		}
		addresses = append(addresses, l.Addr().String())
		files = append(files, f)
	}
	g := &gateway{exited: make(chan struct{}), stderr: &bytes.Buffer{}}
	g.cmd = exec.Command(exe, gatewayCommand, "--dir", dir, "--s3server-binary", s3Binary)
	g.cmd.ExtraFiles = files
	g.cmd.Stderr = g.stderr
	stdout, err := g.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	how := netns.Isolate(g.cmd)
	if err := g.cmd.Start(); err != nil {
		return nil, netns.StartError(how, err)
	}
	go func() {
		_ = g.cmd.Wait()
		close(g.exited)
	}()
	ready := make(chan gatewayInfo, 1)
	go func() {
		var info gatewayInfo
		if json.NewDecoder(stdout).Decode(&info) == nil {
			ready <- info
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var info gatewayInfo
	select {
	case info = <-ready:
	case <-g.exited:
		return nil, fmt.Errorf("versitygw in a network namespace (%s) did not start: %s", how, strings.TrimSpace(g.stderr.String()))
	case <-ctx.Done():
		g.Stop()
		return nil, fmt.Errorf("versitygw in a network namespace did not start: %w: %s", ctx.Err(), strings.TrimSpace(g.stderr.String()))
	}
	g.S3 = &s3server.Server{
		Endpoint:        "http://" + addresses[s3Listener],
		Address:         addresses[s3Listener],
		IAMEndpoint:     "http://" + addresses[iamListener],
		AccessKeyID:     info.AccessKeyID,
		SecretAccessKey: info.SecretAccessKey,
		Region:          info.Region,
		LogPath:         info.LogPath,
		DataDir:         info.DataDir,
	}
	g.ProxyURL = "http://" + addresses[proxyListener]
	g.IssuerEndpoint = "https://" + netns.IssuerAddress
	g.CAFile, g.Thumbprint = info.CAFile, info.Thumbprint
	return g, nil
}

// Done is closed when the child has exited.
func (g *gateway) Done() <-chan struct{} { return g.exited }

// Tail is what the child said on stderr.
func (g *gateway) Tail() string { return strings.TrimSpace(g.stderr.String()) }

// Stop asks the child to stop versitygw and the front (SIGTERM), and kills
// it after 15 s.
func (g *gateway) Stop() {
	_ = g.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-g.exited:
	case <-time.After(15 * time.Second):
		_ = g.cmd.Process.Kill()
		<-g.exited
	}
}

// runGateway is the child: inside its network namespace, versitygw with
// IAM and STS and the issuer's front on netns.IssuerAddress:443, served to
// the inherited listeners until SIGTERM. Ctrl-C in the terminal reaches it
// too; it waits for run-local's SIGTERM instead, so that the operator stops
// before the S3 server it talks to.
func runGateway(args []string) int {
	fs := flag.NewFlagSet(gatewayCommand, flag.ContinueOnError)
	dir := fs.String("dir", "", "where the S3 server keeps its data and log, and the front its CA")
	binary := fs.String("s3server-binary", "", "versitygw binary")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	signal.Ignore(os.Interrupt)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := serveGateway(ctx, *dir, *binary); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func serveGateway(ctx context.Context, dir, binary string) error {
	if err := netns.SetUpLoopback(); err != nil {
		return err
	}
	inherited := make([]net.Listener, listeners)
	for i := range inherited {
		l, err := net.FileListener(os.NewFile(uintptr(3+i), "listener"))
		if err != nil {
			return fmt.Errorf("the listener run-local passed as descriptor %d: %w", 3+i, err)
		}
		defer l.Close()
		inherited[i] = l
	}
	startCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	s3, err := s3server.Start(startCtx, s3server.Options{Dir: filepath.Join(dir, "s3"), Binary: binary, IAM: true})
	if err != nil {
		return err
	}
	defer s3.Stop()
	front, err := issuerfront.Start(dir, netns.IssuerAddress, s3.Endpoint)
	if err != nil {
		return err
	}
	defer front.Stop()
	issuer := net.JoinHostPort(netns.IssuerAddress, "443")
	go forward(inherited[s3Listener], s3.Address)
	go forward(inherited[iamListener], strings.TrimPrefix(s3.IAMEndpoint, "http://"))
	go connectProxy(inherited[proxyListener], issuer)
	err = json.NewEncoder(os.Stdout).Encode(gatewayInfo{
		AccessKeyID: s3.AccessKeyID, SecretAccessKey: s3.SecretAccessKey, Region: s3.Region,
		LogPath: s3.LogPath, DataDir: s3.DataDir, CAFile: front.CAFile, Thumbprint: front.Thumbprint,
	})
	if err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// forward relays every connection accepted on l to target.
func forward(l net.Listener, target string) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			upstream, err := net.DialTimeout("tcp", target, 10*time.Second)
			if err != nil {
				return
			}
			defer upstream.Close()
			relay(conn, upstream, nil)
		}()
	}
}

// connectProxy serves HTTP CONNECT on l to target alone: what HTTPS_PROXY
// and curl --proxy need to reach the issuer's front from outside.
func connectProxy(l net.Listener, target string) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			reader := bufio.NewReader(conn)
			req, err := http.ReadRequest(reader)
			if err != nil {
				return
			}
			if req.Method != http.MethodConnect || req.Host != target {
				fmt.Fprintf(conn, "HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
				return
			}
			upstream, err := net.DialTimeout("tcp", target, 10*time.Second)
			if err != nil {
				fmt.Fprintf(conn, "HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
				return
			}
			defer upstream.Close()
			_ = conn.SetReadDeadline(time.Time{})
			if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
				return
			}
			relay(conn, upstream, reader)
		}()
	}
}

// relay copies both ways until both sides are done, passing on each
// side's end of writing; from, when not nil, holds what was already read
// of client.
func relay(client, upstream net.Conn, from io.Reader) {
	if from == nil {
		from = client
	}
	done := make(chan struct{}, 2)
	pipe := func(dst net.Conn, src io.Reader) {
		_, err := io.Copy(dst, src)
		if tcp, ok := dst.(*net.TCPConn); ok && err == nil {
			_ = tcp.CloseWrite()
		} else {
			// An error on one side ends both.
			_ = client.Close()
			_ = upstream.Close()
		}
		done <- struct{}{}
	}
	go pipe(upstream, from)
	go pipe(client, upstream)
	<-done
	<-done
}

// errGatewayExited is what run-local returns when the child ends early.
var errGatewayExited = errors.New("versitygw's network namespace process exited")
