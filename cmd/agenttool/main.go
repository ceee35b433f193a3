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
// a usage error exits 2; a signal cancels the call and exits 128 plus its
// number, as shells expect (130 for SIGINT, 143 for SIGTERM). When stderr is
// a terminal, a running call shows its progress: a bar with elapsed and
// remaining time for a tool that estimates its duration (sleep), the
// reported fraction and message for a tool that reports progress, a spinner
// otherwise.
//
// --allow and --deny take comma-separated tool names; a name the tools do
// not include, or an empty list, is a usage error.
//
// mcp serves the tools over MCP on stdin and stdout until stdin closes or a
// signal arrives; on a signal it cancels every call in flight and exits 0 at
// once, a graceful stop for supervisors.
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

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/mcpserver"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise it comes from the module's build information.
var version = ""

// Exit codes; a call cancelled by a signal exits 128 plus its number.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
	// exitCancelled is the exit code of a call cancelled other than by a
	// signal: that of SIGINT.
	exitCancelled = 128 + int(syscall.SIGINT)
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

Exit codes of call: 0 success, 1 the tool failed, 2 usage error, 128 + the signal's
number when a signal cancels the call (130 for SIGINT, 143 for SIGTERM).

Example:
  agenttool call sleep '{"seconds":3}'
`

// env is what a command may touch, so that tests can run it in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// terminal reports whether w is an interactive terminal.
	terminal func(w io.Writer) bool
	// tools returns the tools to serve; nil means agenttool.DefaultTools.
	tools func() []agenttool.Tool
}

func main() {
	ctx, stop := signalContext()
	code := run(ctx, os.Args[1:], env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, terminal: isTerminal})
	stop()
	os.Exit(code)
}

// signalCause is the cause of a context ended by a signal.
type signalCause struct{ sig syscall.Signal }

func (c signalCause) Error() string { return "received " + c.sig.String() }

// signalContext returns a context that SIGINT or SIGTERM cancels with a
// signalCause, so that a cancelled call can exit 128 plus the number.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			sig, _ := s.(syscall.Signal)
			cancel(signalCause{sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(context.Canceled)
	}
}

// cancelledCode is the exit code of a call cancelled because ctx ended.
func cancelledCode(ctx context.Context) int {
	var sc signalCause
	if errors.As(context.Cause(ctx), &sc) {
		return 128 + int(sc.sig)
	}
	return exitCancelled
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
	tools    func() []agenttool.Tool
	allow    names
	deny     names
	json     bool
}

// names is a flag holding a comma-separated list of tool names.
type names struct {
	list []string
	set  bool
}

func (n *names) String() string { return strings.Join(n.list, ",") }

func (n *names) Set(v string) error {
	n.set = true
	for name := range strings.SplitSeq(v, ",") {
		if name = strings.TrimSpace(name); name != "" {
			n.list = append(n.list, name)
		}
	}
	if len(n.list) == 0 {
		return errors.New("empty list of tool names")
	}
	return nil
}

// printUsage prints the command's synopsis and flags.
func (c *command) printUsage() {
	fmt.Fprintf(c.out, "usage: agenttool %s\n", c.synopsis)
	c.fs.SetOutput(c.out)
	c.fs.PrintDefaults()
	c.fs.SetOutput(io.Discard)
}

func newCommand(name, synopsis string, withJSON bool, e env) *command {
	c := &command{fs: flag.NewFlagSet(name, flag.ContinueOnError), synopsis: synopsis, out: e.stdout, tools: e.tools}
	if c.tools == nil {
		c.tools = agenttool.DefaultTools
	}
	// Parse reports errors to the caller, which prints them with a short
	// usage line on stderr; -h prints the full usage on stdout.
	c.fs.SetOutput(io.Discard)
	c.fs.Usage = func() {}
	c.fs.Var(&c.allow, "allow", "comma-separated tools to allow; all others are hidden")
	c.fs.Var(&c.deny, "deny", "comma-separated tools to hide")
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

// registry is the command's tools narrowed by --allow and --deny. A name
// the tools do not include is a usage error, so that a typo in --deny
// never leaves the tool it meant to hide in place.
func (c *command) registry() (*agenttool.Registry, error) {
	reg, err := agenttool.NewRegistry(c.tools()...)
	if err != nil {
		return nil, err
	}
	for _, n := range append(append([]string(nil), c.allow.list...), c.deny.list...) {
		if _, ok := reg.Lookup(n); !ok {
			return nil, usageError{fmt.Sprintf("unknown tool %q", n)}
		}
	}
	if c.allow.set {
		reg = reg.Only(c.allow.list...)
	}
	return reg.Without(c.deny.list...), nil
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

	var feedback *progress
	opts := &agenttool.TurnOptions{}
	if e.terminal != nil && e.terminal(e.stderr) {
		var estimate time.Duration
		if tool, ok := reg.Lookup(name); ok {
			estimate, _ = agenttool.EstimateOf(tool, rawArgs)
		}
		feedback = startProgress(e.stderr, name, estimate)
		opts.OnSnapshot = feedback.observe
	}
	turn := agenttool.NewTurn(ctx, reg, opts)
	defer turn.Close()
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
		code = cancelledCode(ctx)
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
	server, err := mcpserver.New(reg, &mcpserver.Options{Version: buildVersion(), Context: ctx})
	if err != nil {
		return 0, err
	}
	// Run ends when stdin closes, or, with ctx, on a signal: the session
	// closes and every call in flight is cancelled with it.
	err = server.Run(ctx, mcpserver.NewStreamTransport(e.stdin, e.stdout))
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	return exitOK, nil
}
