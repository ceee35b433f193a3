package temporaltool

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"time"
	"weak"

	"go.temporal.io/sdk/workflow"

	"github.com/agenttool/agenttool"
)

// record is the state of one workflow execution's calls, across batches:
// what QuerySnapshot answers. Its methods lock mu because queries are
// answered outside the workflow's coroutines.
type record struct {
	mu     sync.Mutex
	seq    uint64
	blocks []agenttool.ToolBlock
	final  bool
	busy   bool // a batch is running
}

// records holds the record of every workflow execution that this process
// runs, keyed by the execution's *workflow.Info. The SDK makes one Info per
// execution it holds in memory, and a new one when it replays the execution
// from its history, so a replay starts from an empty record, as the
// workflow's own variables do. The key is weak and the entry is dropped once
// the Info is collected, when the SDK lets go of the execution.
var records = struct {
	sync.Mutex
	m map[weak.Pointer[workflow.Info]]*record
}{m: make(map[weak.Pointer[workflow.Info]]*record)}

// recordOf returns the record of the workflow execution that ctx belongs
// to, making it, and the handler of QuerySnapshot, on first use.
func recordOf(ctx workflow.Context) (*record, error) {
	info := workflow.GetInfo(ctx)
	key := weak.Make(info)
	records.Lock()
	r, ok := records.m[key]
	if !ok {
		r = &record{}
		records.m[key] = r
		runtime.AddCleanup(info, forget, key)
	}
	records.Unlock()
	if ok {
		return r, nil
	}
	if err := workflow.SetQueryHandler(ctx, QuerySnapshot, r.snapshot); err != nil {
		return nil, fmt.Errorf("temporaltool: answering %s: %w", QuerySnapshot, err)
	}
	return r, nil
}

func forget(key weak.Pointer[workflow.Info]) {
	records.Lock()
	delete(records.m, key)
	records.Unlock()
}

func (r *record) idle() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.busy
}

func (r *record) setBusy(busy bool) {
	r.mu.Lock()
	r.busy = busy
	r.mu.Unlock()
}

// add adds calls as pending blocks, each with its own copy of the
// arguments, and returns the index of the first.
func (r *record) add(calls []agenttool.ToolCall) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	base := len(r.blocks)
	for _, c := range calls {
		c.Args = bytes.Clone(c.Args)
		r.blocks = append(r.blocks, agenttool.ToolBlock{Call: c, Status: agenttool.StatusPending})
	}
	r.seq++
	return base
}

// start marks blocks [from, to) running.
func (r *record) start(from, to int, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := from; i < to; i++ {
		r.blocks[i].Status, r.blocks[i].StartedAt = agenttool.StatusRunning, now
	}
	r.seq++
}

// settle records the outcome of block i, as a Turn does: failed when
// unsuccessful, with an Error even when the tool gave none.
func (r *record) settle(i int, out callOutput, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := &r.blocks[i]
	res := out.Result
	b.EndedAt, b.Progress = now, out.Progress
	switch {
	case !res.Success:
		b.Status, b.Result = agenttool.StatusFailed, res
		if b.Result.Error == "" {
			b.Result.Error = fmt.Sprintf("tool %q failed without saying why", b.Call.Name)
		}
	default:
		b.Status, b.Result = agenttool.StatusSucceeded, res
	}
	r.seq++
}

// cancel marks every block still pending or running cancelled, saying why.
func (r *record) cancel(why string, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.blocks {
		if b := &r.blocks[i]; !b.Status.Finished() {
			b.Status, b.Result, b.EndedAt = agenttool.StatusCancelled, agenttool.ToolResult{Error: why}, now
		}
	}
	r.seq++
}

// finish marks the record final and returns the final snapshot.
func (r *record) finish() agenttool.Snapshot {
	r.mu.Lock()
	r.final = true
	r.seq++
	r.mu.Unlock()
	s, _ := r.snapshot()
	return s
}

// snapshot answers QuerySnapshot: a copy of every block so far.
func (r *record) snapshot() (agenttool.Snapshot, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return agenttool.Snapshot{Seq: r.seq, Blocks: clone(r.blocks), Final: r.final}, nil
}

// batch returns a copy of blocks [from, from+n).
func (r *record) batch(from, n int) []agenttool.ToolBlock {
	r.mu.Lock()
	defer r.mu.Unlock()
	return clone(r.blocks[from : from+n])
}

func clone(blocks []agenttool.ToolBlock) []agenttool.ToolBlock {
	out := make([]agenttool.ToolBlock, len(blocks))
	for i, b := range blocks {
		b.Call.Args = bytes.Clone(b.Call.Args)
		out[i] = b
	}
	return out
}
