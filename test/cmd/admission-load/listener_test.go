package main

import (
	"net"
	"os"
	"testing"
)

func TestListenerPIDFindsThisProcess(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	pid, err := listenerPID(port)
	if err != nil || pid != os.Getpid() {
		t.Fatalf("listenerPID(%d) = %d, %v; want %d", port, pid, err, os.Getpid())
	}
	l.Close()
	if pid, err := listenerPID(port); err == nil {
		t.Fatalf("a closed port still has a listener: %d", pid)
	}
}
