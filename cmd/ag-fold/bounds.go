package main

import (
	"fmt"
	"time"

	"github.com/agwatch/ag/filters/fold"
)

// bounds are the options that bound what other hosts may put in the fold
// (filters/fold/bounds.go); --man lists them, --help does not.
type bounds struct {
	HostRate       float64       `long:"host-rate" value-name:"N" default:"20" more:"true" description:"another host's state changes a second, after a burst; 0 no limit" man:"after a burst of two seconds' worth the rest wait, the newest state of each session only, and pass at this rate: a host's last word is never lost (not with --snapshot, which folds a replay)"`
	HostSessions   int           `long:"host-sessions" value-name:"N" default:"256" more:"true" description:"sessions one other host may keep" man:"past it a new session takes the place of the host's least urgent, oldest one"`
	RemoteSessions int           `long:"remote-sessions" value-name:"N" default:"4096" more:"true" description:"sessions all other hosts together may keep" man:"past it a new session takes the place of the least urgent, oldest one of the host that keeps the most"`
	QuietHost      time.Duration `long:"quiet-host" value-name:"DUR" default:"0s" more:"true" description:"another host heard of nothing this long goes stale; 0 never" man:"its sessions are marked stale, and dropped --keep-gone later, as after a host.down; ag-mqtt's workstation sets 5m (hosts publish their snapshot every minute)"`
}

func (b *bounds) refuse() string {
	switch {
	case b.HostRate < 0:
		return fmt.Sprintf("--host-rate %v: a rate cannot be negative", b.HostRate)
	case b.HostSessions < 1 || b.RemoteSessions < 1:
		return "--host-sessions and --remote-sessions must be at least 1"
	case b.QuietHost < 0:
		return "--quiet-host: a duration cannot be negative"
	}
	return ""
}

// apply puts the bounds in the fold's config: the rate limit only where
// events come as they happen (follow), not in a replay (--snapshot).
func (b *bounds) apply(cfg *fold.Config, follow bool, warn func(string)) {
	cfg.HostSessions, cfg.RemoteSessions, cfg.QuietHost, cfg.Warn = b.HostSessions, b.RemoteSessions, b.QuietHost, warn
	if follow {
		cfg.HostRate = b.HostRate
	}
}
