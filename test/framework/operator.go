package framework

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is one of the project's real binaries (the operator or the
// webhook) running outside the cluster, as its Deployment would run it.
type Process struct {
	Name    string
	LogPath string
	// Listen is where an operator serves its metrics and health (host:port).
	Listen string
	cmd    *exec.Cmd
	done   chan struct{}
	once   sync.Once
}

// OperatorOptions say how to run one operator process.
type OperatorOptions struct {
	Binary     string
	Kubeconfig string
	// LogDir receives <Name>.log.
	LogDir string
	Name   string
	// Env is added to this process's environment (the Deployment's env).
	Env []string
	// ExtraArgs are appended to the command line.
	ExtraArgs []string
	// MemoryCgroup, when set, is where the process runs from its start, so
	// that its memory reads as a container's.
	MemoryCgroup *MemoryCgroup
}

// StartOperator runs `cluster-workload-access-operator operator` with short
// leader-election timings, so a fail-over takes seconds, not minutes.
func StartOperator(opts OperatorOptions) (*Process, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	listen := l.Addr().String()
	l.Close()

	logPath := filepath.Join(opts.LogDir, opts.Name+".log")
	args := append([]string{"operator",
		"--kubeconfig=" + opts.Kubeconfig,
		"--namespace=" + OperatorNamespace,
		"--listen=" + listen,
		"--leader-election-lease-duration=10s",
		"--leader-election-renew-deadline=6s",
		"--leader-election-retry-period=1s",
		"-v=2",
	}, opts.ExtraArgs...)
	p, err := startProcess(opts.MemoryCgroup, opts.Binary, args, opts.Env, logPath, opts.Name)
	if p != nil {
		p.Listen = listen
	}
	return p, err
}

// startProcess runs binary with args, its output in logPath, in cgroup
// when not nil. The process dies with the test binary.
func startProcess(cgroup *MemoryCgroup, binary string, args, env []string, logPath, name string) (*Process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, args...)
	if cgroup != nil {
		cmd = cgroup.Command(binary, args...)
	}
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	p := &Process{Name: name, LogPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// PID is the process id, for reading its memory from /proc.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Stop sends SIGTERM and waits, as a Deployment rollout would.
func (p *Process) Stop() { p.signal(syscall.SIGTERM) }

// Kill sends SIGKILL: the process gets no chance to release its lease.
func (p *Process) Kill() { p.signal(syscall.SIGKILL) }

func (p *Process) signal(sig syscall.Signal) {
	p.once.Do(func() {
		_ = p.cmd.Process.Signal(sig)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
}

// Done is closed when the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Log returns the process's output so far.
func (p *Process) Log() string {
	data, _ := os.ReadFile(p.LogPath)
	return string(data)
}

// LogContains reports whether the output so far contains s.
func (p *Process) LogContains(s string) bool {
	data, _ := os.ReadFile(p.LogPath)
	return bytes.Contains(data, []byte(s))
}

// Tail is the last n lines of the output, for failure messages.
func (p *Process) Tail(n int) string {
	lines := strings.Split(strings.TrimRight(p.Log(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return fmt.Sprintf("----- last %d lines of %s -----\n%s", len(lines), p.LogPath, strings.Join(lines, "\n"))
}
