package agenttool

import "time"

// idleTimeout is how long a goroutine of a turn waits for its next call
// before it ends. A turn's calls come in bursts (one model response after
// another), and reusing a goroutine whose stack has already grown spares
// each call a new goroutine and its stack growth; an idle goroutine still
// ends soon, also in a turn that nobody closes, and inside a
// testing/synctest bubble, where it ends as soon as nothing else can move.
const idleTimeout = 50 * time.Millisecond

// worker is a goroutine of a turn that runs user tools, one call at a time.
type worker struct {
	calls chan workItem // unbuffered: a call is handed to a waiting worker
	// idle bounds each wait for a call. It is reused: since Go 1.23 (this
	// module's go line is later) Stop and Reset leave no stale tick in the
	// channel, so a timer that fired while a call arrived cannot end the
	// next wait early.
	idle *time.Timer
}

type workItem struct {
	job     job
	results chan<- outcome
}

// dispatch runs j on a goroutine of the turn's: an idle one if there is
// one, else a new one. The outcome goes to results.
func (t *Turn) dispatch(j job, results chan<- outcome) {
	t.mu.Lock()
	var w *worker
	if n := len(t.idle); n > 0 {
		w, t.idle = t.idle[n-1], t.idle[:n-1]
	}
	t.mu.Unlock()
	if w == nil {
		w = &worker{calls: make(chan workItem)}
		go t.serve(w, workItem{job: j, results: results})
		return
	}
	w.calls <- workItem{job: j, results: results}
}

// serve runs calls handed to w until the turn ends or no call comes for
// idleTimeout. A tool that ends the goroutine without returning ends serve
// too; execute has sent its outcome.
func (t *Turn) serve(w *worker, item workItem) {
	for {
		item.results <- t.execute(item.job, item.results)
		var ok bool
		if item, ok = t.next(w); !ok {
			return
		}
	}
}

// next parks w among the idle workers and waits for its next call. It
// reports false when w should end: the turn has ended, or no call came in
// time and nobody has taken w from the idle list. Once taken, w must take
// the call its taker is about to hand over.
func (t *Turn) next(w *worker) (workItem, bool) {
	t.mu.Lock()
	if t.ended || t.ctx.Err() != nil {
		t.mu.Unlock()
		return workItem{}, false
	}
	t.idle = append(t.idle, w)
	t.mu.Unlock()
	if w.idle == nil {
		w.idle = time.NewTimer(idleTimeout)
	} else {
		w.idle.Reset(idleTimeout)
	}
	defer w.idle.Stop()
	select {
	case item := <-w.calls:
		return item, true
	case <-t.ctx.Done():
	case <-w.idle.C:
	}
	t.mu.Lock()
	for i, x := range t.idle {
		if x == w {
			t.idle = append(t.idle[:i], t.idle[i+1:]...)
			t.mu.Unlock()
			return workItem{}, false
		}
	}
	t.mu.Unlock()
	return <-w.calls, true
}
