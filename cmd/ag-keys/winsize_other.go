//go:build !unix

package main

func ttySize(string) (int, int) { return 0, 0 }
