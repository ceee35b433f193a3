package einotool_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/einotool"
)

// holdingTool returns a tool that counts the calls running at once, keeps
// the highest count, and holds each call until release closes or its
// context ends. An unsafe one also bumps unguarded, a plain int, so that
// two unsafe calls at once are a data race the race detector reports.
func holdingTool(name string, safe bool, release <-chan struct{}, active, most *atomic.Int32, unguarded *int) agenttool.Tool {
	return &agenttool.FuncTool{
		ToolName: name, Schema: json.RawMessage(`{"type":"object"}`), Safe: safe,
		Fn: func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
			n := active.Add(1)
			defer active.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			if !safe {
				*unguarded++
			}
			select {
			case <-release:
				return agenttool.OK(name + " done"), nil
			case <-ctx.Done():
				return agenttool.ToolResult{}, ctx.Err()
			}
		},
	}
}

func newToolsNode(t *testing.T, reg *agenttool.Registry) *compose.ToolsNode {
	t.Helper()
	tools, err := einotool.Tools(reg)
	require.NoError(t, err)
	// The default config: Eino runs the calls of one message in parallel.
	node, err := compose.NewToolNode(context.Background(), &compose.ToolsNodeConfig{Tools: tools})
	require.NoError(t, err)
	return node
}

func TestToolsNodeKeepsTheBatchRule(t *testing.T) {
	for _, tc := range []struct {
		name         string
		safeA, safeB bool
		most         int32
	}{
		{"two unsafe tools never overlap", false, false, 1},
		{"a safe and an unsafe tool never overlap", true, false, 1},
		{"two safe tools overlap", true, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				var active, most atomic.Int32
				var unguarded int
				reg, err := agenttool.NewRegistry(
					holdingTool("a", tc.safeA, release, &active, &most, &unguarded),
					holdingTool("b", tc.safeB, release, &active, &most, &unguarded),
				)
				require.NoError(t, err)
				node := newToolsNode(t, reg)

				done := make(chan []*schema.Message, 1)
				go func() {
					out, err := node.Invoke(context.Background(), askFor(
						[3]string{"call-a", "a", `{}`},
						[3]string{"call-b", "b", `{}`},
					))
					assert.NoError(t, err)
					done <- out
				}()
				synctest.Wait()
				assert.Equal(t, tc.most, active.Load(), "calls running while the first ones are held")
				close(release)
				out := <-done
				assert.Equal(t, tc.most, most.Load())
				assert.Equal(t, map[string]string{"call-a": "a done", "call-b": "b done"}, toolAnswers(out))
			})
		})
	}
}

func TestToolsNodeCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{}) // never closed: the calls end with the context
		var active, most atomic.Int32
		var unguarded int
		reg, err := agenttool.NewRegistry(
			holdingTool("a", false, release, &active, &most, &unguarded),
			holdingTool("b", false, release, &active, &most, &unguarded),
		)
		require.NoError(t, err)
		node := newToolsNode(t, reg)

		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := node.Invoke(ctx, askFor([3]string{"1", "a", `{}`}, [3]string{"2", "b", `{}`}))
			errc <- err
		}()
		synctest.Wait()
		require.Equal(t, int32(1), active.Load(), "one call runs, the other waits for it")
		cancel()
		err = <-errc
		require.Error(t, err)
		require.ErrorIs(t, err, agenttool.ErrTurnEnded)
		require.ErrorIs(t, err, context.Canceled)
		synctest.Wait()
		assert.Equal(t, int32(0), active.Load(), "the running call saw its context end")
	})
}

func TestInvokableRunCancelledWhileWaitingForTheGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var active, most atomic.Int32
		var unguarded int
		reg, err := agenttool.NewRegistry(
			holdingTool("a", false, release, &active, &most, &unguarded),
			holdingTool("b", false, release, &active, &most, &unguarded),
		)
		require.NoError(t, err)
		tools, err := einotool.Tools(reg)
		require.NoError(t, err)

		first := make(chan string, 1)
		go func() {
			out, err := tools[0].(tool.InvokableTool).InvokableRun(context.Background(), `{}`)
			assert.NoError(t, err)
			first <- out
		}()
		synctest.Wait()
		ctx, cancel := context.WithCancelCause(context.Background())
		errc := make(chan error, 1)
		go func() {
			out, err := tools[1].(tool.InvokableTool).InvokableRun(ctx, `{}`)
			assert.Empty(t, out)
			errc <- err
		}()
		synctest.Wait()
		assert.Equal(t, int32(1), active.Load(), "b waits while a holds the gate")
		stop := errors.New("user pressed stop")
		cancel(stop)
		err = <-errc
		require.ErrorIs(t, err, agenttool.ErrTurnEnded)
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorIs(t, err, stop)
		close(release)
		assert.Equal(t, "a done", <-first)
		assert.Equal(t, int32(1), most.Load())
	})
}
