package main

import "slices"

// proc is what the walk needs of one process.
type proc struct {
	ppid int
	comm string
	tty  string // "/dev/pts/3"; "" when it has no controlling terminal
}

// maxHops bounds the walk; real chains are 2–4 deep.
const maxHops = 32

// walk finds the agent among start and its ancestors (see agentProcess),
// reading each process with read.
func walk(start int, names []string, read func(pid int) (proc, bool)) (pid int, tty string) {
	firstTTY, firstTTYPid := "", 0
	parent, parentTTY := start, ""
	pid = start
	for hop := 0; hop < maxHops && pid > 1; hop++ {
		p, ok := read(pid)
		if !ok {
			break
		}
		if hop == 0 {
			parentTTY = p.tty
		}
		if slices.Contains(names, p.comm) {
			return pid, p.tty
		}
		if p.tty != "" && firstTTYPid == 0 {
			firstTTY, firstTTYPid = p.tty, pid
		}
		pid = p.ppid
	}
	if firstTTYPid != 0 {
		return firstTTYPid, firstTTY
	}
	return parent, parentTTY
}
