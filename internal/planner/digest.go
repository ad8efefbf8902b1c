package planner

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// WriteCanonicalDAG writes the canonical per-instance DAG of p: one JSON
// object {"template": ..., "instances": {ID: InstanceView without status}}
// with instance ids sorted, no whitespace and a trailing newline. It is
// what Digest hashes; statuses are left out, so the digest names the DAG,
// not what a refresh found.
func WriteCanonicalDAG(w io.Writer, p *protocol.Plan) error {
	bw := bufio.NewWriter(w)
	encodeDAG(bw, p)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write the canonical DAG of plan %s: %w", p.Template, err)
	}
	return nil
}

// encodeDAG writes the canonical DAG to bw; write errors stay in bw.
func encodeDAG(bw *bufio.Writer, p *protocol.Plan) {
	groups := groupSizes(p)
	byID := make(map[string]*protocol.JobInstance, len(p.Instances))
	for _, in := range p.Instances {
		byID[in.ID] = in
	}
	bw.WriteString(`{"template":`)
	writeJSON(bw, p.Template)
	bw.WriteString(`,"instances":{`)
	for i, id := range slices.Sorted(maps.Keys(byID)) {
		if i > 0 {
			bw.WriteByte(',')
		}
		writeJSON(bw, id)
		bw.WriteByte(':')
		writeJSON(bw, dagView(p, byID[id], groups))
	}
	bw.WriteString("}}\n")
}

// writeJSON writes a string or an InstanceView, whose encoding cannot
// fail: they hold only strings and string lists.
func writeJSON(bw *bufio.Writer, v any) {
	b, _ := json.Marshal(v)
	bw.Write(b)
}

// Digest is "sha256:" and the hex sha256 of the canonical DAG of p.
func Digest(p *protocol.Plan) string {
	h := sha256.New()
	bw := bufio.NewWriterSize(h, 64<<10)
	encodeDAG(bw, p)
	bw.Flush() // a hash's Write never returns an error
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// ShortDigest is a digest cut to 12 hex digits, as the compact view shows
// it.
func ShortDigest(digest string) string {
	const n = len("sha256:") + 12
	if len(digest) > n {
		return digest[:n]
	}
	return digest
}
