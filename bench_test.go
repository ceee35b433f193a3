package agenttool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/agenttool/agenttool"
)

var (
	zeroArgs   = json.RawMessage(`{"seconds":0}`)
	sinkResult agenttool.ToolResult
	sinkString string
)

// BenchmarkSleepExecute compares parsing and answering {"seconds":0} with
// the baseline of encoding/json into a struct plus fmt.Sprintf.
func BenchmarkSleepExecute(b *testing.B) {
	ctx := context.Background()
	b.Run("agenttool", func(b *testing.B) {
		b.ReportAllocs()
		tool := agenttool.SleepTool{}
		for b.Loop() {
			res, err := tool.Execute(ctx, zeroArgs)
			if err != nil || !res.Success {
				b.Fatal(res, err)
			}
			sinkResult = res
		}
	})
	b.Run("baseline-json-sprintf", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var in struct {
				Seconds int `json:"seconds"`
			}
			if err := json.Unmarshal(zeroArgs, &in); err != nil {
				b.Fatal(err)
			}
			sinkString = fmt.Sprintf("Slept for %d second(s).", in.Seconds)
		}
	})
}

// BenchmarkTurnRun measures Run of a one-call sleep-0 batch on an open turn
// next to Execute alone, on a fresh turn (0 to 999 earlier blocks) and after
// 1,000 earlier blocks (1,000 to 1,999), without and with an observer. Each
// turn serves 1,000 timed calls; its setup, and the garbage the setup leaves,
// stay out of the timing.
func BenchmarkTurnRun(b *testing.B) {
	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
	if err != nil {
		b.Fatal(err)
	}
	calls := []agenttool.ToolCall{{ID: "1", Name: "sleep", Args: zeroArgs}}
	const perTurn = 1000
	// The same sleep as a tool the Turn does not know to be prompt, which
	// runs in a goroutine of its own.
	sleep := agenttool.SleepTool{}
	wrapped, err := agenttool.NewRegistry(&agenttool.FuncTool{
		ToolName: "sleep", ToolDescription: "wrapped sleep", Schema: sleep.Parameters(), Fn: sleep.Execute,
	})
	if err != nil {
		b.Fatal(err)
	}
	var runCalls func(b *testing.B, reg *agenttool.Registry, calls []agenttool.ToolCall, earlier int, opts *agenttool.TurnOptions)
	newTurn := func(b *testing.B, reg *agenttool.Registry, earlier int, opts *agenttool.TurnOptions) *agenttool.Turn {
		turn := agenttool.NewTurn(context.Background(), reg, opts)
		if earlier > 0 {
			batch := make([]agenttool.ToolCall, earlier)
			for i := range batch {
				batch[i] = calls[0]
			}
			if _, err := turn.Run(batch); err != nil {
				b.Fatal(err)
			}
		}
		return turn
	}
	run := func(b *testing.B, reg *agenttool.Registry, earlier int, opts *agenttool.TurnOptions) {
		runCalls(b, reg, calls, earlier, opts)
	}
	runCalls = func(b *testing.B, reg *agenttool.Registry, calls []agenttool.ToolCall, earlier int, opts *agenttool.TurnOptions) {
		b.ReportAllocs()
		turn := newTurn(b, reg, earlier, opts)
		runtime.GC()
		b.ResetTimer()
		for i := range b.N {
			if i > 0 && i%perTurn == 0 {
				b.StopTimer()
				turn.Close()
				turn = newTurn(b, reg, earlier, opts)
				// Collect the setup's garbage now, so that sweeping it is
				// not charged to the timed calls.
				runtime.GC()
				b.StartTimer()
			}
			blocks, err := turn.Run(calls)
			if err != nil || blocks[0].Status != agenttool.StatusSucceeded {
				b.Fatal(blocks, err)
			}
		}
		b.StopTimer()
		turn.Close()
	}
	b.Run("execute-alone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, _ := agenttool.SleepTool{}.Execute(context.Background(), zeroArgs)
			sinkResult = res
		}
	})
	b.Run("fresh-turn", func(b *testing.B) { run(b, reg, 0, nil) })
	b.Run("after-1000-blocks", func(b *testing.B) { run(b, reg, 1000, nil) })
	b.Run("fresh-turn-non-native-tool", func(b *testing.B) { run(b, wrapped, 0, nil) })
	// An ordinary user tool: it decodes {"seconds":0} with encoding/json.
	// Run adds to it the turn's bookkeeping and the hand-off to a goroutine
	// of the turn's; the target is at most Execute + 2 µs.
	jsonTool := &agenttool.FuncTool{ToolName: "decode", Schema: json.RawMessage(`{"type":"object"}`),
		Fn: func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			var in struct {
				Seconds int `json:"seconds"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return agenttool.ToolResult{}, err
			}
			return agenttool.OK("decoded"), nil
		}}
	jsonReg, err := agenttool.NewRegistry(jsonTool)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("json-tool-execute-alone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, _ := jsonTool.Execute(context.Background(), zeroArgs)
			sinkResult = res
		}
	})
	// The floor for any design that keeps a tool off the caller's goroutine:
	// a goroutine reused across calls, handed each call and its answer over
	// unbuffered channels, with no bookkeeping at all.
	b.Run("json-tool-reused-goroutine", func(b *testing.B) {
		b.ReportAllocs()
		calls, answers := make(chan json.RawMessage), make(chan agenttool.ToolResult)
		go func() {
			for args := range calls {
				res, _ := jsonTool.Execute(context.Background(), args)
				answers <- res
			}
		}()
		for b.Loop() {
			calls <- zeroArgs
			sinkResult = <-answers
		}
		close(calls)
	})
	b.Run("json-tool-turn-run", func(b *testing.B) {
		runCalls(b, jsonReg, []agenttool.ToolCall{{ID: "1", Name: "decode", Args: zeroArgs}}, 0, nil)
	})
	b.Run("turn-per-call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			turn := agenttool.NewTurn(context.Background(), reg, nil)
			if _, err := turn.Run(calls); err != nil {
				b.Fatal(err)
			}
			turn.Close()
		}
	})
	for _, earlier := range []int{0, 1000} {
		b.Run(fmt.Sprintf("observer-after-%d-blocks", earlier), func(b *testing.B) {
			var snapshots atomic.Int64 // keeps the observer from being optimised away
			opts := &agenttool.TurnOptions{OnSnapshot: func(agenttool.Snapshot) { snapshots.Add(1) }}
			run(b, reg, earlier, opts)
			// Each Run makes three snapshots (added, started, ended), each a
			// copy of every block; the setup's snapshots are left out.
			if snapshots.Load() < int64(3*b.N) {
				b.Fatalf("%d snapshots for %d runs", snapshots.Load(), b.N)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(3*b.N), "ns/snapshot-incl-run")
		})
	}
}

// BenchmarkInFlight parks 100,000 sleeping calls (real clock, one hour each),
// each in its own Turn, then cancels them all; the baseline gives each call
// the same semantics without the bookkeeping: a goroutine that runs the
// sleep in a child goroutine and selects on the child's result and ctx.
func BenchmarkInFlight(b *testing.B) {
	if testing.Short() {
		b.Skip("parks 100,000 calls")
	}
	const calls = 100_000
	args := json.RawMessage(`{"seconds":3600}`)
	armed := &armCounter{Clock: clock.New()}
	sleep := agenttool.SleepTool{Clock: armed}
	native, err := agenttool.NewRegistry(sleep)
	if err != nil {
		b.Fatal(err)
	}
	// The same sleep as a tool the Turn does not know to be prompt: it runs
	// in a goroutine of its own, as every non-native tool does.
	wrapped, err := agenttool.NewRegistry(&agenttool.FuncTool{
		ToolName: "sleep", ToolDescription: "wrapped sleep", Schema: sleep.Parameters(), Fn: sleep.Execute,
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []struct {
		name string
		reg  *agenttool.Registry
	}{{"agenttool", native}, {"agenttool-non-native-tool", wrapped}} {
		b.Run(v.name, func(b *testing.B) {
			inFlight(b, calls, armed, func(ctx context.Context, wg *sync.WaitGroup) {
				go func() {
					defer wg.Done()
					turn := agenttool.NewTurn(ctx, v.reg, nil)
					defer turn.Close()
					_, _ = turn.Run([]agenttool.ToolCall{{ID: "1", Name: "sleep", Args: args}})
				}()
			})
		})
	}
	b.Run("baseline", func(b *testing.B) {
		inFlight(b, calls, armed, func(ctx context.Context, wg *sync.WaitGroup) {
			go func() {
				defer wg.Done()
				type outcome struct {
					res agenttool.ToolResult
					err error
				}
				ch := make(chan outcome, 1)
				go func() {
					res, err := sleep.Execute(ctx, args)
					ch <- outcome{res, err}
				}()
				select {
				case o := <-ch:
					sinkResult = o.res
				case <-ctx.Done():
				}
			}()
		})
	})
}

// armCounter is the real clock, counting the timers armed on it, so that a
// benchmark knows when every sleep is parked: all is closed once target
// timers have been armed since the last expect.
type armCounter struct {
	clock.Clock
	armed  atomic.Int64
	target int64
	all    chan struct{}
}

// expect resets the count and returns a channel closed once n timers are armed.
func (c *armCounter) expect(n int) <-chan struct{} {
	c.armed.Store(0)
	c.target, c.all = int64(n), make(chan struct{})
	return c.all
}

func (c *armCounter) Timer(d time.Duration) *clock.Timer {
	t := c.Clock.Timer(d)
	if c.armed.Add(1) == c.target {
		close(c.all)
	}
	return t
}

// inFlight starts n calls with start, waits until every call's sleep has
// armed its timer, measures the memory the calls hold, then cancels them all
// and measures how long until every call returned.
func inFlight(b *testing.B, n int, armed *armCounter, start func(context.Context, *sync.WaitGroup)) {
	b.ReportAllocs()
	var heapPerCall, stackPerCall, cancelMs float64
	for range b.N {
		// Return the previous run's stacks and heap, so that each run
		// starts from the same state.
		debug.FreeOSMemory()
		debug.FreeOSMemory()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		parked := armed.expect(n)

		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Add(n)
		for range n {
			start(ctx, &wg)
		}
		<-parked
		runtime.GC()
		runtime.ReadMemStats(&after)
		heapPerCall += (float64(after.HeapInuse) - float64(before.HeapInuse)) / float64(n)
		stackPerCall += (float64(after.StackInuse) - float64(before.StackInuse)) / float64(n)

		t0 := time.Now()
		cancel()
		wg.Wait()
		cancelMs += float64(time.Since(t0).Microseconds()) / 1000
	}
	b.ReportMetric((heapPerCall+stackPerCall)/float64(b.N), "B/in-flight-call")
	b.ReportMetric(heapPerCall/float64(b.N), "heap-B/call")
	b.ReportMetric(stackPerCall/float64(b.N), "stack-B/call")
	b.ReportMetric(cancelMs/float64(b.N), "ms/cancel-all")
}
