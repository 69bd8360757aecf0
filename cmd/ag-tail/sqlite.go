package main

// OpenCode keeps its sessions in SQLite, which providers/opencode reads
// through database/sql: ag-tail, the one program that reads stores, links
// the driver — modernc.org/sqlite, pure Go, so the build stays cgo-free
// and cross-compiles. The programs that only detect or key agents would
// start ~1 ms slower with an SQLite engine in them.
import _ "modernc.org/sqlite"
