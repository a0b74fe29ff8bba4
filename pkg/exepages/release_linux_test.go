package exepages

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

// rssFile is the process's file-backed resident memory, in bytes.
func rssFile(t *testing.T) uint64 {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "RssFile:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

func TestReleaseShrinksTheResidentSetAndTheProcessGoesOn(t *testing.T) {
	before := rssFile(t)
	released, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	after := rssFile(t)
	t.Logf("file-backed RSS %d KiB before, %d KiB after; %d KiB released", before>>10, after>>10, released>>10)
	// What the test itself runs next faults some pages straight back.
	if released == 0 || after+released/4 > before {
		t.Fatalf("released %d bytes, but the file-backed RSS went from %d to %d", released, before, after)
	}
	// Code and read-only data come back as they are used.
	out, err := json.Marshal(map[string][]int{"still": {1, 2, 3}})
	if err != nil || string(out) != `{"still":[1,2,3]}` {
		t.Fatalf("after release: %s %v", out, err)
	}
}
