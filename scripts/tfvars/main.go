// Command tfvars turns the JSON `cp-testhosts up` prints into the
// quickstart's terraform.tfvars.json: masters and workers by name prefix,
// and the SSH user, key and known_hosts of the test hosts.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type host struct {
	Name           string `json:"name"`
	Address        string `json:"address"`
	User           string `json:"user"`
	KeyPath        string `json:"key_path"`
	KnownHostsPath string `json:"known_hosts_path"`
}

type node struct {
	Name    string `json:"name"`
	Address string `json:"address"`
}

func main() {
	var in struct {
		Hosts []host `json:"hosts"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "tfvars: reading the hosts JSON:", err)
		os.Exit(1)
	}
	if len(in.Hosts) == 0 {
		fmt.Fprintln(os.Stderr, "tfvars: the hosts JSON lists no hosts")
		os.Exit(1)
	}
	out := struct {
		Masters    []node `json:"masters"`
		Workers    []node `json:"workers"`
		User       string `json:"ssh_user"`
		Key        string `json:"ssh_private_key_file"`
		KnownHosts string `json:"ssh_known_hosts_file"`
	}{Masters: []node{}, Workers: []node{}, User: in.Hosts[0].User, Key: in.Hosts[0].KeyPath, KnownHosts: in.Hosts[0].KnownHostsPath}
	for _, h := range in.Hosts {
		n := node{Name: h.Name, Address: h.Address}
		if strings.HasPrefix(h.Name, "master") {
			out.Masters = append(out.Masters, n)
		} else {
			out.Workers = append(out.Workers, n)
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "tfvars:", err)
		os.Exit(1)
	}
}
