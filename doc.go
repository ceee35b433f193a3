// Package agenttool gives Go agent runtimes the tools a model can call, the
// registry that holds them, and the bookkeeping of one agent turn's calls.
//
// The happy path:
//
//	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
//	if err != nil { ... }
//	turn := agenttool.NewTurn(ctx, reg, nil)
//	defer turn.Close()
//	blocks, err := turn.Run([]agenttool.ToolCall{{ID: "1", Name: "sleep", Args: json.RawMessage(`{"seconds":2}`)}})
//
// # Tools
//
// A [Tool] has a name, a description and a JSON Schema the model reads, and an
// Execute method that answers with a [ToolResult]. A bad call is an ordinary
// unsuccessful result the model can act on; a Go error means no result (the
// context ended, or the tool failed internally). [FuncTool] adapts a function;
// package functool infers the schema from a Go struct and validates arguments
// before the function runs. Tools are not safe to run next to each other
// unless they implement [ConcurrencySafe].
//
// The native tool is [SleepTool] ("sleep"): a pause of 0 to
// [MaxSleepSeconds] whole seconds on an injectable clock
// (github.com/benbjohnson/clock), which ends the moment its context does.
//
// # Registries
//
// [NewRegistry] checks names, schemas and duplicates once and returns an
// immutable [Registry]. [Registry.Only] and [Registry.Without] narrow it for
// constrained agents; [Registry.Definitions] is what a model provider takes.
// [DefaultTools] and [DefaultToolsWithClock] build the native tools.
//
// # Turns
//
// A [Turn] runs each batch of calls a model returns: concurrently when every
// call names a registered [ConcurrencySafe] tool, otherwise one at a time in
// call order. It records each call as a [ToolBlock] whose [ToolStatus] moves
// from pending to running to succeeded, failed or cancelled; a panicking tool
// becomes a failed block, never a crash. When the turn's context ends, or
// [Turn.Close] is called, every unfinished block is marked cancelled before
// the final [Snapshot] is published, and Run returns at once, even if a tool
// ignores its context.
//
// Run called from several goroutines runs one batch at a time. User tools
// run on goroutines the turn owns and reuses; a tool that ends its
// goroutine without returning is a failed block, and each tool gets its own
// copy of the arguments.
//
// # Progress, estimates and waits
//
// A tool reports how far it is with [ReportProgress] on the context Execute
// received; a Turn records the latest report on the call's
// [ToolBlock].Progress. Optional interfaces say more about a tool: an
// [Estimator] tells how long a call will take (progress displays use it as
// the total), and a [Waiter] says that the whole call is a wait, so that an
// engine with durable timers can replace the wait with its own timer.
//
// # Frameworks that schedule calls themselves
//
// A [Caller] runs single calls with a Turn's guarantees and keeps the batch
// rule across every call it runs at the same time: a tool that is not
// [ConcurrencySafe] runs with no other. Framework adapters share one Caller
// between all the tools they make from a registry.
//
// # Testing
//
// Inject a *clock.Mock through [SleepTool].Clock, [DefaultToolsWithClock] and
// [TurnOptions].Clock, and drive it inside a testing/synctest bubble. Package
// tooltest checks any Tool against the contract in one call, on the real
// clock with bounded waits, so that tools doing real I/O can be checked.
package agenttool
