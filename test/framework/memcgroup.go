package framework

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// MemoryCgroup is a memory cgroup of its own for one process, so that its
// memory reads as the kubelet reads a container's: the working set, usage
// less inactive file pages, which counts the page cache the process
// brought in (its binary's pages among them) until the kernel finds it cold.
// cgroup v2 and v1 (memory controller) are both read; creating one needs
// root.
type MemoryCgroup struct {
	dir string
	v2  bool
}

// NewMemoryCgroup creates the cgroup name under this process's own memory
// cgroup (v1), or under the root of the unified hierarchy (v2).
func NewMemoryCgroup(name string) (*MemoryCgroup, error) {
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		// v2: a child of the root, whose subtree must have the memory
		// controller (a non-root cgroup with processes cannot enable it).
		if err := os.WriteFile("/sys/fs/cgroup/cgroup.subtree_control", []byte("+memory"), 0); err != nil {
			return nil, fmt.Errorf("enabling the memory controller: %w", err)
		}
		dir := filepath.Join("/sys/fs/cgroup", name)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		return &MemoryCgroup{dir: dir, v2: true}, nil
	}
	parent, err := ownV1MemoryCgroup()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join("/sys/fs/cgroup/memory", parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, err
	}
	return &MemoryCgroup{dir: dir}, nil
}

func ownV1MemoryCgroup() (string, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) == 3 && slices.Contains(strings.Split(parts[1], ","), "memory") {
			return parts[2], nil
		}
	}
	return "", errors.New("no memory cgroup (v1) and no unified hierarchy (v2) in /proc/self/cgroup")
}

// Command is cmd run inside the cgroup from its first instruction: a shell
// joins the cgroup and then becomes the command, so nothing it touches is
// charged elsewhere.
func (c *MemoryCgroup) Command(binary string, args ...string) *exec.Cmd {
	script := `echo $$ > "$0/cgroup.procs" && exec "$@"`
	return exec.Command("/bin/sh", append([]string{"-c", script, c.dir, binary}, args...)...)
}

// MemoryReading is a cgroup's memory in bytes.
type MemoryReading struct {
	// Usage is memory.current (v2) or memory.usage_in_bytes (v1).
	Usage uint64
	// InactiveFile is the page cache the kernel may take back first.
	InactiveFile uint64
	// WorkingSet is Usage less InactiveFile: what the kubelet reports and
	// evicts on.
	WorkingSet uint64
	// Anon and File split Usage: process memory and page cache.
	Anon, File uint64
}

// Read reads the cgroup's memory now.
func (c *MemoryCgroup) Read() (MemoryReading, error) {
	usageFile, inactiveKey, anonKey, fileKey := "memory.usage_in_bytes", "total_inactive_file", "total_rss", "total_cache"
	if c.v2 {
		usageFile, inactiveKey, anonKey, fileKey = "memory.current", "inactive_file", "anon", "file"
	}
	var r MemoryReading
	data, err := os.ReadFile(filepath.Join(c.dir, usageFile))
	if err != nil {
		return r, err
	}
	if r.Usage, err = strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64); err != nil {
		return r, err
	}
	f, err := os.Open(filepath.Join(c.dir, "memory.stat"))
	if err != nil {
		return r, err
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		key, value, ok := strings.Cut(scanner.Text(), " ")
		if !ok {
			continue
		}
		n, _ := strconv.ParseUint(value, 10, 64)
		switch key {
		case inactiveKey:
			r.InactiveFile = n
		case anonKey:
			r.Anon = n
		case fileKey:
			r.File = n
		}
	}
	if r.InactiveFile < r.Usage {
		r.WorkingSet = r.Usage - r.InactiveFile
	}
	return r, scanner.Err()
}

// String is the reading in MiB.
func (r MemoryReading) String() string {
	mib := func(n uint64) float64 { return float64(n) / (1 << 20) }
	return fmt.Sprintf("working set %.1f MiB (usage %.1f, inactive file %.1f; anonymous %.1f, page cache %.1f)",
		mib(r.WorkingSet), mib(r.Usage), mib(r.InactiveFile), mib(r.Anon), mib(r.File))
}

// Remove deletes the cgroup once its processes have exited; moving them
// out first is the caller's business.
func (c *MemoryCgroup) Remove() error { return os.Remove(c.dir) }

// DropPageCache writes dirty pages back and asks the kernel to drop the
// page cache, so that a process started next is charged for the pages of
// its binary as in a new container; an error says why it could not (not
// root, read-only /proc). Without the write-back, a binary built moments
// before stays cached, charged to whoever wrote it (seen: 0.4 MiB of page
// cache charged to the webhook instead of about 100).
func DropPageCache() error {
	syscall.Sync()
	return os.WriteFile("/proc/sys/vm/drop_caches", []byte("3"), 0)
}
