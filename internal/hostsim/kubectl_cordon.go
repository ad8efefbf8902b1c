package hostsim

// kubectlCordon marks a node unschedulable.
func (s *sim) kubectlCordon(st *State, p flags) int {
	n, code := s.node(st, p.arg(1))
	if n == nil {
		return code
	}
	if n.Unschedulable {
		s.printf("node/%s already cordoned\n", n.Name)
		return 0
	}
	n.Unschedulable = true
	s.printf("node/%s cordoned\n", n.Name)
	return 0
}
