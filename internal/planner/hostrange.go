package planner

import (
	"slices"
	"strconv"
	"strings"
)

// HostRanges renders a set of host names compactly: sorted in natural order
// (worker-2 before worker-10), duplicates dropped, and each run of three or
// more names that differ only by consecutive numeric suffixes written as a
// range: "master-1..3, worker-1..7, worker-9". Zero-padded suffixes form a
// run only with suffixes of the same width ("node-01..12").
func HostRanges(hosts []string) string {
	if len(hosts) == 0 {
		return ""
	}
	ns := make([]hostName, 0, len(hosts))
	for _, h := range hosts {
		ns = append(ns, splitHost(h))
	}
	slices.SortFunc(ns, compareHostName)
	ns = slices.CompactFunc(ns, func(a, b hostName) bool { return a.full == b.full })
	var sb strings.Builder
	for i := 0; i < len(ns); {
		j := i + 1
		for j < len(ns) && ns[j].numbered && ns[i].numbered && ns[j].prefix == ns[i].prefix &&
			sameWidth(ns[i], ns[j]) && ns[j].num == ns[j-1].num+1 {
			j++
		}
		if sb.Len() > 0 {
			sb.WriteString(", ")
		}
		if j-i >= 3 {
			sb.WriteString(ns[i].full)
			sb.WriteString("..")
			sb.WriteString(ns[j-1].digits)
			i = j
			continue
		}
		sb.WriteString(ns[i].full)
		i++
	}
	return sb.String()
}

// hostName is a host name split into a prefix and a numeric suffix.
type hostName struct {
	full, prefix, digits string
	num                  uint64
	// width is the suffix length when it is zero-padded, else 0.
	width    int
	numbered bool
}

func splitHost(h string) hostName {
	i := len(h)
	for i > 0 && h[i-1] >= '0' && h[i-1] <= '9' {
		i--
	}
	hn := hostName{full: h, prefix: h[:i], digits: h[i:]}
	if hn.digits == "" || len(hn.digits) > 18 {
		hn.prefix, hn.digits = h, ""
		return hn
	}
	n, err := strconv.ParseUint(hn.digits, 10, 64)
	if err != nil {
		hn.prefix, hn.digits = h, ""
		return hn
	}
	hn.num, hn.numbered = n, true
	if len(hn.digits) > 1 && hn.digits[0] == '0' {
		hn.width = len(hn.digits)
	}
	return hn
}

// sameWidth reports whether b can continue a run started at a: a padded
// start takes suffixes of its width (node-09, node-10), an unpadded one
// unpadded suffixes.
func sameWidth(a, b hostName) bool {
	if a.width > 0 {
		return len(b.digits) == a.width
	}
	return b.width == 0
}

// compareHostName orders by prefix, then unnumbered before numbered, then
// by number, padding width and the full name, so the order is total.
func compareHostName(a, b hostName) int {
	if c := strings.Compare(a.prefix, b.prefix); c != 0 {
		return c
	}
	if a.numbered != b.numbered {
		if a.numbered {
			return 1
		}
		return -1
	}
	if a.num != b.num {
		if a.num < b.num {
			return -1
		}
		return 1
	}
	if a.width != b.width {
		return a.width - b.width
	}
	return strings.Compare(a.full, b.full)
}

// ParseHostRanges reads what HostRanges writes back into host names, in
// its order: "master-1..3, worker-9" is master-1, master-2, master-3,
// worker-9; a zero-padded run keeps its width ("node-08..10" is node-08,
// node-09, node-10). It returns false for text HostRanges does not write.
func ParseHostRanges(s string) ([]string, bool) {
	if s == "" {
		return nil, true
	}
	var out []string
	for _, item := range strings.Split(s, ", ") {
		first, last, isRun := strings.Cut(item, "..")
		if !isRun {
			if item == "" {
				return nil, false
			}
			out = append(out, item)
			continue
		}
		h := splitHost(first)
		end, err := strconv.ParseUint(last, 10, 64)
		if !h.numbered || err != nil || last == "" || end < h.num+2 || end-h.num > 1<<20 {
			return nil, false
		}
		for n := h.num; n <= end; n++ {
			d := strconv.FormatUint(n, 10)
			if h.width > 0 {
				if len(d) > h.width {
					return nil, false
				}
				d = strings.Repeat("0", h.width-len(d)) + d
			}
			out = append(out, h.prefix+d)
		}
	}
	return out, true
}
