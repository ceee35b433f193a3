// Command agenttool calls agenttool's tools from a terminal and serves them to
// MCP clients.
//
// Usage:
//
//	agenttool list [--json] [--allow a,b] [--deny c]
//	agenttool call NAME [ARGS_JSON|-] [--json] [--allow a,b] [--deny c]
//	agenttool mcp [--allow a,b] [--deny c]
//	agenttool version
//	agenttool help
//
// call runs one call through a Turn over the default tools: the Output goes
// to stdout (exit 0); an unsuccessful result's Error goes to stderr (exit 1);
// a usage error exits 2; SIGINT or SIGTERM cancels the call (exit 130). When
// stderr is a terminal, a long call shows a progress bar (sleep) or a spinner.
//
// mcp serves the tools over MCP on stdin and stdout until stdin closes or a
// signal arrives, and then exits 0.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/mcpserver"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise it comes from the module's build information.
var version = ""

// Exit codes.
const (
	exitOK        = 0
	exitFailed    = 1
	exitUsage     = 2
	exitCancelled = 130
)

// maxStdinArgs bounds the arguments read from stdin.
const maxStdinArgs = 16 << 20

const usage = `agenttool calls LLM-agent tools from a terminal and serves them over MCP.

Usage:
  agenttool list [--json]                  list the tools (--json: the definitions a model reads)
  agenttool call NAME [ARGS_JSON|-]        call one tool; "-" reads the arguments from stdin,
                 [--json]                  none means {}; --json prints the final call record
  agenttool mcp                            serve the tools over MCP on stdin/stdout
  agenttool version                        print the version
  agenttool help                           print this help

Every command takes --allow a,b (only these tools) and --deny c (all but these).

Exit codes of call: 0 success, 1 the tool failed, 2 usage error, 130 cancelled (SIGINT/SIGTERM).

Example:
  agenttool call sleep '{"seconds":3}'
`

// env is what a command may touch, so that tests can run it in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// terminal reports whether w is an interactive terminal.
	terminal func(w io.Writer) bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, terminal: isTerminal})
	stop()
	os.Exit(code)
}

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(ctx context.Context, args []string, e env) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return exitUsage
	}
	var code int
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.stdout, usage)
		return exitOK
	case "version", "--version":
		code, err = runVersion(rest, e)
	case "list":
		code, err = runList(rest, e)
	case "call":
		code, err = runCall(ctx, rest, e)
	case "mcp":
		code, err = runMCP(ctx, rest, e)
	default:
		err = usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
	var uerr usageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &uerr):
		fmt.Fprintf(e.stderr, "agenttool: %s\nusage: agenttool list|call|mcp|version|help [flags]; run 'agenttool help' for more\n", uerr.msg)
		return exitUsage
	case err != nil:
		fmt.Fprintf(e.stderr, "agenttool: %v\n", err)
		return exitFailed
	}
	return code
}

// command holds the flags every command shares.
type command struct {
	fs       *flag.FlagSet
	synopsis string
	out      io.Writer
	allow    string
	deny     string
	json     bool
}

// printUsage prints the command's synopsis and flags.
func (c *command) printUsage() {
	fmt.Fprintf(c.out, "usage: agenttool %s\n", c.synopsis)
	c.fs.SetOutput(c.out)
	c.fs.PrintDefaults()
	c.fs.SetOutput(io.Discard)
}

func newCommand(name, synopsis string, withJSON bool, e env) *command {
	c := &command{fs: flag.NewFlagSet(name, flag.ContinueOnError), synopsis: synopsis, out: e.stdout}
	// Parse reports errors to the caller, which prints them with a short
	// usage line on stderr; -h prints the full usage on stdout.
	c.fs.SetOutput(io.Discard)
	c.fs.Usage = func() {}
	c.fs.StringVar(&c.allow, "allow", "", "comma-separated tools to allow; all others are hidden")
	c.fs.StringVar(&c.deny, "deny", "", "comma-separated tools to hide")
	if withJSON {
		c.fs.BoolVar(&c.json, "json", false, "print JSON")
	}
	return c
}

// parse parses flags wherever they stand among the positional arguments
// and returns the positional ones.
func (c *command) parse(args []string) ([]string, error) {
	var positional []string
	for {
		if err := c.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.printUsage()
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		if c.fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, c.fs.Arg(0))
		args = c.fs.Args()[1:]
	}
}

// parseNone parses the flags of a command that takes no positional arguments.
func (c *command) parseNone(args []string) error {
	rest, err := c.parse(args)
	if err == nil && len(rest) > 0 {
		err = usageError{fmt.Sprintf("%s takes no arguments, got %q", c.fs.Name(), rest)}
	}
	return err
}

// registry is the default registry narrowed by --allow and --deny.
func (c *command) registry() (*agenttool.Registry, error) {
	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
	if err != nil {
		return nil, err
	}
	if c.allow != "" {
		names := splitNames(c.allow)
		for _, n := range names {
			if _, ok := reg.Lookup(n); !ok {
				return nil, usageError{fmt.Sprintf("--allow names unknown tool %q (tools: %s)", n, strings.Join(reg.Names(), ", "))}
			}
		}
		reg = reg.Only(names...)
	}
	if c.deny != "" {
		reg = reg.Without(splitNames(c.deny)...)
	}
	return reg, nil
}

func splitNames(list string) []string {
	var names []string
	for n := range strings.SplitSeq(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return names
}

func runVersion(args []string, e env) (int, error) {
	c := newCommand("version", "version", false, e)
	if err := c.parseNone(args); err != nil {
		return 0, err
	}
	fmt.Fprintf(e.stdout, "agenttool %s\n", buildVersion())
	return exitOK, nil
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

func runList(args []string, e env) (int, error) {
	c := newCommand("list", "list [--json] [--allow a,b] [--deny c]", true, e)
	if err := c.parseNone(args); err != nil {
		return 0, err
	}
	reg, err := c.registry()
	if err != nil {
		return 0, err
	}
	if c.json {
		return exitOK, printJSON(e.stdout, reg.Definitions())
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, d := range reg.Definitions() {
		fmt.Fprintf(w, "%s\t%s\n", d.Name, firstSentence(d.Description))
	}
	return exitOK, w.Flush()
}

// firstSentence shortens a description to one line.
func firstSentence(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func runCall(ctx context.Context, args []string, e env) (int, error) {
	c := newCommand("call", "call NAME [ARGS_JSON|-] [--json] [--allow a,b] [--deny c]", true, e)
	rest, err := c.parse(args)
	if err != nil {
		return 0, err
	}
	if len(rest) == 0 || len(rest) > 2 {
		return 0, usageError{"call takes a tool name and at most one JSON argument, e.g. call sleep '{\"seconds\":3}'"}
	}
	name, rawArgs := rest[0], []byte("{}")
	if len(rest) == 2 {
		rawArgs = []byte(rest[1])
		if rest[1] == "-" {
			if rawArgs, err = io.ReadAll(io.LimitReader(e.stdin, maxStdinArgs+1)); err != nil {
				return 0, fmt.Errorf("reading arguments from stdin: %w", err)
			}
			if len(rawArgs) > maxStdinArgs {
				return 0, usageError{fmt.Sprintf("arguments on stdin exceed %d bytes", maxStdinArgs)}
			}
		}
	}
	reg, err := c.registry()
	if err != nil {
		return 0, err
	}

	turn := agenttool.NewTurn(ctx, reg, nil)
	defer turn.Close()
	var feedback *progress
	if e.terminal != nil && e.terminal(e.stderr) {
		var estimate time.Duration
		if tool, ok := reg.Lookup(name); ok {
			estimate, _ = agenttool.EstimateOf(tool, rawArgs)
		}
		feedback = startProgress(e.stderr, name, estimate)
	}
	call := agenttool.ToolCall{ID: "call_1", Name: name, Args: rawArgs}
	blocks, runErr := turn.Run([]agenttool.ToolCall{call})
	feedback.stop()
	var b agenttool.ToolBlock
	if len(blocks) == 1 {
		b = blocks[0]
	} else {
		// The signal came before the call could start.
		b = agenttool.ToolBlock{Call: call, Status: agenttool.StatusCancelled,
			Result: agenttool.ToolResult{Error: fmt.Sprintf("cancelled before the call started: %v", runErr)}}
	}
	code := exitFailed
	switch b.Status {
	case agenttool.StatusSucceeded:
		code = exitOK
	case agenttool.StatusCancelled:
		code = exitCancelled
	}
	switch {
	case c.json:
		return code, printJSON(e.stdout, b)
	case code == exitOK:
		fmt.Fprintln(e.stdout, b.Result.Output)
	default:
		fmt.Fprintln(e.stderr, b.Result.Error)
	}
	return code, nil
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func runMCP(ctx context.Context, args []string, e env) (int, error) {
	c := newCommand("mcp", "mcp [--allow a,b] [--deny c]", false, e)
	if err := c.parseNone(args); err != nil {
		return 0, err
	}
	reg, err := c.registry()
	if err != nil {
		return 0, err
	}
	server := mcpserver.New(reg, buildVersion(), nil)
	transport := &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
	err = server.Run(ctx, transport)
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	// stdin closed or a signal arrived: a clean shutdown either way.
	return exitOK, nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
