package agenttool

import "time"

// idleTimeout is about how long a goroutine of a turn waits for its next
// call before it ends. A turn's calls come in bursts (one model response
// after another), and reusing a goroutine whose stack has already grown
// spares each call a new goroutine and its stack growth; an idle goroutine
// still ends soon, also in a turn that nobody closes.
const idleTimeout = 50 * time.Millisecond

// worker is a goroutine of a turn that runs user tools, one call at a time.
// It waits for a call on calls alone, the cheapest wait there is; the turn
// closes calls to end it: when the turn ends, or when no call came for
// idleTimeout.
type worker struct {
	calls chan workItem // unbuffered: a call is handed to a waiting worker
}

type workItem struct {
	job     job
	results chan<- outcome
}

// dispatch runs j on a goroutine of the turn's: an idle one if there is
// one, else a new one. The outcome goes to results.
func (t *Turn) dispatch(j job, results chan<- outcome) {
	t.mu.Lock()
	t.dispatched++
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

// serve runs calls handed to w until the turn closes w.calls. A tool that
// ends the goroutine without returning ends serve too; execute has sent its
// outcome.
func (t *Turn) serve(w *worker, item workItem) {
	for {
		o := t.execute(item.job, item.results)
		// Park before answering, so that the goroutine waiting for the
		// answer finds this one already out of its way.
		parked := t.park(w)
		item.results <- o
		if !parked {
			return
		}
		var ok bool
		if item, ok = <-w.calls; !ok {
			return
		}
	}
}

// park puts w among the idle workers, unless the turn has ended, and makes
// sure the reaper will look at it.
func (t *Turn) park(w *worker) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended || t.ctx.Err() != nil {
		return false
	}
	t.idle = append(t.idle, w)
	// An idle worker must hear of the turn's end even if nobody calls a
	// method of the turn once its context has ended. Watching from here,
	// not from the first call, spares a turn whose calls are all still
	// running when it ends (a cancellation storm) a goroutine for end.
	t.watchLocked()
	if t.reaper == nil {
		t.reaped = t.dispatched
		t.reaper = time.AfterFunc(idleTimeout, t.reap)
	}
	return true
}

// reap ends the idle workers if no call was dispatched since it last ran,
// and otherwise looks again after idleTimeout.
func (t *Turn) reap() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dispatched != t.reaped && !t.ended {
		t.reaped = t.dispatched
		t.reaper.Reset(idleTimeout)
		return
	}
	t.releaseIdleLocked()
	t.reaper = nil
}

// releaseIdleLocked ends every idle worker. t.mu must be held.
func (t *Turn) releaseIdleLocked() {
	for _, w := range t.idle {
		close(w.calls)
	}
	t.idle = nil
}
