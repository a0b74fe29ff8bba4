// Package runlocal runs `make run-local`'s command as a new user would and
// pastes the whole chain of pod identity, as it prints it, into a shell: a
// pod's token, the role's credentials from the local STS, and S3 with them.
// It needs what run-local needs for the chain (root, or unprivileged user
// namespaces: test/framework/netns), curl and kubectl.
package runlocal

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/s3server"
)

const (
	// chainHeading is the line run-local prints before the chain's
	// commands (test/cmd/run-local, chainHeading).
	chainHeading = "The whole chain: a pod's token for its role's credentials, and S3 with them."
	// demoObjectBody is what the allowed read returns (test/cmd/run-local).
	demoObjectBody = "read with the role of IAMRoleRequest demo-reader"
	ready          = "Press Ctrl-C to stop everything."
)

// The commands run-local prints for the whole chain, pasted into one shell
// exactly as printed, give a pod's token credentials at the local STS: the
// read the role allows returns the object, the listing it does not allow
// and the anonymous read are refused. Then Ctrl-C stops run-local cleanly.
func TestPrintedChainGivesAPodsTokenCredentials(t *testing.T) {
	// The commands are a user's: they need the user's tools, said plainly
	// rather than as a failed line of the chain.
	for _, tool := range []string{"kubectl", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not on the PATH: the chain run-local prints uses kubectl and curl (7.75 or later, for --aws-sigv4); install them", tool)
		}
	}
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	operator := os.Getenv("OPERATOR_BINARY")
	if operator == "" {
		operator = filepath.Join(t.TempDir(), "cluster-workload-access-operator")
		goBuild(t, root, operator, "./cmd/cluster-workload-access-operator")
	}
	s3Binary, err := s3server.ResolveBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := controlplane.ResolveBinDir(); err != nil {
		t.Fatal(err)
	}
	runLocal := filepath.Join(t.TempDir(), "run-local")
	goBuild(t, root, runLocal, "./test/cmd/run-local")

	// As make run-local runs it, from the repository.
	cmd := exec.Command(runLocal, "--operator-binary="+operator, "--s3server-binary="+s3Binary, "--dir="+filepath.Join(t.TempDir(), "local"))
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 1000)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			lines <- scanner.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = cmd.Process.Kill()
		}
	})

	var printed []string
	timeout := time.After(5 * time.Minute)
	for up := false; !up; {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("run-local ended before it was up:\n%s\n%s", strings.Join(printed, "\n"), stderr.String())
			}
			printed = append(printed, line)
			up = line == ready
		case <-timeout:
			t.Fatalf("run-local was not up after 5 minutes:\n%s\n%s", strings.Join(printed, "\n"), stderr.String())
		}
	}
	t.Logf("run-local up in %s", time.Since(started).Round(100*time.Millisecond))
	commands, err := chainCommands(printed)
	if err != nil {
		t.Fatalf("%v; run-local printed:\n%s", err, strings.Join(printed, "\n"))
	}
	results := runPasted(t, commands)

	var allowed, refused int
	for _, r := range results {
		if r.status != 0 {
			t.Errorf("%s\nexited %d: %s", r.line, r.status, r.output)
			continue
		}
		switch {
		case strings.HasSuffix(r.line, "# allowed"):
			allowed++
			if strings.TrimSpace(r.output) != demoObjectBody {
				t.Errorf("%s\nprinted %q, want %q", r.line, r.output, demoObjectBody)
			}
		case strings.Contains(r.line, "# refused"):
			refused++
			if !strings.Contains(r.output, "<Code>AccessDenied</Code>") {
				t.Errorf("%s\nprinted %q, want an AccessDenied error", r.line, r.output)
			}
		}
		t.Logf("%s\n  -> %s", r.line, strings.TrimSpace(r.output))
	}
	if allowed != 1 || refused < 1 {
		t.Errorf("the chain has %d allowed and %d refused reads; want one of the first and some of the second:\n%s", allowed, refused, strings.Join(commands, "\n"))
	}

	// Ctrl-C stops everything, and run-local says nothing went wrong.
	_ = cmd.Process.Signal(syscall.SIGINT)
	go func() {
		for range lines {
		}
	}()
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Errorf("run-local after Ctrl-C: %v\n%s", err, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Errorf("run-local had not stopped a minute after Ctrl-C")
	}
}

func goBuild(t *testing.T, root, out, pkg string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, output)
	}
}

// chainCommands are the indented lines after chainHeading up to the next
// empty line, without their indentation.
func chainCommands(printed []string) ([]string, error) {
	start := -1
	for i, line := range printed {
		if line == chainHeading {
			start = i
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("run-local printed no %q", chainHeading)
	}
	var commands []string
	for _, line := range printed[start+1:] {
		if strings.HasPrefix(line, "  ") {
			commands = append(commands, strings.TrimPrefix(line, "  "))
		} else if line == "" && len(commands) > 0 {
			return commands, nil
		}
	}
	return nil, fmt.Errorf("the commands after %q never end with an empty line", chainHeading)
}

type result struct {
	line   string
	status int
	output string
}

var marker = regexp.MustCompile(`(?m)^@@@ ([0-9]+) @@@$`)

// runPasted runs the commands in one shell, one after another as pasted,
// and returns each command's exit status and what it printed (stdout and
// stderr). Comment lines print nothing and are left out.
func runPasted(t *testing.T, commands []string) []result {
	t.Helper()
	var script strings.Builder
	var ran []string
	for _, c := range commands {
		script.WriteString(c + "\n")
		if strings.HasPrefix(c, "#") {
			continue
		}
		script.WriteString("echo \"@@@ $? @@@\"\n")
		ran = append(ran, c)
	}
	shell := exec.Command("bash", "--noprofile", "--norc", "-s")
	shell.Stdin = strings.NewReader(script.String())
	shell.Env = append(os.Environ(), "HOME="+t.TempDir()) // no kubectl or curl configuration of this machine
	var output bytes.Buffer
	shell.Stdout, shell.Stderr = &output, &output
	done := make(chan error, 1)
	if err := shell.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- shell.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the shell: %v\n%s", err, output.String())
		}
	case <-time.After(4 * time.Minute):
		_ = shell.Process.Kill()
		t.Fatalf("the pasted commands had not finished after 4 minutes:\n%s", output.String())
	}
	text := output.String()
	ends := marker.FindAllStringSubmatchIndex(text, -1)
	if len(ends) != len(ran) {
		t.Fatalf("%d commands, %d ends in the output:\n%s", len(ran), len(ends), text)
	}
	var results []result
	from := 0
	for i, end := range ends {
		status, _ := strconv.Atoi(text[end[2]:end[3]])
		results = append(results, result{line: ran[i], status: status, output: text[from:end[0]]})
		from = end[1]
	}
	return results
}
