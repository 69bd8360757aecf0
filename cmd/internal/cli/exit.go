// Package cli is the plumbing every ag program shares: flag parsing with
// generated --help and --man, exit codes, prefixed errors, the NDJSON reader
// and writer, and the --where/--jq filter.
package cli

// Exit codes, the same for every ag program.
const (
	ExitOK          = 0   // did its job
	ExitNoMatch     = 1   // nothing matched / nothing to report / refused
	ExitError       = 2   // usage or runtime error
	ExitInterrupted = 130 // stopped by SIGINT/SIGTERM
)
