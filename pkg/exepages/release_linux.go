package exepages

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Release drops this process's resident pages of its executable's
// read-only mappings and returns how many bytes were resident in them.
// Call it once start-up is over; the pages stay in the page cache.
func Release() (uint64, error) {
	exe, err := executable()
	if err != nil {
		return 0, err
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	mappings, err := Mappings(smaps, exe)
	if err != nil {
		return 0, err
	}
	var released uint64
	for _, m := range mappings {
		if !m.Releasable() {
			continue
		}
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, uintptr(m.Start), uintptr(m.End-m.Start), unix.MADV_DONTNEED); errno != 0 {
			return released, fmt.Errorf("madvise %x-%x: %w", m.Start, m.End, errno)
		}
		released += m.Resident
	}
	return released, nil
}
