package operation

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// RecordDir is where an intent record is kept on the hosts that serve it
// (masters): what the cluster was created from, so it can be imported by
// the address of a master.
const RecordDir = "/var/lib/cp/intent"

// WriteRecord writes name.json into RecordDir on every host given.
func WriteRecord(ctx context.Context, hosts []HostAccess, name string, content []byte) error {
	pool, err := Pool(hosts, nil)
	if err != nil {
		return err
	}
	defer pool.Close()
	var errs []error
	for _, h := range hosts {
		conn, err := pool.Dial(ctx, h.Host.Name)
		if err == nil {
			err = conn.Upload(ctx, transport.File{Path: path.Join(RecordDir, name+".json"), Content: content, Mode: 0o600, Become: h.Access.User != "root"})
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("write intent record on %s: %w", h.Host.Name, err))
		}
	}
	return errors.Join(errs...)
}

// ReadRecords reads the intent records on a host, by name.
func ReadRecords(ctx context.Context, h HostAccess) (map[string][]byte, error) {
	pool, err := Pool([]HostAccess{h}, nil)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	conn, err := pool.Dial(ctx, h.Host.Name)
	if err != nil {
		return nil, fmt.Errorf("read intent records on %s: %w", h.Host.Name, err)
	}
	become := h.Access.User != "root"
	res, err := conn.Run(ctx, transport.Command{Cmd: "ls -1 " + RecordDir + " 2>/dev/null || true", Become: become})
	if err != nil {
		return nil, fmt.Errorf("read intent records on %s: %w", h.Host.Name, err)
	}
	out := map[string][]byte{}
	for _, f := range strings.Fields(string(res.Stdout)) {
		if !strings.HasSuffix(f, ".json") {
			continue
		}
		b, err := conn.Download(ctx, path.Join(RecordDir, f), become)
		if err != nil {
			return nil, fmt.Errorf("read intent record %s on %s: %w", f, h.Host.Name, err)
		}
		out[strings.TrimSuffix(f, ".json")] = b
	}
	return out, nil
}
