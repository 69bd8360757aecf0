module github.com/agwatch/ag

go 1.26.8

require (
	github.com/itchyny/gojq v0.12.20
	github.com/jessevdk/go-flags v1.6.1
	github.com/rogpeppe/go-internal v1.16.0
	modernc.org/sqlite v1.62.0
)

require (
	github.com/chromedp/cdproto v0.160.1 // indirect
	github.com/dustin/go-humanize v1.1.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/ncruces/go-strftime v1.1.0 // indirect
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	modernc.org/libc v1.80.1 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/memory v1.12.1 // indirect
)

require (
	github.com/chromedp/chromedp v0.23.1
	github.com/skip2/go-qrcode v0.0.0-20200617195104-da1b6568686e
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/text v0.20.0
)

require (
	github.com/ebitengine/purego v0.11.2 // indirect
	github.com/fsnotify/fsnotify v1.10.1
	github.com/go-ole/go-ole v1.2.6 // indirect
	github.com/godbus/dbus/v5 v5.2.4
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	github.com/lufia/plan9stats v0.0.0-20211012122336-39d0f177ccd0 // indirect
	github.com/pelletier/go-toml/v2 v2.4.3
	github.com/power-devops/perfstat v0.0.0-20260805114148-88456608a4f6 // indirect
	github.com/shirou/gopsutil/v4 v4.26.10
	github.com/tklauser/go-sysconf v0.4.0 // indirect
	github.com/tklauser/numcpus v0.12.0 // indirect
	github.com/yusufpapurcu/wmi v1.2.4 // indirect
	golang.org/x/sys v0.49.0
	golang.org/x/tools v0.52.0 // indirect
)
