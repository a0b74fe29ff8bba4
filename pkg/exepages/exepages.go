// Package exepages gives back the resident pages of a process's own
// executable that only its start-up needed.
//
// The operator binary is large (about 130 MB, most of it code and the
// runtime's function tables), and several hundred package initialisers run
// before main. The kernel maps each page they touch together with its
// neighbours already in the page cache (fault-around, readahead), so a
// webhook that afterwards uses a small part of the binary keeps 55-75 MiB of
// it in its resident set. Those pages are clean and file-backed: dropping
// the process's mappings of them loses nothing, and what is still used
// faults back in from the page cache at the cost of a minor fault.
package exepages

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Mapping is one read-only mapping of the executable.
type Mapping struct {
	Start, End uint64
	Perms      string
	// Resident and Anonymous are smaps' Rss and Anonymous, in bytes.
	Resident, Anonymous uint64
}

// Releasable reports whether dropping the mapping's pages is lossless: it
// is never written (no w), and no page of it was ever copied on write (a
// relocation applied by the dynamic loader would be), so every page equals
// the file's.
func (m Mapping) Releasable() bool {
	return len(m.Perms) == 4 && m.Perms[0] == 'r' && m.Perms[1] == '-' && m.Perms[3] == 'p' && m.Anonymous == 0
}

// Mappings parses smaps (the content of /proc/<pid>/smaps) for the
// mappings of the file at exe.
func Mappings(smaps []byte, exe string) ([]Mapping, error) {
	var out []Mapping
	var current *Mapping
	scanner := bufio.NewScanner(bytes.NewReader(smaps))
	scanner.Buffer(make([]byte, 0, 4096), 1<<20)
	for scanner.Scan() {
		line := scanner.Bytes()
		fields := bytes.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if isRange(fields[0]) {
			current = nil
			if len(fields) < 6 || string(bytes.Join(fields[5:], []byte(" "))) != exe {
				continue
			}
			start, end, err := parseRange(fields[0])
			if err != nil {
				return nil, err
			}
			out = append(out, Mapping{Start: start, End: end, Perms: string(fields[1])})
			current = &out[len(out)-1]
			continue
		}
		if current == nil || len(fields) < 2 {
			continue
		}
		switch string(fields[0]) {
		case "Rss:", "Anonymous:":
			kb, err := strconv.ParseUint(string(fields[1]), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("smaps line %q: %w", line, err)
			}
			if string(fields[0]) == "Rss:" {
				current.Resident = kb << 10
			} else {
				current.Anonymous = kb << 10
			}
		}
	}
	return out, scanner.Err()
}

// isRange tells a mapping's header line ("start-end perms ...") from its
// "Key: value" lines.
func isRange(field []byte) bool {
	return bytes.IndexByte(field, '-') > 0 && field[len(field)-1] != ':'
}

func parseRange(field []byte) (uint64, uint64, error) {
	i := bytes.IndexByte(field, '-')
	start, err := strconv.ParseUint(string(field[:i]), 16, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("mapping range %q: %w", field, err)
	}
	end, err := strconv.ParseUint(string(field[i+1:]), 16, 64)
	if err != nil || end < start {
		return 0, 0, fmt.Errorf("mapping range %q: end before start or %v", field, err)
	}
	return start, end, nil
}

// executable is the path smaps names the running binary by.
func executable() (string, error) { return os.Readlink("/proc/self/exe") }
