package testhosts

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// mountNS returns the mount namespace id of pid ("mnt:[4026532…]").
func mountNS(pid int) (string, error) {
	s, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/mnt")
	if err != nil {
		return "", fmt.Errorf("read mount namespace of pid %d: %w", pid, err)
	}
	return s, nil
}

// procsInNS lists the processes whose mount namespace is ns: a host's
// listening sshd, its per-connection sshd processes and their sessions.
func procsInNS(ns string) []int {
	if ns == "" {
		return nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, err := os.Readlink("/proc/" + e.Name() + "/ns/mnt"); err == nil && s == ns {
			out = append(out, pid)
		}
	}
	return out
}

// signalAll sends sig to every pid except those in skip; it returns how
// many were signalled.
func signalAll(pids []int, sig syscall.Signal, skip ...int) int {
	n := 0
outer:
	for _, p := range pids {
		for _, s := range skip {
			if p == s {
				continue outer
			}
		}
		if err := syscall.Kill(p, sig); err == nil || !errors.Is(err, syscall.ESRCH) {
			n++
		}
	}
	return n
}

// killNS SIGKILLs every process of a namespace until none is left (bounded).
func killNS(ns string) {
	for i := 0; i < 50; i++ {
		pids := procsInNS(ns)
		if len(pids) == 0 {
			return
		}
		signalAll(pids, syscall.SIGKILL)
		waitGone(pids, 100)
	}
}

// waitGone polls up to ms milliseconds for the pids to exit.
func waitGone(pids []int, ms int) bool {
	for i := 0; i < ms/10+1; i++ {
		alive := false
		for _, p := range pids {
			if syscall.Kill(p, 0) == nil {
				// A zombie still answers kill(0); treat it as gone.
				if st, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat"); err == nil && zombie(st) {
					continue
				}
				alive = true
				break
			}
		}
		if !alive {
			return true
		}
		sleepMS(10)
	}
	return false
}

func zombie(stat []byte) bool {
	// /proc/pid/stat: "pid (comm) S ..."; comm may hold spaces or ')'.
	for i := len(stat) - 1; i >= 0; i-- {
		if stat[i] == ')' {
			return i+2 < len(stat) && stat[i+2] == 'Z'
		}
	}
	return false
}

// procsRootedAt lists the processes whose root directory is dir: what is
// left of a host (chrooted into its merged directory) from an earlier run.
func procsRootedAt(dir string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, err := os.Readlink("/proc/" + e.Name() + "/root"); err == nil && s == dir {
			out = append(out, pid)
		}
	}
	return out
}
