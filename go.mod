module github.com/agwatch/ag

go 1.26.8

require (
	github.com/itchyny/gojq v0.12.20
	github.com/jessevdk/go-flags v1.6.1
	github.com/rogpeppe/go-internal v1.16.0
)

require (
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
