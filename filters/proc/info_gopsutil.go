//go:build !linux

package proc

import (
	"context"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// System reads process details through gopsutil.
type System struct{ Ctx context.Context }

func (s System) p(pid int) *process.Process { return &process.Process{Pid: int32(pid)} }

func (s System) ctx() context.Context {
	if s.Ctx == nil {
		return context.Background()
	}
	return s.Ctx
}

func (s System) Exe(pid int) string {
	e, _ := s.p(pid).ExeWithContext(s.ctx())
	return strings.TrimSuffix(e, " (deleted)")
}

func (s System) Argv(pid int) []string {
	a, _ := s.p(pid).CmdlineSliceWithContext(s.ctx())
	return a
}

func (s System) Env(pid int) []string {
	e, _ := s.p(pid).EnvironWithContext(s.ctx())
	return e
}

func (s System) Cwd(pid int) string {
	c, _ := s.p(pid).CwdWithContext(s.ctx())
	return c
}

func (s System) Started(pid int) time.Time {
	ms, err := s.p(pid).CreateTimeWithContext(s.ctx())
	if err != nil || ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}
