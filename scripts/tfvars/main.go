// Command tfvars turns the JSON `cp-testhosts up` prints into the
// quickstart's terraform.tfvars.json: masters and workers by name prefix,
// the control-plane endpoint (the first master's address, port 6443), and
// the SSH user, port, key and known_hosts of the test hosts.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

type host struct {
	Name           string `json:"name"`
	Address        string `json:"address"`
	Port           int    `json:"port"`
	User           string `json:"user"`
	KeyPath        string `json:"key_path"`
	KnownHostsPath string `json:"known_hosts_path"`
}

type node struct {
	Name    string `json:"name"`
	Address string `json:"address"`
}

func main() {
	if err := convert(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tfvars:", err)
		os.Exit(1)
	}
}

// convert reads the hosts JSON from r and writes the quickstart's
// variables to w.
func convert(r io.Reader, w io.Writer) error {
	var in struct {
		Hosts []host `json:"hosts"`
	}
	if err := json.NewDecoder(r).Decode(&in); err != nil {
		return fmt.Errorf("reading the hosts JSON: %w", err)
	}
	if len(in.Hosts) == 0 {
		return fmt.Errorf("the hosts JSON lists no hosts")
	}
	out := struct {
		Masters    []node `json:"masters"`
		Workers    []node `json:"workers"`
		User       string `json:"ssh_user"`
		Port       int    `json:"ssh_port,omitempty"`
		Key        string `json:"ssh_private_key_file"`
		KnownHosts string `json:"ssh_known_hosts_file"`
		// Endpoint is the first master's address on port 6443, which the
		// test hosts' API server answers on (a load balancer elsewhere).
		Endpoint string `json:"control_plane_endpoint,omitempty"`
	}{Masters: []node{}, Workers: []node{}, User: in.Hosts[0].User, Port: in.Hosts[0].Port, Key: in.Hosts[0].KeyPath, KnownHosts: in.Hosts[0].KnownHostsPath}
	for _, h := range in.Hosts {
		n := node{Name: h.Name, Address: h.Address}
		if strings.HasPrefix(h.Name, "master") {
			out.Masters = append(out.Masters, n)
		} else {
			out.Workers = append(out.Workers, n)
		}
	}
	if len(out.Masters) > 0 {
		out.Endpoint = out.Masters[0].Address + ":6443"
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("writing the variables: %w", err)
	}
	return nil
}
