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
	code    int
	stdout  []byte // ev: stdout; art: content
	stderr  []byte // col, ev
	seen    bool
	skipped bool // col: not run because the script failed
}

// batchEnv encodes items for batchLoop.
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

// frame is one section of the output of the engine's commands: a header
// line "@cp <kind> <index> <code>" and its payload lines, '|' for stdout,
// '!' for stderr and '=' for base64 data.
type frame struct {
	kind      string
	idx, code int
	stdout    []byte
	stderr    []byte
	data      []byte
	hasData   bool
}

// parseFrames splits output into frames. Lines outside any frame (what a
// login shell may print) are ignored.
func parseFrames(out []byte) ([]frame, error) {
	var frames []frame
	var so, se [][]byte
	flush := func() {
		if len(frames) == 0 {
			return
		}
		f := &frames[len(frames)-1]
		f.stdout, f.stderr = bytes.Join(so, []byte("\n")), bytes.Join(se, []byte("\n"))
		so, se = nil, nil
	}
	for _, line := range bytes.Split(out, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("@cp ")); ok {
			f := strings.Fields(string(rest))
			if len(f) != 3 {
				return nil, fmt.Errorf("engine output: malformed header %q", line)
			}
			idx, err1 := strconv.Atoi(f[1])
			code, err2 := strconv.Atoi(f[2])
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("engine output: malformed header %q", line)
			}
			flush()
			frames = append(frames, frame{kind: f[0], idx: idx, code: code})
			continue
		}
		if len(line) == 0 || len(frames) == 0 {
			continue
		}
		switch line[0] {
		case '|':
			so = append(so, line[1:])
		case '!':
			se = append(se, line[1:])
		case '=':
			b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(line[1:])))
			if err != nil {
				return nil, fmt.Errorf("engine output: %s %d: %w", frames[len(frames)-1].kind, frames[len(frames)-1].idx, err)
			}
			f := &frames[len(frames)-1]
			f.data, f.hasData = b, true
		}
	}
	flush()
	return frames, nil
}

// batchResults picks the results of items out of frames.
func batchResults(frames []frame, items []batchItem) ([]batchOut, error) {
	res := make([]batchOut, len(items))
	for _, f := range frames {
		switch f.kind {
		case "col", "ev", "art", "skip":
		default:
			continue
		}
		want := f.kind
		if want == "skip" {
			want = "col"
		}
		if f.idx < 0 || f.idx >= len(items) || items[f.idx].kind != want {
			return nil, fmt.Errorf("engine batch output: %s frame for item %d does not match the batch", f.kind, f.idx)
		}
		r := &res[f.idx]
		r.code, r.seen, r.skipped = f.code, true, f.kind == "skip"
		r.stderr = f.stderr
		switch f.kind {
		case "ev":
			r.stdout = f.stdout
		case "art":
			if f.code == 0 && !f.hasData {
				return nil, fmt.Errorf("engine batch output: item %d (art) is cut short", f.idx)
			}
			r.stdout = f.data
		}
	}
	for i := range res {
		if !res[i].seen {
			return nil, fmt.Errorf("engine batch output: item %d (%s) missing; the batch stopped early", i, items[i].kind)
		}
	}
	return res, nil
}

// parseBatch decodes batchCmd output into one batchOut per item.
func parseBatch(out []byte, items []batchItem) ([]batchOut, error) {
	frames, err := parseFrames(out)
	if err != nil {
		return nil, err
	}
	return batchResults(frames, items)
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
