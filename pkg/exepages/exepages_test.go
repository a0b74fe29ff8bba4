package exepages

import (
	"testing"
)

const smaps = `00400000-02f3a000 r-xp 00000000 fe:00 1234 /usr/bin/cluster-workload-access-operator
Size:              44264 kB
Rss:               27196 kB
Anonymous:             0 kB
02f3a000-05bdc000 r--p 02b3a000 fe:00 1234 /usr/bin/cluster-workload-access-operator
Size:              45704 kB
Rss:               27716 kB
Anonymous:             0 kB
05bdc000-05cb7000 rw-p 057dc000 fe:00 1234 /usr/bin/cluster-workload-access-operator
Rss:                 808 kB
Anonymous:           300 kB
05cb7000-05cb8000 r--p 058b7000 fe:00 1234 /usr/bin/cluster-workload-access-operator
Rss:                   4 kB
Anonymous:             4 kB
7f0000000000-7f0000100000 r-xp 00000000 fe:00 99 /usr/lib64/libc.so.6
Rss:                 900 kB
Anonymous:             0 kB
7f0000200000-7f0000300000 rw-p 00000000 00:00 0 
Rss:                1024 kB
Anonymous:          1024 kB
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
Rss:                  20 kB
`

func TestMappingsAreTheExecutablesAndOnlyCleanReadOnlyOnesAreReleasable(t *testing.T) {
	got, err := Mappings([]byte(smaps), "/usr/bin/cluster-workload-access-operator")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		start, end uint64
		perms      string
		resident   uint64
		releasable bool
	}{
		{0x400000, 0x2f3a000, "r-xp", 27196 << 10, true},
		{0x2f3a000, 0x5bdc000, "r--p", 27716 << 10, true},
		{0x5bdc000, 0x5cb7000, "rw-p", 808 << 10, false}, // written: data
		{0x5cb7000, 0x5cb8000, "r--p", 4 << 10, false},   // read-only now, but copied on write
	}
	if len(got) != len(want) {
		t.Fatalf("%d mappings, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		m := got[i]
		if m.Start != w.start || m.End != w.end || m.Perms != w.perms || m.Resident != w.resident || m.Releasable() != w.releasable {
			t.Errorf("mapping %d = %+v (releasable %v), want %+v", i, m, m.Releasable(), w)
		}
	}
}

func TestMappingsRefusesAMalformedRange(t *testing.T) {
	if _, err := Mappings([]byte("zz-02 r-xp 0 fe:00 1 /bin/x\nRss: 4 kB\n"), "/bin/x"); err == nil {
		t.Error("a malformed range was accepted")
	}
	if _, err := Mappings([]byte("00-02 r-xp 0 fe:00 1 /bin/x\nRss: four kB\n"), "/bin/x"); err == nil {
		t.Error("a malformed size was accepted")
	}
}
