// Package temporaltool runs agent turns on Temporal, so that tool calls and
// sleeps survive the restart of any process and spread over many machines.
//
// A [agenttool.Turn] lives in one process. [Turns] gives a runtime that
// outgrows one process the same batches, statuses and records on a durable
// execution engine: each tool call is a Temporal activity, run by whichever
// worker takes it, and a call to a tool that only waits ([agenttool.Waiter],
// such as sleep) is a durable workflow timer that costs no worker while it
// waits.
//
// Every worker registers the same tools:
//
//	reg, _ := agenttool.NewRegistry(agenttool.DefaultTools()...)
//	turns, _ := temporaltool.New(reg, nil)
//	w := worker.New(c, "agent", worker.Options{})
//	_ = turns.Register(w)
//	_ = w.Run(worker.InterruptCh())
//
// A runtime then starts [TurnWorkflow] with one batch of calls and reads its
// final [agenttool.Snapshot], or, for a turn of several batches, calls
// [Turns.RunBatch] from its own workflow between model calls. Either way the
// workflow answers [QuerySnapshot] with the record so far.
package temporaltool
