package main

import (
	"os"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/providers/provider"
)

// store is one database a provider.Stores agent keeps its sessions in.
type store struct {
	path      string
	prov      provider.Stores
	r         provider.StoreReader
	readSince bool      // read since the cursor's last checkpoint
	exists    bool      // its database was there at the last read
	last      time.Time // when it was last read
	dirty     bool      // one of its files changed since
	lastErr   string    // the last error said, so it is said once
}

// readStore emits what the store recorded since it was last read.
func (k *sink) readStore(st *store) {
	k.at = cli.Place{Name: st.path}
	_, err := os.Stat(st.path)
	st.exists = err == nil
	err = st.r.Read(k.emitFn)
	if err == nil {
		st.lastErr = ""
		return
	}
	if msg := err.Error(); msg != st.lastErr {
		k.errorf("%s: %v", st.path, err)
		st.lastErr = msg
	}
}
