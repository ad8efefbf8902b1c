package hostsim

import (
	"encoding/json"
	"time"
)

// control runs `cp-hostsim fault ...` and `cp-hostsim state`.
func (s *sim) control(args []string) int {
	switch args[0] {
	case "state":
		st, err := ReadState(s.st.dir)
		if err != nil {
			return s.fail(1, "cp-hostsim state: %v", err)
		}
		b, _ := json.MarshalIndent(st, "", "  ")
		s.printf("%s\n", b)
		return 0
	case "fault":
		return s.faultCmd(args[1:])
	}
	s.fail(2, "cp-hostsim: unknown command %q", args[0])
	return s.usage()
}

func (s *sim) faultCmd(args []string) int {
	p, err := parseFlags(args, "host", "command", "delay", "nameserver")
	if err != nil {
		return s.fail(2, "cp-hostsim fault: %v", err)
	}
	switch p.arg(0) {
	case "set":
		f := Fault{Kind: FaultKind(p.arg(1)), Host: p.get("host"), Command: p.get("command"), Nameserver: p.get("nameserver")}
		if p.has("cluster") && f.Host != "" {
			return s.fail(2, "cp-hostsim fault set: give --host or --cluster, not both")
		}
		if d := p.get("delay"); d != "" {
			v, err := time.ParseDuration(d)
			if err != nil {
				return s.fail(2, "cp-hostsim fault set: --delay %q: %v (use e.g. 5s)", d, err)
			}
			f.Delay = v
		}
		if err := SetFault(s.st.dir, f); err != nil {
			return s.fail(1, "cp-hostsim fault set: %v", err)
		}
		s.printf("fault set: %s\n", f)
		return 0
	case "clear":
		if err := ClearFaults(s.st.dir, FaultKind(p.arg(1)), p.get("host")); err != nil {
			return s.fail(1, "cp-hostsim fault clear: %v", err)
		}
		s.printf("faults cleared\n")
		return 0
	case "list":
		fs, err := Faults(s.st.dir)
		if err != nil {
			return s.fail(1, "cp-hostsim fault list: %v", err)
		}
		for _, f := range fs {
			s.printf("%s\n", f)
		}
		return 0
	}
	return s.fail(2, "usage: cp-hostsim fault set|clear|list ...")
}
