package engine

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// batchItem is one entry of a batchCmd run.
type batchItem struct {
	kind string // col, ev, art
	cmd  string
	file string
}

// batchOut is the result of one item.
type batchOut struct {
	code   int
	stdout []byte // ev: stdout; art: content
	stderr []byte // col, ev
	seen   bool
}

// batchEnv encodes items for batchCmd.
func batchEnv(env map[string]string, items []batchItem) {
	env["CP_N"] = strconv.Itoa(len(items))
	for i, it := range items {
		n := strconv.Itoa(i)
		env["CP_K"+n] = it.kind
		if it.cmd != "" {
			env["CP_C"+n] = it.cmd
		}
		if it.file != "" {
			env["CP_F"+n] = it.file
		}
	}
}

// parseBatch decodes batchCmd output into one batchOut per item.
func parseBatch(out []byte, items []batchItem) ([]batchOut, error) {
	res := make([]batchOut, len(items))
	rest := out
	next := func() (string, bool) {
		if len(rest) == 0 {
			return "", false
		}
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		rest = after
		return string(line), true
	}
	decode := func(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(strings.TrimSpace(s)) }
	for {
		line, ok := next()
		if !ok {
			break
		}
		f := strings.Fields(line)
		if len(f) != 4 || f[0] != "@cp" {
			continue
		}
		idx, err1 := strconv.Atoi(f[2])
		code, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || idx < 0 || idx >= len(items) || items[idx].kind != f[1] {
			return nil, fmt.Errorf("engine batch output: malformed header %q", line)
		}
		r := &res[idx]
		r.code, r.seen = code, true
		nlines := 1
		if f[1] == "ev" {
			nlines = 2
		}
		for k := 0; k < nlines; k++ {
			l, ok := next()
			if !ok {
				return nil, fmt.Errorf("engine batch output: item %d (%s) is cut short", idx, f[1])
			}
			b, err := decode(l)
			if err != nil {
				return nil, fmt.Errorf("engine batch output: item %d (%s): %w", idx, f[1], err)
			}
			switch {
			case f[1] == "col", k == 1:
				r.stderr = b
			default:
				r.stdout = b
			}
		}
	}
	for i := range res {
		if !res[i].seen {
			return nil, fmt.Errorf("engine batch output: item %d (%s) missing; the batch stopped early", i, items[i].kind)
		}
	}
	return res, nil
}

// probeOut is the parsed output of probeCmd.
type probeOut struct {
	scriptPresent bool
	marker        []byte // nil when absent
}

func parseProbe(out []byte) (probeOut, error) {
	var p probeOut
	first, rest, _ := bytes.Cut(out, []byte("\n"))
	switch string(first) {
	case "script=present":
		p.scriptPresent = true
	case "script=absent":
	default:
		return p, fmt.Errorf("engine probe output: unexpected first line %q", first)
	}
	second, marker, _ := bytes.Cut(rest, []byte("\n"))
	switch string(second) {
	case "marker=present":
		p.marker = marker
	case "marker=absent":
	default:
		return p, fmt.Errorf("engine probe output: unexpected second line %q", second)
	}
	return p, nil
}
