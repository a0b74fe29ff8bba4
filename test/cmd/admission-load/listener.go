package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// listenerPID finds the process with a socket listening on port: the
// socket's inode from /proc/net/tcp{,6}, then the process holding it.
func listenerPID(port int) (int, error) {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			fields := strings.Fields(line)
			// local_address is HEXIP:HEXPORT; state 0A is LISTEN.
			if len(fields) < 10 || fields[3] != "0A" {
				continue
			}
			_, hexPort, ok := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); ok && err == nil && int(p) == port {
				inodes["socket:["+fields[9]+"]"] = true
			}
		}
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("no socket listens on port %d", port)
	}
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if link, err := os.Readlink(fd); err == nil && inodes[link] {
			return strconv.Atoi(strings.Split(fd, "/")[2])
		}
	}
	return 0, fmt.Errorf("no process of this user holds the socket listening on port %d", port)
}
