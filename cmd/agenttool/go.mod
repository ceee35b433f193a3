module github.com/agenttool/agenttool/cmd/agenttool

go 1.25.0

require (
	github.com/agenttool/agenttool v0.0.0
	github.com/agenttool/agenttool/adapters/mcpserver v0.0.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/schollz/progressbar/v3 v3.19.1
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	golang.org/x/term v0.44.0
)

require (
	github.com/benbjohnson/clock v1.3.5 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.46.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace (
	github.com/agenttool/agenttool => ../..
	github.com/agenttool/agenttool/adapters/mcpserver => ../../adapters/mcpserver
)
