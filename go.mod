module github.com/aiperf-go/aiperf

go 1.26.8

require (
	github.com/google/uuid v1.6.0
	github.com/peterbourgon/ff/v4 v4.0.0-alpha.4
	github.com/tiktoken-go/tokenizer v0.10.0
	golang.org/x/term v0.47.0
)

require (
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/valyala/fastjson v1.6.4 // indirect
	golang.org/x/sys v0.49.0 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
)
