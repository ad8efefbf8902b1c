package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestConvertCarriesPortAndSplitsRoles(t *testing.T) {
	in := `{"hosts":[
		{"name":"master-1","address":"127.0.0.2","port":2222,"user":"cp","key_path":"/k","known_hosts_path":"/kh"},
		{"name":"worker-1","address":"127.0.0.3","port":2222,"user":"cp","key_path":"/k","known_hosts_path":"/kh"}]}`
	var b strings.Builder
	if err := convert(strings.NewReader(in), &b); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatal(err)
	}
	if got["ssh_port"] != float64(2222) || got["ssh_user"] != "cp" || got["ssh_private_key_file"] != "/k" || got["ssh_known_hosts_file"] != "/kh" {
		t.Errorf("ssh settings: %s", b.String())
	}
	m, _ := got["masters"].([]any)
	w, _ := got["workers"].([]any)
	if len(m) != 1 || len(w) != 1 || !strings.Contains(b.String(), `"address": "127.0.0.3"`) {
		t.Errorf("roles: %s", b.String())
	}
	if got["control_plane_endpoint"] != "127.0.0.2:6443" {
		t.Errorf("got: control_plane_endpoint %v want: the first master's address, 127.0.0.2:6443", got["control_plane_endpoint"])
	}
}

func TestConvertWithoutPortLeavesTheDefault(t *testing.T) {
	var b strings.Builder
	if err := convert(strings.NewReader(`{"hosts":[{"name":"master-1","address":"127.0.0.2","user":"cp"}]}`), &b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "ssh_port") {
		t.Errorf("no port in the hosts JSON, yet ssh_port is set: %s", b.String())
	}
}

func TestConvertRefusesNoHosts(t *testing.T) {
	var b strings.Builder
	if err := convert(strings.NewReader(`{"hosts":[]}`), &b); err == nil || !strings.Contains(err.Error(), "no hosts") {
		t.Errorf("got %v, want the empty list refused", err)
	}
}
