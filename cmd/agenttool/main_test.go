package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agenttool/agenttool"
)

// binary is the agenttool command built for the tests that need a process.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agenttool-test")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "agenttool")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		panic("building agenttool: " + err.Error() + "\n" + string(out))
	}
	code := 0
	defer func() {
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}()
	goleak.VerifyTestMain(exitCapture{&code, m})
}

// exitCapture lets TestMain clean up after goleak decides the exit code.
type exitCapture struct {
	code *int
	m    *testing.M
}

func (e exitCapture) Run() int {
	*e.code = e.m.Run()
	return *e.code
}

// result is what one in-process run produced.
type result struct {
	code           int
	stdout, stderr string
}

func runCmd(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, env{
		stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr,
		terminal: func(io.Writer) bool { return false },
	})
	return result{code, stdout.String(), stderr.String()}
}

func TestCall(t *testing.T) {
	cases := map[string]struct {
		stdin  string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		"success":         {"", []string{"call", "sleep", `{"seconds":0}`}, 0, "Slept for 0 second(s).\n", ""},
		"no args is {}":   {"", []string{"call", "sleep"}, 1, "", "\"seconds\" is required: an integer from 0 to 86400\n"},
		"stdin args":      {`{"seconds": 0}`, []string{"call", "sleep", "-"}, 0, "Slept for 0 second(s).\n", ""},
		"bad args":        {"", []string{"call", "sleep", `{"seconds":-1}`}, 1, "", "\"seconds\" must be an integer from 0 to 86400, got -1\n"},
		"invalid JSON":    {"", []string{"call", "sleep", `{"seconds":`}, 1, "", "arguments are not valid JSON"},
		"unknown tool":    {"", []string{"call", "nope"}, 1, "", `unknown tool "nope"; available tools: sleep`},
		"denied":          {"", []string{"call", "--deny", "sleep", "sleep", `{"seconds":0}`}, 1, "", `unknown tool "sleep": no tools are available`},
		"deny after":      {"", []string{"call", "sleep", `{"seconds":0}`, "--deny=sleep"}, 1, "", `unknown tool "sleep"`},
		"allowed":         {"", []string{"call", "--allow", "sleep", "sleep", `{"seconds":0}`}, 0, "Slept for 0 second(s).\n", ""},
		"allow unknown":   {"", []string{"call", "--allow", "nap", "sleep"}, 2, "", "agenttool: unknown tool \"nap\"\n"},
		"deny unknown":    {"", []string{"call", "--deny", "slep", "sleep", `{"seconds":0}`}, 2, "", "agenttool: unknown tool \"slep\"\n"},
		"list deny typo":  {"", []string{"list", "--deny=sleep,slep"}, 2, "", `unknown tool "slep"`},
		"mcp deny typo":   {"", []string{"mcp", "--deny", "slep"}, 2, "", `unknown tool "slep"`},
		"empty allow":     {"", []string{"call", "--allow", "", "sleep"}, 2, "", "empty list of tool names"},
		"only commas":     {"", []string{"list", "--deny", " , "}, 2, "", "empty list of tool names"},
		"no name":         {"", []string{"call"}, 2, "", "call takes a tool name"},
		"too many":        {"", []string{"call", "sleep", "{}", "{}"}, 2, "", "call takes a tool name"},
		"bad flag":        {"", []string{"call", "--frobnicate", "sleep"}, 2, "", "flag provided but not defined: -frobnicate"},
		"unknown cmd":     {"", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		"no command":      {"", nil, 2, "", "Usage:"},
		"list takes none": {"", []string{"list", "x"}, 2, "", "list takes no arguments"},
		"mcp takes none":  {"", []string{"mcp", "x"}, 2, "", "mcp takes no arguments"},
		"version no args": {"", []string{"version", "x"}, 2, "", "version takes no arguments"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := runCmd(t, tc.stdin, tc.args...)
			assert.Equal(t, tc.code, r.code, "exit code; stderr: %s", r.stderr)
			assert.Equal(t, tc.stdout, r.stdout)
			assert.Contains(t, r.stderr, tc.stderr)
		})
	}
}

func TestCallJSON(t *testing.T) {
	r := runCmd(t, "", "call", "sleep", `{"seconds":0}`, "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var block agenttool.ToolBlock
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &block))
	assert.Equal(t, agenttool.StatusSucceeded, block.Status)
	assert.Equal(t, "Slept for 0 second(s).", block.Result.Output)
	assert.Equal(t, "sleep", block.Call.Name)
	assert.Empty(t, r.stderr)

	r = runCmd(t, "", "call", "--json", "sleep", `{"seconds":"x"}`)
	require.Equal(t, 1, r.code)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &block))
	assert.Equal(t, agenttool.StatusFailed, block.Status)
	assert.Contains(t, block.Result.Error, `"seconds"`)
	assert.Empty(t, r.stderr, "--json prints the block instead")
}

func TestCallSleepsForReal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		r := runCmd(t, "", "call", "sleep", `{"seconds":3}`)
		assert.Equal(t, 0, r.code)
		assert.Equal(t, "Slept for 3 second(s).\n", r.stdout)
		assert.Equal(t, 3*time.Second, time.Since(start))
	})
}

func TestCallCancelledInProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var stdout, stderr bytes.Buffer
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, []string{"call", "sleep", `{"seconds":60}`}, env{
				stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
				terminal: func(io.Writer) bool { return false },
			})
		}()
		synctest.Wait()
		cancel()
		assert.Equal(t, 130, <-done)
		assert.Empty(t, stdout.String())
		assert.Contains(t, stderr.String(), "cancelled")
	})
}

func TestProgressOnlyOnTerminal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, terminal := range []bool{false, true} {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"call", "sleep", `{"seconds":2}`}, env{
				stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
				terminal: func(io.Writer) bool { return terminal },
			})
			require.Equal(t, 0, code)
			assert.Equal(t, "Slept for 2 second(s).\n", stdout.String(), "stdout carries only the result")
			if terminal {
				assert.Contains(t, stderr.String(), "sleep 1s elapsed, 1s left", "a bar with elapsed and remaining time")
				assert.NotRegexp(t, `\[\d+s:\d+s\]`, stderr.String(), "no second clock beside ours")
				assert.NotContains(t, stderr.String(), "2s elapsed, 1s left", "the two times always add up")
			} else {
				assert.Empty(t, stderr.String(), "nothing extra when stderr is not a terminal")
			}
		}
	})
}

func TestList(t *testing.T) {
	r := runCmd(t, "", "list")
	require.Equal(t, 0, r.code)
	assert.Equal(t, "sleep  Pause for a whole number of seconds, from 0 to 86400 (24 hours), then report how long it paused.\n", r.stdout)

	r = runCmd(t, "", "list", "--json")
	require.Equal(t, 0, r.code)
	var defs []agenttool.Definition
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &defs))
	require.Len(t, defs, 1)
	assert.Equal(t, "sleep", defs[0].Name)
	assert.JSONEq(t, string(agenttool.SleepTool{}.Parameters()), string(defs[0].Parameters))

	r = runCmd(t, "", "list", "--deny", "sleep", "--json")
	require.Equal(t, 0, r.code)
	assert.JSONEq(t, `[]`, r.stdout)
	r = runCmd(t, "", "list", "--allow", "sleep")
	assert.Contains(t, r.stdout, "sleep")
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		r := runCmd(t, "", args...)
		assert.Equal(t, 0, r.code)
		assert.Contains(t, r.stdout, "agenttool call NAME")
	}
	for _, cmd := range []string{"call", "list", "mcp", "version"} {
		r := runCmd(t, "", cmd, "-h")
		assert.Equal(t, 0, r.code, cmd)
		assert.Contains(t, r.stdout, "usage: agenttool "+cmd, cmd)
		assert.Contains(t, r.stdout, "-deny", cmd)
	}
	r := runCmd(t, "", "version")
	assert.Equal(t, 0, r.code)
	assert.Regexp(t, `^agenttool \S+\n$`, r.stdout)
}

// TestSignalCancelsCall sends SIGINT or SIGTERM to the built command during
// a call.
func TestSignalCancelsCall(t *testing.T) {
	for sig, code := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(binary, "call", "sleep", "-", "--json")
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())

			// More than a pipe holds: the write returns only once the command
			// is reading its arguments, by which time it handles signals.
			args := `{"seconds":3600,"padding":"` + strings.Repeat("x", 256<<10) + `"}`
			_, err = io.WriteString(stdin, args)
			require.NoError(t, err)
			require.NoError(t, stdin.Close())
			require.NoError(t, cmd.Process.Signal(sig))

			err = cmd.Wait()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "stderr: %s", stderr.String())
			assert.Equal(t, code, exit.ExitCode(), "128 plus the signal's number")
			var block agenttool.ToolBlock
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &block), stdout.String())
			assert.Equal(t, agenttool.StatusCancelled, block.Status)
			assert.Contains(t, block.Result.Error, "cancel")
		})
	}
}

// TestMCPOverStdio runs `agenttool mcp` and talks to it with the SDK's client.
func TestMCPOverStdio(t *testing.T) {
	ctx := context.Background()
	cmd := exec.Command(binary, "mcp", "--allow", "sleep")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	// A generous grace period: the test checks that closing stdin ends the
	// server, not that a SIGTERM does.
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Hour}, nil)
	require.NoError(t, err)

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, 1)
	assert.Equal(t, "sleep", tools.Tools[0].Name)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]int{"seconds": 1}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	assert.Equal(t, "Slept for 1 second(s).", res.Content[0].(*mcp.TextContent).Text)

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"seconds": 1.5}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, `"seconds" must be an integer`)

	require.NoError(t, cs.Close(), "closing stdin ends the server; stderr: %s", stderr.String())
	assert.Equal(t, 0, cmd.ProcessState.ExitCode())
}
