//go:build !(linux || darwin)

package main

// readMapped leaves every file to read(2) where mapping is not known to
// behave.
func (k *sink) readMapped(*source) {}
