package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// State records: after an apply, cp_node, cp_tempo and cp_scenario keep
// their state (no secrets: secret artifacts are references) in an intent
// record on hosts they ran on, so they can be imported by a host's
// address. A record is named <kind>.<16 hex digits of the id's SHA-256>:
// the dot keeps it apart from the cluster records (named after a
// cluster, a DNS label), and the digest keeps any id a safe file name.

type stateRecord struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	State []byte `json:"state"` // the resource's state, msgpack
}

func recordName(kind, id string) string {
	sum := sha256.Sum256([]byte(id))
	return kind + "." + hex.EncodeToString(sum[:])[:16]
}

// writeStateRecord keeps st on the hosts; a failure is a warning.
func writeStateRecord(ctx context.Context, hosts []operation.HostAccess, kind, id string, st tfsdk.State, diags *diag.Diagnostics) {
	dv, err := tfprotov6.NewDynamicValue(st.Schema.Type().TerraformType(ctx), st.Raw)
	if err == nil {
		var b []byte
		if b, err = json.Marshal(stateRecord{Kind: kind, ID: id, State: dv.MsgPack}); err == nil {
			err = operation.WriteRecord(ctx, hosts, recordName(kind, id), b)
		}
	}
	if err != nil {
		diags.AddWarning("Cannot keep the intent record on the hosts", fmt.Sprintf("%s %s: %v\n\nImporting it by a host's address will not find it until an apply writes the record.", kind, id, err))
	}
}

// readStateRecord finds the record of kind on the host: the one of id, or
// without an id the only one there is.
func readStateRecord(ctx context.Context, host operation.HostAccess, kind, id string, typ tftypes.Type) (tftypes.Value, error) {
	recs, err := operation.ReadRecords(ctx, host)
	if err != nil {
		return tftypes.Value{}, err
	}
	var found []stateRecord
	for name, b := range recs {
		if !strings.HasPrefix(name, kind+".") {
			continue
		}
		var r stateRecord
		if err := json.Unmarshal(b, &r); err != nil || r.Kind != kind {
			continue
		}
		if id == "" || r.ID == id {
			found = append(found, r)
		}
	}
	switch {
	case len(found) == 0 && id != "":
		return tftypes.Value{}, fmt.Errorf("%s keeps no record of %s %s; check the address and the id, or apply the resource once so its record is written", host.Host.Address, kind, id)
	case len(found) == 0:
		return tftypes.Value{}, fmt.Errorf("%s keeps no %s record; give the address of a host the resource ran on, or apply it once so its record is written", host.Host.Address, kind)
	case len(found) > 1:
		var ids []string
		for _, r := range found {
			ids = append(ids, r.ID)
		}
		sort.Strings(ids)
		return tftypes.Value{}, fmt.Errorf("%s keeps records of several %s resources (%s); name one in the import id", host.Host.Address, kind, strings.Join(ids, ", "))
	}
	v, err := (&tfprotov6.DynamicValue{MsgPack: found[0].State}).Unmarshal(typ)
	if err != nil {
		return tftypes.Value{}, fmt.Errorf("%s record %s on %s does not fit this provider's schema: %w", kind, found[0].ID, host.Host.Address, err)
	}
	return v, nil
}

// importTarget is an import id: [id@]address[:port].
type importTarget struct {
	ID      string
	Address string
	Port    int
}

func parseImportID(s, idForm string) (importTarget, error) {
	id, addr, found := strings.Cut(s, "@")
	if !found {
		id, addr = "", s
	}
	t := importTarget{ID: id, Address: addr}
	if h, p, err := net.SplitHostPort(addr); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return t, fmt.Errorf("%q: port %q is not a number from 1 to 65535", s, p)
		}
		t.Address, t.Port = h, n
	}
	if t.Address == "" || strings.ContainsAny(t.Address, " /@") {
		return t, fmt.Errorf("%q: use the address of a host the resource ran on, optionally as %s@address[:port]", s, idForm)
	}
	return t, nil
}

// importHost is how to reach the import address: the provider's ssh
// settings, the id's port.
func importHost(data *providerData, t importTarget) operation.HostAccess {
	h := protocol.Host{Name: "import", Address: t.Address, Port: t.Port}
	return operation.HostAccess{Host: h, Access: resourceAccess(data, nil)}
}

// masters are the handle hosts a record of a resource on a cluster goes
// to.
func masters(hosts []operation.HostAccess) []operation.HostAccess {
	var out []operation.HostAccess
	for _, h := range hosts {
		if h.Host.Role == protocol.RoleMaster {
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return hosts
	}
	return out
}
